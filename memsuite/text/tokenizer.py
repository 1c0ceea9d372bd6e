"""The one tokenizer, for the index and for queries: Latin words (stemmed), CJK runs
as bigrams, numbers and codes in their forms, and the vector channel's trigrams."""
import re
from operator import concat

from .chinese import is_cjk_char, fold
from ..base.patterns import pattern
from ..base.records import UsageError
from .stemmer import stem


# Analysis: the one tokenizer used for indexing and for queries.

# Runs of letters and digits, joined by connectors inside codes (KX-4471).
# CJK characters count as letters here and are split out afterwards.
_RUN_RE = re.compile(r"[^\W_]+(?:[-_.:/@+][^\W_]+)*")
_CONNECTORS_TO_SPACE = str.maketrans("-_.:/@+", "       ")

# Common English words that carry no meaning for search; dropping them keeps
# postings short and lets BM25 weigh the words that matter.
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because
been before being below between both but by can could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have
haven't having he he'd he'll he's her here here's hers herself him himself his how
how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
mustn't my myself no nor not of off on once only or other ought our ours ourselves
out over own same shan't she she'd she'll she's should shouldn't so some such than
that that's the their theirs them themselves then there there's these they they'd
they'll they're they've this those through to too under until up very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while
who who's whom why why's with won't would wouldn't you you'd you'll you're you've your
yours yourself yourselves s t d ll m re ve just also
""".split())


# A query's cost grows with its length (terms, prefixes, trigrams, splits of
# unknown words): every door refuses a longer one, so any query up to this
# answers within a few times a normal query (bench/long_query.py).
MAX_QUERY_CHARS = 2000
MAX_SPLIT_WORD = 40  # an unknown word longer than this is never read as two words joined
MAX_UNKNOWN_WORDS = 16  # unknown words (typos) matched by resemblance: each is a pass over every candidate


def check_query_length(query):
    """Refuse a query longer than MAX_QUERY_CHARS, in one line."""
    if len(query) > MAX_QUERY_CHARS:
        raise UsageError("query too long: %d characters (at most %d; shorten it to its key words)"
                         % (len(query), MAX_QUERY_CHARS))


def text_units(text):
    """The first stage of the tokenizer: text as space-separated units,
    Latin words as their terms (case-folded, stop words dropped, Porter
    stems; a code such as KX-4471 whole and in parts), each CJK run as it
    is, and numbers written in groups also as their digits (number_units).
    The index stores these units beside each line, so a query never stems a
    candidate's words again; expand() makes the terms."""
    folded = fold(text)
    extra = number_units(folded) if len(folded) - len(folded.translate(_NO_DIGITS)) >= 7 else []
    if folded.isascii():
        return " ".join([t for w in _RUN_RE.findall(folded) for t in _cached_word_terms(w)] + extra)
    units = []
    for i, part in enumerate(_split_cjk(folded)):
        if i % 2:
            units.append(part)
        elif part:
            for w in _RUN_RE.findall(part):
                units.extend(_cached_word_terms(w))
    return " ".join(units + extra)


_NO_DIGITS = str.maketrans("", "", "0123456789")


def number_units(text):
    """Extra units for the phone and account numbers in text, so that the
    ways people write one number meet: digit groups (138-0013-8000, 138 0013
    8000, (021) 6234-5678, +86 138 0013 8000) also as their digits alone
    (13800138000, and without the country or area code), and any number of
    7+ digits also by its last four (尾号 8000).  Dates are left alone."""
    out = []
    for m in pattern("number").finditer(text):
        plus, area, rest = m.group(1), m.group(2), m.group(3)
        groups = ([area] if area else []) + re.findall(r"\d+", rest)
        digits = "".join(groups)
        if len(digits) < 7 or pattern("iso_date").fullmatch(m.group(0).strip()):
            continue
        if len(groups) > 1:
            out.append(digits)
        if (plus or area) and len(groups) > 1:
            local = "".join(groups[1:])
            out.append(local)
            if plus:
                out.append("0" + local)  # national form with the trunk prefix: +886 912... = 0912...
        out.append(digits[-4:])
    return out


def expand(units, unigrams=True):
    """The second stage: terms from analysed units.  A CJK run becomes its
    character bigrams plus (with unigrams) its characters; a one-character
    run is its own term (十三香 -> 十三 三香 十 三 香)."""
    if units.isascii():
        return units.split()
    out = []
    for unit in units.split():
        if is_cjk_char(unit[0]):
            out.extend(_cjk_terms(unit, unigrams))
        else:
            out.append(unit)
    return out


