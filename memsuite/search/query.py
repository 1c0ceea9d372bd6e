"""Query analysis: a query's terms, their weights, and the words the index never saw."""

from ..text.chinese import EN_FRAME_WORDS, EN_HOW_WORDS, EN_LIGHT_VERBS, ZH_FREE_CHARS, frame_spans, function_spans, is_cjk, word_breaks
from ..text.params import DEFAULT_PARAMS
from ..base.records import UsageError, record
from .lexicon import translations
from .synonyms import expansions
from ..text.filler import is_filler
from ..text.stemmer import stem
from ..text.tokenizer import (MAX_SPLIT_WORD, MAX_UNKNOWN_WORDS, text_units, cached_grams, check_query_length, expand,
                              index_terms, tokenize)


# Query analysis

_FREE = "".join(sorted(ZH_FREE_CHARS))

Query = record("Query", "terms weights base probe prefixes unknown dfs n_docs runs missing topic frame",
               [(), frozenset()])
Query.__doc__ = ("An analysed query: its scoring terms known to the index (repetitions kept); "
                 "the weight of every term that scores (its own, 1; the words its synonyms "
                 "and regional spellings bring in, less); its own terms (what a full match "
                 "holds); the distinct terms to ask the keyword index for (it holds CJK "
                 "bigrams, not unigrams); long numbers the index knows only as part of "
                 "longer ones (asked for as prefixes); its Latin words the index has never "
                 "seen (typos, compounds); document frequencies; the number of chunks; its "
                 "CJK runs; and the weight of each of its words the index does not hold "
                 "(a hit holds none of them, so they lower every score); and its topic, "
                 "the terms outside its question frame (电话, 名字, 来着), empty when "
                 "the query is all frame; and the terms of its frame.")


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
    check_query_length(query)
    if not query.isascii():  # undecodable bytes from a shell arrive as lone surrogates
        query = query.encode("utf-8", "replace").decode("utf-8")
    units = text_units(query)
    terms = expand(units)
    n_docs = store.chunk_count()
    if not terms or not n_docs:
        return Query([], {}, set(), [], [], [], {}, n_docs, [], {})
    own = own_weights(units, params)
    own.update(filler_weights(terms, params))
    frame, frame_words = frame_terms(units)
    frame.update(english_frame(query))
    alternatives = expansions(units, store.root, params)
    translated = translations(units, params)  # the other language's words (keyboard / 键盘)
    if frame_words:  # what a frame word stands for is frame too (电话 -> 手机号, phone)
        framed = " ".join(frame_words)
        frame.update(t for word, _ in expansions(framed, store.root, params) + translations(framed, params)
                     for t in tokenize(word))
    extra = {}
    for word, weight in alternatives + translated:
        for t in tokenize(word):
            if t not in terms and not (_is_unigram(t) and len(word) > 1 and (word, weight) in translated):
                extra[t] = max(extra.get(t, 0.0), weight)  # (a translation's 都 of 京都 is no word)
    distinct = list(dict.fromkeys(terms + list(extra)))[:4 * params.max_query_terms]
    dfs = store.doc_freqs(distinct)
    unknown = [t for t in dict.fromkeys(terms) if not dfs.get(t) and cached_grams(t)][:MAX_UNKNOWN_WORDS]
    prefixes = [t for t in dict.fromkeys(terms) if not dfs.get(t) and _is_long_code(t)]
    parts = _compound_parts(store, unknown, dfs)
    terms = [p for t in terms for p in parts.get(t, (t,))]
    known = sorted({t for t in terms if dfs.get(t)}, key=lambda t: (dfs[t], t))[:params.max_query_terms]
    keep = set(known)
    weights = {t: w for t, w in extra.items() if dfs.get(t)}
    weights.update((t, own.get(t, 1.0)) for t in keep)
    topic = _topic(units, terms, frame)
    if topic:  # a frame weighs less than the topic it asks about (measured: not at all is best)
        for t in frame:
            if t in weights:
                weights[t] = min(weights[t], params.frame_weight)
    indexed = [p for t in expand(units, False) for p in parts.get(t, (t,))]
    indexed += [t for word, _ in alternatives + translated for t in index_terms(word)]
    lone = _lone_chars(units)
    indexed += sorted(lone)
    probe = [t for t in dict.fromkeys(indexed) if weights.get(t, 0) > params.function_weight
             and (not _is_unigram(t) or t in lone)]
    missing = {t: own.get(t, 1.0) for t in dict.fromkeys(terms) if not dfs.get(t) and t not in prefixes
               and not _is_unigram(t) and t not in parts and not any(c in t for c in "-_.:/@+")}
    return Query([t for t in terms if t in keep], weights, keep, probe, prefixes,
                 [t for t in unknown if t not in parts], dfs, n_docs,
                 [u for u in units.split() if is_cjk(u[0])], missing, topic, frozenset(frame))


