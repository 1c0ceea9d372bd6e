"""Ranking: what a query asks (its terms, weights, topic and frame), its
candidates, the keyword (BM25) and vector (TF-IDF cosine) channels, the merge."""
import math
import re
from collections import Counter

from ..base.records import UsageError, record
from ..text.bm25 import bm25_idf, bm25_weight, log_tf, vector_norm
from ..text.chinese import (EN_FRAME_WORDS, SURNAMES, ZH_FREE_CHARS, fold, frame_spans,
                            function_spans, is_cjk, pair_binds, word_breaks)
from ..text.filler import is_filler
from ..text.params import DEFAULT_PARAMS
from ..text.tokenizer import (MAX_SPLIT_WORD, MAX_UNKNOWN_WORDS, text_units, cached_grams, check_query_length, expand,
                              index_terms, tokenize)
from .answers import answer_test, asks_now
from .dates import asked_dates, by_asked_days, day_notes, names_dates, on_asked_day, lazy_today
from .features import (candidate_features, holds_topic, is_unigram as _is_unigram, labels_query_word,
                       missing_share, own_mass, proximity, resemblance, topic_weights)
from .crosslingual import merge_passes, own_script, translated_query, untranslated, without_untranslated
from .lexicon import translations
from .results import Hits, build_passages as _passages, demote_duplicates, make_snippet
from .supersede import newest_first
from .synonyms import expansions

DEFAULT_LIMIT = 5
# The score from which a hit answers most of a query: SKILL.md tells agents so,
# the prompt hook injects nothing under it, and bench/calibration.py measures
# it.  Move all three together (tests/test_trust.py checks SKILL.md says it).
ANSWER_CUT = 0.4


# Query analysis

_FREE = "".join(sorted(ZH_FREE_CHARS))

Query = record("Query", "terms weights base probe prefixes unknown dfs n_docs runs missing topic frame stands foreign "
               "alts", [(), frozenset(), {}, frozenset(), {}])
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
                 "the query is all frame; the terms of its frame; for each term a "
                 "synonym or translation brings in, the terms of the query's word it stands for; "
                 "the words of its own language no note can hold; and, for each such term, "
                 "the synonyms or translations it is a term of.")


def analyse_query(store, query, params=DEFAULT_PARAMS, context=None):
    """Analyse a query against the index.  An unknown word made of two known
    ones ("roadtrip") is read as both; other unknown words are kept for the
    trigram channel ("Feedley" still meets "Feedly"); an unknown long number
    is looked for as the start of longer ones (an order number's first
    digits).  Chinese words bring in their regional spellings (資料庫 ->
    数据库) and everyday synonyms (电脑 -> 计算机), weighted below the words
    themselves.  Very long queries keep only their max_query_terms rarest
    distinct terms.  context: the conversation's turns (search/context.py),
    whose terms are added below the query's own."""
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
    alternatives = expansions(units, store.root, params)
    translated = translations(units, params)  # the other language's words (keyboard / 键盘)
    translated += name_forms(store, query, units, params)  # a name in the other script (王磊 / Wang Lei)
    if frame_words:  # what a frame word stands for is frame too (电话 -> 手机号, phone)
        framed = " ".join(frame_words)
        frame.update(t for word, _, _ in expansions(framed, store.root, params) + translations(framed, params)
                     for t in tokenize(word))
    extra, stands, alts = {}, {}, {}
    for word, weight, source in alternatives + translated:
        for t in tokenize(word):
            if t not in terms and not (_is_unigram(t) and len(word) > 1 and (word, weight, source) in translated):
                extra[t] = max(extra.get(t, 0.0), weight)  # (a translation's 都 of 京都 is no word)
                stands[t] = stands.get(t, frozenset()).union(tokenize(source))
                alts[t] = alts.get(t, frozenset()).union((word,))
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
    indexed += [t for word, _, _ in alternatives + translated for t in index_terms(word)]
    lone = _lone_chars(units)
    indexed += sorted(lone)
    probe = [t for t in dict.fromkeys(indexed) if weights.get(t, 0) > params.function_weight
             and (not _is_unigram(t) or t in lone)]
    missing = {t: own.get(t, 1.0) for t in dict.fromkeys(terms) if not dfs.get(t) and t not in prefixes
               and not _is_unigram(t) and t not in parts and not any(c in t for c in "-_.:/@+")}
    q = Query([t for t in terms if t in keep], weights, keep, probe, prefixes,
              [t for t in unknown if t not in parts], dfs, n_docs,
              [u for u in units.split() if is_cjk(u[0])], missing, topic, frozenset(frame),
              {t: source for t, source in stands.items() if t in weights},
              untranslated(store, missing, stands, dfs, weights), alts)
    if context:
        from .context import with_context
        q = with_context(store, q, context)
    return q


