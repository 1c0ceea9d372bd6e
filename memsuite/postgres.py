"""The PostgreSQL backend: the store contract (see "The backend contract" in
memory_store.py) on a server a team or several machines share.

Optional, never required: chosen with MEMORY_BACKEND=postgres (or --backend
postgres); the server is named by MEMORY_PG_DSN or the standard PG* variables.
The driver is imported only then: psycopg 3 when importable, else pg8000.

Each memory folder syncs into its own namespace (a name; by default one made
from the host and the folder).  Every row carries its namespace; a sync is one
transaction holding a per-namespace advisory lock, so writers of one
namespace queue while writers of others and every reader go on (readers see
the last committed state: MVCC).  A sync that dies (killed, machine gone)
is rolled back by the server: the namespace stays as it was.

Ranking is the suite's own: the same tokenizer and BM25 formula (FTS5's, as
the JSON backend computes it).  Postings (namespace, term, chunk, weighted tf,
chunk length) are the primary key's index, so finding candidates reads only
the query terms' postings.  A search reads its own namespace, or those it is
given (names, or all); a hit of another namespace is cited 'name:path:lines'
and its text comes from the index.

Credentials come only from the DSN or the environment and are never printed:
error messages are scrubbed of the password and the DSN.  Every statement is
parameterised (table names are constants).
"""
import os
import re
import socket
from collections import Counter

from .bm25 import bm25_idf, bm25_weight
from .index_records import BLOCK_LINES, FileState, SCHEMA_VERSION, StoredChunk, _batched, _now, filters_admit, has_filters
from .jsonout import to_json
from .link_tables import LinkDelta
from .markdown import line_pieces
from .params import DEFAULT_PARAMS, index_settings, settings_change
from .prepare import chunk_terms
from .records import IndexDamaged, StoreError, UsageError
from .sqlite_index import _pack_block, _pack_headings, _unpack_block, _unpack_headings
from .tokenizer import text_units

PG_SCHEMA_VERSION = 1
LOCK_SPACE = 0x6d656d  # first key of our advisory locks ('mem'); the second is the namespace's hash
LINK_LOCK_SPACE = LOCK_SPACE + 1
SCHEMA_LOCK = 0
NAMESPACE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
BATCH = 20000  # rows per INSERT ... SELECT FROM unnest(...)

_SCHEMA = """
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
_NS_TABLES = ("memsuite_postings", "memsuite_terms", "memsuite_chunks", "memsuite_files", "memsuite_meta")
_LINK_NS_TABLES = ("memsuite_link_mentions", "memsuite_link_entities", "memsuite_link_spellings",
                   "memsuite_link_files", "memsuite_link_meta")


# --------------------------------------------------------------------------
# Which server, which namespace
# --------------------------------------------------------------------------

def default_namespace(root):
    """A name for a memory folder: its folder name and a short hash of this
    host and its path (two machines, or two folders of one name, differ)."""
    import hashlib
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", os.path.basename(os.path.normpath(root))).strip("-._") or "memory"
    digest = hashlib.sha1(("%s:%s" % (socket.gethostname(), root)).encode("utf-8", "surrogatepass")).hexdigest()
    return "%s-%s" % (base[:40], digest[:8])


def check_namespace(name):
    if not NAMESPACE_RE.match(name or "") or name == "all":
        raise UsageError("bad namespace %r (letters, digits, '.', '_' or '-', at most 63; "
                            "'all' is reserved)" % name)
    return name


def parse_namespaces(value, root):
    """(own namespace, namespaces read: a list, or None for all) from
    --namespace / MEMORY_NAMESPACE: one name is this folder's namespace;
    several ('a,b') or 'all' are what a search reads, and the folder keeps
    its own (MEMORY_NAMESPACE, else the default)."""
    env = os.environ.get("MEMORY_NAMESPACE", "").strip()
    own = check_namespace(env) if env else default_namespace(root)
    if not value:
        return own, [own]
    value = value.strip()
    if value == "all":
        return own, None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise UsageError("empty --namespace")
    for n in names:
        check_namespace(n)
    if len(names) == 1:
        return names[0], names
    return own, list(dict.fromkeys(names))


def dsn_settings():
    """(conninfo string for psycopg, keyword arguments for pg8000, password)
    from MEMORY_PG_DSN (a URI or 'key=value ...') and the PG* variables."""
    dsn = os.environ.get("MEMORY_PG_DSN", "").strip()
    kw = {}
    if dsn.startswith(("postgres://", "postgresql://")):
        from urllib.parse import urlsplit, unquote, parse_qsl
        parts = urlsplit(dsn)
        if parts.username:
            kw["user"] = unquote(parts.username)
        if parts.password:
            kw["password"] = unquote(parts.password)
        host = parts.netloc.rsplit("@", 1)[-1]
        if host:
            name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
            if not name:
                name, port = port, ""
            if name:
                kw["host"] = unquote(name.strip("[]"))
            if port:
                kw["port"] = port
        if parts.path.strip("/"):
            kw["dbname"] = unquote(parts.path.strip("/"))
        for k, v in parse_qsl(parts.query):
            kw[k] = v
    elif dsn:
        for m in re.finditer(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn):
            value = m.group(2)
            if value.startswith("'"):
                value = re.sub(r"\\(.)", r"\1", value[1:-1])
            kw[m.group(1)] = value
    for key, env in (("host", "PGHOST"), ("port", "PGPORT"), ("user", "PGUSER"),
                     ("password", "PGPASSWORD"), ("dbname", "PGDATABASE")):
        if key not in kw and os.environ.get(env):
            kw[key] = os.environ[env]
    return dsn, kw, kw.get("password")


def _pg8000_args(kw):
    import getpass
    user = kw.get("user") or getpass.getuser()
    host = kw.get("host") or ("/var/run/postgresql" if os.path.isdir("/var/run/postgresql") else "localhost")
    port = int(kw.get("port") or 5432)
    args = {"user": user, "database": kw.get("dbname") or user, "password": kw.get("password")}
    if host.startswith("/"):
        args["unix_sock"] = os.path.join(host, ".s.PGSQL.%d" % port)
    else:
        args.update(host=host, port=port)
    if kw.get("connect_timeout"):
        args["timeout"] = float(kw["connect_timeout"])
    return args


def describe_server(kw):
    """Where the server is, without credentials: 'host:port/db as user'."""
    host = kw.get("host") or "(default socket)"
    port = kw.get("port") or "5432"
    return "%s:%s/%s as %s" % (host, port, kw.get("dbname") or kw.get("user") or "(default)",
                               kw.get("user") or "(default user)")


class Driver:
    """The DB-API module in use and how to connect with it."""

    def __init__(self, name, module, errors):
        self.name, self.module, self.errors = name, module, errors


def load_driver():
    """The driver to use (psycopg 3, else pg8000), or StoreError saying why none can.
    The wrappers start Python with -S (no site-packages, for a fast start):
    when no driver imports so, site-packages are added and tried again."""
    try:
        return _load_driver()
    except StoreError:
        import sys
        if not sys.flags.no_site:
            raise
        import site
        site.main()
        return _load_driver()


def _load_driver():
    why = []
    if os.environ.get("MEMORY_PG_DRIVER", "") in ("", "psycopg"):
        try:
            import psycopg
            return Driver("psycopg %s" % psycopg.__version__, psycopg, (psycopg.Error,))
        except ImportError as exc:
            why.append("psycopg: %s" % exc)
    if os.environ.get("MEMORY_PG_DRIVER", "") in ("", "pg8000"):
        try:
            import pg8000.dbapi
            import pg8000
            version = getattr(pg8000, "__version__", "")
            return Driver(("pg8000 %s" % version).strip(), pg8000.dbapi, (pg8000.dbapi.Error,))
        except ImportError as exc:
            why.append("pg8000: %s" % exc)
    raise StoreError("PostgreSQL backend unavailable: no driver (%s); install one "
                        "(pip install 'psycopg[binary]' or pg8000) or use MEMORY_BACKEND=sqlite"
                        % "; ".join(why or ["MEMORY_PG_DRIVER=%s is not psycopg or pg8000"
                                            % os.environ.get("MEMORY_PG_DRIVER")]))


def _encodable(text):
    try:
        text.encode("utf-8")
    except UnicodeError:
        return False
    return "\0" not in text


def _copy_value(v):
    """A value in COPY's text format."""
    if v is None:
        return "\\N"
    if isinstance(v, str):
        if "\\" in v or "\t" in v or "\n" in v or "\r" in v:
            v = v.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
        return v
    return repr(v) if isinstance(v, float) else str(v)


