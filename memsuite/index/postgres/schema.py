"""The PostgreSQL tables every namespace shares, and the advisory locks and batch
size that the backend, its writer and its tables agree on."""

PG_SCHEMA_VERSION = 1
LOCK_SPACE = 0x6d656d  # first key of our advisory locks ('mem'); the second is the namespace's hash
LINK_LOCK_SPACE = LOCK_SPACE + 1
SCHEMA_LOCK = 0
BATCH = 20000  # rows per INSERT ... SELECT FROM unnest(...)

PG_SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS memsuite_ids;
CREATE TABLE IF NOT EXISTS memsuite_meta(ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT,
    PRIMARY KEY(ns, key));
CREATE TABLE IF NOT EXISTS memsuite_files(id BIGINT PRIMARY KEY, ns TEXT NOT NULL, path TEXT NOT NULL,
    size BIGINT, mtime_ns BIGINT, hash TEXT, issue TEXT, date TEXT, headings BYTEA, UNIQUE(ns, path));
CREATE TABLE IF NOT EXISTS memsuite_blocks(file BIGINT NOT NULL, block INTEGER NOT NULL, data BYTEA NOT NULL,
    PRIMARY KEY(file, block));
CREATE TABLE IF NOT EXISTS memsuite_chunks(id BIGINT PRIMARY KEY, ns TEXT NOT NULL, file BIGINT NOT NULL,
    ordinal INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, piece INTEGER NOT NULL,
    heading INTEGER NOT NULL, hash TEXT, length INTEGER NOT NULL, norm_terms DOUBLE PRECISION NOT NULL,
    n_grams INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS memsuite_chunks_by_file ON memsuite_chunks(file, ordinal);
CREATE INDEX IF NOT EXISTS memsuite_chunks_by_hash ON memsuite_chunks(ns, hash);
CREATE TABLE IF NOT EXISTS memsuite_postings(ns TEXT NOT NULL, term TEXT COLLATE "C" NOT NULL,
    chunk BIGINT NOT NULL, tf REAL NOT NULL, length INTEGER NOT NULL,
    PRIMARY KEY(ns, term, chunk) INCLUDE (tf, length));
CREATE TABLE IF NOT EXISTS memsuite_terms(ns TEXT NOT NULL, term TEXT COLLATE "C" NOT NULL,
    df INTEGER NOT NULL, PRIMARY KEY(ns, term));
CREATE TABLE IF NOT EXISTS memsuite_link_meta(ns TEXT NOT NULL, key TEXT NOT NULL, value TEXT,
    PRIMARY KEY(ns, key));
CREATE TABLE IF NOT EXISTS memsuite_link_files(ns TEXT NOT NULL, path TEXT NOT NULL, hash TEXT,
    PRIMARY KEY(ns, path));
CREATE TABLE IF NOT EXISTS memsuite_link_mentions(ns TEXT NOT NULL, path TEXT NOT NULL, ordinal INTEGER,
    key TEXT, kind TEXT, spelling TEXT, count INTEGER, PRIMARY KEY(ns, path, ordinal, key, kind, spelling));
CREATE INDEX IF NOT EXISTS memsuite_link_mentions_by_key ON memsuite_link_mentions(ns, key);
CREATE TABLE IF NOT EXISTS memsuite_link_entities(ns TEXT NOT NULL, key TEXT NOT NULL, chunks INTEGER,
    files INTEGER, mentions INTEGER, PRIMARY KEY(ns, key));
CREATE TABLE IF NOT EXISTS memsuite_link_spellings(ns TEXT NOT NULL, key TEXT NOT NULL, spelling TEXT NOT NULL,
    kind TEXT NOT NULL, count INTEGER, PRIMARY KEY(ns, key, spelling, kind));
CREATE TABLE IF NOT EXISTS memsuite_vectors(model TEXT NOT NULL, hash TEXT NOT NULL, vec BYTEA NOT NULL,
    PRIMARY KEY(model, hash))
"""
# a namespace's rows, table by table (deleted in this order when it is emptied)
NS_TABLES = ("memsuite_postings", "memsuite_terms", "memsuite_chunks", "memsuite_files", "memsuite_meta")
LINK_NS_TABLES = ("memsuite_link_mentions", "memsuite_link_entities", "memsuite_link_spellings",
                  "memsuite_link_files", "memsuite_link_meta")