def name_forms(store, query, units, params=DEFAULT_PARAMS):
    """A query's names in the other script, as translations (search/names.py,
    loaded only for a query that may hold one: a Chinese run, or two Latin words)."""
    latin = sum(1 for u in units.split() if not is_cjk(u[0]))
    if latin < 2 and all(not is_cjk(u[0]) for u in units.split()):
        return []
    from .names import characters_in, latin_words, readings_in
    return readings_in(units, params) + (characters_in(store, latin_words(query), params) if latin >= 2 else [])


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
    own, unseen = topic_parts(q)
    return sorted(own, key=lambda t: (q.dfs[t], t)) + unseen


def topic_parts(q):
    """([topic terms the index holds], [topic words no note holds]) of an
    analysed query: its terms that weigh fully, outside its frame, no lone
    Chinese characters."""
    own = [t for t in q.base if q.weights.get(t, 0) >= 1.0 and t not in q.frame and not _is_unigram(t)]
    return own, [t for t, w in q.missing.items() if w >= 1.0 and t not in q.frame]


def is_long_prompt(terms, params=DEFAULT_PARAMS):
    """Whether a query is a whole chat turn rather than a question: it holds
    long_prompt_terms distinct words (Latin words, Chinese bigrams) or more."""
    return len({t for t in terms if not _is_unigram(t)}) >= params.long_prompt_terms


def is_chat_turn(query, params=DEFAULT_PARAMS):
    """Whether a query is a whole chat turn: long_prompt_terms distinct
    words or more, those no note holds included, a Chinese run counted by
    its words (chinese.word_breaks) rather than its character pairs (a
    question of twenty characters is still a question)."""
    units = text_units(query)
    if not is_long_prompt(expand(units), params):
        return False  # words are never more than pairs: no need for the word table
    words = set()
    for unit in units.split():
        if not is_cjk(unit[0]):
            words.add(unit)
            continue
        start = 0
        for i, cut in enumerate(word_breaks(unit) + [True]):
            if cut:
                words.add(unit[start:i + 1] if i > start else None)
                start = i + 1
    words.discard(None)
    return len(words) >= params.long_prompt_terms


def several_sentences(query):
    """Whether a prompt says more than one sentence ("Understood. 3 litres
    it is for today."): a short chat turn, not a question, however few its
    words.  Only a full stop, an exclamation or a question mark or a
    semicolon before its last word can end one (questions.sentences,
    loaded only then)."""
    query = " ".join(query.split())  # a line break alone ends no sentence ("rss\nconfig")
    if not any(c in query.rstrip(" .!?。！？;；") for c in ".!?。！？;；"):
        return False
    from .questions import sentences
    return sum(1 for s in sentences(query) if any(c.isalnum() for c in s)) > 1  # ("'; DROP TABLE x; --": one)


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



# Candidates, as the channels see them

Candidate = record("Candidate", "row lines body head length words norm")
Candidate.__doc__ = ("A chunk being ranked: its StoredChunk, the scoring terms of each "
                     "line (for proximity), the term counts of its body and heading, its length "
                     "in index terms (BM25's), its Latin words as '^word$' (for trigrams), and "
                     "its vector length.")


def make_candidates(rows, params=DEFAULT_PARAMS):
    """{key: Candidate}: each fetched chunk's terms, expanded from its stored
    units (overlapping chunks share lines, so each line is expanded once)."""
    cache = {}
    out = {}
    for key, row in rows.items():
        lines, body = [], Counter()
        for units in row.units:
            terms = cache.get(units)
            if terms is None:
                terms = cache[units] = expand(units)
            body.update(terms)
            lines.append(terms)
        head = Counter(expand(row.head_units)) if row.head_units else Counter()
        words = [t for t in filter(str.isalpha, filter(str.isascii, body)) if len(t) >= 4]  # filter: no loop in Python
        words += [t for t in head if t not in body and t.isascii() and len(t) >= 4 and t.isalpha()]
        out[key] = Candidate(row, lines, body, head, row.length, " ".join("^%s$" % t for t in sorted(words)),
                             vector_norm(row.norm_terms, row.n_grams, params.gram_weight))
    return out


# The channels and the merge

