"""The newest statement of a fact first: when two hits say different things
about the same words of the query (the piano lesson on Saturday at 9, later
moved to Wednesday at 4; badge 7731, later 88412), the later note ranks first
and the earlier one is marked as such.  Only by what the notes say (lines
alike but for their times or numbers) and their dates: no recency prior on
every query (one cost LoCoMo).

MEMORY.md (or any undated note) has no date for its lines: its last
change (the file's mtime) is any line's, an agent's appended line or a
copy's, so it dates none of them.  Its lines are read as older than a dated
note that says otherwise about the same thing (a dated note tells when
something changed); a line a newer note agrees with is as new as that note,
so only the newest note about a thing can mark it changed."""
import re

from ..text.chinese import fold
from .answers import CURRENCY as _CURRENCY, codes_in
from .dates import date_parts, says_time_or_number, times_in
from ..text.tokenizer import expand, tokenize

# Two lines speak of the same thing when this share of the words of the
# shorter (bigrams, Latin words) is in the other.
SAME_LINE = 0.25
NO_FACTS = (frozenset(), frozenset(), 0)


def newest_first(order, candidates, merged, query, params, now=False):
    """(order, {older key: newest key saying otherwise}): among the best
    rerank_depth hits, a later hit holding every content word of the query
    an earlier one holds, within supersede_share of its score, and saying
    something else about them, ranks above it; so does each later one of a
    chain (Monday 10:00, moved to Wednesday 14:00, then to Friday).  When the
    change is sure, from within supersede_sure_share: the question asks how
    things stand now (now), or the later hit names the earlier value beside
    its new one (旧号 139..., 新号 138...; moved from Monday to Wednesday).
    Scores stay in rank order: the i-th hit takes the i-th best score.  An
    undated note (MEMORY.md) is earlier than any dated one."""
    top = order[:params.rerank_depth]
    words = {t for t in query.base if query.weights.get(t, 0) >= 1.0 and len(t) > 1}
    held = {k: {t for t in words if candidates[k].body.get(t) or candidates[k].head.get(t)} for k in top}
    facts, lines, timed = {}, {}, {}

    def has_time(key):
        if key not in timed:
            timed[key] = says_time_or_number(fold(candidates[key].row.text))
        return timed[key]

    def lines_of(key):
        if key not in lines:
            lines[key] = _tokenized_lines(candidates[key].row)
        return lines[key]

    def about(key, words):  # what a hit says about some words, worked out once per hit and words
        if (key, words) not in facts:
            if not has_time(key):
                return NO_FACTS  # no time or number anywhere in it: nothing to differ on
            facts[key, words] = _facts(lines_of(key), words, set(candidates[key].head))
        return facts[key, words]
    rows = {k: c.row for k, c in candidates.items()}

    def near(old, new, words):  # a later hit near enough the earlier's score
        if merged[new] >= params.supersede_share * merged[old]:
            return True
        if merged[new] < params.supersede_sure_share * merged[old]:
            return False
        return now or (has_time(new) and _restates(about(old, words), [line for line, _ in _lines_about(
            lines_of(new), words, set(candidates[new].head))[0]]))
    newer = {}  # older key: [the later keys saying otherwise]
    for old in top:
        words = frozenset(held[old])
        if not words - query.frame or not has_time(old):
            continue  # (a frame word alone, phone, is no thing in common: Wang Fang's phone and Zhang Wei's)
        newer[old] = [new for new in top if _later(rows[new], rows[old]) and words <= held[new]
                      and near(old, new, words) and _differs(about(old, words), about(new, words))]
    newer = {old: keys for old, keys in newer.items() if keys}
    if not newer:
        return order, {}
    ranked = _below_the_newer(top, newer)
    scores = sorted((merged[k] for k in top), reverse=True)
    merged.update(zip(ranked, scores))
    earlier = {old: max(keys, key=lambda k: (rows[k].date, rows[k].path)) for old, keys in newer.items()}
    return ranked + order[len(top):], earlier


