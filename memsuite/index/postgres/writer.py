"""Writing the PostgreSQL index: one transaction per sync under the
namespace's advisory lock; bulk rows by COPY."""
import os
from collections import Counter

from ..records import BLOCK_LINES, timestamp_now
from .schema import BATCH
from ..prepare import chunk_terms
from ...base.records import StoreError
from ..blocks import pack_block, pack_headings


class PgWriter:
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
        try:
            b.begin_write()
            origin = b.meta("origin")
            if origin != b.origin:
                if origin and os.environ.get("MEMORY_NAMESPACE_TAKEOVER") != "1" and b.known_files():
                    raise StoreError("namespace %s holds the folder %s; this folder would replace its notes: "
                                        "choose another --namespace (or MEMORY_NAMESPACE_TAKEOVER=1 to replace them)"
                                        % (b.ns, origin))
                b.set_meta_rows([("origin", b.origin)])
            if self.rebuild:
                b.wipe(meta=False)
                b.set_meta_rows([("chunk_count", "0"), ("total_terms", "0")])
        except BaseException:
            b.abandon()
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
             pack_headings([(trail, units) for trail, (_, units) in trails.items()])), fetch=False)
        lines, units = analysed.lines, analysed.units
        n_blocks = (len(lines) + BLOCK_LINES - 1) // BLOCK_LINES
        step = BLOCK_LINES
        for lo in range(0, n_blocks, 500):
            blocks = list(range(lo, min(n_blocks, lo + 500)))
            b.q("INSERT INTO memsuite_blocks SELECT %s, * FROM unnest(%s::int[], %s::bytea[])",
                (file_id, blocks, [pack_block(lines[k * step:(k + 1) * step], units[k * step:(k + 1) * step])
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
            b.abandon()
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
            b.set_meta_rows([("chunk_count", str(count)), ("total_terms", str(total)), ("last_sync", timestamp_now())])
            b.q("COMMIT", fetch=False)
            b.in_write = False
        except BaseException:
            b.abandon()
            raise
        if self.written > 20000:  # fresh statistics, so lookups keep using the (ns, term) index
            for table in ("memsuite_postings", "memsuite_terms", "memsuite_chunks", "memsuite_files"):
                b.q("ANALYZE " + table, fetch=False)
        return False


# --------------------------------------------------------------------------
# Link tables and vectors
# --------------------------------------------------------------------------
