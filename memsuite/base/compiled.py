"""Tables compiled once: built from their source files on first use, kept in the
user's cache as marshal data, and read back in a fraction of a millisecond.

A table's key is the stat (size, modification time) of every source and the
version below, so an edited source is compiled afresh; a cache that cannot be
written only means the table is built in memory each time, as before.
"""
import marshal
import os
import zlib

# Bump when what a build function returns changes shape.
VERSION = 1


def cache_dir():
    """Where compiled tables are kept: $XDG_CACHE_HOME (or ~/.cache)/memory-suite/tables."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "memory-suite", "tables")


def compiled(name, sources, build):
    """build(), or what an earlier build() returned for the same sources.
    sources are file paths (a missing one counts as such); what build returns
    must be marshal-able (dicts, tuples, strings, bytes)."""
    name, path = _cache_path(name, sources, "marshal")
    try:
        with open(path, "rb") as f:
            return marshal.loads(f.read())
    except (OSError, ValueError, EOFError, TypeError):
        pass
    value = build()
    _keep(path, name, marshal.dumps(value))
    return value


def compiled_mapped(name, sources, build):
    """The bytes build() returns, as compiled does, but kept raw and read by a
    memory map: a large table costs a lookup a few pages, not a full read."""
    name, path = _cache_path(name, sources, "bytes")
    try:
        import mmap
        with open(path, "rb") as f:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        pass
    value = build()
    _keep(path, name, value)
    return value


def _cache_path(name, sources, kind):
    """(the table's name for this copy of its sources, its cache file for their stat)."""
    where = zlib.crc32(repr([os.path.abspath(p) for p in sources]).encode("utf-8", "surrogatepass"))
    key = zlib.crc32(repr((VERSION, marshal.version, [_stamp(p) for p in sources])).encode("utf-8", "surrogatepass"))
    # one file per copy of the sources (two installs of the suite never evict each other's), named by their stat
    name = "%s-%08x" % (name, where)
    return name, os.path.join(cache_dir(), "%s-%08x.%s" % (name, key, kind))


def _stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_size, st.st_mtime_ns)


def _keep(path, name, data):
    """Write the table's bytes beside its older versions' place, which it
    replaces (best effort: a read-only or full disk is no error)."""
    from .fileio import write_bytes_atomic
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        write_bytes_atomic(path, data)
        for other in os.listdir(folder):
            if other.startswith(name + "-") and other != os.path.basename(path):
                os.unlink(os.path.join(folder, other))
    except (OSError, ValueError):
        pass
