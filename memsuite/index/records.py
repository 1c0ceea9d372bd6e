"""What an index stores and returns, the filters a search applies, and the sync plan."""
import time
from operator import itemgetter

from ..base.records import record
from ..files.sources import is_session


# Records: what the index stores and returns

StoredChunk = record("StoredChunk", "key path ordinal start_line end_line heading date text hash "
                                    "units head_units length norm_terms n_grams")
StoredChunk.__doc__ = ("A chunk as the index returns it: key is the backend's row key, text the "
                       "chunk's lines as written (private blocks masked), date the file's; units "
                       "the analysed units of each line (a tuple) and head_units its heading's; "
                       "length its index terms (BM25's length); norm_terms and n_grams make its "
                       "vector length (see vector_norm).")
FileState = record("FileState", "size mtime_ns hash")
FileState.__doc__ = "What the index remembers of a file: its stat and content hash."
SyncReport = record("SyncReport", "added updated removed unchanged problems")
SyncReport.__doc__ = "What a sync did: lists of paths, and (path, issue) pairs."
Filters = record("Filters", "since until path_glob dated_only source today",
                 defaults=(None, None, None, False, None, None))
Filters.__doc__ = ("Which files a search may return: dates (YYYY-MM-DD), a path glob, dated only, "
                   "and the source ('memory' or 'sessions'; None for both); and the day a "
                   "question's relative dates are read against (YYYY-MM-DD, --today; None: "
                   "$MEMORY_TODAY or the clock's), which filters nothing.")

BLOCK_LINES = 8  # the index keeps each file's lines once, in compressed blocks of lines
PIECE_SEPARATOR = "\t"  # stored between a long line's pieces' units (units never hold a tab)


def stored_chunk(line_at, start_line, end_line, piece, chunk_chars):
    """(text, units) of a stored chunk, from its file's stored lines (line_at(n):
    line n's text and units).  A piece of a long line is its slice of the line
    (line_pieces), with its own units: a long line's units are kept piece by
    piece (a tuple), so a piece is never analysed again when it is read."""
    if piece:
        line, units = line_at(start_line)
        return line[(piece - 1) * chunk_chars:piece * chunk_chars], (units[piece - 1],)
    got = [line_at(n) for n in range(start_line, end_line + 1)]
    return "\n".join(g[0] for g in got), tuple(g[1] for g in got)


def join_units(units):
    """Lines' units (a tuple for a long line's pieces) as one text, a line per line."""
    return "\n".join([PIECE_SEPARATOR.join(u) if isinstance(u, tuple) else u for u in units])


def split_units(text):
    """join_units undone."""
    units = text.split("\n")
    if PIECE_SEPARATOR not in text:
        return units
    return [tuple(u.split(PIECE_SEPARATOR)) if PIECE_SEPARATOR in u else u for u in units]


def glob_matches(pattern, path):
    """--path semantics: a glob (* ? [..]); without wildcards, a file or folder prefix."""
    if not any(c in pattern for c in "*?["):
        p = pattern.strip("/")
        return path == p or path.startswith(p + "/")
    import fnmatch
    return fnmatch.fnmatchcase(path, pattern)


def filters_admit(filters, date, path):
    """Whether a file (its date, or None, and path) passes the filters.  The
    one definition: the JSON backend calls it, SQLite calls it from SQL."""
    if filters is None:
        return True
    if filters.source and (filters.source == "sessions") != is_session(path):
        return False
    if date is None:
        if filters.dated_only:
            return False
    else:
        if filters.since and date < filters.since:
            return False
        if filters.until and date > filters.until:
            return False
    return not filters.path_glob or glob_matches(filters.path_glob, path)


def has_filters(filters):
    return filters is not None and any(v for name, v in zip(filters._fields, filters) if name != "today")


_PATH, _STAT = itemgetter(0), itemgetter(2, 3)  # of a SourceFile: path; (size, mtime_ns)


def stat_digest(found):
    """A digest of every found file's path, size and modification time: equal
    to the one the last sync stored, it means nothing changed (without
    reading what the index knows of each file).  The paths go through
    crc32 and adler32 (Python's hash of a string differs from process to
    process), the numbers through Python's hash of a tuple of integers (the
    same in every process, and no text to format for each file)."""
    import zlib
    paths = "\n".join(map(_PATH, found)).encode("utf-8", "surrogatepass")
    stats = hash(tuple(map(_STAT, found))) & 0xFFFFFFFFFFFFFFFF
    return "%08x%08x%016x-%d" % (zlib.crc32(paths), zlib.adler32(paths), stats, len(found))


def plan_sync(known, found):
    """Compare stored files {path: FileState} with found SourceFiles.

    Returns (changed, removed, unchanged): changed are SourceFiles whose size
    or mtime differ (the caller hashes them), removed are stored paths gone.
    """
    changed, unchanged = [], []
    seen = set()
    for f in found:
        seen.add(f.path)
        old = known.get(f.path)
        if old and old.size == f.size and old.mtime_ns == f.mtime_ns:
            unchanged.append(f.path)
        else:
            changed.append(f)
    removed = [p for p in known if p not in seen]
    return changed, removed, unchanged


def batched(values, size=500):
    """values in lists of at most size (SQLite limits the parameters of a statement)."""
    values = list(values)
    for i in range(0, len(values), size):
        yield values[i:i + size]


def timestamp_now():
    return time.strftime("%Y-%m-%dT%H:%M:%S")


# The backend contract is the Backend class (backend.py).
SCHEMA_VERSION = 9  # 9: a long line's units stored piece by piece