def tokenize(text):
    """Split text into the terms that score it, the same way for documents
    and queries (text_units, then expand).

    - Latin words are case-folded, stop words dropped, the rest Porter-stemmed
      (so "configure" and "configuration" meet).
    - Codes joined by - _ . : / @ + (KX-4471, 2026-03-15, config.toml) are kept
      whole, and their parts are added too, so "4471" still finds "KX-4471".
    - CJK runs become character bigrams plus unigrams.
    """
    return expand(text_units(text))


def index_terms(text):
    """The terms the keyword index stores for text: tokenize() without the
    unigrams of CJK runs, but for each run's last character.  Unigrams are
    half of a Chinese index and never find a passage worth showing on their
    own; ranking still scores them."""
    return expand(text_units(text), False)


def _split_cjk(run):
    """[other, cjk, other, cjk, ..., other]: a run cut at its CJK stretches."""
    return [part.decode("utf-8", "surrogatepass")
            for part in pattern("cjk_bytes").split(run.encode("utf-8", "surrogatepass"))]


def term_spans(text):
    """(start, end, is_cjk) of every word and CJK stretch in text, as tokenize
    sees them (text already folded); used to highlight matches."""
    for m in _RUN_RE.finditer(text):
        run, pos = m.group(), m.start()
        if run.isascii():
            yield pos, m.end(), False
            continue
        for i, part in enumerate(_split_cjk(run)):
            if i % 2:
                yield pos, pos + len(part), True
            else:
                for w in _RUN_RE.finditer(part):
                    yield pos + w.start(), pos + w.end(), False
            pos += len(part)


def _cjk_terms(run, unigrams=True):
    """Bigrams and unigrams of a CJK run; for the index (unigrams False) the
    bigrams and the last character, so that every character starts a term
    (a query for one character asks for the terms starting with it)."""
    if len(run) == 1:
        return [run]
    bigrams = list(map(concat, run, run[1:]))  # operator.concat: no Python call per bigram
    return bigrams + (list(run) if unigrams else [run[-1]])


def _memo(cache, key, compute, limit=300000):
    """cache[key], computed once; the cache is emptied when it grows past limit."""
    value = cache.get(key)
    if value is None:
        if len(cache) > limit:
            cache.clear()
        value = cache[key] = compute(key)
    return value


_WORD_CACHE = {}  # word -> its terms; words repeat, and stemming is the slow part


def _cached_word_terms(word):
    return _memo(_WORD_CACHE, word, _word_terms)


def _word_terms(word):
    if word.isalnum():
        return () if word in STOPWORDS else (stem(word),)
    terms = [word]  # the whole code, unstemmed
    parts = word.translate(_CONNECTORS_TO_SPACE).split()
    for part in parts:
        if len(part) > 1 and part not in STOPWORDS:
            terms.append(stem(part))
    if _is_joinable_code(word):  # AK20260422-0318 is also typed AK202604220318
        terms.append("".join(parts))
    return tuple(terms)


def _is_joinable_code(word):
    """A code of letters and digits joined by - or _ only (not a date, file or
    address), which people also write without the joins."""
    return (not any(c in word for c in ".:/@+") and any(c.isdigit() for c in word)
            and any(c.isalpha() for c in word))


# --- vector-channel features ----------------------------------------------
# The TF-IDF channel sees each term (log tf) plus, for Latin words, the
# character trigrams they contain ("#con", "#onf", ...; present or not) at a
# lower weight, so it also matches typos, compounds and word forms the
# stemmer misses ("roadtrip" vs "road trip", "Feedley" vs "Feedly").  BM25
# sees whole terms only; that difference is what the hybrid is for.

def term_grams(term):
    """Character trigrams of a Latin word term (with ^/$ boundary marks)."""
    if len(term) < 4 or not term.isascii() or not term.isalpha():
        return ()
    padded = "^" + term + "$"
    return tuple("#" + padded[i:i + 3] for i in range(len(padded) - 2))


_GRAM_CACHE = {}


def cached_grams(term):
    return _memo(_GRAM_CACHE, term, term_grams)


def features(terms):
    """The distinct features of some terms: the terms and their trigrams.
    Document frequencies count these."""
    found = set(terms)
    for term in list(found):
        found.update(cached_grams(term))
    return found
