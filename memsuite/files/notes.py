"""Writing memories: the one place that changes a user's Markdown.

A note goes at the end of the section its heading names, or, without one,
where a reader of the file expects an unsorted note: at the end of a day's
log under no heading or a timestamped one (a new '## HH:MM' when the log
ends inside a named section), at the end of any other file under its
'## Notes' section when it ends inside a named one; never inside or right
after a private block.  The text of earlier lines never changes, and a file
is never left half written."""
import os
import re
import time

from ..base.fileio import FileLock, write_bytes_atomic
from ..text.markdown import is_heading, split_lines, unclosed_private
from ..base.patterns import pattern
from ..base.records import StoreError, UsageError, record
from .sources import (NO_MEMORY_FOLDER, check_memory_path, encoding_fix, encoding_issue,
                      is_suite_folder, locate_index_dir)


Added = record("Added", "path start_line end_line created heading", [None])
Added.__doc__ = ("Where append_memory wrote: the file, the 1-based lines of the new note, a new file?, "
                 "and the heading it landed under (None: under none)")

NOTES_HEADING = "Notes"  # where a note without --heading goes in a file that ends inside a named section
_TIMESTAMP = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")  # '## 14:05', '## Session 14:05 (shop)'
_DAILY = re.compile(r"(?:^|/)\d{4}-\d{2}-\d{2}[^/]*\.md$", re.I)


ADD_LOCK = "add"  # <index folder>/add.lock: the writers of a folder's notes take turns through it


def append_memory(root, text, heading=None, tags=(), path=None, today=None, index_dir=None):
    """Append a note to a memory file: by default today's daily log
    memory/YYYY-MM-DD.md (local date), made with a '# YYYY-MM-DD' heading
    when missing.  A one-line note becomes a bullet ('- ...'); longer text is
    kept as written; tags go at its end (#tag).  With a heading the file
    already has as '## heading', the note goes at the end of that section
    (the lines after it move down; none changes); else the heading comes
    first as '## heading'.  Without a heading, see place_unsorted.  The text of earlier lines never changes (a
    missing newline at the end of the file is added).  Writers take turns
    through a lock file in the index folder (index_dir, else the one the
    folder's index is found in), so notes from processes adding at once
    never interleave; the note itself is never locked (on Windows a locked
    file could be neither read by a search nor replaced).  Raises UsageError
    for an empty note, a bad tag or text that is not UTF-8, StoreError for a
    path outside the folder, a file that ends inside an unclosed <private>
    block, or a file that cannot be written."""
    if is_suite_folder(root):
        raise StoreError(NO_MEMORY_FOLDER)
    heading = _clean_heading(heading)
    entry = _entry(text, heading, tags)
    date = today or time.strftime("%Y-%m-%d")
    rel = (path or "memory/%s.md" % date).replace("\\", "/")
    if rel.startswith("./"):
        rel = rel[2:]
    full = check_memory_path(root, rel)
    lock_dir = index_dir or locate_index_dir(root)
    if not lock_dir:
        raise StoreError("cannot write %s: no writable index folder to hold the writers' lock "
                         "(set MEMORY_INDEX_DIR to one)" % rel)
    try:
        os.makedirs(lock_dir, exist_ok=True)  # the index folder may have been deleted meanwhile
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with FileLock(os.path.join(lock_dir, ADD_LOCK)):
            return _write_note(rel, full, entry, date, path is None, heading)
    except OSError as exc:
        raise StoreError("cannot write %s: %s" % (rel, exc.strerror or exc))


def _clean_heading(heading):
    """The section a --heading names ('## Travel' names Travel), or None."""
    if heading is None:
        return None
    heading = heading.strip().lstrip("#").strip()
    if not heading or "\n" in heading or "\r" in heading:
        raise UsageError("the heading must be one non-empty line")
    return heading


def _entry(text, heading, tags):
    """The lines to write: the heading (if any), then the note with its tags."""
    lines = [l.rstrip() for l in split_lines(text.strip("\n"))] if text else []
    if not any(l.strip() for l in lines):
        raise UsageError("the note is empty")
    for tag in tags:
        if not tag.strip("#") or any(c.isspace() for c in tag):
            raise UsageError("bad tag %r (one word, no spaces)" % tag)
    bad = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
    if bad is not None:  # raw bytes that are not UTF-8 (from argv or stdin): never written
        raise UsageError("the note holds bytes that are not valid UTF-8 (at character %d); "
                         "convert it to UTF-8 first" % (bad + 1))
    if len(lines) == 1 and not lines[0].lstrip().startswith(("-", "*", "#", ">", "|")):
        lines = ["- " + lines[0].strip()]
    if tags:
        lines[-1] += " " + " ".join("#" + t.lstrip("#") for t in tags)
    return (["## " + heading] if heading else []) + lines