def discount_longer_words(candidates, query, store, params=DEFAULT_PARAMS):
    """Count less a query word's occurrences that are part of a longer word:
    李明 inside 李明轩, 王娟 inside 王娟娟.  An occurrence continues into a
    longer word (in the body or the heading) when the character beside it
    is not the query's own next (or previous) one and binds to it as words do in this folder: the pair
    recurs, and its pointwise mutual information (from document
    frequencies) passes word_cohesion.  Such occurrences count
    longer_word_share of one, and a line holding the word only so does not
    hold it for proximity.  Changes the candidates' term counts; returns
    the (key, bigram) pairs of chunks holding the word only so."""
    found = []  # (key, line number in the chunk (-1: its heading), bigram, [pairs beside it])
    for bigram, before, after in _content_bigrams(query):
        for key, c in candidates.items():
            for n, units in enumerate(c.row.units + (c.row.head_units or "",)):
                if bigram not in units:  # most lines: no unit to look at
                    continue
                n = -1 if n == len(c.row.units) else n
                for unit in units.split():
                    at = unit.find(bigram)
                    while at >= 0:
                        sides = []
                        if at and unit[at - 1] != before:
                            sides.append(unit[at - 1] + bigram[0])
                        if at + 2 < len(unit) and unit[at + 2] != after:
                            sides.append(bigram[1] + unit[at + 2])
                        sides = [p for p in sides if not set(p) & ZH_FREE_CHARS]
                        found.append((key, n, bigram, sides))
                        at = unit.find(bigram, at + 1)
    pairs = {p for _, _, _, sides in found for p in sides}
    if not pairs:
        return set()
    dfs = store.doc_freqs(sorted(pairs | {ch for p in pairs for ch in p}))
    clean = set()  # (key, line, bigram) with an occurrence of the word itself
    for key, n, bigram, sides in found:
        together = params.word_together if bigram[0] in SURNAMES else None  # 张伟 in 张伟明
        if any(pair_binds(p, dfs, query.n_docs, params.word_cohesion, together) for p in sides):
            counts = candidates[key].head if n < 0 else candidates[key].body
            counts[bigram] = max(0.0, counts[bigram] - (1.0 - params.longer_word_share))
        else:
            clean.add((key, n, bigram))
    for key, n, bigram, sides in found:
        if n >= 0 and (key, n, bigram) not in clean:
            line = candidates[key].lines[n]
            candidates[key].lines[n] = [t for t in line if t != bigram]
    alone = {(key, bigram) for key, _, bigram in clean}
    only_longer = {(key, bigram) for key, _, bigram, _ in found if (key, bigram) not in alone}
    _discount_name_characters(candidates, only_longer, params)
    return only_longer


def _discount_name_characters(candidates, only_longer, params):
    """In a chunk naming a person only by a longer name (张伟明 for 张伟),
    the characters of the query's name count longer_word_share too: a name
    never matches inside a longer one.  Only names (a surname first): the
    characters of other words recur in words of their own."""
    for key, bigram in only_longer:
        if bigram[0] in SURNAMES:
            c = candidates[key]
            for term in bigram:
                for counts in (c.body, c.head):
                    if counts.get(term):
                        counts[term] *= params.longer_word_share


def _content_bigrams(query):
    """(bigram, the query character before it, after it) of each bigram of a
    query's CJK runs that lies inside its content words."""
    out = []
    for run in query.runs:
        fn = function_spans(run)
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
    n_docs = max(query.n_docs, params.rarity_docs)
    idf = {t: bm25_idf(n_docs, query.dfs[t]) for t in query.weights}
    whole = topic_weights(query)
    scale = sum(w * idf[t] for t, w in whole.items() if t in query.base)
    prefix_counts = {}
    for p in query.prefixes:
        prefix_counts[p] = {key: sum(n for t, n in c.body.items() if t.startswith(p))
                            for key, c in candidates.items()}
        holding = sum(1 for n in prefix_counts[p].values() if n)
        idf[p] = bm25_idf(n_docs, max(holding, 1))
        scale += idf[p]
    # words no note holds count too: a hit holding one of a query's three
    # words answers a third of it, though the other two are nowhere
    missing_idf = bm25_idf(n_docs, 0)
    scale += sum(w * missing_idf for t, w in whole.items() if t in query.missing)
    scale = scale or 1.0
    scores = {}
    for key, c in candidates.items():
        bm25, standing = 0.0, {}
        for t, w in query.weights.items():
            tf = c.body.get(t, 0) + params.heading_weight * c.head.get(t, 0)
            if tf:
                part = w * bm25_weight(tf, idf[t], c.length, avg_length)
                if t in query.stands:
                    held = standing.setdefault(query.stands[t], [{}, ""])  # ({stand-in: its part}, the terms held)
                    for alt in query.alts.get(t, (t,)):
                        held[0][alt] = held[0].get(alt, 0.0) + part
                    held[1] += t
                else:
                    bm25 += part
        for source, (parts, held_terms) in standing.items():  # a synonym or translation stands in for its word:
            # the best one counts (a note saying attend and join has not answered 参加 twice)
            bm25 += max(parts.values()) * _lacking(source, c, query, idf, missing_idf, held_terms)
        for p, counts in prefix_counts.items():
            if counts[key]:
                bm25 += bm25_weight(counts[key], idf[p], c.length, avg_length)
        for word in query.unknown:  # a typo holds as much as it resembles a word of the chunk
            like = resemblance(word, c.words)
            if like and word in query.missing:
                bm25 += like * query.missing[word] * bm25_weight(1, missing_idf, c.length, avg_length)
        scores[key] = 1.0 - math.exp(-params.keyword_scale * bm25 / scale)
    return scores


