"""English that reaches Chinese, and back, with no model: query-time translations.

The lexicon (text/lexicon_table.py) reads an English word to the Chinese
words having it as a sense and a Chinese word to its senses.  ranking.py
adds what it finds to a query beside synonyms.py's words, at lexicon_weight,
below the query's own words (a translation's single Chinese characters left
out: 都 of 京都).
"""
from ..text.chinese import function_spans, is_cjk
from ..text.lexicon_table import LATIN, lexicon_table
from ..text.params import DEFAULT_PARAMS
from ..text.tokenizer import tokenize


def translations(units, params=DEFAULT_PARAMS):
    """[(word, weight, the query's word it translates)]: the other language's words for a query's words, the
    longest that match: an English phrase when all its terms are in the query
    (its part words' own translations left out: health checkup -> 体检, not
    健康), a Chinese word of 2-5 characters taken longest first along a run,
    outside its function words (什么时候 is asked, not meant).  A translation
    weighs lexicon_weight of what it stands for: its terms share the weight of
    the words it translates (an English word is one term, 机械键盘 three
    bigrams), each at most lexicon_weight."""
    if not params.lexicon_weight:
        return []
    words = units.split()
    latin = {u for u in words if not is_cjk(u[0])}
    spans = [s for u in words if is_cjk(u[0]) and len(u) >= 2 for s in _content_spans(u)]
    if not latin and not spans:
        return []
    table = lexicon_table()
    found = []
    for covered, chinese in _longest(_english_matches(table, latin)):
        source = " ".join(sorted(covered))
        found += [(w, _share(params.lexicon_weight, len(covered), w), source) for w in chinese]
    for text in spans:
        for word in _longest_words(table, text):
            found += [(w, _share(params.lexicon_weight, _word_terms(word), w), word)
                      for w in table.get(word)[0].split("; ")]
    return found


def _word_terms(word):
    """How many terms a word scores by: an English word one, a Chinese one its
    bigrams (its single characters score nothing as a translation)."""
    return max(1, len(word) - 1) if is_cjk(word[0]) else len(tokenize(word))


def _share(weight, source_terms, word):
    """The weight of each term of a translation standing for source_terms
    terms: their share of weight, at most weight itself."""
    return min(weight, weight * source_terms / max(1, _word_terms(word)))


def _english_matches(table, latin):
    """[(frozenset of the query's terms a phrase covers, its Chinese words)]."""
    out = []
    for term in sorted(latin):  # (a set: its order would follow the hash seed)
        fields = table.get(LATIN + term) or ()
        for phrase, chinese in zip(fields[::2], fields[1::2]):
            terms = frozenset(phrase.split())  # stored as its terms
            if terms <= latin:
                out.append((terms, chinese.split()))
    return out


def _longest(matches):
    """The matches no other match's longer phrase covers."""
    return [(terms, words) for terms, words in matches if not any(terms < other for other, _ in matches)]


def _longest_words(table, text):
    """The table's words along a Chinese stretch, longest first from the left
    (a character alone when no word starts at it: 书, 汤)."""
    out, i = [], 0
    while i < len(text):
        for size in (5, 4, 3, 2, 1):
            if i + size <= len(text) and table.get(text[i:i + size]):
                out.append(text[i:i + size])
                i += size
                break
        else:
            i += 1
    return out


def _content_spans(run):
    """The stretches of a CJK run outside its function words."""
    fn = function_spans(run)
    out, start = [], None
    for i in range(len(run) + 1):
        inside = i < len(run) and not fn[i]
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            out.append(run[start:i])
            start = None
    return out