def _write_note(rel, full, entry, date, daily, heading):
    """Write entry into the note, the caller holding the writers' lock: at
    the end of its '## heading' section (without a second heading), or where
    place_unsorted says; the Added lines and the heading they are under."""
    existed = os.path.exists(full)  # (an empty file is no new file)
    with open(full, "a+b") as f:
        f.seek(0)
        old = f.read()
        lines = _old_lines(rel, full, old)
        if heading:
            where = _section_end(lines, heading) if lines else None
            if where is not None:
                entry = entry[1:]  # the section's own heading is already there
            under = heading
        else:
            where, entry, under = place_unsorted(lines, entry, daily or bool(_DAILY.search(rel)))
        if where is None or where == len(lines):
            added = _append(f, rel, old, lines, entry, date, daily)
            return added._replace(heading=under or (date if daily and not lines else None), created=not existed)
    return _insert(full, rel, old, lines, where, entry)._replace(heading=under)  # Windows replaces no open file


def place_unsorted(lines, entry, daily):
    """(where, entry, heading) of a note without --heading: the end of the
    file (where None) when it ends under no heading, a title or a timestamped
    heading; else, and when it ends right after a private block, a day's log
    gets a new '## HH:MM' heading and any other file the end of its '## Notes'
    section (made at the end when missing)."""
    last, level = _last_heading(lines)
    closed_private = any(l.strip() for l in lines) and \
        next(l for l in reversed(lines) if l.strip()).strip().lower() == "</private>"
    if not closed_private and (last is None or level == 1 or _TIMESTAMP.search(last)):
        return None, entry, last
    if daily:
        stamp = time.strftime("%H:%M")
        return None, ["## " + stamp] + entry, stamp
    where = _section_end(lines, NOTES_HEADING)
    if where is not None and not (where == len(lines) and closed_private):
        return where, entry, NOTES_HEADING
    return None, ["## " + NOTES_HEADING] + entry, NOTES_HEADING


def _last_heading(lines):
    """(text, level) of the file's last heading, or (None, 0)."""
    found = [(text, level) for _, level, text in _headings(lines)]
    return found[-1] if found else (None, 0)


def _headings(lines):
    """(index, level, text) of every heading outside fenced code."""
    fence = None
    for i, line in enumerate(lines):
        m = pattern("fence").match(line)
        if m:
            mark = m.group(1)[0]
            fence = None if fence == mark else (fence or mark)
            continue
        if not fence and is_heading(line):
            h = pattern("heading").match(line)
            yield i, len(h.group(1)), " ".join((h.group(2) or "").split())


def _old_lines(rel, full, old):
    """The lines of the note's bytes (none for an empty file); StoreError
    when it ends inside an unclosed <private> block, or is in another
    encoding than UTF-8 (a note added in UTF-8 would mix two in one file)."""
    _check_encoding(rel, full, old)
    text = old.decode("utf-8", "replace")
    if text.startswith("\ufeff"):  # a BOM is not part of line 1 ('## X' there is a heading); it stays in the file
        text = text[1:]
    opened = unclosed_private(text)
    if opened is not None:
        raise StoreError("%s ends inside a <private> block opened at line %d and never closed, so the "
                         "note would be private and never found; add </private> where it ends" % (rel, opened))
    return split_lines(text) if old else []


def _check_encoding(rel, full, old):
    """StoreError for a note in another encoding (GBK, UTF-16, Big5,
    Shift-JIS, Windows-1252) or not text: nothing is written to it.  A UTF-8 note with a stray bad
    byte takes the note (UTF-8 added to UTF-8 mixes nothing)."""
    issue = encoding_issue(old)
    if issue is None or issue == "invalid-utf8" and _mostly_utf8(old):
        return
    if issue == "binary":
        raise StoreError("%s is not a text file; nothing was added to it" % rel)
    how = ("it " + encoding_fix(full, issue) if issue in ("gbk", "utf-16") else
           "save it again as UTF-8 in the editor that wrote it, or convert it: iconv -f <its encoding> -t UTF-8")
    raise StoreError("%s is not UTF-8 text, so nothing was added (a note in UTF-8 would mix two encodings "
                     "in one file); %s" % (rel, how))


def _mostly_utf8(data):
    """Whether bytes that are not all UTF-8 are UTF-8 but for a stray byte or
    two: nearly all of their characters above ASCII decode (Big5, Shift-JIS
    and Windows-1252 text decodes to replacement characters throughout)."""
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for c in text if ord(c) > 127) - bad
    return bad <= max(2, 0.02 * good) and good >= 2 * bad


