"""What kind of answer a question asks for: a "when" question is answered by a
line that holds a time (12 月 6 日, 周三下午四点, May 7, 9:30), not by one that
only shares its words."""
import re

from ..text.chinese import fold

_WHEN = r"什么时候|哪天|哪一天|几号|几点|几月|什么时间|何时|\bwhen\b|\bwhat (?:time|date|day)\b"
_TIME = (r"\d{1,4}\s*[年月日号点]|[周星期礼拜][一二三四五六日天]|[上下中]午|早上|晚上|凌晨|[一二三四五六七八九十两]+点"
         r"|\b\d{1,2}:\d{2}\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}(?:am|pm)\b"
         r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b"
         r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")


def asks_when(query):
    """Whether a question asks for a time (什么时候, 哪天, when, what time)."""
    return bool(re.search(_WHEN, fold(query)))


def times_in(text):
    """The times and numbers a text says, as written (folded): {'周三', '下午',
    '88412'}.  Numbers of one or two digits are left out: they number the
    lines of a transcript (D29:1) as often as they say a fact."""
    folded = fold(text)
    return set(re.findall(_TIME, folded)) | set(re.findall(r"\d{3,}", folded))


def holds_time(text):
    """Whether text says a time: a date, a weekday, a clock time or a part of
    the day, in its lines (a daily note's date heading says when it was
    written, not when something happens)."""
    lines = [line for line in text.split("\n") if not line.lstrip().startswith("#")]
    return bool(re.search(_TIME, fold("\n".join(lines))))