def _below_the_newer(top, newer):
    """top reordered so that each key of newer comes after every key that
    says otherwise later ({older: [later]}; dates order them, so no cycle),
    the others keeping their places."""
    ranked = list(top)
    for _ in range(len(top) * len(top)):  # (each move takes a key down past a later one)
        moved = False
        for old, keys in newer.items():
            at, last = ranked.index(old), max(ranked.index(k) for k in keys)
            if last > at:
                ranked.insert(last, ranked.pop(at))
                moved = True
        if not moved:
            break
    return ranked


def _restates(old, lines):
    """Whether a line of a later hit's (_lines_about, folded) says the thing
    changed: it names an earlier text's value (_facts) beside a new one of
    the same kind, with a word of change (旧号 139..., 新号 138...; moved
    from 6800 to 7200) and none of its staying (port 8443 still works, the
    console on 9443).  Not a clock time or part of the day: a log's lines
    open with their times, and another event at 9:00 restates nothing."""
    before = old[0]
    return bool(before) and any(
        _CHANGE.search(line) and not _STILL.search(line) and any(
            _names(kind, before[kind], after[kind]) and after[kind] - before[kind]
            for kind in before.keys() & after.keys() - _COMMON)
        for line, after in ((line, _values(line)) for line in lines))


def _names(kind, before, after):
    """Whether later values name an earlier one: a date whole (its month and
    its day: Nov 13 is not named by Nov 16), any other value as it is."""
    return before <= after if kind == "date" else bool(before & after)


def _later(new, old):
    """Whether new is a later note than old: both dated, new after old, or
    new dated and old not (an undated note's lines are as of no known day,
    and a dated note saying otherwise tells when the thing changed)."""
    return bool(new.date and (not old.date or new.date > old.date) and new.path != old.path)


def changed_later(lines, notes):
    """{index of a line of lines: (date, path, line number) of the newest
    note line about the same thing, when it says otherwise}: for MEMORY.md's
    lines and the daily notes, [(date, path, lines)].  A note line is about
    the same thing when it shares SAME_LINE of its words (three at least) and
    both say times or numbers; it says otherwise when these differ.  A line
    the newest such note agrees with is current (MEMORY.md was updated)."""
    later = [(date, path, n + 1, _line_facts(line)) for date, path, note in sorted(notes)
             for n, line in enumerate(note) if says_time_or_number(line) and not line.lstrip().startswith("#")]
    out = {}
    for i, line in enumerate(lines):
        if not later or line.lstrip().startswith("#") or not says_time_or_number(line):
            continue
        mine = _line_facts(line)
        newest = None
        for date, path, number, theirs in later:  # notes oldest first: the newest about it stays
            if _same_thing(mine, theirs):
                newest = (date, path, number, theirs)
        if newest and _differs(mine, newest[3]):
            out[i] = newest[:3]
    return out


def _same_thing(mine, theirs):
    """Whether two lines (_line_facts) speak of the same thing: SAME_LINE of
    the other words of the shorter, three at least, are in the other (two
    were often a name alone: the landlord's phone and the rent he agreed)."""
    shared = len(mine[1] & theirs[1])
    return shared >= 3 and shared >= SAME_LINE * min(len(mine[1]), len(theirs[1]))


def _line_facts(line):
    """One line's facts as _facts gives them: (values by kind, other words, 1)."""
    times = times_in(line)
    return _values(line), {t for t in tokenize(line) if len(t) > 1} - times - _VALUE_WORDS, 1


def _facts(lines, words, heading=frozenset()):
    """(times and numbers by kind, other words, how many of words one line
    holds) of the lines (_tokenized_lines) holding most of words, each line
    holding its heading's words too (## On-call over "primary on Thursdays")."""
    about, most = _lines_about(lines, words, heading)
    text = "\n".join(line for line, _ in about)
    times = times_in(text)
    return _values(text), (_words(about) - times - _VALUE_WORDS if times else set()), most


