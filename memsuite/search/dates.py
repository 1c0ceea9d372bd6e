"""Dates a query names, and whether a note's date matches them; and what a
"when" question asks for: a line that holds a time (12 月 6 日, 周三下午四点,
May 7, 9:30), not one that only shares its words."""
import re

from ..base.records import UsageError, record
from ..text.chinese import fold


_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?P<mon>%s)\.?" % "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})",
    r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*[日号])?",
    r"(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r"\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b",
    r"\b(?:in|during|since|of|early|late|mid)\s+" + _MONTH + r"\b",
]


def query_dates(query):
    """Dates a query names, as (year, month, day) with None for parts not given:
    '2026-02-19', '19 February 2026', 'February 2026', 'in June', '2月19日'."""
    return [ymd for ymd, _ in _absolute_dates(query)]


def _absolute_dates(query):
    """[((year, month, day), (start, end))]: query_dates with where each was written."""
    found = []
    text = query.lower()
    has_month = bool(set(re.split(r"[^a-z]+", text)) & _MONTHS.keys())
    if not has_month and not any(c.isdigit() for c in text):
        return found  # the common case: skip compiling the patterns
    for pattern in _DATE_PATTERNS:
        if ("(?P<mon>" in pattern and not has_month) or ("月" in pattern and "月" not in text):
            continue  # cannot match: skip compiling it (each costs ~0.5 ms in a cold process)
        for m in re.finditer(pattern, text):
            if any(s < m.end() and m.start() < e for _, (s, e) in found):
                continue
            parts = m.groupdict()
            month = _MONTHS.get(parts.get("mon")) if parts.get("mon") else int(parts["m"])
            day = int(parts["d"]) if parts.get("d") else None
            year = int(parts["y"]) if parts.get("y") else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append(((year, month, day), (m.start(), m.end())))
    return found


def date_matches(date, wanted):
    """Whether a chunk's YYYY-MM-DD date fits one of the (year, month, day) wanted."""
    if not date or not wanted:
        return False
    y, m, d = int(date[:4]), int(date[5:7]), int(date[8:10])
    return any((wy is None or wy == y) and wm == m and (wd is None or wd == d) for wy, wm, wd in wanted)


# Relative time in a note, read against the note's date: "yesterday" in a
# note of 2023-05-08 happened on 2023-05-07, 上周 in one of 2026-03-16 in the
# week of 2026-03-09.  A query naming a date or a month then meets the line
# that happened then, not only the file written that day.

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "a couple of": 2, "couple of": 2}
_ZH_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
               "几": 3}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_relative = {}


_ZH_WEEKDAYS = "一二三四五六日"
_ZH_STEPS = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}  # 上上周: the week before last


def _relative_pattern():
    if "re" not in _relative:
        number = r"(?P<n>\d{1,2}|a few|a couple of|couple of|few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
        english = (r"\b(?:(?P<dby>the day before yesterday)|(?P<yesterday>yesterday|last night)"
                   r"|(?P<tomorrow>tomorrow)|(?P<today>today|tonight|this (?:morning|afternoon|evening))"
                   r"|(?P<rel>last|next|this past|past|this) (?P<unit>week(?:end)?|month|year|"
                   + "|".join(_WEEKDAYS) + r")"
                   r"|" + number + r" (?P<agounit>day|week|month|year)s? (?P<dir>ago|later|from now))\b")
        chinese = (r"(?P<zdbdby>大前天)|(?P<zdadat>大后天)|(?P<zdby>前天)|(?P<zy>昨天|昨晚|昨日)|(?P<zt>明天|明晚)"
                   r"|(?P<zdat>后天)|(?P<ztoday>今天|今晚|今早|今日)"
                   r"|(?P<zwrel>上上|下下|上|下|这|本)(?:个)?(?:周|星期|礼拜)(?P<zwd>[一二三四五六日天])"
                   r"|(?P<zrel>上上|下下|上|下|这|本)(?:个)?(?P<zunit>周末|周|星期|礼拜|月)"
                   r"|(?P<zyear>去年|前年|明年|今年)"
                   r"|(?P<zn>\d{1,2}|[一两二三四五六七八九十几])(?:个)?(?P<zagounit>天|周|星期|月|年)(?P<zdir>前|后|以前|以后)")
        _relative["re"] = re.compile(english + "|" + chinese, re.I)
    return _relative["re"]


def relative_spans(text, date):
    """[(first day, last day)] (datetime.date) of the relative times a note's
    text names, read against its YYYY-MM-DD date."""
    today = _day(date)
    return [span for span, _ in _relative_times(text, today)] if today else []