def _lacking(source, c, query, idf, missing_idf, held_terms=""):
    """The share of a query word's terms (by weight and idf) a chunk lacks.
    The word's synonyms and translations (held_terms: their terms the chunk holds)
    count for that share of what they hold, never adding to the word:
    计算神经科学 holds 计算 of 计算机, so its 'Computational' counts for 算机
    and 机 alone; a chunk without the word gets all of it (东京 for Tokyo).
    A character the stand-in shares (库 of 数据库 and 资料库) is not the word's."""
    lacking = whole = 0.0
    for s in source:
        if _is_unigram(s) and s in held_terms:
            continue
        if s in query.missing:
            mass = query.missing[s] * missing_idf
        elif s in query.weights and s not in query.stands:
            mass = query.weights[s] * idf[s]
        else:
            continue
        whole += mass
        if not c.body.get(s, 0) + c.head.get(s, 0):
            lacking += mass
    return lacking / whole if whole else 1.0


def query_vector(query, store, params=DEFAULT_PARAMS):
    """ltc query weights {feature: weight} of unit length: log tf x idf (x the
    term's weight) for terms, gram_weight x idf for the trigrams of its
    Latin words."""
    counts = Counter(query.terms + query.unknown)
    grams = set()
    for t in counts:
        grams.update(cached_grams(t))
    gram_dfs = store.doc_freqs(sorted(grams)) if grams else {}
    weights = {}
    for term, w in query.weights.items():
        weights[term] = w * log_tf(counts.get(term, 1)) * math.log(1 + query.n_docs / query.dfs[term])
    for gram, df in gram_dfs.items():
        weights[gram] = params.gram_weight * math.log(1 + query.n_docs / df)
    absent = sum((w * math.log(1 + query.n_docs)) ** 2 for w in query.missing.values())
    norm = math.sqrt(sum(w * w for w in weights.values()) + absent) or 1.0
    return {f: w / norm for f, w in weights.items()}


def vector_channel(candidates, qvec, params=DEFAULT_PARAMS):
    """{key: cosine} of each candidate against the query vector."""
    qterms = [f for f in qvec if f[0] != "#"]
    qgrams = [(f[1:], w) for f, w in qvec.items() if f[0] == "#"]  # "#onf" -> "onf"
    scores = {}
    for key, c in candidates.items():
        dot = sum(qvec[t] * log_tf(c.body.get(t, 0) + c.head.get(t, 0)) for t in qterms
                  if t in c.body or t in c.head)
        if qgrams:  # a trigram is in the chunk iff it is a substring of its ^word$ list
            dot += params.gram_weight * sum(w for g, w in qgrams if g in c.words)
        scores[key] = min(1.0, dot / c.norm)
    return scores


MODES = ("hybrid", "keyword", "vector")


def search(store, query, limit=DEFAULT_LIMIT, mode="hybrid", min_score=None, filters=None,
           params=None, sync=False, context=None):
    """Rank the memory's chunks for a query: Hits (a list of Hit, best first,
    and the channels that scored them).

    Hits scoring under min_score are left out; by default (None), those under
    score_floor or under relative_floor of the best hit (the noise beside a
    real answer).  min_score=0 keeps every hit.

    With sync=True the index is brought up to date first (the freshness
    policy of MemoryStore.answer_fresh; hits.stale says if it could not be,
    hits.checked what a watcher vouched for).
    BM25 picks the candidates, the TF-IDF cosine re-scores them, the best
    rerank_depth get a bonus for holding the query in one line, and hits that
    touch in the same file are merged into one passage.  context: the
    conversation's last turns (search/context.py Turn), their words weighed
    below the query's own."""
    if mode not in MODES:
        raise UsageError("unknown mode %r (use hybrid, keyword or vector)" % mode)
    params = params or store.params
    if sync:
        hits, fresh = store.answer_fresh(lambda: search(store, query, limit, mode, min_score, filters, params,
                                                        context=context))
        hits.stale, hits.checked = fresh
        return hits
    with store.snapshot():  # candidates and their text from one committed index
        if (params.feedback_docs and min_score is None and store.embedder is None and not context
                and not is_chat_turn(query, params)):  # (a caller's cut is on each hit's own score)
            hits = _with_feedback(store, query, limit, mode, min_score, filters, params)
        else:
            hits = _search(store, query, limit, mode, min_score, filters, params, context)
        answered = hits and hits[0].score >= ANSWER_CUT  # (measured: searching again then changed nothing)
        other = "" if answered else translated_query(store, query, params)  # a question in the other language
        return merge_passes(hits, _search(store, other, limit, mode, min_score, filters, params, context, True),
                            limit) if other else hits


