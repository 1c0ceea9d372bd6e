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
