"""Stored embeddings, keyed by model and chunk text hash, in SQLite or JSON."""
import math
import os

from ..base.fileio import FileLock, write_json_atomic
from .records import batched
from .sqlite.schema import WriteTransaction


# Vectors of an optional embedding provider, kept beside the chunks: float32
# values keyed by (model, text hash), so an unchanged chunk is never embedded
# twice and another model embeds afresh.  Made on first use only.

def pack_vector(values):
    import array
    return array.array("f", values).tobytes()


def unpack_vector(blob):
    import array
    out = array.array("f")
    out.frombytes(blob)
    return out


class SqliteEmbeddings:
    """The vectors table inside the SQLite index."""

    def __init__(self, backend):
        self.backend = backend
        self.ready_at = None  # the schema version the table was last seen at

    @property
    def conn(self):
        return self.backend.conn

    def ensure(self):
        """Make the table if needed.  Checked against the schema's version, not
        once per process: another process's rebuild drops it."""
        version = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        if version != self.ready_at:
            self.conn.execute("CREATE TABLE IF NOT EXISTS vectors(id INTEGER PRIMARY KEY, model TEXT NOT NULL, "
                              "hash TEXT NOT NULL, vec BLOB NOT NULL)")
            self.conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_key ON vectors(model, hash)")
            self.conn.execute("CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks(hash)")
            self.ready_at = self.conn.execute("PRAGMA schema_version").fetchone()[0]

    def missing(self, model, limit):
        """[StoredChunk] of chunks whose text has no vector of this model (one per text)."""
        self.ensure()
        keys = [k for k, in self.conn.execute(
            "SELECT min(c.id) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model=? "
            "AND v.hash=c.hash) GROUP BY c.hash LIMIT ?", (model, limit))]
        return list(self.backend.fetch(keys).values())

    def counts(self, model):
        """(texts with a vector of this model, texts indexed)."""
        self.ensure()
        have = self.conn.execute("SELECT count(*) FROM vectors v WHERE v.model=? AND EXISTS (SELECT 1 FROM "
                                 "chunks c WHERE c.hash=v.hash)", (model,)).fetchone()[0]
        total = self.conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
        return have, total

    def put(self, model, rows):
        """Store [(hash, packed vector)] in one transaction."""
        self.ensure()
        with WriteTransaction(self.conn) as conn:
            conn.executemany("INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES(?, ?, ?)",
                             [(model, h, v) for h, v in rows])

    def get(self, model, hashes):
        """{hash: packed vector}."""
        self.ensure()
        out = {}
        for part in batched(hashes):
            out.update(self.conn.execute("SELECT hash, vec FROM vectors WHERE model=? AND hash IN (%s)"
                                         % ",".join("?" * len(part)), [model] + part))
        return out

    def every(self, model):
        """[(hash, packed vector)] of every indexed text (for a nearest-neighbour scan)."""
        self.ensure()
        return self.conn.execute("SELECT v.hash, v.vec FROM vectors v WHERE v.model=? AND EXISTS "
                                 "(SELECT 1 FROM chunks c WHERE c.hash=v.hash)", (model,)).fetchall()

    def keys_of(self, hashes):
        """{hash: [chunk keys]}."""
        self.ensure()
        out = {}
        for part in batched(hashes):
            for key, digest in self.conn.execute("SELECT id, hash FROM chunks WHERE hash IN (%s)"
                                                 % ",".join("?" * len(part)), part):
                out.setdefault(digest, []).append(key)
        return out

    def forget_others(self, keep_model):
        """Drop the vectors of other models and of texts no longer indexed."""
        self.ensure()
        with WriteTransaction(self.conn) as conn:
            conn.execute("DELETE FROM vectors WHERE model != ? OR NOT EXISTS (SELECT 1 FROM chunks c "
                         "WHERE c.hash = vectors.hash)", (keep_model,))


class JsonEmbeddings:
    """The same in vectors.json: {model: {hash: base64 of float32 values}}."""

    filename = "vectors.json"

    def __init__(self, backend):
        self.backend = backend
        self.data = None

    @property
    def path(self):
        return os.path.join(self.backend.index_dir, self.filename) if self.backend.index_dir else None

    def _load(self):
        if self.data is None:
            self.data = {}
            if self.path and os.path.exists(self.path):
                import json
                try:
                    with open(self.path, encoding="utf-8") as f:
                        loaded = json.load(f)
                    if isinstance(loaded, dict):
                        self.data = loaded
                except (ValueError, UnicodeDecodeError):
                    self.data = {}  # damaged: embedded again
        return self.data

    def _save(self):
        if self.path:
            write_json_atomic(self.path, self.data)

    def _hashes(self):
        return {c.hash: c.key for c in self.backend.chunk_records}

    def missing(self, model, limit):
        have = self._load().get(model, {})
        keys = [k for h, k in self._hashes().items() if h not in have][:limit]
        return list(self.backend.fetch(keys).values())

    def counts(self, model):
        hashes = self._hashes()
        return sum(1 for h in self._load().get(model, {}) if h in hashes), len(hashes)

    def put(self, model, rows):
        """Keep vectors, under the file's lock, beside what another process
        may have written meanwhile."""
        import base64
        with FileLock(self.path):
            self.data = None  # read again inside the lock
            self._load().setdefault(model, {}).update((h, base64.b64encode(v).decode("ascii")) for h, v in rows)
            self._save()

    def get(self, model, hashes):
        import base64
        have = self._load().get(model, {})
        return {h: base64.b64decode(have[h]) for h in hashes if h in have}

    def every(self, model):
        hashes = self._hashes()
        return list(self.get(model, [h for h in self._load().get(model, {}) if h in hashes]).items())

    def keys_of(self, hashes):
        wanted, out = set(hashes), {}
        for c in self.backend.chunk_records:
            if c.hash in wanted:
                out.setdefault(c.hash, []).append(c.key)
        return out

    def forget_others(self, keep_model):
        hashes = self._hashes()
        self.data = {keep_model: {h: v for h, v in self._load().get(keep_model, {}).items() if h in hashes}}
        self._save()


class EmbedError(Exception):
    """An embedding provider failed or answered wrongly (one line)."""


class EmbedTimeout(EmbedError):
    """A provider took longer than the timeout over one batch (a smaller one may pass)."""


def embedding_text(chunk):
    """What an embedding provider is given for a chunk: its heading trail and text."""
    return "%s\n%s" % (chunk.heading, chunk.text) if chunk.heading else chunk.text


def check_vector(values, dim):
    """values as floats, if they are a vector of dim finite numbers; else EmbedError."""
    try:
        floats = [float(v) for v in values]
    except (TypeError, ValueError):
        raise EmbedError("a vector holds something that is not a number")
    if len(floats) != dim:
        raise EmbedError("a vector has %d dimensions, the model's have %d" % (len(floats), dim))
    if not all(math.isfinite(v) for v in floats):
        raise EmbedError("a vector holds NaN or infinity")
    return floats