def _with_feedback(store, query, limit, mode, min_score, filters, params):
    """A question searched (min_score None: the default floors), then,
    unless its best hit reaches the cut, again with its best hits' words
    (search/feedback.py): the order of the search again, the first search's
    scores, under the same floors."""
    from .feedback import with_first_scores
    first = _search(store, query, max(limit, params.feedback_docs), mode, min_score, filters, params)
    again = _search(store, query, limit, mode, 0.0, filters, params, feedback=first) \
        if first and first[0].score < ANSWER_CUT else None
    if not again:
        del first[limit:]
        return first
    hits = with_first_scores(again, first)
    hits[:] = [h for h in hits if h.score >= shown_floor(hits, min_score, first.evidence, params)]
    return hits


def shown_floor(hits, min_score, evidence, params):
    """The least score shown: min_score, else by default score_floor (times
    a chat turn's evidence) or relative_floor of the best hit, whichever is
    higher (the noise beside a real answer)."""
    if min_score is not None:
        return min_score
    return max(params.score_floor * evidence, params.relative_floor * hits[0].score) if hits else 0.0


def semantic_share(store, query, params):
    """The semantic channel's share of a query's score: semantic_weight, but
    none for a query of numbers alone (a phone or order number has no meaning
    to compare), and semantic_weight_cjk for a query holding Chinese unless
    the model reads Chinese (Wi-Fi 密码 is noise to an English model)."""
    if not any(c.isalpha() for c in query):
        return 0.0
    if not getattr(store.embedder, "multilingual", False) and any(is_cjk(c) for c in query):
        return params.semantic_weight_cjk
    return params.semantic_weight


