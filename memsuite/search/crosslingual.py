"""A question in the other language: searched again as its translation.

A whole question written in Chinese about English notes (or the reverse)
holds a few words the notes share (a name, a number) and many they never
hold; its translated words (lexicon.py), added at lexicon_weight beside
them, lose to the names and the function words of its own script.  So the
question is also searched as its translation: the words of the other script
and the numbers kept as written (王志宏, 2024), and so are its own words
nothing translates (a name: Melanie), each other word of its own script
replaced by its translations, its function words left out; the two result
lists merge, the better score of a passage kept.

The second pass runs only when the question as written finds no hit at
the answer cut (ranking.py) and the index holds some of the translated
words: English notes asked in English never pay for it.  A bilingual folder
does, for its Chinese notes compete there with the English lines the
question's own words find (measured: an index that held more of the
question's words than of their translations used to skip it).

A Chinese question of English notes is searched once, its translated words
beside its own; the words nothing translates (a bigram across two words,
子们) no note can hold, so its scores are not measured against them
(untranslated, without_untranslated).
"""
import re

from ..text.bm25 import bm25_idf
from ..text.chinese import is_cjk
from ..text.params import DEFAULT_PARAMS
from ..text.tokenizer import index_terms, text_units
from .features import topic_weights
from .lexicon import translations


def own_script(units):
    """'zh' when a query's units (text_units) are mostly Chinese (a word is
    about two characters), else 'en'."""
    words = units.split()
    cjk = sum(len(u) for u in words if is_cjk(u[0]))
    latin = sum(1 for u in words if not is_cjk(u[0]) and not u[0].isdigit())
    return "zh" if cjk / 2.0 > latin else "en"


_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")


def translated_query(store, query, params=DEFAULT_PARAMS):
    """The question as its translation, or "" when there is none worth a
    second search (see the module's docstring)."""
    units = text_units(query)
    if own_script(units) != "en":  # measured: a Chinese question's English senses are too loose to search alone
        return ""
    words = units.split()
    found = translations(" ".join(u for u in words if not is_cjk(u[0])), params)
    chinese = list(dict.fromkeys(word for word, _, _ in found))
    if not chinese:
        return ""
    targets = {t for word in chinese for t in index_terms(word) if len(t) > 1}  # (a run's last character alone is no word)
    if not any(store.doc_freqs(sorted(targets)).values()):
        return ""
    asked = {t for _, _, source in found for t in source.split()}
    kept = [u for u in words if is_cjk(u[0]) or u[0].isdigit()]
    latin = [(w, text_units(w).split()) for w in _LATIN.findall(query)]
    kept += [w for w, units in latin if units and not set(units) & asked]
    return " ".join(kept + chinese)  # (Latin words as the user wrote them: their units would be stemmed twice)


ZH_PROSE = ("一个", "我们", "没有", "什么", "时候", "自己", "这个", "可以", "因为", "今天")  # any Chinese text has some


def untranslated(store, missing, stands, dfs, weights):
    """The words of a Chinese question asked of English notes that no note
    holds and nothing translates (子们 of 孩子们, 去过): no note can hold
    them, so a hit's score is not measured against them.  Empty unless the
    notes hold a translation but none of the question's Chinese, nor the
    commonest words of any Chinese text (ZH_PROSE): in Chinese notes, a
    Chinese word no note holds is a topic they lack."""
    held = any(t in weights and dfs.get(t) and not is_cjk(t[0]) for t in stands)
    if not held or any(is_cjk(t[0]) for t in weights):  # (a synonym of its Chinese held too)
        return frozenset()
    sources = set().union(*stands.values())  # a word translated, held or not, is asked (花生, peanut)
    foreign = frozenset(t for t in missing if is_cjk(t[0]) and t not in sources)
    return frozenset() if foreign and holds_chinese(store) else foreign


def holds_chinese(store):
    """Whether any note is written in Chinese: it holds one of ZH_PROSE."""
    return any(store.doc_freqs(ZH_PROSE).values())


def without_untranslated(scores, q, params):
    """{key: score} as if the query's untranslated words (Query.foreign)
    were not asked, each score raised by the same monotone map (the order
    stays): what a keyword score would be with their mass out of its scale."""
    share = foreign_share(q, params)
    if not share:
        return scores
    return {k: 1.0 - (1.0 - min(v, 1.0)) ** (1.0 / (1.0 - share)) for k, v in scores.items()}


def foreign_share(q, params):
    """The share of a query's topic mass (as keyword scores weigh it) that
    is untranslated words of another language (Query.foreign), at most 0.8."""
    if not q.foreign:
        return 0.0
    n_docs = max(q.n_docs, params.rarity_docs)
    missing_idf = bm25_idf(n_docs, 0)
    whole = topic_weights(q)
    total = sum(w * (missing_idf if t in q.missing else bm25_idf(n_docs, q.dfs.get(t, 0))) for t, w in whole.items())
    foreign = sum(w * missing_idf for t, w in whole.items() if t in q.foreign)
    return min(0.8, foreign / total) if total else 0.0


def merge_passes(hits, other, limit):
    """One list of two searches' hits, best first: a passage of the second
    that overlaps a better one of the first (or the reverse) is left out."""
    merged = hits.__class__([], hits.channels, hits.repeats, hits.earlier)
    for name in ("stale", "checked", "evidence", "analysed"):
        setattr(merged, name, getattr(hits, name))
    merged.repeats |= other.repeats
    merged.earlier.update(other.earlier)
    for h in sorted(list(hits) + list(other), key=lambda h: -h.score):
        if not any(h.path == k.path and h.start_line <= k.end_line and k.start_line <= h.end_line for k in merged):
            merged.append(h)
    del merged[limit:]
    return merged
