"""Writing memories: the one place that changes a user's Markdown, and only by appending."""
import os
import time

from .fileio import _lock, _unlock
from .markdown import split_lines
from .records import StoreError, UsageError, record
from .sources import check_memory_path


# Writing memories: the one place that changes a user's Markdown, and only
# by appending to the end of a file.

Added = record("Added", "path start_line end_line created")
Added.__doc__ = "Where append_memory wrote: the file, the 1-based lines of the new note, a new file?"


def append_memory(root, text, heading=None, tags=(), path=None, today=None):
    """Append a note to a memory file: by default today's daily log
    memory/YYYY-MM-DD.md (local date), made with a '# YYYY-MM-DD' heading
    when missing.  A one-line note becomes a bullet ('- ...'); longer text is
    kept as written; tags go at its end (#tag); a heading comes first as
    '## heading'.  Earlier lines are never changed (a missing newline at the
    end of the file is added); writers take an exclusive lock on the file,
    so notes from processes adding at once never interleave.  Raises
    UsageError for an empty note or a bad tag, StoreError for a path outside
    the folder or a file that cannot be written."""
    lines = [l.rstrip() for l in split_lines(text.strip("\n"))] if text else []
    if not any(l.strip() for l in lines):
        raise UsageError("the note is empty")
    for tag in tags:
        if not tag.strip("#") or any(c.isspace() for c in tag):
            raise UsageError("bad tag %r (one word, no spaces)" % tag)
    if heading is not None and (not heading.strip() or "\n" in heading or "\r" in heading):
        raise UsageError("the heading must be one non-empty line")
    date = today or time.strftime("%Y-%m-%d")
    rel = (path or "memory/%s.md" % date).replace("\\", "/")
    if rel.startswith("./"):
        rel = rel[2:]
    full = check_memory_path(root, rel)
    if len(lines) == 1 and not lines[0].lstrip().startswith(("-", "*", "#", ">", "|")):
        lines = ["- " + lines[0].strip()]
    if tags:
        lines[-1] += " " + " ".join("#" + t.lstrip("#") for t in tags)
    entry = (["## " + heading.strip()] if heading else []) + lines
    try:
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "a+b") as f:
            _lock(f)
            try:
                return _append_locked(f, rel, full, entry, date, path is None)
            finally:
                _unlock(f)
    except OSError as exc:
        raise StoreError("cannot write %s: %s" % (rel, exc.strerror or exc))


def _append_locked(f, rel, full, entry, date, daily):
    """Write entry at the end of the open, locked file; the Added lines."""
    f.seek(0)
    old = f.read()
    newline = b"\r\n" if b"\r\n" in old[-4096:] else b"\n"
    if not old:
        lines, before = (["# %s" % date, ""] if daily else []) + entry, 0
    else:
        before = len(split_lines(old.decode("utf-8", "replace")))
        lines = ([""] if old.strip() else []) + entry  # a blank line between notes
    data = newline.join(l.encode("utf-8", "surrogateescape") for l in lines) + newline
    if old and not old.endswith((b"\n", b"\r")):
        data = newline + data  # end the last line first; its text stays as it was
    f.write(data)
    f.flush()
    os.fsync(f.fileno())
    first = before + len(lines) - len(entry) + 1
    return Added(rel, first, first + len(entry) - 1, not old)
