"""The SQLite index (default): opening it, and everything a search reads
(schema.py holds its tables and transactions, writer.py its one writer)."""
import os

from ..records import (BLOCK_LINES, FileState, SCHEMA_VERSION, StoredChunk, batched, stored_chunk,
                       timestamp_now, filters_admit, has_filters)
from ...text.params import DEFAULT_PARAMS, index_settings, settings_change
from ...base.records import IndexDamaged, StoreError
from ..backend import Backend, move_aside
from ..blocks import BLOCK_KEY, unpack_block, unpack_headings
from .schema import (BUSY_TIMEOUT_MS, FTS_TOKENCHARS, SQLITE_SCHEMA, SQLITE_TABLES, ReadTransaction, WriteTransaction,
                     df_from_keyword_index, drop_everything, retry_while_locked)


_CHUNK_COLUMNS = ("c.id, f.path, c.ordinal, c.start_line, c.end_line, c.heading, f.date, c.hash, "
                  "f.headings, c.length, c.norm_terms, c.n_grams, c.file, c.piece")


def sqlite_unavailable_reason():
    """None when sqlite3 with FTS5 works here, else why not."""
    try:
        import sqlite3
    except ImportError:
        return "the sqlite3 module is not available"
    try:
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        conn.close()
    except Exception:
        return "this SQLite (%s) has no FTS5" % sqlite3.sqlite_version
    return None


def sqlite_core():
    """The sqlite3 module's C core (the same connect, errors and version): the
    package around it also imports datetime for its date adapters, ~1 ms of
    every cold query, and this index stores no date objects.  The package
    where there is no such core."""
    try:
        import _sqlite3 as sqlite3
    except ImportError:
        import sqlite3
    return sqlite3


class NoFts5(Exception):
    """This SQLite cannot do full-text search: use the JSON backend."""


