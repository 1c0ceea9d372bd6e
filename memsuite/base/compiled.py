"""Tables compiled once: built from their source files on first use, kept in the
user's cache as marshal data, and read back in a fraction of a millisecond;
and sorted "key<TAB>fields" lines found by binary search in a memory map (the
JSON index's terms and the compiled word tables are read this way, a few
lines per lookup).

A table's key is the stat (size, modification time) of every source, the
version below and what else its build depends on (the tokenizer's version,
for a table of English terms), so an edited source is compiled afresh; a cache that cannot be
written only means the table is built in memory each time, as before.

Each copy of the suite (a clone, a test's copy) keeps its own tables, beside
a small "<table>-<copy>.sources" file naming its sources.  Whenever a table is
built, the tables of copies whose sources are gone are removed, and so are
the older shapes of the same table ("en-zh-lexicon-5" when "-6" is built for
the same copy): the cache does not grow with every copy ever made.
"""
import marshal
import os
import re
import zlib

# Bump when what a build function returns changes shape.
VERSION = 1


def cache_dir():
    """Where compiled tables are kept: $XDG_CACHE_HOME (or ~/.cache)/memory-suite/tables."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "memory-suite", "tables")


def compiled(name, sources, build, depends=()):
    """build(), or what an earlier build() returned for the same sources and
    depends.  sources are file paths (a missing one counts as such); depends,
    values the build also reads (a version); what build returns must be
    marshal-able (dicts, tuples, strings, bytes)."""
    name, path = _cache_path(name, sources, "marshal", depends)
    try:
        with open(path, "rb") as f:
            return marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    value = build()
    _keep(path, name, marshal.dumps(value), sources)
    return value


def compiled_mapped(name, sources, build, depends=()):
    """The bytes build() returns, as compiled does, but kept raw and read by a
    memory map: a large table costs a lookup a few pages, not a full read."""
    name, path = _cache_path(name, sources, "bytes", depends)
    try:
        import mmap
        with open(path, "rb") as f:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        pass
    value = build()
    _keep(path, name, value, sources)
    return value


def _cache_path(name, sources, kind, depends=()):
    """(the table's name for this copy of its sources, its cache file for their stat and depends)."""
    where = zlib.crc32(repr([os.path.abspath(p) for p in sources]).encode("utf-8", "surrogatepass"))
    key = zlib.crc32(repr((VERSION, marshal.version, [_stamp(p) for p in sources], tuple(depends)))
                     .encode("utf-8", "surrogatepass"))
    # one file per copy of the sources (two installs of the suite never evict each other's), named by their stat
    name = "%s-%08x" % (name, where)
    return name, os.path.join(cache_dir(), "%s-%08x.%s" % (name, key, kind))


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_size, st.st_mtime_ns)


def _keep(path, name, data, sources):
    """Write the table's bytes and the note of its sources, then remove what
    is stale (best effort: a read-only or full disk is no error)."""
    import json  # a build's, not a lookup's
    from .fileio import write_bytes_atomic
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        write_bytes_atomic(path, data)
        write_bytes_atomic(os.path.join(folder, name + ".sources"),
                           json.dumps([os.path.abspath(p) for p in sources if os.path.exists(p)])  # (one missing
                           .encode("utf-8", "surrogatepass"))  # when built is no sign of a copy gone)
        _prune(folder, name, os.path.basename(path))
    except (OSError, ValueError):
        pass


_ENTRY = re.compile(r"^(?P<copy>.+-[0-9a-f]{8})(?:-[0-9a-f]{8}\.(?:marshal|bytes)|\.sources)$")
UNNOTED_DAYS = 30  # a table kept before sources were noted is removed after this long


def _prune(folder, name, kept):
    """Remove the cache's stale files: this copy's older builds (another
    stat), its table's older shapes (the same name but its "-N"), and every
    file of a copy whose sources are gone (or, unnoted, old)."""
    entries = [(f, _ENTRY.match(f)) for f in os.listdir(folder)]
    noted = {m.group("copy") for f, m in entries if m and f.endswith(".sources")}
    gone = {c for c in noted if c != name and not _sources_exist(os.path.join(folder, c + ".sources"))}
    for f, m in entries:
        if not m or f in (kept, name + ".sources"):
            continue
        copy = m.group("copy")
        if (copy == name or copy in gone or _older_shape(copy, name)
                or (copy not in noted and _age_days(os.path.join(folder, f)) > UNNOTED_DAYS)):
            _remove(os.path.join(folder, f))


def _older_shape(copy, name):
    """Whether copy is an older shape of name's table for the same sources:
    "en-zh-lexicon-5-<where>" beside "en-zh-lexicon-6-<where>" (a newer one
    stays: an older checkout of the same copy may be run beside it)."""
    mine, theirs = re.match(r"^(.*)-(\d+)$", name[:-9]), re.match(r"^(.*)-(\d+)$", copy[:-9])
    return bool(mine and theirs and copy[-8:] == name[-8:] and theirs.group(1) == mine.group(1)
                and int(theirs.group(2)) < int(mine.group(2)))


def _sources_exist(note):
    import json
    try:
        with open(note, encoding="utf-8") as f:
            return all(os.path.exists(p) for p in json.load(f))
    except (OSError, ValueError, TypeError):
        return True  # unreadable: a copy being written, or not ours to judge


def _remove(path):
    try:
        os.unlink(path)  # a process reading it keeps its map
    except OSError:
        pass  # another process pruned it first


def _age_days(path):
    import time
    try:
        return (time.time() - os.stat(path).st_mtime) / 86400.0
    except OSError:
        return 0.0


# Sorted lines, looked up by binary search

class SortedLines:
    """Lines "key<TAB>..." sorted by key, in a bytes-like buffer (a memory
    map, or bytes): found by binary search, so a lookup reads a few lines."""

    def __init__(self, buf):
        self.buf = buf

    def _bounds(self, pos):
        """(start, end) of the line holding byte pos."""
        buf = self.buf
        start = buf.rfind(b"\n", 0, pos) + 1
        end = buf.find(b"\n", pos)
        return start, (len(buf) if end < 0 else end)

    def _key(self, start, end):
        tab = self.buf.find(b"\t", start, end)
        return self.buf[start:tab if tab >= 0 else end]

    def lower_bound(self, key):
        """The offset of the first line whose key is >= key."""
        lo, hi = 0, len(self.buf)
        while lo < hi:
            start, end = self._bounds((lo + hi) // 2)
            if start < lo:  # the middle fell in a line before lo: move to the next line
                start, end = self._bounds(lo)
            if self._key(start, end) < key:
                lo = end + 1
            else:
                hi = start
        return lo

    def get(self, key):
        """The fields of the line with this key (after it), or None."""
        key = key.encode("utf-8", "surrogatepass")
        at = self.lower_bound(key)
        if at >= len(self.buf):
            return None
        start, end = self._bounds(at)
        if self._key(start, end) != key:
            return None
        return self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")[1:]

    def starting_with(self, prefix):
        """[(key, fields)] of the lines whose key starts with prefix."""
        prefix_bytes = prefix.encode("utf-8", "surrogatepass")
        at, out = self.lower_bound(prefix_bytes), []
        while at < len(self.buf):
            start, end = self._bounds(at)
            if not self.buf[start:end].startswith(prefix_bytes):
                break
            key, *fields = self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")
            out.append((key, fields))
            at = end + 1
        return out


def map_file(path):
    """A read-only memory map of a file (bytes for an empty one)."""
    import mmap
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
