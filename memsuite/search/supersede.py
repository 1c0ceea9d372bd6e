"""The newest statement of a fact first: when two hits say different things
about the same words of the query (the piano lesson on Saturday at 9, later
moved to Wednesday at 4; badge 7731, later 88412), the later note ranks first
and the earlier one is marked as such.  Only by what the notes say (lines
alike but for their times or numbers) and their dates: no recency prior on
every query (one cost LoCoMo).

MEMORY.md has no date of its own: its lines are as of the file's last
change (its mtime's day).  A daily note dated after that day was written
when MEMORY.md already said what it says, so it is the later statement; one
dated on that day or before may be what MEMORY.md was updated from, and is
not.  (An edit anywhere in MEMORY.md moves the day: fewer lines are marked
later, never a line newer than its note.)"""
import os
import time

from ..text.chinese import fold
from .dates import says_time_or_number, times_in
from ..text.tokenizer import expand, tokenize

LONG_TERM = "MEMORY.md"

# Two lines speak of the same thing when this share of the words of the
# shorter (bigrams, Latin words) is in the other.
SAME_LINE = 0.25
NO_FACTS = (frozenset(), frozenset(), 0)


def newest_first(order, candidates, merged, query, params, root=None):
    """(order, {older key: newer key}): among the best rerank_depth hits, a
    dated hit holding every content word of the query an earlier-dated hit
    holds, within supersede_share of its score, and saying something else
    about them, ranks above it (taking its score when it had less; the
    earlier takes the newer's, so scores still fall with the rank).  root:
    the memory folder, whose MEMORY.md is dated by its last change."""
    top = order[:params.rerank_depth]
    as_of = {}

    def date(row):
        if row.date or row.path != LONG_TERM or root is None:
            return row.date
        if LONG_TERM not in as_of:
            as_of[LONG_TERM] = long_term_date(root)
        return as_of[LONG_TERM]

    words = {t for t in query.base if query.weights.get(t, 0) >= 1.0 and len(t) > 1}
    held = {k: {t for t in words if candidates[k].body.get(t) or candidates[k].head.get(t)} for k in top}
    earlier, facts, lines, timed = {}, {}, {}, {}

    def has_time(key):
        if key not in timed:
            timed[key] = says_time_or_number(fold(candidates[key].row.text))
        return timed[key]

    def about(key, words):  # what a hit says about some words, worked out once per hit and words
        if (key, words) not in facts:
            if not has_time(key):
                return NO_FACTS  # no time or number anywhere in it: nothing to differ on
            if key not in lines:
                lines[key] = _tokenized_lines(candidates[key].row)
            facts[key, words] = _facts(lines[key], words)
        return facts[key, words]
    for old in top:
        for new in top:
            if new in earlier.values() or old in earlier or not _later(candidates[new].row, candidates[old].row, date):
                continue
            words = frozenset(held[old])
            if words and words <= held[new] and merged[new] >= params.supersede_share * merged[old] \
                    and _differs(about(old, words), about(new, words)):
                if merged[new] < merged[old]:
                    merged[old], merged[new] = merged[new], merged[old]
                earlier[old] = new
                break
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], k in earlier, rows[k].path, rows[k].ordinal)), earlier


def _later(new, old, date=lambda row: row.date):
    """Whether new is a later note than old.  MEMORY.md is only ever the
    earlier one: its last change may be a copy or a checkout (git sets no
    mtime), which makes it no newer than a note; it only bounds how old its
    lines can be."""
    old_date = date(old)
    return bool(new.date and old_date and new.date > old_date and new.path != old.path)


def long_term_date(root):
    """The day (YYYY-MM-DD, local time) of MEMORY.md's last change, or None."""
    try:
        return time.strftime("%Y-%m-%d", time.localtime(os.stat(os.path.join(root, LONG_TERM)).st_mtime))
    except OSError:
        return None


def changed_later(lines, notes):
    """{index of a line of lines: (date, path, line number) of the newest
    later note line saying otherwise}: for MEMORY.md's lines and the daily
    notes dated after its last change, [(date, path, lines)].  A note line
    says otherwise when it speaks of the same thing (SAME_LINE of its words,
    two at least) with other times or numbers (_differs)."""
    later = [(date, path, n + 1, _line_facts(line)) for date, path, note in sorted(notes)
             for n, line in enumerate(note) if says_time_or_number(line) and not line.lstrip().startswith("#")]
    out = {}
    for i, line in enumerate(lines):
        if not later or line.lstrip().startswith("#") or not says_time_or_number(line):
            continue
        mine = _line_facts(line)
        for date, path, number, theirs in later:
            if len(mine[1] & theirs[1]) >= 2 and _differs(mine, theirs):
                out[i] = (date, path, number)  # notes oldest first: the newest stays
    return out


def _line_facts(line):
    """One line's facts as _facts gives them: (times, other words, 1)."""
    times = times_in(line)
    return times, {t for t in tokenize(line) if len(t) > 1} - times, 1


def _facts(lines, words):
    """(times or numbers, other words, how many of words one line holds) of
    the lines (_tokenized_lines) holding most of words."""
    about, most = _lines_about(lines, words)
    times = times_in("\n".join(line for line, _ in about))
    return times, (_words(about) - times if times else set()), most


def _differs(old, new):
    """Whether a later text says something else than an earlier one about
    the query's words (each as _facts gives them): a line holding as many of
    them (not the words spread over lines of other things), other times or
    numbers, the rest of the lines alike (SAME_LINE)."""
    (before, mine, held), (after, theirs, holds) = old, new
    if not (before and after) or before == after or holds < held:
        return False
    return bool(mine and theirs) and len(mine & theirs) >= SAME_LINE * min(len(mine), len(theirs))


def _words(lines):
    """The terms of two characters or more of lines (_tokenized_lines): no
    term spans two lines, so these are the terms of the lines joined."""
    return {t for _, terms in lines for t in terms if len(t) > 1}


def _tokenized_lines(row):
    """[(folded line, its terms)] of a chunk (a StoredChunk), headings left
    out (a daily note's date heading is when it was written, not what it
    says).  The terms come from the units the index keeps beside each line:
    analysing the lines again cost a query milliseconds."""
    return [(fold(line), set(expand(units))) for line, units in zip(row.text.split("\n"), row.units)
            if line.strip() and not line.lstrip().startswith("#")]


def _lines_about(lines, words):
    """(the lines holding the most of the query's words; that most)."""
    counts = [len(words & terms) for _, terms in lines]
    most = max(counts or [0])
    return [line for line, n in zip(lines, counts) if n == most and n], most