class SqliteBackend(Backend):
    """The default index: one SQLite file, WAL mode, one transaction per sync."""

    name = "sqlite-fts5"
    filename = "index.sqlite3"

    def __init__(self, index_dir, params=DEFAULT_PARAMS, warn=None, folder=None):
        self.sqlite3 = sqlite_core()
        self.path = os.path.join(index_dir, self.filename) if index_dir else ":memory:"
        self.params = params
        self.settings = index_settings(params, folder)
        self.warn = warn or (lambda msg: None)
        self.conn = None

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        try:
            conn = self.sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000.0,
                                        isolation_level=None, check_same_thread=False)
        except self.sqlite3.OperationalError as exc:
            raise StoreError("cannot open the index %s: %s" % (self.path, exc))
        self.conn = conn
        try:
            conn.execute("PRAGMA busy_timeout=%d" % BUSY_TIMEOUT_MS)
            version, settings = self._stamp()
            if version != SCHEMA_VERSION or settings != self.settings:
                if version is not None:
                    why = ("its format is from another version of the suite" if version != SCHEMA_VERSION
                           else "its settings changed (%s)" % settings_change(settings, self.settings))
                    self.warn("rebuilding the index: %s" % why)
                retry_while_locked(self._create_schema, self.sqlite3)
            self._check_tables()
            conn.execute("PRAGMA synchronous=NORMAL")
        except self.sqlite3.DatabaseError as exc:
            self.close()
            if "fts5" in str(exc).lower():
                raise NoFts5(str(exc))
            if self.is_corruption(exc):
                raise IndexDamaged(str(exc))
            raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def is_corruption(self, exc):
        """Whether an error means the file itself is damaged (not busy, not a
        bug): SQLite's own word, or a stored block that no longer unpacks."""
        import zlib
        if isinstance(exc, zlib.error):
            return True
        if not isinstance(exc, self.sqlite3.DatabaseError):
            return False
        msg = str(exc).lower()
        return any(w in msg for w in ("malformed", "not a database", "file is encrypted", "corrupt"))

    def discard(self):
        return move_aside(self)

    def files_on_disk(self):
        return [self.path + s for s in ("", "-wal", "-shm")] if self.path != ":memory:" else []

    def _stamp(self):
        """(schema version, settings) recorded in the index; (None, None) for an empty
        file.  A file with tables but no stamp of ours is not our index: damaged."""
        try:
            rows = dict(self.conn.execute(
                "SELECT key, value FROM meta WHERE key IN ('schema_version', 'settings')"))
        except self.sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
            tables = self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise IndexDamaged("not a memory index (no meta table)")
            return None, None
        if "schema_version" not in rows:
            raise IndexDamaged("not a memory index (no schema version)")
        return int(rows["schema_version"]), rows.get("settings")

    def _check_tables(self):
        present = {name for name, in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = [t for t in SQLITE_TABLES if t not in present]
        if missing:
            raise IndexDamaged("the index lacks its %s table" % missing[0])
        self.conn.execute("SELECT rowid FROM fts LIMIT 0")  # fails here if this SQLite has no FTS5

    def _create_schema(self):
        conn = self.conn
        if self.path != ":memory:":
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # takes effect in a new file
            conn.execute("PRAGMA journal_mode=WAL")
        with WriteTransaction(conn):
            version, settings = self._stamp()
            if version == SCHEMA_VERSION and settings == self.settings:  # another process won the race
                return
            drop_everything(conn)
            schema = SQLITE_SCHEMA.format(tokenchars=FTS_TOKENCHARS, heading_weight=self.params.heading_weight)
            for statement in schema.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany("INSERT INTO meta VALUES(?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("settings", self.settings),
                ("chunk_count", "0"), ("total_terms", "0"), ("created", timestamp_now()), ("last_sync", "")])

    # --- reads -------------------------------------------------------------
    def meta(self, key):
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key, value):
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    def known_files(self):
        # a file that could not be read looks changed (mtime -1): the next sync tries it again
        return {p: FileState(s, m, h) for p, s, m, h in self.conn.execute(
            "SELECT path, size, CASE WHEN issue = 'unreadable' THEN -1 ELSE mtime_ns END, hash FROM files")}

    def file_dates(self):
        return dict(self.conn.execute("SELECT path, date FROM files"))

    def chunk_count(self):
        return int(self.meta("chunk_count") or 0)

    def total_terms(self):
        """Index terms in all chunks: BM25's average length is this / chunks."""
        return int(self.meta("total_terms") or 0)

    def doc_freqs(self, terms):
        out = {}
        indexed = [t for t in terms if df_from_keyword_index(t)]
        counted = [t for t in terms if not df_from_keyword_index(t)]
        for table, column, wanted in (("fts_vocab", "doc", indexed), ("terms", "df", counted)):
            for part in batched(wanted):
                out.update(self.conn.execute("SELECT term, %s FROM %s WHERE term IN (%s)"
                                             % (column, table, ",".join("?" * len(part))), part))
        return out

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """BM25 over the FTS5 index: [(key, score)], score positive, best first.
        Chunks holding any of the terms (or words starting with a prefix), or
        with require_all, every term."""
        phrases = ['"%s"' % t.replace('"', '""') for t in terms]
        phrases += ['"%s"*' % p.replace('"', '""') for p in prefixes]
        if not phrases:
            return []
        match = (" AND " if require_all else " OR ").join(phrases)
        sql = "SELECT fts.rowid, -fts.rank FROM fts"
        args = [match]
        if has_filters(filters):
            self.conn.create_function("filters_admit", 2, lambda date, path: filters_admit(filters, date, path))
            sql += " JOIN chunks c ON c.id = fts.rowid JOIN files f ON f.id = c.file " \
                   "WHERE fts MATCH ? AND filters_admit(f.date, f.path)"
        else:
            sql += " WHERE fts MATCH ?"
        return self.conn.execute(sql + " ORDER BY fts.rank LIMIT ?", args + [limit]).fetchall()

    def fetch(self, keys):
        """{key: StoredChunk} for the given keys."""
        rows = []
        with self.snapshot():  # chunk rows and their blocks from one commit
            for part in batched(keys):
                rows.extend(self.conn.execute(
                    "SELECT %s FROM chunks c JOIN files f ON f.id = c.file WHERE c.id IN (%s)"
                    % (_CHUNK_COLUMNS, ",".join("?" * len(part))), part))
            return {r[0]: r for r in self._with_text(rows)}

    def chunks_of(self, path):
        with self.snapshot():
            rows = self.conn.execute("SELECT %s FROM chunks c JOIN files f ON f.id = c.file WHERE f.path=? "
                                     "ORDER BY c.ordinal" % _CHUNK_COLUMNS, (path,)).fetchall()
            return self._with_text(rows)

    def snapshot(self):
        """Reads inside see one committed index (a read transaction); nests."""
        return ReadTransaction(self.conn)

    def _with_text(self, rows):
        """StoredChunks for chunk rows, their lines and units read from the file's blocks."""
        wanted = {}
        for r in rows:
            first, last = (r[3] - 1) // BLOCK_LINES, (r[4] - 1) // BLOCK_LINES
            lo, hi = wanted.get(r[12], (first, last))
            wanted[r[12]] = (min(lo, first), max(hi, last))
        lines, headings = {}, {}
        for file_id, (lo, hi) in wanted.items():
            base = file_id * BLOCK_KEY
            for key, blob in self.conn.execute("SELECT id, data FROM blocks WHERE id BETWEEN ? AND ?",
                                               (base + lo, base + hi)):
                first = (key - base) * BLOCK_LINES + 1
                for i, line in enumerate(zip(*unpack_block(blob))):
                    lines[(file_id, first + i)] = line
        out = []
        for (key, path, ordinal, start, end, heading, date, digest, trails, length, norm_terms,
             n_grams, file_id, piece) in rows:
            if file_id not in headings:
                headings[file_id] = unpack_headings(trails)
            heading, head_units = headings[file_id][heading]
            text, units = stored_chunk(lambda n: lines.get((file_id, n), ("", "")), start, end, piece,
                                       self.params.chunk_chars)
            out.append(StoredChunk(key, path, ordinal, start, end, heading, date, text, digest,
                                   units, head_units, length, norm_terms, n_grams))
        return out

    def file_issues(self):
        return list(self.conn.execute(
            "SELECT path, issue FROM files WHERE issue IS NOT NULL ORDER BY path"))

    def stats(self):
        n_files = self.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": n_files, "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self.meta("last_sync") or None, "schema_version": SCHEMA_VERSION}

    def make_links(self):
        from ..link_tables import SqliteLinks
        return SqliteLinks(self)

    def make_embeddings(self):
        from ..embedding_tables import SqliteEmbeddings
        return SqliteEmbeddings(self)

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        """The one way to change the index: a transaction (see _SqliteWriter)."""
        from .writer import SqliteWriter
        return SqliteWriter(self, rebuild)

    def backup_to(self, dest):
        target = self.sqlite3.connect(dest)
        try:
            self.conn.backup(target)
        finally:
            target.close()
