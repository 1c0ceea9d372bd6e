"""Writing the SQLite index: one transaction per sync."""
from collections import Counter

from ..records import BLOCK_LINES, timestamp_now
from ..prepare import chunk_terms
from ..blocks import BLOCK_KEY, pack_block, pack_headings
from .schema import df_from_keyword_index


class SqliteWriter:
    """One write transaction over the index, fed file by file so a big build
    never holds more than one file's analysis in memory.  BEGIN IMMEDIATE
    waits for (and then excludes) other writers; readers keep seeing the last
    committed index until COMMIT, and an error rolls everything back."""

    def __init__(self, backend, rebuild):
        self.backend, self.conn, self.rebuild = backend, backend.conn, rebuild
        self.df_delta, self.terms_delta = Counter(), 0

    def __enter__(self):
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        if self.rebuild:
            conn.execute("INSERT INTO fts(fts) VALUES('delete-all')")
            for table in ("chunks", "blocks", "files", "terms"):
                conn.execute("DELETE FROM %s" % table)
            conn.execute("UPDATE meta SET value='0' WHERE key='total_terms'")
        self.next_chunk = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        self.next_file = (conn.execute("SELECT max(id) FROM files").fetchone()[0] or 0) + 1
        return self

    def known_files(self):
        return self.backend.known_files()

    def remove(self, path):
        """Remove a file: its chunks' keyword rows are deleted by repeating
        exactly what was indexed, derived again from the stored text."""
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
        if row is None:
            return
        expanded = {}
        for chunk in self.backend.chunks_of(path):
            terms = chunk_terms(chunk.units, chunk.head_units, expanded)
            conn.execute("INSERT INTO fts(fts, rowid, body, head) VALUES('delete', ?, ?, ?)",
                         (chunk.key, terms.body, terms.head))
            self.df_delta.subtract(terms.features)
            self.terms_delta -= terms.length
        conn.execute("DELETE FROM chunks WHERE file=?", (row[0],))
        conn.execute("DELETE FROM blocks WHERE id BETWEEN ? AND ?", (row[0] * BLOCK_KEY, (row[0] + 1) * BLOCK_KEY - 1))
        conn.execute("DELETE FROM files WHERE id=?", (row[0],))

    def put(self, f, analysed):
        """Replace a file's chunks with an PreparedFile; its chunks are written in
        batches, so a huge file never sits in memory as SQL rows too."""
        self.remove(f.path)
        conn = self.conn
        file_id, self.next_file = self.next_file, self.next_file + 1
        trails = {}
        for item in analysed.chunks:
            trails.setdefault(item.chunk.heading, (len(trails), item.head_units))
        conn.execute("INSERT INTO files VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                     (file_id, f.path, f.size, f.mtime_ns, analysed.digest, analysed.issue, analysed.date,
                      pack_headings([(trail, units) for trail, (_, units) in trails.items()])))
        lines, units = analysed.lines, analysed.units
        conn.executemany("INSERT INTO blocks VALUES(?, ?)", (
            (file_id * BLOCK_KEY + b, pack_block(lines[b * BLOCK_LINES:(b + 1) * BLOCK_LINES],
                                                   units[b * BLOCK_LINES:(b + 1) * BLOCK_LINES]))
            for b in range((len(lines) + BLOCK_LINES - 1) // BLOCK_LINES)))
        chunk_rows, fts_rows = [], []
        for item in analysed.chunks:
            c, t = item.chunk, item.terms
            chunk_rows.append((self.next_chunk, file_id, c.ordinal, c.start_line, c.end_line, c.piece,
                               trails[c.heading][0], c.hash, t.length, t.norm_terms, t.n_grams))
            fts_rows.append((self.next_chunk, t.body, t.head))
            self.next_chunk += 1
            self.terms_delta += t.length
            if len(chunk_rows) >= 1000:
                self._insert(chunk_rows, fts_rows)
        self._insert(chunk_rows, fts_rows)
        if analysed.df is not None:
            self.df_delta.update(analysed.df)

    def _insert(self, chunk_rows, fts_rows):
        self.conn.executemany("INSERT INTO chunks VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk_rows)
        self.conn.executemany("INSERT INTO fts(rowid, body, head) VALUES(?, ?, ?)", fts_rows)
        del chunk_rows[:], fts_rows[:]

    def count_features(self, df):
        """Document frequencies of a batch of files put() without theirs."""
        self.df_delta.update(df)

    def touch(self, f):
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (f.size, f.mtime_ns, f.path))

    def __exit__(self, exc_type, exc, tb):
        conn = self.conn
        if exc_type is not None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        try:
            self._apply_df()
            count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            total = self.backend.total_terms() + self.terms_delta
            conn.executemany("UPDATE meta SET value=? WHERE key=?",
                             [(str(count), "chunk_count"), (str(total), "total_terms"), (timestamp_now(), "last_sync")])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._release_free_pages()
        return False

    def _release_free_pages(self):
        """Give back the pages a big change freed (FTS5 merges leave many)."""
        free = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
        if free > 64 and free * 10 > self.conn.execute("PRAGMA page_count").fetchone()[0]:
            try:
                # the pragma frees one page per row it returns: read them all at once
                self.conn.execute("PRAGMA incremental_vacuum(%d)" % free).fetchall()
            except self.backend.sqlite3.OperationalError:
                pass  # busy: the next sync tries again

    def _apply_df(self):
        changes = [(n, t) for t, n in self.df_delta.items() if n and not df_from_keyword_index(t)]
        self.conn.executemany("INSERT OR IGNORE INTO terms VALUES(?, 0)", [(t,) for _, t in changes])
        self.conn.executemany("UPDATE terms SET df = df + ? WHERE term = ?", changes)
        self.conn.execute("DELETE FROM terms WHERE df <= 0")