def _day(date):
    """A YYYY-MM-DD string as a datetime.date, or None."""
    if not date or len(date) < 10:
        return None
    import datetime
    try:
        return datetime.date(int(date[:4]), int(date[5:7]), int(date[8:10]))
    except ValueError:
        return None


def _relative_times(text, today):
    """[((first day, last day), (start, end) in text)] of the relative times
    text names, read against today (a datetime.date)."""
    import datetime
    day = datetime.timedelta(days=1)
    out = []
    for m in _relative_pattern().finditer(text):
        g = {k: v for k, v in m.groupdict().items() if v}
        if "zdbdby" in g or "zdadat" in g:  # 大前天, 大后天: three days before or after
            span = (today + (-3 if "zdbdby" in g else 3) * day,) * 2
        elif "dby" in g or "zdby" in g:
            span = (today - 2 * day,) * 2
        elif "yesterday" in g or "zy" in g:
            span = (today - day,) * 2
        elif "tomorrow" in g or "zt" in g:
            span = (today + day,) * 2
        elif "zdat" in g:
            span = (today + 2 * day,) * 2
        elif "today" in g or "ztoday" in g:
            span = (today, today)
        elif "zwrel" in g:  # 上周三: Wednesday of last week
            step = _ZH_STEPS.get(g["zwrel"], 0)
            when = today - today.weekday() * day + (7 * step + _ZH_WEEKDAYS.find(g["zwd"].replace("天", "日"))) * day
            span = (when, when)
        elif "rel" in g or "zrel" in g:
            rel = (g.get("rel") or g.get("zrel")).lower()
            step = _ZH_STEPS.get(rel, -1 if rel in ("last", "past", "this past") else 0 if rel == "this" else 1)
            span = _calendar_span(today, (g.get("unit") or g.get("zunit")).lower(), step)
        elif "zyear" in g:
            step = {"去年": -1, "前年": -2, "明年": 1, "今年": 0}[g["zyear"]]
            span = (datetime.date(today.year + step, 1, 1), datetime.date(today.year + step, 12, 31))
        else:
            raw = (g.get("n") or g.get("zn")).lower()
            n = int(raw) if raw.isdigit() else _NUMBERS.get(raw) or _ZH_NUMBERS.get(raw, 1)
            unit = g.get("agounit") or {"天": "day", "周": "week", "星期": "week", "月": "month",
                                        "年": "year"}[g["zagounit"]]
            sign = -1 if (g.get("dir") or g.get("zdir")) in ("ago", "前", "以前") else 1
            span = _shifted(today, unit.lower(), sign * n)
        out.append((span, m.span()))
    return out


