"""The newest statement of a fact first: when two hits say different things
about the same words of the query (the piano lesson on Saturday at 9, later
moved to Wednesday at 4; badge 7731, later 88412), the later note ranks first
and the earlier one is marked as such.  Only by what the notes say (lines
alike but for their times or numbers) and their dates: no recency prior on
every query (one cost LoCoMo)."""
from ..text.chinese import fold
from .answers import times_in
from ..text.tokenizer import tokenize

# Two lines speak of the same thing when this share of the words of the
# shorter (bigrams, Latin words) is in the other.
SAME_LINE = 0.25


def newest_first(order, candidates, merged, query, params):
    """(order, {older key: newer key}): among the best rerank_depth hits, a
    dated hit holding every content word of the query an earlier-dated hit
    holds, within supersede_share of its score, and saying something else
    about them, ranks above it (taking its score when it had less; the
    earlier takes the newer's, so scores still fall with the rank)."""
    top = order[:params.rerank_depth]
    words = {t for t in query.base if query.weights.get(t, 0) >= 1.0 and len(t) > 1}
    held = {k: {t for t in words if candidates[k].body.get(t) or candidates[k].head.get(t)} for k in top}
    earlier = {}
    for old in top:
        for new in top:
            if new in earlier.values() or old in earlier or not _later(candidates[new].row, candidates[old].row):
                continue
            if held[old] and held[old] <= held[new] and merged[new] >= params.supersede_share * merged[old] \
                    and _differs(candidates[old].row.text, candidates[new].row.text, held[old]):
                if merged[new] < merged[old]:
                    merged[old], merged[new] = merged[new], merged[old]
                earlier[old] = new
                break
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], k in earlier, rows[k].path, rows[k].ordinal)), earlier


def _later(new, old):
    return bool(new.date and old.date and new.date > old.date and new.path != old.path)


def _differs(old, new, words):
    """Whether a later text says something else than an earlier one about
    the query's words: in the lines holding most of them, other times or
    numbers, the rest of the lines alike (SAME_LINE)."""
    old, new = _lines_about(old, words), _lines_about(new, words)
    before, after = times_in(old), times_in(new)
    if not (before and after) or before == after:
        return False
    mine, theirs = _words(old) - before, _words(new) - after
    return bool(mine and theirs) and len(mine & theirs) >= SAME_LINE * min(len(mine), len(theirs))


def _words(text):
    return {t for t in tokenize(text) if len(t) > 1}


def _lines_about(text, words):
    """The lines of a chunk (headings left out: a daily note's date heading
    is when it was written) holding the most of the query's words, folded."""
    lines = [fold(line) for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    counts = [len(words.intersection(tokenize(line))) for line in lines]
    most = max(counts or [0])
    return "\n".join(line for line, n in zip(lines, counts) if n == most and n)
