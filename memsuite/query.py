"""Query analysis: a query's terms, their weights, and the words the index never saw."""

from .chinese import function_spans, is_cjk
from .params import DEFAULT_PARAMS
from .records import UsageError, record
from .synonyms import expansions
from .tokenizer import text_units, cached_grams, expand, index_terms, tokenize


# Query analysis

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
    units = text_units(query)
    terms = expand(units)
    n_docs = store.chunk_count()
    if not terms or not n_docs:
        return Query([], {}, set(), [], [], [], {}, n_docs, [], {})
    own = own_weights(units, params)
    alternatives = expansions(units, store.root, params)
    extra = {}
    for word, weight in alternatives:
        for t in tokenize(word):
            if t not in terms:
                extra[t] = max(extra.get(t, 0.0), weight)
    distinct = list(dict.fromkeys(terms + list(extra)))[:4 * params.max_query_terms]
    dfs = store.doc_freqs(distinct)
    unknown = [t for t in dict.fromkeys(terms) if not dfs.get(t) and cached_grams(t)]
    prefixes = [t for t in dict.fromkeys(terms) if not dfs.get(t) and _is_long_code(t)]
    parts = _compound_parts(store, unknown, dfs)
    terms = [p for t in terms for p in parts.get(t, (t,))]
    known = sorted({t for t in terms if dfs.get(t)}, key=lambda t: (dfs[t], t))[:params.max_query_terms]
    keep = set(known)
    weights = {t: w for t, w in extra.items() if dfs.get(t)}
    weights.update((t, own.get(t, 1.0)) for t in keep)
    indexed = [p for t in expand(units, False) for p in parts.get(t, (t,))]
    indexed += [t for word, _ in alternatives for t in index_terms(word)]
    lone = _lone_chars(units)
    probe = [t for t in dict.fromkeys(indexed) if weights.get(t, 0) > params.function_weight
             and (not _is_unigram(t) or t in lone)]
    missing = {t: own.get(t, 1.0) for t in dict.fromkeys(terms) if not dfs.get(t) and t not in prefixes
               and not _is_unigram(t) and t not in parts and not any(c in t for c in "-_.:/@+")}
    return Query([t for t in terms if t in keep], weights, keep, probe, prefixes,
                 [t for t in unknown if t not in parts], dfs, n_docs,
                 [u for u in units.split() if is_cjk(u[0])], missing)


def own_weights(units, params=DEFAULT_PARAMS):
    """{term: weight} of a query's own CJK terms: a bigram inside a function
    word (什么时候, 是谁) weighs function_weight, one across a function word's
    edge cross_weight, a single character of a longer run unigram_weight;
    other terms weigh 1."""
    weights = {}

    def give(term, weight):
        weights[term] = max(weights.get(term, 0.0), weight)
    for run in units.split():
        if not is_cjk(run[0]) or len(run) == 1:
            continue
        fn = function_spans(run)
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
    return {u for u in units.split() if len(u) == 1 and is_cjk(u)}


def _is_unigram(term):
    return len(term) == 1 and is_cjk(term)


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