def _differs(old, new):
    """Whether a later text says something else than an earlier one about
    the query's words (each as _facts gives them): a line holding as many of
    them (not the words spread over lines of other things), other times or
    numbers, the rest of the lines alike (SAME_LINE)."""
    (before, mine, held), (after, theirs, holds) = old, new
    if not (before and after) or not _disagree(before, after) or holds < held:
        return False
    return bool(mine and theirs) and len(mine & theirs) >= SAME_LINE * min(len(mine), len(theirs))


def _disagree(before, after):
    """Whether a later line's values (_values) say otherwise than an
    earlier one's: of a kind both give (a clock time, a weekday, a date, a
    part of the day, a phone or other code, an amount, a number), the later
    says one the earlier does not.  A line that says Monday 10:00 and a
    later one that says 10:00 agree; "from 3 Sep I'm on Thursdays, Kenji
    moves to Wednesdays" says otherwise than "Wednesday"; a landlord's phone
    number and the rent he agreed are not the same kind of thing."""
    return any(after[kind] - before[kind] for kind in before.keys() & after.keys())


_COMMON = {"clock", "day part"}  # values many lines share
# a word of change, and of staying the same, as a line says them (folded, lower case)
_CHANGE = re.compile(r"换|改|旧|新|不用|不再|取消|调整|涨|降|搬|\b(?:chang|mov|switch|replac|new|old|no longer|"
                     r"instead|now|from|updat|rais|cut|drop|up to|down to|earlier|anymore)")
_STILL = re.compile(r"还是|仍|依然|照旧|没变|不变|\b(?:still|unchanged|same|as before)\b")
_KINDS = (("clock", r"\d:\d\d|\d(?:am|pm)$|点$"), ("weekday", r"^(?:[周星期礼拜]|mon|tue|wed|thu|fri|sat|sun)"),
          ("date", r"\d{4}-\d\d-\d\d|[年月日号]$|^[a-z]+\.? \d"), ("day part", r"午$|^[早晚凌]"))
# A currency says how much, not of what: two amounts in RMB are not two statements of one thing.
_VALUE_WORDS = frozenset(re.sub(r"s\?$", "", w) for w in _CURRENCY.split("|"))
_MONEY = (r"[¥$€£]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?(?:" + _CURRENCY +
          r"|/\s?(?:月|年|次|晚|小时|天|h|hr|hour|month|year|night|day)\b)")


def _values(text):
    """{kind: values} a (folded) text says: codes (seven digits or more,
    however spaced) and amounts (a number with its currency or unit) first,
    then times_in's times and numbers of what is left; a value of no other
    kind is a number."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", fold(text).lower())  # 1,249 is one number
    out = {}
    for code in codes_in(text):
        out.setdefault("code", set()).add(re.sub(r"\D", "", code))
        text = text.replace(code, " ", 1)
    for m in re.finditer(_MONEY, text):
        out.setdefault("amount", set()).add(m.group(1) or m.group(2))
        text = text.replace(m.group(0), " ", 1)
    for value in times_in(text):
        kind = next((k for k, pattern in _KINDS if re.search(pattern, value)), "number")
        if kind == "weekday":  # Thursdays, thursday; 星期三, 周三; 星期天, 礼拜日, 周日
            value = value[:3] if value.isascii() else "周" + value[-1].replace("天", "日")
        out.setdefault(kind, set()).update(date_parts(value) if kind == "date" else [value])  # Nov 16 is 2026-11-16
    return out


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


def _lines_about(lines, words, heading=frozenset()):
    """(the lines holding the most of the query's words, with their heading's; that most)."""
    words_below = words - heading
    counts = [len(words) - len(words_below) + len(words_below & terms) for _, terms in lines]
    most = max(counts or [0])
    return [line for line, n in zip(lines, counts) if n == most and n], most
