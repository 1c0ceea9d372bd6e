"""Near-duplicate suppression: a hit whose every line holding the query
repeats (nearly word for word) a line a better hit of another file already
shows adds nothing for the reader, and keeps duplicate_share of its score.

Daily logs repeat themselves ("standup: pipeline green, Anna reviews the
notes" every morning); without this, ten copies of one line can fill a token
budget before the one note that answers.  Lines are compared as sets of their
index terms, times and dates left out (they differ between copies), by
Jaccard similarity of at least duplicate_similarity; a prefix filter keeps it
to the few pairs that can be that similar."""
import math
import re


def demote_duplicates(order, candidates, merged, query, params):
    """Scale down (in place) the merged score of each candidate that only
    repeats better ones, and return the candidates re-sorted, best first."""
    seen = _LineIndex(params.duplicate_similarity)
    terms = set(query.weights)
    for key in order:
        row = candidates[key].row
        lines = [(n, _signature(t)) for n, t in enumerate(candidates[key].lines) if terms.intersection(t)]
        lines = [(row.start_line + n, sig) for n, sig in lines if sig]
        if lines and all(seen.repeats(sig, (row.path, at)) for at, sig in lines):
            merged[key] *= params.duplicate_share
            continue
        for at, sig in lines:
            seen.add(sig, (row.path, at))
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))


_WHEN = re.compile(r"\d{1,2}|\d{1,2}:\d{2}(:\d{2})?|\d{4}-\d{2}-\d{2}")  # 09, 09:30, 2026-01-05


def _signature(terms):
    """A line's terms as a sorted tuple, times and dates left out (copies of
    a line differ there; other numbers, an order's or a price, count)."""
    return tuple(sorted({t for t in terms if not _WHEN.fullmatch(t)}))


class _LineIndex:
    """Lines already shown, found by the first terms of their signatures
    (two sets this similar share one of the first few terms of each)."""

    def __init__(self, least):
        self.least = least
        self.lines = []
        self.by_term = {}

    def _prefix(self, sig):
        return sig[:len(sig) - int(math.ceil(self.least * len(sig))) + 1]

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