def frame_terms(units):
    """The terms of a query's question frame: its attribute and question
    words (ZH_FRAME_WORDS: 电话, 名字, 来着, 怎么样; EN_FRAME_WORDS: name,
    phone, birthday).  A bigram with one character in a frame word and the
    other outside it belongs to neither.  Returns (terms, the frame words as
    written, whose synonyms and translations are frame too)."""
    out, words = set(), []
    for unit in units.split():
        if not is_cjk(unit[0]):
            if unit in EN_FRAME_WORDS:
                out.add(unit)
                words.append(unit)  # its translations (phone -> 电话) are frame too
            continue
        marked = frame_spans(unit) + [False]
        start = None
        for i, c in enumerate(unit):
            if marked[i]:
                out.add(c)
                start = i if start is None else start
                if marked[i + 1]:
                    out.add(unit[i:i + 2])
                else:
                    words.append(unit[start:i + 1])
                    start = None
    return out, words


def english_frame(query):
    """The English frame words of a query beyond EN_FRAME_WORDS, as stems:
    a question word after "how" (long in "how long", not in "long-term")
    and the light verbs (take, get, happen) that carry a question."""
    import re
    words = re.findall(r"[a-z]+", query.lower()) if query.isascii() else re.findall(r"[A-Za-z]+", query.lower())
    out = {stem(w) for w in words if stem(w) in EN_LIGHT_VERBS}
    out.update(stem(b) for a, b in zip(words, words[1:]) if a == "how" and stem(b) in EN_HOW_WORDS)
    return out


def _topic(units, terms, frame):
    """What a query is about: its words outside its frame and function words,
    each as the terms that hold it (a Chinese word as its bigrams, trimmed
    of pronouns and particles at its edges: 我上司 -> 上司; a Latin word as
    itself), the words no note holds included (李娜 in 李娜的电话).  Empty
    when the query has no frame, or nothing but one (measured: asking every
    query's hits to hold a topic word cuts right answers that hold it only
    by a synonym or a prefix)."""
    if not any(t in frame for t in terms):
        return ()
    words = []
    for unit in units.split():
        if not is_cjk(unit[0]):
            if unit not in frame and unit in terms:
                words.append((unit,))
            continue
        fn, fr = function_spans(unit), frame_spans(unit)
        span = ""
        for i, c in enumerate(unit + "\0"):
            if i < len(unit) and not fn[i] and not fr[i]:
                span += c
                continue
            span = span.strip(_FREE)
            if len(span) >= 2:
                words.append(tuple(span[j:j + 2] for j in range(len(span) - 1)))
            span = ""
    return tuple(dict.fromkeys(words))


def topic_terms(store, prompt, params=None):
    """The words a prompt is about, rarest first: its own terms that weigh
    fully (no greetings, thanks or chat filler of a long prompt, no function
    or frame words, no lone Chinese characters), the words no note holds
    last.  Its search scores measure how much of these a hit holds, whatever
    the prompt's length (the prompt hook's gate relies on that)."""
    q = analyse_query(store, prompt, params or store.params)
    own = [t for t in q.base if q.weights.get(t, 0) >= 1.0 and t not in q.frame and not _is_unigram(t)]
    return sorted(own, key=lambda t: (q.dfs[t], t)) + [t for t, w in q.missing.items() if w >= 1.0 and t not in q.frame]


