"""The SQLite index file: its tables, which features FTS5 counts itself, and the
transactions that read and change it (the linker's and the embeddings' tables use them too)."""
import time

from ...text.chinese import is_cjk_char

BUSY_TIMEOUT_MS = 10000
FTS_TOKENCHARS = "-_.:/@+"  # connectors the tokenizer keeps inside codes

SQLITE_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER,
                   mtime_ns INTEGER, hash TEXT, issue TEXT, date TEXT, headings BLOB);
-- every search lists the notes it cannot read: a few rows, not a scan of every file's
CREATE INDEX files_with_issues ON files(path) WHERE issue IS NOT NULL;
CREATE TABLE blocks(id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, file INTEGER NOT NULL, ordinal INTEGER NOT NULL,
                    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, piece INTEGER NOT NULL,
                    heading INTEGER NOT NULL, hash TEXT, length INTEGER NOT NULL,
                    norm_terms REAL NOT NULL, n_grams INTEGER NOT NULL);
CREATE UNIQUE INDEX chunks_by_file ON chunks(file, ordinal);
CREATE VIRTUAL TABLE fts USING fts5(body, head, content='',
    tokenize="unicode61 remove_diacritics 0 tokenchars '{tokenchars}'");
INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(1.0, {heading_weight})');
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');
CREATE TABLE terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
"""
SQLITE_TABLES = ("meta", "files", "blocks", "chunks", "fts", "fts_vocab", "terms")


def df_from_keyword_index(feature):
    """Whether the keyword index itself counts a feature's chunks (FTS5 knows
    the document frequency of the terms it holds); the rest (CJK unigrams,
    trigrams) are counted in the terms table."""
    return not feature.startswith("#") and not (len(feature) == 1 and is_cjk_char(feature))


class ReadTransaction:
    """A read transaction on a connection (none for None); an inner one
    joins the outer."""

    def __init__(self, conn):
        self.conn, self.began = conn, False

    def __enter__(self):
        if self.conn is not None and not self.conn.in_transaction:
            self.conn.execute("BEGIN")
            self.began = True
        return self

    def __exit__(self, *exc):
        try:
            if self.began and self.conn.in_transaction:
                self.conn.execute("COMMIT")
        except Exception:  # the store closed or replaced the connection meanwhile (recovery)
            pass
        return False


class WriteTransaction:
    """BEGIN IMMEDIATE (waits for, then excludes, other writers) ... COMMIT;
    ROLLBACK when the block or the COMMIT fails."""

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, *exc):
        try:
            if exc_type is None:
                self.conn.execute("COMMIT")
        finally:
            if self.conn.in_transaction:  # the block failed, or the COMMIT did
                self.conn.execute("ROLLBACK")
        return False


def retry_while_locked(fn, sqlite3, seconds=BUSY_TIMEOUT_MS / 1000.0):
    """Run fn, retrying while another process holds the database: switching
    to WAL mode can report 'locked' at once instead of waiting."""
    deadline = time.time() + seconds
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.time() > deadline:
                raise
            time.sleep(0.05)


# Kept when an index of another format or settings is rebuilt: an embedding
# provider's vectors, keyed by model and text hash (no format change alters
# them), cost minutes or money to make again.  The JSON and PostgreSQL
# indexes keep theirs the same way.
KEPT_TABLES = ("vectors",)


def drop_everything(conn):
    """Drop every table of an older schema (virtual tables first: they own
    shadows) but KEPT_TABLES."""
    listing = ("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
               "AND name NOT IN (" + ",".join("'%s'" % t for t in KEPT_TABLES) + ")")
    for name, in conn.execute(listing + " AND sql LIKE 'CREATE VIRTUAL%'").fetchall():
        conn.execute('DROP TABLE IF EXISTS "%s"' % name.replace('"', '""'))
    for name, in conn.execute(listing).fetchall():
        conn.execute('DROP TABLE IF EXISTS "%s"' % name.replace('"', '""'))