def scrub(message, secrets):
    """A driver's message as one line, without any secret in it."""
    text = " ".join(str(message).split())
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = re.sub(r"(password\s*=\s*)\S+", r"\1***", text, flags=re.I)
    return re.sub(r"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)


# --------------------------------------------------------------------------
# The backend
# --------------------------------------------------------------------------

class PostgresBackend:
    name = "postgres"
    filename = "postgres"

    def __init__(self, root, namespace=None, params=DEFAULT_PARAMS, warn=None):
        self.root = root
        self.ns, self.read_ns = parse_namespaces(namespace, root)
        self.params = params
        self.settings = index_settings(params)
        self.warn = warn or (lambda msg: None)
        self.driver = load_driver()
        self.dsn, self.kw, password = dsn_settings()
        self.secrets = [s for s in (password, self.dsn) if s]
        self.origin = "%s:%s" % (socket.gethostname(), root)  # which folder writes this namespace
        self.conn = None
        self.depth = 0  # nested snapshot()s
        self.in_write = False
        self.links = PgLinks(self)
        self.vectors = PgVectors(self)
        self._warned_damage = set()
        self._all_ns = None  # the namespaces of 'all', while a snapshot lasts

    # --- the connection ---------------------------------------------------
    def error(self, exc, doing="talking to"):
        return StoreError("PostgreSQL (%s) %s: %s" % (describe_server(self.kw), doing,
                                                         scrub(exc, self.secrets) or type(exc).__name__))

    def _connect(self):
        try:
            if self.driver.name.startswith("psycopg"):
                conn = self.driver.module.connect(self.dsn, autocommit=True)
            else:
                conn = self.driver.module.connect(**_pg8000_args(self.kw))
                conn.autocommit = True
        except self.driver.errors + (OSError,) as exc:
            raise self.error(exc, "cannot connect")
        return conn

    def q(self, sql, args=(), fetch=True):
        """Run one parameterised statement; its rows (a list) when fetch."""
        if self.conn is None:
            raise StoreError("the PostgreSQL index is closed")
        try:
            cur = self.conn.cursor()
            if args:
                cur.execute(sql, tuple(args))
            else:
                cur.execute(sql)
            rows = cur.fetchall() if fetch and cur.description is not None else []
            cur.close()
            return rows
        except self.driver.errors + (OSError,) as exc:
            self._abandon()
            raise self.error(exc)

    def copy(self, table, columns, rows):
        """COPY rows (tuples of str, int, float) into table: the fast path for
        bulk writes (one message, no per-value parameter adaptation)."""
        if not rows:
            return
        data = "".join("\t".join(_copy_value(v) for v in row) + "\n" for row in rows).encode("utf-8")
        sql = "COPY %s (%s) FROM STDIN" % (table, ", ".join(columns))
        try:
            cur = self.conn.cursor()
            if self.driver.name.startswith("psycopg"):
                with cur.copy(sql) as out:
                    out.write(data)
            else:
                import io
                cur.execute(sql, stream=io.BytesIO(data))
            cur.close()
        except self.driver.errors + (OSError,) as exc:
            self._abandon()
            raise self.error(exc)

    def _abandon(self):
        """After an error: end any transaction (the server already aborted it)."""
        try:
            cur = self.conn.cursor()
            cur.execute("ROLLBACK")
            cur.close()
        except Exception:
            pass
        self.depth = 0
        self.in_write = False

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        if self.conn is None:
            self.conn = self._connect()
            encoding = self.q("SHOW server_encoding")[0][0]
            if str(encoding).upper().replace("-", "") != "UTF8":
                self.close()
                raise StoreError("the PostgreSQL database uses %s; the memory needs a UTF8 database "
                                    "(createdb -E UTF8 -T template0 NAME)" % encoding)
        if not self.q("SELECT to_regclass('memsuite_vectors') IS NOT NULL")[0][0]:
            self._create_schema()
        row = self.q("SELECT value FROM memsuite_meta WHERE ns='' AND key='schema'")
        if not row or row[0][0] != str(PG_SCHEMA_VERSION):
            raise StoreError("the database holds memory tables of another version of the suite "
                                "(schema %s, this one needs %d)" % (row[0][0] if row else "?", PG_SCHEMA_VERSION))
        meta = dict(self.q("SELECT key, value FROM memsuite_meta WHERE ns=%s AND key IN "
                           "('schema_version', 'settings')", (self.ns,)))
        if meta.get("schema_version") != str(SCHEMA_VERSION) or meta.get("settings") != self.settings:
            if meta:
                why = ("its format is from another version of the suite"
                       if meta.get("schema_version") != str(SCHEMA_VERSION)
                       else "its settings changed (%s)" % settings_change(meta.get("settings"), self.settings))
                self.warn("rebuilding namespace %s: %s" % (self.ns, why))
            self._start_namespace(meta)

    def _create_schema(self):
        self.q("BEGIN", fetch=False)
        try:
            self.q("SELECT pg_advisory_xact_lock(%s::int, %s::int)", (LOCK_SPACE, SCHEMA_LOCK))
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.q(statement, fetch=False)
            self.q("INSERT INTO memsuite_meta VALUES('', 'schema', %s) ON CONFLICT DO NOTHING",
                   (str(PG_SCHEMA_VERSION),), fetch=False)
            self.q("COMMIT", fetch=False)
        except BaseException:
            self._abandon()
            raise

    def _lock_namespace(self, space=LOCK_SPACE):
        self.q("SELECT pg_advisory_xact_lock(%s::int, hashtext(%s))", (space, self.ns))

    def _start_namespace(self, seen):
        """Make this namespace fresh (empty, stamped with our settings), under its lock."""
        self.q("BEGIN", fetch=False)
        try:
            self._lock_namespace()
            meta = dict(self.q("SELECT key, value FROM memsuite_meta WHERE ns=%s AND key IN "
                               "('schema_version', 'settings')", (self.ns,)))
            if meta.get("schema_version") != str(SCHEMA_VERSION) or meta.get("settings") != self.settings:
                self._wipe()
                self._set_meta_rows([("schema_version", str(SCHEMA_VERSION)), ("settings", self.settings),
                                     ("chunk_count", "0"), ("total_terms", "0"), ("created", _now()),
                                     ("last_sync", "")])
            self.q("COMMIT", fetch=False)
        except BaseException:
            self._abandon()
            raise

    def _wipe(self, meta=True):
        """Delete this namespace's rows (inside a transaction holding its lock)."""
        self.q("DELETE FROM memsuite_blocks WHERE file IN (SELECT id FROM memsuite_files WHERE ns=%s)",
               (self.ns,), fetch=False)
        for table in _NS_TABLES if meta else _NS_TABLES[:-1]:
            self.q("DELETE FROM " + table + " WHERE ns=%s", (self.ns,), fetch=False)

    def _set_meta_rows(self, pairs):
        for key, value in pairs:
            self.q("INSERT INTO memsuite_meta VALUES(%s, %s, %s) ON CONFLICT (ns, key) DO UPDATE "
                   "SET value=EXCLUDED.value", (self.ns, key, value), fetch=False)

    def discard(self):
        """A damaged namespace: empty it alone (others are untouched); the
        store then indexes the folder again."""
        self._abandon()
        self._start_namespace_forced()

    def _start_namespace_forced(self):
        self.q("BEGIN", fetch=False)
        try:
            self._lock_namespace()
            self._wipe()
            self._set_meta_rows([("schema_version", str(SCHEMA_VERSION)), ("settings", self.settings),
                                 ("chunk_count", "0"), ("total_terms", "0"), ("created", _now()),
                                 ("last_sync", "")])
            self.q("COMMIT", fetch=False)
        except BaseException:
            self._abandon()
            raise

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
            self.conn = None

    def is_corruption(self, exc):
        return isinstance(exc, IndexDamaged)

    def files_on_disk(self):
        return []

    # --- reads ---------------------------------------------------------------
    def _read_clause(self, column="ns"):
        """(SQL condition, args) selecting the namespaces this backend reads.
        'all' is every namespace there is, named (the indexes lead with ns:
        a bare term lookup would read every posting)."""
        names = self.read_ns
        if names is None:
            names = self._all_ns if self.depth else None
            if names is None:
                names = [r[0] for r in self.q("SELECT ns FROM memsuite_meta WHERE ns <> '' AND key='schema_version'")]
                self._all_ns = names if self.depth else None  # kept for the snapshot's reads
        return column + " = ANY(%s::text[])", [list(names)]

    def namespaces(self):
        """[(namespace, files, chunks)] of every namespace in the database."""
        rows = self.q("SELECT ns, key, value FROM memsuite_meta WHERE ns <> '' AND key='chunk_count'")
        files = dict(self.q("SELECT ns, count(*) FROM memsuite_files GROUP BY ns"))
        return sorted((ns, int(files.get(ns, 0)), int(v or 0)) for ns, _, v in rows)

    def meta(self, key):
        row = self.q("SELECT value FROM memsuite_meta WHERE ns=%s AND key=%s", (self.ns, key))
        return row[0][0] if row else None

    def set_meta(self, key, value):
        self._set_meta_rows([(key, value)])

    def known_files(self):
        return {p: FileState(s, m, h) for p, s, m, h in
                self.q("SELECT path, size, mtime_ns, hash FROM memsuite_files WHERE ns=%s", (self.ns,))}

    def file_dates(self):
        return dict(self.q("SELECT path, date FROM memsuite_files WHERE ns=%s", (self.ns,)))

    def _summed_meta(self, key):
        where, args = self._read_clause()
        row = self.q("SELECT coalesce(sum(value::bigint), 0) FROM memsuite_meta WHERE key=%s AND " + where,
                     [key] + args)
        return int(row[0][0] or 0)

    def chunk_count(self):
        return self._summed_meta("chunk_count")

    def total_terms(self):
        return self._summed_meta("total_terms")

    def doc_freqs(self, terms):
        terms = [t for t in dict.fromkeys(terms) if _encodable(t)]
        if not terms:
            return {}
        where, args = self._read_clause()
        out = {}
        for part in _batched(terms, 5000):
            out.update((t, int(n)) for t, n in self.q(
                "SELECT term, sum(df) FROM memsuite_terms WHERE term = ANY(%s::text[]) AND " + where +
                " GROUP BY term HAVING sum(df) > 0", [part] + args))
        return out

    def _postings(self, term, prefix=False):
        """{chunk key: (tf, length)} of a term, or of the terms starting with it."""
        if not _encodable(term):
            return {}
        return {k: (tf, length) for k, tf, length in self.q(*self.postings_query(term, prefix))}

    def postings_query(self, term, prefix=False):
        """(SQL, args) reading a term's postings (or its prefix's) in the namespaces read:
        range scans of the (ns, term) primary key."""
        where, args = self._read_clause()
        if prefix:
            return ("SELECT chunk, sum(tf), min(length) FROM memsuite_postings WHERE " + where +
                    " AND term >= %s AND term < %s AND left(term, %s::int) = %s GROUP BY chunk",
                    args + [term, term + "\U0010ffff", len(term), term])
        return "SELECT chunk, tf, length FROM memsuite_postings WHERE " + where + " AND term = %s", args + [term]

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """BM25 (FTS5's formula) over the postings of the terms: [(key, score)], best first."""
        phrases = [self._postings(t) for t in terms] + [self._postings(p, True) for p in prefixes]
        if not phrases:
            return []
        n = self.chunk_count()
        avg = (self.total_terms() / float(n) if n else 1.0) or 1.0
        scores = {}
        for postings in phrases:
            if not postings:
                continue
            idf = bm25_idf(n, len(postings))
            for key, (tf, length) in postings.items():
                scores[key] = scores.get(key, 0.0) + bm25_weight(tf, idf, length, avg)
        if require_all:
            holding = set.intersection(*(set(p) for p in phrases))
            scores = {k: v for k, v in scores.items() if k in holding}
        if has_filters(filters) and scores:
            keep = set()
            for part in _batched(list(scores), 10000):
                for key, date, path in self.q(
                        "SELECT c.id, f.date, f.path FROM memsuite_chunks c JOIN memsuite_files f ON f.id = c.file "
                        "WHERE c.id = ANY(%s::bigint[])", (part,)):
                    if filters_admit(filters, date, path):
                        keep.add(key)
            scores = {k: v for k, v in scores.items() if k in keep}
        ranked = sorted(scores, key=lambda k: (-scores[k], k))[:limit]
        return [(k, scores[k]) for k in ranked]

    _CHUNK_SQL = ("SELECT c.id, f.path, c.ordinal, c.start_line, c.end_line, c.heading, f.date, c.hash, "
                  "c.length, c.norm_terms, c.n_grams, c.file, c.piece, f.ns FROM memsuite_chunks c "
                  "JOIN memsuite_files f ON f.id = c.file ")

    def fetch(self, keys):
        keys = list(keys)
        if not keys:
            return {}
        with self.snapshot():
            rows = []
            for part in _batched(keys, 10000):
                rows.extend(self.q(self._CHUNK_SQL + "WHERE c.id = ANY(%s::bigint[])", (part,)))
            return {c.key: c for c in self._with_text(rows)}

    def _split_ns(self, path):
        """(namespace, path) of a path as this backend shows it ('name:path' for other namespaces)."""
        ns, sep, rest = path.partition(":")
        if sep and ns != self.ns and NAMESPACE_RE.match(ns) and (self.read_ns is None or ns in self.read_ns):
            return ns, rest
        return self.ns, path

    def chunks_of(self, path):
        ns, path = self._split_ns(path)
        with self.snapshot():
            rows = self.q(self._CHUNK_SQL + "WHERE f.ns=%s AND f.path=%s ORDER BY c.ordinal", (ns, path))
            return self._with_text(rows)

    def snapshot(self):
        return _Snapshot(self)

    def _with_text(self, rows):
        if not rows:
            return []
        wanted = {}
        for r in rows:
            first, last = (r[3] - 1) // BLOCK_LINES, (r[4] - 1) // BLOCK_LINES
            lo, hi = wanted.get(r[11], (first, last))
            wanted[r[11]] = (min(lo, first), max(hi, last))
        files = list(wanted)
        lines, headings, damaged = {}, {}, set()
        for file_id, blob in self.q("SELECT id, headings FROM memsuite_files WHERE id = ANY(%s::bigint[])",
                                    (files,)):
            try:
                headings[file_id] = _unpack_headings(blob)
            except Exception:
                damaged.add(file_id)
        for file_id, block, blob in self.q(
                "SELECT b.file, b.block, b.data FROM memsuite_blocks b JOIN unnest(%s::bigint[], %s::int[], "
                "%s::int[]) AS r(f, lo, hi) ON b.file = r.f AND b.block BETWEEN r.lo AND r.hi",
                (files, [wanted[f][0] for f in files], [wanted[f][1] for f in files])):
            try:
                first = block * BLOCK_LINES + 1
                for i, line in enumerate(zip(*_unpack_block(blob))):
                    lines[(file_id, first + i)] = line
            except Exception:
                damaged.add(file_id)
        out = []
        for (key, path, ordinal, start, end, heading, date, digest, length, norm_terms, n_grams, file_id,
             piece, ns) in rows:
            try:
                if file_id in damaged:
                    raise IndexError("unreadable blocks")
                heading, head_units = headings[file_id][heading]
            except (IndexError, KeyError, ValueError):
                if ns == self.ns:
                    raise IndexDamaged("namespace %s: the stored text of %s is unreadable" % (ns, path))
                if ns not in self._warned_damage:  # another folder's namespace: its owner rebuilds it
                    self._warned_damage.add(ns)
                    self.warn("namespace %s is damaged (%s); its hits are left out until its folder syncs"
                              % (ns, path))
                continue
            if piece:
                text = line_pieces(lines.get((file_id, start), ("", ""))[0], self.params.chunk_chars)[piece - 1]
                units = (text_units(text),)
            else:
                got = [lines.get((file_id, k), ("", "")) for k in range(start, end + 1)]
                text, units = "\n".join(g[0] for g in got), tuple(g[1] for g in got)
            shown = path if ns == self.ns else "%s:%s" % (ns, path)
            out.append(StoredChunk(key, shown, ordinal, start, end, heading, date, text, digest,
                                      units, head_units, length, norm_terms, n_grams))
        return out

    def file_issues(self):
        return [tuple(r) for r in self.q("SELECT path, issue FROM memsuite_files WHERE ns=%s AND issue IS NOT NULL "
                                         "ORDER BY path", (self.ns,))]

    def stats(self):
        n_files = self.q("SELECT count(*) FROM memsuite_files WHERE ns=%s", (self.ns,))[0][0]
        size = self.q("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                      "WHERE left(c.relname, 9) = 'memsuite_' AND c.relkind IN ('r', 'S')")[0][0]
        reads = "all" if self.read_ns is None else ", ".join(self.read_ns)
        return {"files": int(n_files), "chunks": int(self.meta("chunk_count") or 0), "index_bytes": int(size),
                "last_sync": self.meta("last_sync") or None, "schema_version": SCHEMA_VERSION,
                "index_path": "postgresql %s, namespace %s" % (describe_server(self.kw), self.ns),
                "postgres": {"driver": self.driver.name, "server": describe_server(self.kw),
                             "namespace": self.ns, "reads": reads,
                             "namespaces": [{"namespace": ns, "files": f, "chunks": c}
                                            for ns, f, c in self.namespaces()]}}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        return _PgWriter(self, rebuild)

    def backup_to(self, dest):
        """The namespace's files as JSON lines (paths, states; the Markdown is the source)."""
        with open(dest, "w", encoding="utf-8") as f:
            for path, state in sorted(self.known_files().items()):
                f.write(to_json({"namespace": self.ns, "path": path, "size": state.size,
                                    "mtime_ns": state.mtime_ns, "hash": state.hash}) + "\n")


class _Snapshot:
    """A read-only REPEATABLE READ transaction: every read inside sees one
    committed state, whatever writers commit meanwhile; nests."""

    def __init__(self, backend):
        self.backend, self.began = backend, False

    def __enter__(self):
        b = self.backend
        if b.depth == 0 and not b.in_write and b.conn is not None:
            b.q("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", fetch=False)
            b._all_ns = None
            self.began = True
        b.depth += 1
        return self

    def __exit__(self, *exc):
        b = self.backend
        b.depth = max(0, b.depth - 1)
        if self.began and b.depth == 0 and b.conn is not None:
            try:
                b.q("COMMIT", fetch=False)
            except StoreError:
                if exc[0] is None:
                    raise
        return False


class _PgWriter:
    """One transaction per sync, holding the namespace's advisory lock: other
    writers of this namespace wait, readers see the last commit, and a sync
    that dies is rolled back by the server."""

    def __init__(self, backend, rebuild):
        self.backend, self.rebuild = backend, rebuild
        self.df_delta, self.terms_delta, self.chunks_delta = Counter(), 0, 0
        self.postings = ([], [], [], [])  # term, chunk, tf, length
        self.written = 0  # postings written (a big change is followed by ANALYZE)

    def __enter__(self):
        b = self.backend
        if b.depth:  # a read snapshot is open on this connection: end it first
            b.q("COMMIT", fetch=False)
            b.depth = 0
        b.q("BEGIN", fetch=False)
        b.in_write = True
        try:
            b._lock_namespace()
            origin = b.meta("origin")
            if origin != b.origin:
                if origin and os.environ.get("MEMORY_NAMESPACE_TAKEOVER") != "1" and b.known_files():
                    raise StoreError("namespace %s holds the folder %s; this folder would replace its notes: "
                                        "choose another --namespace (or MEMORY_NAMESPACE_TAKEOVER=1 to replace them)"
                                        % (b.ns, origin))
                b._set_meta_rows([("origin", b.origin)])
            if self.rebuild:
                b._wipe(meta=False)
                b._set_meta_rows([("chunk_count", "0"), ("total_terms", "0")])
        except BaseException:
            b._abandon()
            raise
        return self

    def known_files(self):
        return self.backend.known_files()

    def remove(self, path):
        b = self.backend
        row = b.q("SELECT id FROM memsuite_files WHERE ns=%s AND path=%s", (b.ns, path))
        if not row:
            return
        self._flush()
        file_id = row[0][0]
        expanded, del_terms, del_chunks = {}, [], []
        for chunk in b.chunks_of(path):
            terms = chunk_terms(chunk.units, chunk.head_units, expanded)
            for term in set(terms.body.split()) | set(terms.head.split()):
                del_terms.append(term)
                del_chunks.append(chunk.key)
            self.df_delta.subtract(terms.features)
            self.terms_delta -= terms.length
            self.chunks_delta -= 1
        for i in range(0, len(del_terms), BATCH):
            b.q("DELETE FROM memsuite_postings p USING unnest(%s::text[], %s::bigint[]) AS x(t, c) "
                "WHERE p.ns = %s AND p.term = x.t AND p.chunk = x.c",
                (del_terms[i:i + BATCH], del_chunks[i:i + BATCH], b.ns), fetch=False)
        b.q("DELETE FROM memsuite_chunks WHERE file=%s", (file_id,), fetch=False)
        b.q("DELETE FROM memsuite_blocks WHERE file=%s", (file_id,), fetch=False)
        b.q("DELETE FROM memsuite_files WHERE id=%s", (file_id,), fetch=False)

    def put(self, f, analysed):
        b = self.backend
        self.remove(f.path)
        n_chunks = len(analysed.chunks)
        first = b.q("SELECT nextval('memsuite_ids') FROM generate_series(1, %s::int)", (n_chunks + 1,))
        ids = [r[0] for r in first]
        file_id, chunk_ids = ids[0], ids[1:]
        trails = {}
        for item in analysed.chunks:
            trails.setdefault(item.chunk.heading, (len(trails), item.head_units))
        b.q("INSERT INTO memsuite_files VALUES(%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (file_id, b.ns, f.path, f.size, f.mtime_ns, analysed.digest, analysed.issue, analysed.date,
             _pack_headings([(trail, units) for trail, (_, units) in trails.items()])), fetch=False)
        lines, units = analysed.lines, analysed.units
        n_blocks = (len(lines) + BLOCK_LINES - 1) // BLOCK_LINES
        step = BLOCK_LINES
        for lo in range(0, n_blocks, 500):
            blocks = list(range(lo, min(n_blocks, lo + 500)))
            b.q("INSERT INTO memsuite_blocks SELECT %s, * FROM unnest(%s::int[], %s::bytea[])",
                (file_id, blocks, [_pack_block(lines[k * step:(k + 1) * step], units[k * step:(k + 1) * step])
                                   for k in blocks]), fetch=False)
        cols = ([], [], [], [], [], [], [], [], [], [], [])
        hw = b.params.heading_weight
        for key, item in zip(chunk_ids, analysed.chunks):
            c, t = item.chunk, item.terms
            for col, value in zip(cols, (key, c.ordinal, c.start_line, c.end_line, c.piece, trails[c.heading][0],
                                         c.hash, t.length, t.norm_terms, t.n_grams)):
                col.append(value)
            body, head = Counter(t.body.split()), Counter(t.head.split())
            for term in set(body) | set(head):
                self.postings[0].append(term)
                self.postings[1].append(key)
                self.postings[2].append(body.get(term, 0) + hw * head.get(term, 0))
                self.postings[3].append(t.length)
            self.terms_delta += t.length
            self.chunks_delta += 1
        if chunk_ids:
            b.q("INSERT INTO memsuite_chunks SELECT x.id, %s, %s, x.o, x.s, x.e, x.p, x.h, x.hash, x.l, x.nt, x.ng "
                "FROM unnest(%s::bigint[], %s::int[], %s::int[], %s::int[], %s::int[], %s::int[], %s::text[], "
                "%s::int[], %s::float8[], %s::int[]) AS x(id, o, s, e, p, h, hash, l, nt, ng)",
                [b.ns, file_id] + [list(col) for col in cols[:10]], fetch=False)
        if len(self.postings[0]) >= BATCH:
            self._flush()
        if analysed.df is not None:
            self.df_delta.update(analysed.df)

    def _flush(self):
        b = self.backend
        terms, chunks, tfs, lengths = self.postings
        self.written += len(terms)
        ns = b.ns
        rows = sorted(zip(terms, chunks, tfs, lengths))  # in index order: btree inserts stay local
        b.copy("memsuite_postings", ("ns", "term", "chunk", "tf", "length"),
               [(ns, t, c, tf, n) for t, c, tf, n in rows])
        self.postings = ([], [], [], [])

    def count_features(self, df):
        self.df_delta.update(df)

    def touch(self, f):
        b = self.backend
        b.q("UPDATE memsuite_files SET size=%s, mtime_ns=%s WHERE ns=%s AND path=%s",
            (f.size, f.mtime_ns, b.ns, f.path), fetch=False)

    def __exit__(self, exc_type, exc, tb):
        b = self.backend
        if exc_type is not None:
            b._abandon()
            return False
        try:
            self._flush()
            changes = [(t, n) for t, n in self.df_delta.items() if n]
            if len(changes) > 1000:
                b.q("CREATE TEMP TABLE IF NOT EXISTS memsuite_df_delta(term TEXT COLLATE \"C\", n INTEGER) "
                    "ON COMMIT DELETE ROWS", fetch=False)
                b.copy("memsuite_df_delta", ("term", "n"), sorted(changes))
                b.q("INSERT INTO memsuite_terms AS t SELECT %s, x.term, x.n FROM memsuite_df_delta x "
                    "ON CONFLICT (ns, term) DO UPDATE SET df = t.df + EXCLUDED.df", (b.ns,), fetch=False)
            elif changes:
                b.q("INSERT INTO memsuite_terms AS t SELECT %s, x.term, x.n FROM unnest(%s::text[], %s::int[]) "
                    "AS x(term, n) ON CONFLICT (ns, term) DO UPDATE SET df = t.df + EXCLUDED.df",
                    (b.ns, [t for t, _ in changes], [n for _, n in changes]), fetch=False)
            lowered = [t for t, n in changes if n < 0]
            for i in range(0, len(lowered), BATCH):
                b.q("DELETE FROM memsuite_terms WHERE ns=%s AND term = ANY(%s::text[]) AND df <= 0",
                    (b.ns, lowered[i:i + BATCH]), fetch=False)
            count = int(b.meta("chunk_count") or 0) + self.chunks_delta
            total = int(b.meta("total_terms") or 0) + self.terms_delta
            b._set_meta_rows([("chunk_count", str(count)), ("total_terms", str(total)), ("last_sync", _now())])
            b.q("COMMIT", fetch=False)
            b.in_write = False
        except BaseException:
            b._abandon()
            raise
        if self.written > 20000:  # fresh statistics, so lookups keep using the (ns, term) index
            for table in ("memsuite_postings", "memsuite_terms", "memsuite_chunks", "memsuite_files"):
                b.q("ANALYZE " + table, fetch=False)
        return False


# --------------------------------------------------------------------------
# Link tables and vectors
# --------------------------------------------------------------------------

class PgLinks:
    """The linker's tables, per namespace (the graph of one folder)."""

    def __init__(self, backend):
        self.backend = backend

    def _write(self):
        b = self.backend
        if b.depth:  # a read snapshot is open on this connection: end it first
            b.q("COMMIT", fetch=False)
            b.depth = 0
        b.q("BEGIN", fetch=False)
        b.in_write = True
        b._lock_namespace(LINK_LOCK_SPACE)

    def _commit(self):
        b = self.backend
        b.q("COMMIT", fetch=False)
        b.in_write = False

    def ensure(self, version):
        b = self.backend
        version = "%s %s" % (version, b.settings)
        if self._version() == version:
            return
        try:
            self._write()
            if self._version() != version:
                for table in _LINK_NS_TABLES:
                    b.q("DELETE FROM " + table + " WHERE ns=%s", (b.ns,), fetch=False)
                b.q("INSERT INTO memsuite_link_meta VALUES(%s, 'version', %s)", (b.ns, version), fetch=False)
            self._commit()
        except BaseException:
            b._abandon()
            raise

    def _version(self):
        row = self.backend.q("SELECT value FROM memsuite_link_meta WHERE ns=%s AND key='version'",
                             (self.backend.ns,))
        return row[0][0] if row else None

    def known_files(self):
        return dict(self.backend.q("SELECT path, hash FROM memsuite_link_files WHERE ns=%s", (self.backend.ns,)))

    def apply(self, changes):
        b = self.backend
        try:
            self._write()
            delta = LinkDelta()
            for path, digest, rows in changes:
                old = b.q("SELECT path, ordinal, key, kind, spelling, count FROM memsuite_link_mentions "
                          "WHERE ns=%s AND path=%s", (b.ns, path))
                delta.add([tuple(r) for r in old], -1)
                delta.add(rows, +1)
                b.q("DELETE FROM memsuite_link_mentions WHERE ns=%s AND path=%s", (b.ns, path), fetch=False)
                rows = list(rows)
                for i in range(0, len(rows), BATCH):
                    part = rows[i:i + BATCH]
                    b.q("INSERT INTO memsuite_link_mentions SELECT %s, * FROM unnest(%s::text[], %s::int[], "
                        "%s::text[], %s::text[], %s::text[], %s::int[]) ON CONFLICT DO NOTHING",
                        [b.ns] + [[r[k] for r in part] for k in range(6)], fetch=False)
                if digest is None:
                    b.q("DELETE FROM memsuite_link_files WHERE ns=%s AND path=%s", (b.ns, path), fetch=False)
                else:
                    b.q("INSERT INTO memsuite_link_files VALUES(%s, %s, %s) ON CONFLICT (ns, path) DO UPDATE "
                        "SET hash=EXCLUDED.hash", (b.ns, path, digest), fetch=False)
            ent = [(k, c, f, m) for k, (c, f, m) in delta.entities.items() if c or f or m]
            if ent:
                b.q("INSERT INTO memsuite_link_entities AS e SELECT %s, * FROM unnest(%s::text[], %s::int[], "
                    "%s::int[], %s::int[]) ON CONFLICT (ns, key) DO UPDATE SET chunks = e.chunks + EXCLUDED.chunks, "
                    "files = e.files + EXCLUDED.files, mentions = e.mentions + EXCLUDED.mentions",
                    [b.ns] + [[e[k] for e in ent] for k in range(4)], fetch=False)
                b.q("DELETE FROM memsuite_link_entities WHERE ns=%s AND chunks <= 0", (b.ns,), fetch=False)
            sp = [(k, s, kind, n) for (k, s, kind), n in delta.spellings.items() if n]
            if sp:
                b.q("INSERT INTO memsuite_link_spellings AS s SELECT %s, * FROM unnest(%s::text[], %s::text[], "
                    "%s::text[], %s::int[]) ON CONFLICT (ns, key, spelling, kind) DO UPDATE "
                    "SET count = s.count + EXCLUDED.count",
                    [b.ns] + [[r[k] for r in sp] for k in range(4)], fetch=False)
                b.q("DELETE FROM memsuite_link_spellings WHERE ns=%s AND count <= 0", (b.ns,), fetch=False)
            self._commit()
        except BaseException:
            b._abandon()
            raise

    def entity_rows(self):
        return [tuple(r) for r in self.backend.q(
            "SELECT key, chunks, files, mentions FROM memsuite_link_entities WHERE ns=%s", (self.backend.ns,))]

    def spelling_rows(self):
        return [tuple(r) for r in self.backend.q(
            "SELECT key, spelling, kind, count FROM memsuite_link_spellings WHERE ns=%s", (self.backend.ns,))]

    def mentions_of(self, keys):
        keys = list(keys)
        if not keys:
            return []
        return [(k, p, o, int(n)) for k, p, o, n in self.backend.q(
            "SELECT key, path, ordinal, sum(count) FROM memsuite_link_mentions WHERE ns=%s AND "
            "key = ANY(%s::text[]) GROUP BY key, path, ordinal", (self.backend.ns, keys))]

    def mentions_in(self, path, ordinal=None):
        sql = "SELECT key, path, ordinal, sum(count) FROM memsuite_link_mentions WHERE ns=%s AND path=%s"
        args = [self.backend.ns, path]
        if ordinal is not None:
            sql += " AND ordinal=%s"
            args.append(ordinal)
        return [(k, p, o, int(n)) for k, p, o, n in self.backend.q(sql + " GROUP BY key, path, ordinal", args)]

    def keys_in_chunks(self, refs):
        out = {}
        wanted = set(refs)
        for path in {p for p, _ in wanted}:
            for key, ordinal in self.backend.q("SELECT DISTINCT key, ordinal FROM memsuite_link_mentions "
                                               "WHERE ns=%s AND path=%s", (self.backend.ns, path)):
                if (path, ordinal) in wanted:
                    out.setdefault((path, ordinal), set()).add(key)
        return out


class PgVectors:
    """Vectors of embedding providers, keyed by model and text hash (shared
    by the namespaces: the same text is embedded once)."""

    def __init__(self, backend):
        self.backend = backend

    def missing(self, model, limit):
        b = self.backend
        keys = [k for k, in b.q("SELECT min(c.id) FROM memsuite_chunks c WHERE c.ns=%s AND NOT EXISTS "
                                "(SELECT 1 FROM memsuite_vectors v WHERE v.model=%s AND v.hash=c.hash) "
                                "GROUP BY c.hash LIMIT %s::int", (b.ns, model, limit))]
        return list(b.fetch(keys).values())

    def counts(self, model):
        b = self.backend
        have = b.q("SELECT count(DISTINCT c.hash) FROM memsuite_chunks c JOIN memsuite_vectors v ON "
                   "v.hash=c.hash AND v.model=%s WHERE c.ns=%s", (model, b.ns))[0][0]
        total = b.q("SELECT count(DISTINCT hash) FROM memsuite_chunks WHERE ns=%s", (b.ns,))[0][0]
        return int(have), int(total)

    def put(self, model, rows):
        b = self.backend
        rows = list(rows)
        if not rows:
            return
        b.q("INSERT INTO memsuite_vectors SELECT %s, * FROM unnest(%s::text[], %s::bytea[]) "
            "ON CONFLICT (model, hash) DO UPDATE SET vec=EXCLUDED.vec",
            (model, [h for h, _ in rows], [bytes(v) for _, v in rows]), fetch=False)

    def get(self, model, hashes):
        hashes = list(hashes)
        if not hashes:
            return {}
        return {h: bytes(v) for h, v in self.backend.q(
            "SELECT hash, vec FROM memsuite_vectors WHERE model=%s AND hash = ANY(%s::text[])", (model, hashes))}

    def every(self, model):
        b = self.backend
        where, args = b._read_clause("c.ns")
        return [(h, bytes(v)) for h, v in b.q(
            "SELECT v.hash, v.vec FROM memsuite_vectors v WHERE v.model=%s AND EXISTS (SELECT 1 FROM "
            "memsuite_chunks c WHERE c.hash=v.hash AND " + where + ")", [model] + args)]

    def keys_of(self, hashes):
        b = self.backend
        hashes = list(hashes)
        if not hashes:
            return {}
        where, args = b._read_clause()
        out = {}
        for key, digest in b.q("SELECT id, hash FROM memsuite_chunks WHERE hash = ANY(%s::text[]) AND " + where,
                               [hashes] + args):
            out.setdefault(digest, []).append(key)
        return out

    def forget_others(self, keep_model):
        self.backend.q("DELETE FROM memsuite_vectors v WHERE v.model != %s OR NOT EXISTS (SELECT 1 FROM "
                       "memsuite_chunks c WHERE c.hash = v.hash)", (keep_model,), fetch=False)