def _calendar_span(today, unit, step):
    """The calendar week, weekend, month, year or weekday before (step -1) or
    after (step 1) today."""
    import datetime
    day = datetime.timedelta(days=1)
    if unit in ("week", "周", "星期", "礼拜"):
        monday = today - today.weekday() * day + 7 * step * day
        return monday, monday + 6 * day
    if unit in ("weekend", "周末"):
        saturday = today - today.weekday() * day + 5 * day + 7 * step * day
        if step < 0 and saturday + 7 * day < today:  # "last weekend" on a Monday is the one just gone
            saturday += 7 * day
        return saturday, saturday + day
    if unit in ("month", "月"):
        year, month = today.year, today.month + step
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        last = (datetime.date(year + month // 12, month % 12 + 1, 1) - day)
        return datetime.date(year, month, 1), last
    if unit == "year":
        return datetime.date(today.year + step, 1, 1), datetime.date(today.year + step, 12, 31)
    if unit in _WEEKDAYS and step == 0:  # this Friday: the one of this week
        return (today + (_WEEKDAYS.index(unit) - today.weekday()) * day,) * 2
    if unit in _WEEKDAYS:  # last Friday: the latest Friday before today
        shift = (today.weekday() - _WEEKDAYS.index(unit)) % 7 or 7
        when = today - shift * day if step < 0 else today + ((_WEEKDAYS.index(unit) - today.weekday()) % 7 or 7) * day
        return when, when
    return today, today


def _shifted(today, unit, n):
    """The day, week, month or year n units from today (about, for weeks and more)."""
    import datetime
    day = datetime.timedelta(days=1)
    if unit == "day":
        return today + n * day, today + n * day
    if unit == "week":
        centre = today + 7 * n * day
        return centre - 3 * day, centre + 3 * day
    if unit == "month":
        year, month = today.year, today.month + n
        year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
        first = datetime.date(year, month, 1)
        return first, datetime.date(year + month // 12, month % 12 + 1, 1) - day
    return datetime.date(today.year + n, 1, 1), datetime.date(today.year + n, 12, 31)


def spans_match(spans, wanted):
    """Whether a (first, last) day span holds a day fitting one of the
    (year, month, day) wanted."""
    import datetime
    for first, last in spans:
        for wy, wm, wd in wanted:
            years = [wy] if wy else range(first.year, last.year + 1)
            for y in years:
                try:
                    lo = datetime.date(y, wm, wd or 1)
                    hi = datetime.date(y, wm, wd) if wd else (
                        datetime.date(y + wm // 12, wm % 12 + 1, 1) - datetime.timedelta(days=1))
                except ValueError:
                    continue
                if lo <= last and first <= hi:
                    return True
    return False


# Dates in a question, read against today: 上周三开会讨论了什么 asks about
# the meeting of Wednesday last week; bare 上周三 or "what happened last
# week" asks for the notes of that day or week and nothing else.

AskedDates = record("AskedDates", "today absolute spans only")
AskedDates.__doc__ = ("The dates a question names: the day it was asked (datetime.date; None if "
                      "the clock was not read, the question naming no relative date), its "
                      "absolute dates as (year, month, day) with None for parts not given, the "
                      "(first, last) days of its relative ones (yesterday, 上周三), and whether "
                      "it asks for nothing but a date.")

# What a question that only names a date says besides it ("what happened", 都干了什么)
_FILLER_EN = frozenset("what whats happened happen happening did do done i we me my our you us on in at "
                       "during the a an was were is are any anything notes note from for about of tell "
                       "show going go went and or".split())
_FILLER_ZH = ("发生", "什么", "干了", "做了", "都", "了", "的", "事情", "事", "我们", "我", "有", "吗", "呢",
              "啥", "记录", "笔记", "情况", "哪些", "些", "在", "干", "做")


def today_of(value=None):
    """The day questions are read against: value (YYYY-MM-DD, from --today),
    else $MEMORY_TODAY, else the clock's (for tests and replays of old days)."""
    import datetime
    import os
    raw = value or os.environ.get("MEMORY_TODAY", "").strip()
    if not raw:
        return datetime.date.today()
    day = _day(raw) if len(raw) == 10 and raw[4] == raw[7] == "-" else None
    if day is None:
        raise UsageError("not a date (YYYY-MM-DD) for --today or MEMORY_TODAY: %r" % raw)
    return day


def lazy_today(value=None):
    """today_of(value) when value or $MEMORY_TODAY is set (a wrong one is an
    error on any query), else today_of itself, for asked_dates to call only
    if the question names a relative date: importing datetime to read the
    clock costs a cold query ~1 ms."""
    import os
    if value or os.environ.get("MEMORY_TODAY", "").strip():
        return today_of(value)
    return today_of


def asked_dates(query, today=None):
    """The AskedDates of a question, its relative dates read against today
    (a datetime.date, or a function giving one, called only if the question
    names a relative date; None: today_of())."""
    if today is None:
        today = today_of()
    absolute = _absolute_dates(query)
    relative = []
    if _may_be_relative(query):
        today = today() if callable(today) else today
        relative = _relative_times(query, today)
    said = [where for _, where in absolute] + [where for _, where in relative]
    only = bool(said) and _is_filler(_without(query, said))
    return AskedDates(None if callable(today) else today, [ymd for ymd, _ in absolute],
                      [span for span, _ in relative], only)


_EN_ALONE = frozenset("yesterday today tonight tomorrow ago later".split())
_EN_AFTER = frozenset("last next this past".split())
_EN_UNITS = frozenset(("week", "weekend", "month", "year", "morning", "afternoon", "evening", "night")
                      + _WEEKDAYS)
_ZH_SAID = ("昨", "前天", "明天", "明晚", "后天", "今天", "今晚", "今早", "今日", "去年", "前年", "明年", "今年",
            "上周", "下周", "这周", "本周", "上个", "下个", "这个星期", "这个月", "本月", "上星期", "下星期", "上礼拜",
            "下礼拜", "这星期", "本星期", "这礼拜")


def _may_be_relative(query):
    """A cheap look before the pattern is compiled (a cold query pays a few ms for it)."""
    if not query.isascii():
        if any(w in query for w in _ZH_SAID) or any(u + d in query for u in "天周期拜月年" for d in "前后"):
            return True
    words = re.findall(r"[a-z]+", query.lower())  # (a question ends "...yesterday?")
    if _EN_ALONE.intersection(words) or "from now" in query.lower():
        return True
    return any(a in _EN_AFTER and b in _EN_UNITS for a, b in zip(words, words[1:]))


def _without(text, spans):
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return text


def _is_filler(text):
    """Whether what a question says besides its dates asks for nothing more."""
    words = re.findall(r"[a-z']+|[^\x00-\x7f]+", text.lower())
    for word in words:
        if word.isascii():
            if word.replace("'", "") not in _FILLER_EN:
                return False
            continue
        for filler in _FILLER_ZH:
            word = word.replace(filler, "")
        if any(c.isalnum() for c in word):
            return False
    return True


def on_asked_day(asked, date, text, heading=""):
    """Whether a chunk (its file's YYYY-MM-DD date, text and heading) is of a
    day the question names: the file's date, a date written in its heading or
    lines, or a relative time in it ('yesterday' in the next day's note)."""
    if asked.absolute and (date_matches(date, asked.absolute)
                           or spans_match(relative_spans(text, date), asked.absolute)):
        return True
    if not asked.spans:
        return False
    day = _day(date)
    if day and any(first <= day <= last for first, last in asked.spans):
        return True
    written = query_dates(heading + "\n" + text if heading else text)
    if written and spans_match(asked.spans, written):
        return True
    # a relative time no longer than the asked one ("next year" is not of one day in it)
    return any(a <= last and first <= b and b - a <= last - first
               for a, b in relative_spans(text, date) for first, last in asked.spans)


def names_dates(asked):
    """Whether a question (its AskedDates) names any date at all."""
    return bool(asked and (asked.absolute or asked.spans))


DAY_NOTE_SCORE = 0.5  # a note of the day a date-only question names answers it (the cut is 0.4)
OFF_DAY_CAP = 0.3     # ...and a hit of another day does not, whatever words it shares
DAY_NOTE_CHUNKS = 60  # at most this many chunks of those days are looked at


def day_notes(store, asked, filters=None):
    """{key: StoredChunk}: the chunks of the files dated on the days a
    date-only question names, newest files first (a heading or a line dated
    so is found by its words, as any hit)."""
    from ..index.records import filters_admit
    paths = sorted((date, path) for path, date in store.file_dates().items()
                   if date and on_asked_day(asked, date, "") and filters_admit(filters, date, path))
    rows = {}
    for _, path in reversed(paths):
        for row in store.chunks_of(path):
            rows[row.key] = row
        if len(rows) >= DAY_NOTE_CHUNKS:
            break
    return rows


def by_asked_days(order, rows, merged, asked, params):
    """The order of a question naming days by relative dates (上周三开会讨论了什么):
    when a hit is of those days, a dated hit of another day keeps
    frame_only_share of its score (it answers about another day; an undated
    note keeps its score: it may hold what is always so).  A date-only
    question (上周三): its days' chunks score DAY_NOTE_SCORE or more, newer
    files first, and every other hit stays under the cut."""
    # beside relative days, an absolute date only gets the date bonus ("last weekend before April 10, 2023")
    judged = asked if asked.only else asked._replace(absolute=[])
    day = {key: rows[key].date or "" for key in order
           if on_asked_day(judged, rows[key].date, rows[key].text, rows[key].heading or "")}
    if not day and not asked.only:
        return order  # nothing of those days to prefer
    for key in order:
        if key in day:
            if asked.only:
                merged[key] = max(merged[key], DAY_NOTE_SCORE + 0.1 * merged[key])
        elif asked.only:
            merged[key] = min(merged[key] * params.frame_only_share, OFF_DAY_CAP)
        elif rows[key].date:
            merged[key] *= params.frame_only_share
    return sorted(order, key=lambda k: (-merged[k], k not in day, _newest_first(day.get(k, "")),
                                        rows[k].path, rows[k].ordinal))


def _newest_first(date):
    return tuple(-ord(c) for c in date)


# "When" questions and the times a line states

_WHEN = r"什么时候|哪天|哪一天|几号|几点|几月|什么时间|何时|\bwhen\b|\bwhat (?:time|date|day)\b"
_ZH_DIGITS = "一二三四五六七八九十两"
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_STARTS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_TIME_ZH = r"\d{1,4}\s*[年月日号点]|[周星期礼拜][一二三四五六日天]|[上下中]午|早上|晚上|凌晨|[" + _ZH_DIGITS + r"]+点"
_ZH_TIME_CHARS = "年月日号点周星期礼拜午早晚凌"  # each alternative of _TIME_ZH needs one
_TIME_LATIN = (r"\b\d{1,2}:\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:am|pm)\b"
               r"|\b(?:" + "|".join(_MONTH_STARTS) + r")[a-z]*\.? \d{1,2}\b"
               r"|\b(?:" + "|".join(_WEEKDAYS) + r")s?\b")  # (on Thursdays)
_TIME = _TIME_ZH + "|" + _TIME_LATIN

# The alternatives of _WHEN and _TIME, each with the strings it cannot match
# without (it needs one of them) and the patterns a text must then hold, each
# needed by the next, the last the alternative itself (none: the string is the
# match), for asking whether a text holds a match one cheap piece at a time:
# compiling all of _TIME (its classes of CJK characters) costs a cold query
# ~1.5 ms, and most texts need none of it.  \d{1,4} is \d there: a match of
# one holds the other.
_WHEN_PARTS = (
    (("什么时候", "哪天", "哪一天", "几号", "几点", "几月", "什么时间", "何时"), ()),
    (("when",), (r"\bwhen\b",)),
    (("what ",), (r"\bwhat (?:time|date|day)\b",)),
)
_TIME_PARTS = tuple(((unit,), (r"\d\s*" + unit,)) for unit in "年月日号点") + (
    (tuple(a + b for a in "周星期礼拜" for b in "一二三四五六日天"), ()),
    (("上午", "下午", "中午", "早上", "晚上", "凌晨"), ()),
    (tuple(c + "点" for c in _ZH_DIGITS), ()),
    ((":",), (r"\b\d{1,2}:\d{2}\b",)),
    (("-",), (r"\b\d{4}-\d{2}-\d{2}\b",)),
    (("am", "pm"), (r"\b\d{1,2}(?:am|pm)\b",)),
    (_MONTH_STARTS, (r"[a-z]\.? \d", r"\b(?:" + "|".join(_MONTH_STARTS) + r")[a-z]*\.? \d{1,2}\b")),
    (_WEEKDAYS, (r"\b(?:" + "|".join(_WEEKDAYS) + r")s?\b",)))


def _holds_any(text, parts):
    """Whether text holds a match of the alternation parts spell out."""
    return any(any(s in text for s in needs) and all(re.search(p, text) for p in patterns)
               for needs, patterns in parts)


def asks_when(query):
    """Whether a question asks for a time (什么时候, 哪天, when, what time)."""
    return _holds_any(fold(query), _WHEN_PARTS)


def times_in(text):
    """The times and numbers a text says, as written (folded): {'周三', '下午',
    '88412'}.  Numbers of one or two digits are left out: they number the
    lines of a transcript (D29:1) as often as they say a fact."""
    folded = fold(text)
    times = set()
    if _holds_any(folded, _TIME_PARTS):  # the Chinese alternatives (half the compiling) only where they can match
        times = set(re.findall(_TIME if any(c in folded for c in _ZH_TIME_CHARS) else _TIME_LATIN, folded))
    return times | set(re.findall(r"\d{3,}", folded))


def date_parts(value):
    """A date as times_in gives it, as its month and day ({'m11', 'd16'}),
    however written: 2026-11-16, nov 16, november 16, 11 月 and 16 日 (two
    values); the value itself when it is none of these."""
    iso = re.match(r"\d{4}-(\d\d)-(\d\d)$", value)
    if iso:
        return {"m%d" % int(iso.group(1)), "d%d" % int(iso.group(2))}
    named = re.match(r"([a-z]+)\.? (\d{1,2})$", value)
    if named and named.group(1) in _MONTHS:
        return {"m%d" % _MONTHS[named.group(1)], "d%d" % int(named.group(2))}
    unit = re.match(r"(\d{1,2}) ?([月日号])$", value)
    if unit:
        return {("m%d" if unit.group(2) == "月" else "d%d") % int(unit.group(1))}
    return {value}


def says_time_or_number(text):
    """Whether times_in(text) finds anything (without compiling _TIME where it can)."""
    folded = fold(text)
    return bool(re.search(r"\d{3,}", folded)) or _holds_any(folded, _TIME_PARTS)


def holds_time(text):
    """Whether text says a time: a date, a weekday, a clock time or a part of
    the day, in its lines (a daily note's date heading says when it was
    written, not when something happens)."""
    lines = [line for line in text.split("\n") if not line.lstrip().startswith("#")]
    return _holds_any(fold("\n".join(lines)), _TIME_PARTS)