def _search(store, query, limit, mode, min_score, filters, params, context=None, translation=False, feedback=None):
    asked = asked_dates(query, lazy_today(filters.today if filters else None))
    # its relative dates stay words too: 'last year' meets 'last year we...'; asked_q is the question as asked
    # (its marks, the gate's): the first search's when this one adds its best hits' words (search/feedback.py)
    asked_q = q = feedback.analysed if feedback else analyse_query(store, query, params, context)
    if feedback:
        from .context import with_terms
        from .feedback import feedback_terms
        q = with_terms(q, feedback_terms(store, feedback, set(q.weights) | set(q.missing), params))
    channels = ["keyword"] + (["vector"] if mode != "keyword" else [])
    share = semantic_share(store, query, params) if store.embedder is not None and mode == "hybrid" else 0.0
    lexical = q.probe or q.unknown or q.prefixes
    if not lexical and not share and not (asked.only or asked.spans):  # no known word, no meaning, no day named
        return Hits([], channels)
    long_prompt = is_chat_turn(query, params)  # (measured: short questions lose by what follows)
    pool = params._replace(candidate_pool=params.turn_pool) if long_prompt else params
    rows = find_candidates(store, q, filters, pool) if lexical else {}
    if asked.only or asked.spans:  # a question naming a day (上周三, ten days ago) is asked of that day's notes,
        rows.update(day_notes(store, asked, filters))  # which its words may miss (膝关节 for 膝盖)
    semantic = {}
    if share > 0:
        from .embeddings import semantic_channel
        semantic, rows = semantic_channel(store, query, rows, filters, params)
    share = share if semantic else 0.0
    channels += ["semantic"] if semantic else []
    candidates = make_candidates(rows, params)
    bound = discount_longer_words(candidates, q, store, params) or set()
    avg_length = (store.total_terms() / float(q.n_docs)) or 1.0
    scored = lambda sub: _scores(store, sub, candidates, rows, mode, share, semantic,  # noqa: E731
                                 avg_length, asked, params, query)
    keyword, vector, merged, order = scored(q)
    for sub in (_questions(query, q) if _asks_apart(query, merged, params) else ()):
        for k, score in scored(sub)[2].items():  # a hit answering one of the prompt's questions
            merged[k] = max(merged[k], score)
        order = sorted(rows, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
    if params.file_weight > 0 and long_prompt:
        merged.update(file_evidence(rows, merged, params))
        order = sorted(rows, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
    names = () if translation else latin_names(query, q)  # (a translation keeps its untranslated words)
    if names and params.name_share < 1.0:
        order = without_the_name(order, candidates, merged, names, params)
    if asked.spans or asked.only:
        order = by_asked_days(order, rows, merged, asked, params)
    if q.topic and not asked.only:  # a question that is only a date: its words name the day, not a topic
        order = frame_only(order, candidates, merged, q, params, bound)
    if params.recent_half_life > 0:  # opt-in (--recent): loaded only when asked for
        from .recency import prefer_recent
        order = prefer_recent(store, order, rows, merged, params)
    elif long_prompt and params.turn_half_life > 0:  # a chat turn continues recent conversations...
        from .recency import prefer_recent_turns, tells_something
        if tells_something(query):  # ...unless it only asks questions (facts, whatever their age)
            order = prefer_recent_turns(store, order, rows, merged, params)
    earlier = {}
    if mode == "hybrid" and params.supersede_share < 1.0:  # the newest statement of a fact first
        now = not long_prompt and asks_now(query)  # (how things stand now: the newest statement answers)
        order, earlier = newest_first(order, candidates, merged, q, params, now)
    repeats = set()
    if params.duplicate_share < 1.0:  # near-duplicate suppression (results.py)
        order, repeats = demote_duplicates(order, candidates, merged, q, params, min_score)
    evidence = 1.0  # a chat turn, long or of several short sentences, scaled by its topic words
    if params.topic_prior > 0 and (long_prompt or several_sentences(query)):
        evidence = topic_evidence(q, params)
    if evidence != 1.0 and merged:  # the same factor for every hit: the order stays...
        evidence = min(evidence, 1.0 / max(max(merged.values()), 1e-9))  # ...and no score over 1, so it divides out
        merged = {k: v * evidence for k, v in merged.items()}
    merged = without_untranslated(merged, q, params)  # a Chinese question of English notes

    hits = _passages(order, rows, merged, keyword, vector, params, min_score or 0.0, semantic)
    if min_score is None and hits:
        floor = shown_floor(hits, None, evidence, params)  # the same hits shown
        hits = [h for h in hits if h.score >= floor]
    if params.spread_share < 1.0 and long_prompt:
        hits = spread_files(hits, params.spread_share)
    qterms = set(asked_q.weights)
    hits = hits[:limit]
    shown = {h.path for h in hits}  # the lines a snippet reads, with their units as stored
    analysed = {line: units for r in rows.values() if r.path in shown
                for line, units in zip(r.text.split("\n"), r.units)}
    hits = [h._replace(snippet=make_snippet(h.text, qterms, analysed=analysed)) for h in hits]
    out = Hits(hits, channels, [h.id for h in hits if (h.path, h.score) in repeats],
               _hit_ids(hits, {rows[old]: rows[new] for old, new in earlier.items()}))
    out.evidence, out.analysed = evidence, asked_q
    out.ranked = (order, merged, rows)  # the order the rules gave, and the features of each candidate, on demand
    out.features = lambda: candidate_features(q, candidates, keyword, vector, context=query_context(
        query, q, asked, long_prompt, bound, avg_length))
    return out


def query_context(query, q, asked, turn, bound, avg_length):
    """What every candidate's features read of the query as a whole
    (features.candidate_features)."""
    own, unseen = topic_parts(q)
    n = len(own) + len(unseen)
    return {"asked": asked, "turn": float(turn), "topic_n": n / (n + 5.0), "missing": missing_share(q),
            "bound": bound, "folded": fold(query), "wanted": answer_test(query), "avg_length": avg_length}


def _scores(store, q, candidates, rows, mode, share, semantic, avg_length, asked, params, query):
    """(keyword, vector, merged, order) of the candidates for an analysed
    query: the channels, their merge, and in hybrid mode the bonuses for
    the best hits (_rerank)."""
    keyword = keyword_channel(candidates, q, avg_length, params)
    vector = vector_channel(candidates, query_vector(q, store, params), params) if mode != "keyword" else {}
    w = {"hybrid": params.weight_keyword, "keyword": 1.0, "vector": 0.0}[mode]
    lex = {k: w * keyword.get(k, 0.0) + (1 - w) * vector.get(k, 0.0) for k in rows}
    merged = {k: (1 - share) * lex[k] + share * semantic.get(k, 0.0) for k in rows}
    if share and params.semantic_fusion == "rrf":
        merged = rank_fusion(rows, lex, semantic, merged, share, params.rrf_k)
    order = sorted(rows, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
    if mode == "hybrid":
        order = _rerank(order, candidates, merged, q, asked, params, fold(query),
                        answer_test(query) if params.when_weight > 0 else None)
    return keyword, vector, merged, order


def _asks_apart(query, merged, params):
    """Whether a prompt's questions are measured one by one: it holds a
    question mark, and no hit answers the prompt as a whole (all score under
    ANSWER_CUT; a hit holding most of two questions stays above one holding
    all of one)."""
    return bool(params.question_scores and ("?" in query or "？" in query)
                and max(merged.values(), default=0.0) < ANSWER_CUT)


def _questions(query, q):
    """The sub-queries of the questions a prompt asks on their own (search/
    questions.py, loaded only for a query holding a question mark)."""
    from .questions import questions_of
    return questions_of(query, q, _asks_topic)


def _asks_topic(term, weights, missing, q):
    """Whether a term of a question is a topic word: weighing fully, outside
    the frame, no lone Chinese character."""
    return weights.get(term, missing.get(term, 0.0)) >= 1.0 and term not in q.frame and not _is_unigram(term)


def topic_evidence(q, params=DEFAULT_PARAMS):
    """What a chat turn's scores are multiplied by, from how many topic words
    it has (topic_parts): a turn of topic_words words keeps its scores, one of
    fewer is lowered (a match on two words any conversation has is weak
    evidence), one of more is raised: n / (n + topic_prior), against that of
    topic_words.  Measured on RealMem (bench/calibration.py): the next
    persona's turns stay under the cut, more right answers reach it."""
    own, unseen = topic_parts(q)
    n, k, typical = len(own) + len(unseen), params.topic_prior, params.topic_words
    return n * (typical + k) / (typical * (n + k)) if n and typical > 0 and n + k > 0 else 1.0


def file_evidence(rows, merged, params=DEFAULT_PARAMS):
    """A long prompt's chunks ordered by their own score blended with their
    file's (file_weight of it): a chat turn refers back to a whole earlier
    conversation, whose several chunks each hold part of it (passage-to-
    document evidence).  A file's evidence is the chance one of its best
    chunks answers, the k-th counting file_decay^k of its score (noisy-or:
    a file of one chunk is that chunk).  The blend is scaled so the best
    keeps the best chunk's own score: the top hit's scale, which the cut
    (ANSWER_CUT) reads, stays what it was."""
    by_file = {}
    for key, score in merged.items():
        by_file.setdefault(rows[key].path, []).append(score)
    evidence = {}
    for path, scores in by_file.items():
        missed = 1.0
        for i, score in enumerate(sorted(scores, reverse=True)[:8]):
            missed *= 1.0 - score * params.file_decay ** i
        evidence[path] = 1.0 - missed
    w = params.file_weight
    blended = {k: (1 - w) * s + w * evidence[rows[k].path] for k, s in merged.items()}
    top = max(blended.values(), default=0.0)
    scale = max(merged.values(), default=0.0) / top if top else 0.0
    return {k: s * scale for k, s in blended.items()}


def spread_files(hits, share):
    """A long prompt's hits with each file's k-th hit ordered as if it scored
    share^k of its score, so a page of results reaches more conversations
    (the i-th hit keeps the i-th best score)."""
    seen, spread = Counter(), []
    for h in hits:
        spread.append((h.score * share ** seen[h.path], len(spread), h))
        seen[h.path] += 1
    order = [h for _, _, h in sorted(spread, key=lambda x: (-x[0], x[1]))]
    scores = sorted((h.score for h in hits), reverse=True)
    return [h._replace(score=s) for h, s in zip(order, scores)]


def _hit_ids(hits, pairs):
    """{older hit id: newer hit id} for the (older, newer) chunks both shown."""
    def hit_of(row):
        return next((h.id for h in hits if h.path == row.path and h.start_line <= row.start_line <= h.end_line), None)
    found = {hit_of(old): hit_of(new) for old, new in pairs.items()}
    return {old: new for old, new in found.items() if old and new}


def rank_fusion(rows, lexical, semantic, weighted, share, k):
    """Reciprocal-rank fusion of the lexical and semantic orders, mapped onto
    the weighted sum's scale: the hit RRF puts i-th gets the i-th best
    weighted score, so the scores stay in [0, 1], fall with the rank, and a
    search keeps the same scores above --min-score as the weighted sum."""
    def ranks(scores):
        order = sorted(rows, key=lambda key: (-scores.get(key, 0.0), rows[key].path, rows[key].ordinal))
        return {key: i + 1 for i, key in enumerate(order) if scores.get(key, 0.0) > 0}
    by_lexical, by_meaning = ranks(lexical), ranks(semantic)
    fused = {key: (1 - share) / (k + by_lexical[key]) if key in by_lexical else 0.0 for key in rows}
    for key, rank in by_meaning.items():
        fused[key] += share / (k + rank)
    order = sorted(rows, key=lambda key: (-fused[key], rows[key].path, rows[key].ordinal))
    return dict(zip(order, sorted(weighted.values(), reverse=True)))


def frame_only(order, candidates, merged, query, params=DEFAULT_PARAMS, bound=()):
    """A hit holding the query's frame (电话, 名字叫, phone number) but none
    of its topic answers another question (someone else's phone): it keeps
    frame_only_share of its score, never more than that share of the cut of
    an answer (ANSWER_CUT) or of the weakest hit holding the topic, below
    which it ranks."""
    holders = [k for k in order if holds_topic(candidates[k], query, k, bound)]
    others = [k for k in order if k not in set(holders)]
    ceiling = params.frame_only_share * min([ANSWER_CUT] + [merged[k] for k in holders])
    for key in others:
        merged[key] = min(merged[key] * params.frame_only_share, ceiling)
    rows = {k: c.row for k, c in candidates.items()}
    rank = lambda k: (-merged[k], rows[k].path, rows[k].ordinal)  # noqa: E731
    return sorted(holders, key=rank) + sorted(others, key=rank)


_WORD_OR_CJK = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*|[^\x00-\u2fff]")  # a Latin word, or a CJK character or mark


def latin_names(query, q):
    """The words in Latin letters of a Chinese question that stand among its
    Chinese alone, in pairs or in a run without stop words (Maria练过,
    John和Max, Nike Air Zoom的; not an English clause: "Also, when is my
    dentist appointment?"), that the index holds and no
    translation or synonym the index holds stands for: its names (John,
    OpenClaw, Bart), which a Chinese question rarely has any other reason to
    spell so."""
    units = text_units(query)
    if own_script(units) != "zh":
        return ()
    runs, run = [], []  # the runs of Latin words between CJK
    for token in _WORD_OR_CJK.findall(query) + ["。"]:
        if token[0].isascii():
            run.append(token)
        else:
            runs += [run] if run else []
            run = []
    stood_for = set().union(*q.stands.values()) if q.stands else set()
    names = []
    for r in runs:
        kept = [text_units(w) for w in r]
        if len(r) <= 2 or all(kept):  # (a clause has stop words)
            names += [u for k in kept for u in k.split()]
    return tuple(u for u in dict.fromkeys(names) if not u[0].isdigit() and q.dfs.get(u) and u not in stood_for)


def without_the_name(order, candidates, merged, names, params=DEFAULT_PARAMS):
    """A hit holding none of a Chinese question's Latin names is about
    someone or something else (a note of another person's yoga class for
    "Maria练过哪些瑜伽"): it keeps name_share of its score.  Done on the
    order by score, before the rules that reorder it (the asked day, the
    frame only)."""
    for key in order:
        c = candidates[key]
        if not any(c.body.get(t, 0) + c.head.get(t, 0) for t in names):
            merged[key] *= params.name_share
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))


def _rerank(order, candidates, merged, q, dates, params, folded="", wanted=None):
    """Bonuses for the best hits: the query in one line (proximity), a
    file dated on a day the query names or a line that happened then
    ("yesterday" in a note of the next day), and a text holding the kind
    of thing the question asks for (wanted: answers.answer_test; a time
    for "when", an amount for "how much") (kept in [0, 1] by renormalising)."""
    # words no note holds count in the whole (a line holding one word of four
    # the folder lacks holds a quarter of the query, as the keyword channel says)
    mass, stand_ins = own_mass(q)
    held = {key for key in order if names_dates(dates) and on_asked_day(
        dates, candidates[key].row.date, candidates[key].row.text, candidates[key].row.heading or "")}
    # relative days no hit is of (LoCoMo's "last year", read against today) change no score
    dated = names_dates(dates) and (dates.absolute or held)
    scale = 1 + params.proximity_weight + (params.date_weight if dated else 0.0)
    scale += params.when_weight if wanted else 0.0
    for i, key in enumerate(order):
        score = merged[key]
        if i < params.rerank_depth:
            score += params.proximity_weight * proximity(candidates[key], mass, stand_ins)
        row = candidates[key].row
        if key in held:
            score += params.date_weight
        if wanted and i < params.rerank_depth and wanted(row.text):
            score += params.when_weight
        if i < params.rerank_depth and params.label_weight and labels_query_word(row.text, folded):
            score += params.label_weight
        merged[key] = min(1.0, score / scale)
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
