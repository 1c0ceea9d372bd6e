"""-o FILE for link.sh graph and search.sh report: never replace a user's file.

A slip of tab completion (-o MEMORY.md) once cost a user their long-term
memory.  So a command that writes a file refuses a Markdown file the suite
would index, and any existing file it did not write itself, unless told
--force; and it writes atomically, so a failed write leaves the old file.
"""
import os

from .fileio import write_bytes_atomic
from .records import UsageError, StoreError

HEAD_BYTES = 2048  # enough to see the page's generator tag or a graph's first line


def write_output(output, text, root, force, written_by_us):
    """Write text to output.  written_by_us(head) says whether an existing
    file's first bytes are this command's own earlier output (safe to replace)."""
    path = os.path.abspath(os.path.expanduser(output))
    if os.path.isdir(path):
        raise UsageError("-o %s is a folder; give a file name such as memory.html" % output)
    if not force:
        refuse_unsafe_target(output, path, root, written_by_us)
    try:
        write_bytes_atomic(path, text.encode("utf-8"))
    except OSError as exc:
        raise StoreError("cannot write %s: %s" % (output, exc.strerror or exc))
    return path


def refuse_unsafe_target(output, path, root, written_by_us):
    if is_indexed_note(path, root):
        raise UsageError("-o %s is a note in the memory folder; write elsewhere (e.g. -o memory.html), "
                         "or add --force to replace it" % output)
    if os.path.lexists(path) and not written_by_us(read_head(path)):
        raise UsageError("-o %s exists and was not written by this command; choose another name, "
                         "or add --force to replace it" % output)


def is_indexed_note(path, root):
    """A Markdown file under the memory folder: the next search would index it."""
    if not root or not path.lower().endswith(".md"):
        return False
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def read_head(path):
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""  # unreadable (a socket, no permission): not ours
