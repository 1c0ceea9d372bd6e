"""The PostgreSQL backend: the store contract (the Backend class, index/backend.py)
on a server a team or several machines share.

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
import socket

from ...text.bm25 import bm25_idf, bm25_weight
from ..records import (BLOCK_LINES, SCHEMA_VERSION, FileState, StoredChunk, batched, stored_chunk, timestamp_now,
                       filters_admit, has_filters)
from ...base.jsonout import to_json
from ...text.params import DEFAULT_PARAMS, index_settings, settings_change
from .connect import (NAMESPACE_RE, copy_value, describe_server, dsn_settings, encodable,
                               load_driver, parse_namespaces, pg8000_args, scrub)
from ...base.records import IndexDamaged, StoreError
from ..blocks import unpack_block, unpack_headings
from ..prepare import stored_units
from ..backend import Backend
from .schema import LOCK_SPACE, NS_TABLES, PG_SCHEMA, PG_SCHEMA_VERSION, SCHEMA_LOCK


class PostgresBackend(Backend):
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
                conn = self.driver.module.connect(**pg8000_args(self.kw))
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
            self.abandon()
            raise self.error(exc)

    def copy(self, table, columns, rows):
        """COPY rows (tuples of str, int, float) into table: the fast path for
        bulk writes (one message, no per-value parameter adaptation)."""
        if not rows:
            return
        data = "".join("\t".join(copy_value(v) for v in row) + "\n" for row in rows).encode("utf-8")
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
            self.abandon()
            raise self.error(exc)

    def abandon(self):
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
            for statement in PG_SCHEMA.split(";"):
                if statement.strip():
                    self.q(statement, fetch=False)
            self.q("INSERT INTO memsuite_meta VALUES('', 'schema', %s) ON CONFLICT DO NOTHING",
                   (str(PG_SCHEMA_VERSION),), fetch=False)
            self.q("COMMIT", fetch=False)
        except BaseException:
            self.abandon()
            raise

    def _lock_namespace(self, space=LOCK_SPACE):
        self.q("SELECT pg_advisory_xact_lock(%s::int, hashtext(%s))", (space, self.ns))

    def begin_write(self, space=LOCK_SPACE):
        """A write transaction holding the namespace's lock (after ending a
        read snapshot open on this connection)."""
        if self.depth:
            self.q("COMMIT", fetch=False)
            self.depth = 0
        self.q("BEGIN", fetch=False)
        self.in_write = True
        self._lock_namespace(space)

    def _reset_namespace(self):
        """Empty this namespace and stamp it with our settings (under its lock)."""
        self.wipe()
        self.set_meta_rows([("schema_version", str(SCHEMA_VERSION)), ("settings", self.settings),
                             ("chunk_count", "0"), ("total_terms", "0"), ("created", timestamp_now()),
                             ("last_sync", "")])

    def _start_namespace(self, seen):
        """Make this namespace fresh (empty, stamped with our settings), under its lock."""
        self.q("BEGIN", fetch=False)
        try:
            self._lock_namespace()
            meta = dict(self.q("SELECT key, value FROM memsuite_meta WHERE ns=%s AND key IN "
                               "('schema_version', 'settings')", (self.ns,)))
            if meta.get("schema_version") != str(SCHEMA_VERSION) or meta.get("settings") != self.settings:
                self._reset_namespace()
            self.q("COMMIT", fetch=False)
        except BaseException:
            self.abandon()
            raise

    def wipe(self, meta=True):
        """Delete this namespace's rows (inside a transaction holding its lock)."""
        self.q("DELETE FROM memsuite_blocks WHERE file IN (SELECT id FROM memsuite_files WHERE ns=%s)",
               (self.ns,), fetch=False)
        for table in NS_TABLES if meta else NS_TABLES[:-1]:
            self.q("DELETE FROM " + table + " WHERE ns=%s", (self.ns,), fetch=False)

    def set_meta_rows(self, pairs):
        for key, value in pairs:
            self.q("INSERT INTO memsuite_meta VALUES(%s, %s, %s) ON CONFLICT (ns, key) DO UPDATE "
                   "SET value=EXCLUDED.value", (self.ns, key, value), fetch=False)

    def discard(self):
        """A damaged namespace: empty it alone (others are untouched); the
        store then indexes the folder again."""
        self.abandon()
        self._start_namespace_forced()
        return "emptied namespace %s" % self.ns

    def _start_namespace_forced(self):
        self.q("BEGIN", fetch=False)
        try:
            self._lock_namespace()
            self._reset_namespace()
            self.q("COMMIT", fetch=False)
        except BaseException:
            self.abandon()
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
    def read_clause(self, column="ns"):
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
        self.set_meta_rows([(key, value)])

    def known_files(self):
        return {p: FileState(s, m, h) for p, s, m, h in
                self.q("SELECT path, size, mtime_ns, hash FROM memsuite_files WHERE ns=%s", (self.ns,))}

    def file_dates(self):
        return dict(self.q("SELECT path, date FROM memsuite_files WHERE ns=%s", (self.ns,)))

    def _summed_meta(self, key):
        where, args = self.read_clause()
        row = self.q("SELECT coalesce(sum(value::bigint), 0) FROM memsuite_meta WHERE key=%s AND " + where,
                     [key] + args)
        return int(row[0][0] or 0)

    def chunk_count(self):
        return self._summed_meta("chunk_count")

    def total_terms(self):
        return self._summed_meta("total_terms")

    def doc_freqs(self, terms):
        terms = [t for t in dict.fromkeys(terms) if encodable(t)]
        if not terms:
            return {}
        where, args = self.read_clause()
        out = {}
        for part in batched(terms, 5000):
            out.update((t, int(n)) for t, n in self.q(
                "SELECT term, sum(df) FROM memsuite_terms WHERE term = ANY(%s::text[]) AND " + where +
                " GROUP BY term HAVING sum(df) > 0", [part] + args))
        return out

    def _postings(self, term, prefix=False):
        """{chunk key: (tf, length)} of a term, or of the terms starting with it."""
        if not encodable(term):
            return {}
        return {k: (tf, length) for k, tf, length in self.q(*self.postings_query(term, prefix))}

    def postings_query(self, term, prefix=False):
        """(SQL, args) reading a term's postings (or its prefix's) in the namespaces read:
        range scans of the (ns, term) primary key."""
        where, args = self.read_clause()
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
            for part in batched(list(scores), 10000):
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
            for part in batched(keys, 10000):
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
                headings[file_id] = unpack_headings(blob)
            except Exception:
                damaged.add(file_id)
        for file_id, block, blob in self.q(
                "SELECT b.file, b.block, b.data FROM memsuite_blocks b JOIN unnest(%s::bigint[], %s::int[], "
                "%s::int[]) AS r(f, lo, hi) ON b.file = r.f AND b.block BETWEEN r.lo AND r.hi",
                (files, [wanted[f][0] for f in files], [wanted[f][1] for f in files])):
            try:
                first = block * BLOCK_LINES + 1
                for i, line in enumerate(zip(*unpack_block(blob))):
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
            if piece and isinstance(lines.get((file_id, start), ("", ()))[1], str):  # an older namespace
                lines[file_id, start] = _in_pieces(lines[file_id, start], self.params.chunk_chars)
            text, units = stored_chunk(lambda n: lines.get((file_id, n), ("", "")), start, end, piece,
                                       self.params.chunk_chars)
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
    def make_links(self):
        from .tables import PgLinks
        return PgLinks(self)

    def make_embeddings(self):
        from .tables import PgEmbeddings
        return PgEmbeddings(self)

    def writer(self, rebuild=False):
        from .writer import PgWriter
        return PgWriter(self, rebuild)

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


def _in_pieces(line, chunk_chars):
    """A long line of another folder's namespace indexed before schema 9 (its
    folder rebuilds it when it next syncs), its units whole: as schema 9
    keeps it, each piece's units (a tuple)."""
    text, _ = line
    return text, stored_units(text, chunk_chars)
