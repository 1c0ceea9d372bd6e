"""Dates a query names, and whether a note's date matches them."""


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
    import re
    found, taken = [], []
    text = query.lower()
    has_month = bool(set(re.split(r"[^a-z]+", text)) & _MONTHS.keys())
    if not has_month and not any(c.isdigit() for c in text):
        return found  # the common case: skip compiling the patterns
    for pattern in _DATE_PATTERNS:
        if ("(?P<mon>" in pattern and not has_month) or ("月" in pattern and "月" not in text):
            continue  # cannot match: skip compiling it (each costs ~0.5 ms in a cold process)
        for m in re.finditer(pattern, text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            parts = m.groupdict()
            month = _MONTHS.get(parts.get("mon")) if parts.get("mon") else int(parts["m"])
            day = int(parts["d"]) if parts.get("d") else None
            year = int(parts["y"]) if parts.get("y") else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append((year, month, day))
                taken.append((m.start(), m.end()))
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


def _relative_pattern():
    if "re" not in _relative:
        import re
        number = r"(?P<n>\d{1,2}|a few|a couple of|couple of|few|an?|one|two|three|four|five|six|seven|eight|nine|ten)"
        english = (r"\b(?:(?P<dby>the day before yesterday)|(?P<yesterday>yesterday|last night)"
                   r"|(?P<tomorrow>tomorrow)"
                   r"|(?P<rel>last|next|this past|past) (?P<unit>week(?:end)?|month|year|"
                   + "|".join(_WEEKDAYS) + r")"
                   r"|" + number + r" (?P<agounit>day|week|month|year)s? (?P<dir>ago|later|from now))\b")
        chinese = (r"(?P<zdby>前天)|(?P<zy>昨天|昨晚|昨日)|(?P<zt>明天|明晚)|(?P<zdat>后天)"
                   r"|(?P<zrel>上|下)(?:个)?(?P<zunit>周末|周|星期|礼拜|月)"
                   r"|(?P<zyear>去年|前年|明年)"
                   r"|(?P<zn>\d{1,2}|[一两二三四五六七八九十几])(?:个)?(?P<zagounit>天|周|星期|月|年)(?P<zdir>前|后|以前|以后)")
        _relative["re"] = re.compile(english + "|" + chinese, re.I)
    return _relative["re"]


def relative_spans(text, date):
    """[(first day, last day)] (datetime.date) of the relative times a note's
    text names, read against its YYYY-MM-DD date."""
    if not date or len(date) < 10:
        return []
    import datetime
    try:
        today = datetime.date(int(date[:4]), int(date[5:7]), int(date[8:10]))
    except ValueError:
        return []
    day = datetime.timedelta(days=1)
    out = []
    for m in _relative_pattern().finditer(text):
        g = {k: v for k, v in m.groupdict().items() if v}
        if "dby" in g or "zdby" in g:
            out.append((today - 2 * day,) * 2)
        elif "yesterday" in g or "zy" in g:
            out.append((today - day,) * 2)
        elif "tomorrow" in g or "zt" in g:
            out.append((today + day,) * 2)
        elif "zdat" in g:
            out.append((today + 2 * day,) * 2)
        elif "rel" in g or "zrel" in g:
            back = (g.get("rel") or g.get("zrel")).lower() in ("last", "past", "this past", "上")
            unit = (g.get("unit") or g.get("zunit")).lower()
            out.append(_calendar_span(today, unit, -1 if back else 1))
        elif "zyear" in g:
            step = {"去年": -1, "前年": -2, "明年": 1}[g["zyear"]]
            out.append((datetime.date(today.year + step, 1, 1), datetime.date(today.year + step, 12, 31)))
        else:
            raw = (g.get("n") or g.get("zn")).lower()
            n = int(raw) if raw.isdigit() else _NUMBERS.get(raw) or _ZH_NUMBERS.get(raw, 1)
            unit = g.get("agounit") or {"天": "day", "周": "week", "星期": "week", "月": "month",
                                        "年": "year"}[g["zagounit"]]
            sign = -1 if (g.get("dir") or g.get("zdir")) in ("ago", "前", "以前") else 1
            out.append(_shifted(today, unit.lower(), sign * n))
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
