"""Citations: path:first-last, the ids every door prints and every door accepts back."""
import re


def cite(path, start_line, end_line):
    """A citation, 'path:first-last': what results print, what their id is,
    and what get, related and timeline accept (besides 'path#n', a chunk)."""
    return "%s:%d-%d" % (path, start_line, end_line)


def parse_reference(text):
    """A place in a memory file as results print it: 'f.md' -> (f.md, None, None);
    'f.md:31-44' or 'f.md:31' -> (f.md, 31, 44); 'f.md#5' -> (f.md, '#', 5).
    A malformed line range or chunk number raises ValueError."""
    m = re.match(r"^(.+\.(?:md|jsonl))([:#])(.*)$", text, re.I | re.S)
    if not m:
        return text, None, None
    path, mark, rest = m.groups()
    if mark == "#":
        if not rest.isdigit():
            raise ValueError("bad chunk id %r (use file.md#N)" % text)
        return path, "#", int(rest)
    r = re.match(r"^(\d+)(?:-(\d+))?$", rest)
    if not r:
        raise ValueError("bad line range %r (use file.md:FIRST-LAST)" % text)
    first, last = int(r.group(1)), int(r.group(2) or r.group(1))
    if first < 1 or last < first:
        raise ValueError("line range %r ends before it starts" % text if last < first
                         else "lines start at 1: %r" % text)
    return path, first, last


def ranges_overlap(a_start, a_end, b_start, b_end, gap=0):
    """Whether two line ranges overlap, or lie within gap lines of each other."""
    return a_start <= b_end + gap and b_start <= a_end + gap