def _newline(old):
    return b"\r\n" if b"\r\n" in old[-4096:] else b"\n"


def _encode(lines, newline):
    return newline.join(l.encode("utf-8", "surrogateescape") for l in lines) + newline


def _append(f, rel, old, lines, entry, date, daily):
    """Write entry at the end of the open file (a new daily log starts with
    its '# date'); the Added lines."""
    if old:
        new = _gap(lines[-1], entry[0]) + entry
    else:
        new = (["# %s" % date, ""] if daily else []) + entry
    data = _encode(new, _newline(old))
    if old and not old.endswith((b"\n", b"\r")):
        data = _newline(old) + data  # end the last line first; its text stays as it was
    f.write(data)
    f.flush()
    os.fsync(f.fileno())
    first = len(lines) + len(new) - len(entry) + 1
    return Added(rel, first, first + len(entry) - 1, not old)


def _section_end(lines, heading):
    """The 0-based index after the last content line of the file's last
    '## heading' section (the file's length when it is the last section),
    or None when the file has no such heading.  Fenced code is skipped."""
    wanted = " ".join(heading.split()).casefold()
    found = None
    levels = []  # (index, level) of every heading outside fences
    for i, level, text in _headings(lines):
        levels.append((i, level))
        if level == 2 and text.casefold() == wanted:
            found = len(levels) - 1
    if found is None:
        return None
    start = levels[found][0]
    end = next((i for i, level in levels[found + 1:] if level <= 2), len(lines))
    if end == len(lines):
        return end
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _insert(full, rel, old, lines, where, entry):
    """The file with entry after its first `where` lines, written aside and
    moved into place (a crash leaves the old file whole)."""
    head = b"".join(old.splitlines(True)[:where])  # the first line keeps its BOM
    gap = _gap(lines[where - 1], entry[0])
    newline = _newline(old)
    data = head + (b"" if head.endswith((b"\n", b"\r")) else newline) + _encode(gap + entry, newline)
    write_bytes_atomic(full, data + old[len(head):], keep_mode=True)
    first = where + len(gap) + 1
    return Added(rel, first, first + len(entry) - 1, False)


def _gap(last, first):
    """[""] for a blank line between the line before a note and the note's
    first line, else [] (after a blank line, and between two bullets: the
    notes of one section stay one list, as in a daily log)."""
    if not last.strip():
        return []
    bullet = ("- ", "* ")
    return [] if last.lstrip().startswith(bullet) and first.lstrip().startswith(bullet) else [""]


REQUESTS_FILE = "add-requests.tsv"  # beside the index: request key -> where its note went
REQUESTS_KEPT = 1000


def add_once(root, index_dir, request, text, heading=None, tags=(), path=None):
    """(Added, repeated): append_memory, once per request key.  A key seen
    before gives the note it wrote, and nothing is written again (a client
    retrying after a timeout never doubles a note).  No key: always append."""
    if not request or not index_dir:
        return append_memory(root, text, heading, tags, path, index_dir=index_dir), False
    if any(c in "\t\r\n" or "\ud800" <= c <= "\udfff" for c in request) or len(request) > 200:
        raise UsageError("a request key is one line of at most 200 characters of text, without tabs")
    log = os.path.join(index_dir, REQUESTS_FILE)
    try:
        os.makedirs(index_dir, exist_ok=True)  # the index folder may have been deleted meanwhile
    except OSError as exc:
        raise StoreError("cannot keep request keys in %s: %s" % (index_dir, exc.strerror or exc))
    with FileLock(log):
        seen = _read_requests(log)
        if request in seen:
            return seen[request], True
        added = append_memory(root, text, heading, tags, path, index_dir=index_dir)
        rows = list(seen.items())[-(REQUESTS_KEPT - 1):] + [(request, added)]
        data = "".join("%s\t%s\t%d\t%d\t%d\t%s\n" % (k, a.path, a.start_line, a.end_line, a.created, " ".join((a.heading or "").split()))
                       for k, a in rows)
        try:
            write_bytes_atomic(log, data.encode("utf-8", "surrogatepass"))
        except OSError:
            pass  # the note is saved; only a retry could double it
        return added, False


def _read_requests(log):
    seen = {}
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) in (5, 6):  # 5: written before the heading was kept
                    seen[parts[0]] = Added(parts[1], int(parts[2]), int(parts[3]), parts[4] == "1",
                                           parts[5] if len(parts) == 6 and parts[5] else None)
    except (OSError, ValueError):
        pass
    return seen
