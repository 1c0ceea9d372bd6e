"""Near-duplicate suppression: a hit whose every line holding the query
repeats (nearly word for word) a line a better hit of another file already
shows adds nothing for the reader, and keeps duplicate_share of its score.

Daily logs repeat themselves ("standup: pipeline green, Anna reviews the
notes" every morning); without this, ten copies of one line can fill a token
budget before the one note that answers.  Lines are compared as sets of their
index terms, times and dates left out (they differ between copies), by
Jaccard similarity of at least duplicate_similarity; a prefix filter keeps it
to the few pairs that can be that similar (rarest terms first)."""
import math
import re
from collections import Counter


def demote_duplicates(order, candidates, merged, query, params, min_score=None):
    """Scale down (in place) the merged score of each candidate that only
    repeats better ones; return the candidates re-sorted, best first, and
    the (path, rounded score) of those scaled down (to name their hits).
    Only candidates that can be shown are looked at: those at min_score and
    above, or by default above the floors ranking.search applies."""
    best = merged[order[0]] if order else 0.0
    least = min_score if min_score is not None else max(params.score_floor, params.relative_floor * best)
    shown = [k for k in order if merged[k] >= least and merged[k] > 0]
    lines = _query_lines(shown, candidates, set(query.weights))
    rarity = Counter(t for chunk in lines.values() for _, sig in chunk for t in sig)
    seen = _LineIndex(params.duplicate_similarity)
    repeats = set()
    for key in shown:
        path = candidates[key].row.path
        chunk = [(at, sorted(sig, key=lambda t: (rarity[t], t))) for at, sig in lines[key]]
        if chunk and all(seen.repeats(sig, (path, at)) for at, sig in chunk):
            merged[key] *= params.duplicate_share
            repeats.add((path, round(merged[key], 4)))
            continue
        for at, sig in chunk:
            seen.add(sig, (path, at))
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal)), repeats


def _query_lines(order, candidates, terms):
    """{key: [(line number, signature)]} of each candidate's lines holding a query term."""
    out = {}
    for key in order:
        c = candidates[key]
        out[key] = [(c.row.start_line + n, sig) for n, line in enumerate(c.lines)
                    if not terms.isdisjoint(line) for sig in (_signature(line),) if sig]
    return out


_WHEN = re.compile(r"\d{1,2}:\d{2}(:\d{2})?(-\d{1,2}:\d{2}(:\d{2})?)?|\d{4}-\d{2}-\d{2}|\d{1,2}(am|pm|st|nd|rd|th)")
_UNITS = frozenset("年月日号点时分秒")  # 3月14日, 9点: a number before one is part of a date or time
_MONTHS = frozenset("jan feb mar apr mai jun jul aug sep sept oct nov dec januari februari march april june "
                    "juli august septemb octob novemb decemb".split())  # as the tokenizer stems them


def _signature(terms):
    """A line's terms as a set, times and dates left out (copies of a line
    differ there: 09:30 and its parts 09 and 30, 2026-01-05, 3pm, 3月14日,
    Jan 5); other numbers count (a price, a count, an order number: a line
    that changed only there states another fact)."""
    terms = list(terms)
    when = {t for t in terms if t[0].isdigit() and _WHEN.fullmatch(t)}
    parts = {p for t in when for p in re.findall(r"\d+", t)}
    out = set()
    for i, t in enumerate(terms):
        if t in when or t in parts:
            continue
        if t.isdigit() and len(t) <= 2 and ((i + 1 < len(terms) and terms[i + 1] in _UNITS)
                                            or (i and terms[i - 1] in _MONTHS)
                                            or (i + 1 < len(terms) and terms[i + 1] in _MONTHS)):
            continue
        out.add(t)
    return out


class _LineIndex:
    """Lines already shown, found by the first terms of their signatures
    (two sets this similar share one of the first few terms of each, in any
    one order of the terms: rarest first keeps the lists short)."""

    def __init__(self, least):
        self.least = least
        self.lines = []
        self.by_term = {}

    def _prefix(self, sig):
        return sig[:len(sig) - int(math.ceil(self.least * len(sig) - 1e-9)) + 1]

    def add(self, sig, where):
        self.lines.append((set(sig), where))
        for t in self._prefix(sig):
            self.by_term.setdefault(t, []).append(len(self.lines) - 1)

    def repeats(self, sig, where):
        """Whether a shown line of another file is this similar to sig (lines
        of one file alike are a list, or overlapping chunks: passages.py's)."""
        mine = set(sig)
        for i in {i for t in self._prefix(sig) for i in self.by_term.get(t, ())}:
            theirs, place = self.lines[i]
            if place[0] != where[0] and len(mine & theirs) >= self.least * len(mine | theirs):
                return True
        return False