def is_long_prompt(terms, params=DEFAULT_PARAMS):
    """Whether a query is a whole chat turn rather than a question: it holds
    long_prompt_terms distinct words (Latin words, Chinese bigrams) or more."""
    return len({t for t in terms if not _is_unigram(t)}) >= params.long_prompt_terms


def filler_weights(terms, params=DEFAULT_PARAMS):
    """{term: filler_weight} for the chat words of a long prompt (text/filler.py):
    its topic is in its other words."""
    if not is_long_prompt(terms, params):
        return {}
    return {t: params.filler_weight for t in terms if is_filler(t)}


def own_weights(units, params=DEFAULT_PARAMS):
    """{term: weight} of a query's own CJK terms: a bigram inside a function
    word (什么时候, 是谁) weighs function_weight, one across a function word's
    edge cross_weight, one across the edge of two words in the question's
    frame (机号 in 手机号: 手机 号) break_weight, a single
    character of a longer run unigram_weight; other terms weigh 1."""
    weights = {}

    def give(term, weight):
        weights[term] = max(weights.get(term, 0.0), weight)
    for run in units.split():
        if not is_cjk(run[0]) or len(run) == 1:
            continue
        fn = function_spans(run)
        breaks = _frame_breaks(run) if len(run) > 2 and params.break_weight < 1.0 else [False] * len(run)
        for i in range(len(run) - 1):
            both, one = fn[i] and fn[i + 1], fn[i] or fn[i + 1]
            give(run[i:i + 2], params.function_weight if both else params.cross_weight if one
                 else params.break_weight if breaks[i] else 1.0)
        for i, c in enumerate(run):
            give(c, params.function_weight if fn[i] else params.unigram_weight)
    return weights


def _frame_breaks(run):
    """For each pair of neighbouring characters, whether a word boundary
    lies between them (chinese.word_breaks) with one of them in the
    question's frame (机号 in 张伟的手机号).  Between two topic words the
    pair stays: 入职体检 written so in a note is the phrase asked for, and
    so does one beside a free character (带货 in 直播带货销量)."""
    frame = frame_spans(run)
    if not any(frame):
        return [False] * len(run)  # no need for the word table (a cold query saves loading it)
    breaks = word_breaks(run)
    return [b and (frame[i] or frame[i + 1]) for i, b in enumerate(breaks)]


def _is_long_code(term):
    """A number or code long enough to name one thing (an order number), whose
    first part a user may type."""
    return len(term) >= 5 and any(c.isdigit() for c in term) and term.isascii() and term.isalnum()


def _lone_chars(units):
    """The one-character CJK words of a query: its one-character runs, and a
    content character between function words (猫 in 猫怎么样), which no
    content bigram of the query holds.  The index holds a run's last
    character as a term, and the bigrams a character starts, so they are
    asked for as prefixes."""
    out = set()
    for u in units.split():
        if not is_cjk(u[0]):
            continue
        if len(u) == 1:
            out.add(u)
            continue
        fn = function_spans(u)
        for i, c in enumerate(u):
            if not fn[i] and (i == 0 or fn[i - 1]) and (i + 1 == len(u) or fn[i + 1]):
                out.add(c)
    return out


def _is_unigram(term):
    return len(term) == 1 and is_cjk(term)


is_unigram = _is_unigram  # the public name: ranking.py asks it too


def _compound_parts(store, words, dfs):
    """{word: (left, right)} for unknown words that are two known words joined."""
    splits = {w: [(w[:i], w[i:]) for i in range(3, len(w) - 2)] for w in words if 6 <= len(w) <= MAX_SPLIT_WORD}
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
