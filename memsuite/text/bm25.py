"""BM25: the one formula (FTS5's), used by both backends and the ranking."""
import math


_LOG_TF = [0.0] + [1.0 + math.log(n) for n in range(1, 64)]


def log_tf(n):
    """1 + ln(n), the sublinear term frequency of SMART 'l' weighting; a
    discounted count under one (李明 inside 李明轩 counts 0.2) weighs itself,
    never less than nothing."""
    if n.__class__ is int and n < 64:
        return _LOG_TF[n]
    return 1.0 + math.log(n) if n >= 1 else max(n, 0.0)


# --- BM25: the one formula (FTS5's), used by both backends and the ranking -

BM25_K1, BM25_B = 1.2, 0.75  # FTS5's built-in constants


def bm25_idf(n_docs, df):
    """FTS5's BM25 idf, never below a tiny positive floor."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return idf if idf > 0 else 1e-6


def bm25_weight(tf, idf, length, avg_length):
    """One term's BM25 contribution to a document of `length` terms."""
    return idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avg_length))


def vector_norm(norm_terms, n_grams, gram_weight):
    """A chunk's vector length: log-tf terms, trigrams at gram_weight."""
    return math.sqrt(norm_terms + gram_weight * gram_weight * n_grams) or 1.0
