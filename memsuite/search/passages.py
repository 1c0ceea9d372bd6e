"""Whole hits: ranked chunks joined into the passages a search returns."""

from ..text.citations import cite, ranges_overlap
from ..base.records import record


TAIL_LINES = 2  # a section this much longer than a chunk is shown whole

Hit = record("Hit", "id path start_line end_line heading date score keyword vector snippet text semantic",
             defaults=(None,))
Hit.__doc__ = ("One search result: lines are 1-based and inclusive, scores in [0, 1], snippet "
               "the best lines, text all of the cited lines; semantic the embedding similarity "
               "(None when no embedding provider runs).")


class Hits(list):
    """A search's hits, best first, and the channels that scored them
    (keyword, vector, semantic): what the search used travels with its answer."""

    def __init__(self, hits=(), channels=(), repeats=(), earlier=None):
        list.__init__(self, hits)
        self.channels = list(channels)
        self.repeats = set(repeats)  # ids of hits that only repeat better ones (diversity.py)
        self.earlier = dict(earlier or {})  # {hit id: id of a newer hit saying otherwise} (supersede.py)


# Passages: touching hits in one file become one

def build_passages(order, rows, merged, keyword, vector, params, min_score, semantic=None):
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
            touching = ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line,
                                                params.merge_gap + 1)
            # the rest of a short section (an overlapping chunk under the same heading,
            # the two no longer than a chunk and a tail) always joins; a neighbour
            # only if it scores nearly as well
            tail = ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line) and \
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
    return [h._replace(id=cite(h.path, h.start_line, h.end_line)) for h in hits]


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
