"""The linker's tables and stored embeddings on the PostgreSQL server."""
from ..link_tables import LinkDelta
from .schema import BATCH, LINK_LOCK_SPACE, LINK_NS_TABLES


class PgLinks:
    """The linker's tables, per namespace (the graph of one folder)."""

    def __init__(self, backend):
        self.backend = backend

    def _write(self):
        b = self.backend
        b.begin_write(LINK_LOCK_SPACE)

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
                for table in LINK_NS_TABLES:
                    b.q("DELETE FROM " + table + " WHERE ns=%s", (b.ns,), fetch=False)
                b.q("INSERT INTO memsuite_link_meta VALUES(%s, 'version', %s)", (b.ns, version), fetch=False)
            self._commit()
        except BaseException:
            b.abandon()
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
            b.abandon()
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


class PgEmbeddings:
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
        where, args = b.read_clause("c.ns")
        return [(h, bytes(v)) for h, v in b.q(
            "SELECT v.hash, v.vec FROM memsuite_vectors v WHERE v.model=%s AND EXISTS (SELECT 1 FROM "
            "memsuite_chunks c WHERE c.hash=v.hash AND " + where + ")", [model] + args)]

    def keys_of(self, hashes):
        b = self.backend
        hashes = list(hashes)
        if not hashes:
            return {}
        where, args = b.read_clause()
        out = {}
        for key, digest in b.q("SELECT id, hash FROM memsuite_chunks WHERE hash = ANY(%s::text[]) AND " + where,
                               [hashes] + args):
            out.setdefault(digest, []).append(key)
        return out

    def forget_others(self, keep_model):
        self.backend.q("DELETE FROM memsuite_vectors v WHERE v.model != %s OR NOT EXISTS (SELECT 1 FROM "
                       "memsuite_chunks c WHERE c.hash = v.hash)", (keep_model,), fetch=False)
