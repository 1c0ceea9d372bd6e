"""The linker's tables (entity mentions per chunk), in SQLite or JSON."""
import os
from collections import Counter

from ..base.fileio import FileLock, write_json_atomic
from .records import batched
from .sqlite.schema import WriteTransaction


# Link tables: the linker's entity mentions, kept beside the chunks.  A
# mention row is (path, ordinal, key, kind, spelling, count); entity counts
# and spellings are aggregates of those rows, kept up to date by adding a
# file's new rows and subtracting its old ones.  The linker extracts; the
# store keeps.  Their version (the extractor's, plus the index settings that
# number the chunks) is checked on open: a change, or a damaged link table,
# empties the link tables alone, and the linker fills them again.

class LinkDelta:
    """Aggregate changes from mention rows added (sign +1) or removed (sign -1).

    Co-occurrence is not stored: every pair of entities in a chunk would be
    quadratic (1.6 million rows for 668 CMRC chunks), while lookups and
    pictures only need pairs among a few entities, cheap to count from the
    mentions when asked."""

    def __init__(self):
        self.entities = {}        # key -> [chunks, files, mentions]
        self.spellings = Counter()  # (key, spelling, kind) -> count

    def add(self, rows, sign):
        in_chunk, in_file = set(), set()
        for path, ordinal, key, kind, spelling, n in rows:
            in_chunk.add((key, path, ordinal))
            in_file.add((key, path))
            self.entities.setdefault(key, [0, 0, 0])[2] += sign * n
            self.spellings[(key, spelling, kind)] += sign * n
        for key, _, _ in in_chunk:
            self.entities.setdefault(key, [0, 0, 0])[0] += sign
        for key, _ in in_file:
            self.entities.setdefault(key, [0, 0, 0])[1] += sign


_LINK_SCHEMA = """
CREATE TABLE link_meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE link_files(path TEXT PRIMARY KEY, hash TEXT) WITHOUT ROWID;
CREATE TABLE link_mentions(path TEXT, ordinal INTEGER, key TEXT, kind TEXT, spelling TEXT,
                           count INTEGER, PRIMARY KEY(path, ordinal, key, kind, spelling)) WITHOUT ROWID;
CREATE INDEX link_mentions_by_key ON link_mentions(key);
CREATE TABLE link_entities(key TEXT PRIMARY KEY, chunks INTEGER, files INTEGER,
                           mentions INTEGER) WITHOUT ROWID;
CREATE TABLE link_spellings(key TEXT, spelling TEXT, kind TEXT, count INTEGER,
                            PRIMARY KEY(key, spelling, kind)) WITHOUT ROWID;
"""
_LINK_TABLES = ("link_meta", "link_files", "link_mentions", "link_entities", "link_spellings")


class SqliteLinks:
    """Link tables inside the SQLite index; one transaction per change."""

    def __init__(self, backend):
        self.backend = backend

    @property
    def conn(self):  # the backend's current connection (recovery may have replaced it)
        return self.backend.conn

    def ensure(self, version):
        """Make the link tables exist with this version; empty them otherwise."""
        version = "%s %s" % (version, self.backend.settings)
        if self._version() == version:
            return
        with WriteTransaction(self.conn) as conn:
            if self._version() != version:
                for table in _LINK_TABLES:
                    conn.execute("DROP TABLE IF EXISTS %s" % table)
                for statement in _LINK_SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO link_meta VALUES('version', ?)", (version,))

    def _version(self):
        present = {n for n, in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'link\\_%' ESCAPE '\\'")}
        if not all(t in present for t in _LINK_TABLES):
            return None  # missing or damaged: made again
        row = self.conn.execute("SELECT value FROM link_meta WHERE key='version'").fetchone()
        return row[0] if row else None

    def known_files(self):
        return dict(self.conn.execute("SELECT path, hash FROM link_files"))

    def apply(self, changes):
        """changes: [(path, new hash or None if removed, new mention rows)]."""
        with WriteTransaction(self.conn) as conn:
            delta = LinkDelta()
            for path, digest, rows in changes:
                old = conn.execute("SELECT path, ordinal, key, kind, spelling, count FROM link_mentions "
                                   "WHERE path=?", (path,)).fetchall()
                delta.add(old, -1)
                delta.add(rows, +1)
                conn.execute("DELETE FROM link_mentions WHERE path=?", (path,))
                conn.executemany("INSERT INTO link_mentions VALUES(?, ?, ?, ?, ?, ?)", rows)
                if digest is None:
                    conn.execute("DELETE FROM link_files WHERE path=?", (path,))
                else:
                    conn.execute("INSERT OR REPLACE INTO link_files VALUES(?, ?)", (path, digest))
            self._apply_delta(delta)

    def _apply_delta(self, delta):
        conn = self.conn
        ent = [(k, c, f, m) for k, (c, f, m) in delta.entities.items() if c or f or m]
        conn.executemany("INSERT OR IGNORE INTO link_entities VALUES(?, 0, 0, 0)", [(e[0],) for e in ent])
        conn.executemany("UPDATE link_entities SET chunks=chunks+?, files=files+?, mentions=mentions+? "
                         "WHERE key=?", [(c, f, m, k) for k, c, f, m in ent])
        conn.execute("DELETE FROM link_entities WHERE chunks <= 0")
        sp = [(k, s, kind, n) for (k, s, kind), n in delta.spellings.items() if n]
        conn.executemany("INSERT OR IGNORE INTO link_spellings VALUES(?, ?, ?, 0)", [r[:3] for r in sp])
        conn.executemany("UPDATE link_spellings SET count=count+? WHERE key=? AND spelling=? AND kind=?",
                         [(n, k, s, kind) for k, s, kind, n in sp])
        conn.execute("DELETE FROM link_spellings WHERE count <= 0")

    # --- reads ---
    def entity_rows(self):
        return self.conn.execute("SELECT key, chunks, files, mentions FROM link_entities").fetchall()

    def spelling_rows(self):
        return self.conn.execute("SELECT key, spelling, kind, count FROM link_spellings").fetchall()

    def mentions_of(self, keys):
        """[(key, path, ordinal, count)] of every chunk mentioning one of the keys."""
        out = []
        for part in batched(keys):
            out.extend(self.conn.execute(
                "SELECT key, path, ordinal, sum(count) FROM link_mentions WHERE key IN (%s) "
                "GROUP BY key, path, ordinal" % ",".join("?" * len(part)), part))
        return out

    def mentions_in(self, path, ordinal=None):
        sql = "SELECT key, path, ordinal, sum(count) FROM link_mentions WHERE path=?"
        args = [path]
        if ordinal is not None:
            sql += " AND ordinal=?"
            args.append(ordinal)
        return self.conn.execute(sql + " GROUP BY key, path, ordinal", args).fetchall()

    def keys_in_chunks(self, refs):
        """{(path, ordinal): set of keys} for the given chunks."""
        out = {}
        wanted = set(refs)
        for path in {p for p, _ in wanted}:
            for key, ordinal in self.conn.execute(
                    "SELECT DISTINCT key, ordinal FROM link_mentions WHERE path=?", (path,)):
                if (path, ordinal) in wanted:
                    out.setdefault((path, ordinal), set()).add(key)
        return out


class JsonLinks:
    """The same information in `links.json` (for the JSON backend).  Only the
    mention rows are stored; the aggregates are made on load, which suits
    the small folders the JSON backend is meant for."""

    filename = "links.json"

    def __init__(self, backend):
        self.backend = backend
        self.files, self.rows = {}, {}

    @property
    def path(self):
        return os.path.join(self.backend.index_dir, self.filename) if self.backend.index_dir else None

    def ensure(self, version):
        self.version = "%s %s" % (version, self.backend.settings)
        self._reload()
        self._aggregate()

    def _reload(self):
        """What the links file holds now (another process may have written it)."""
        version, self.files, self.rows = self.version, {}, {}
        if self.path and os.path.exists(self.path):
            import json
            try:
                with open(self.path, encoding="utf-8") as f:
                    data = json.load(f)
                if data.get("version") == version:
                    self.files = dict(data["files"])
                    self.rows = {p: [tuple(r) for r in rs] for p, rs in data["mentions"].items()}
            except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
                self.files, self.rows = {}, {}  # damaged: the linker fills it again

    def known_files(self):
        return dict(self.files)

    def apply(self, changes):
        """Apply changes under the file's lock, on what another process may
        have written meanwhile (no writer's links are lost)."""
        with FileLock(self.path):
            if self.path:
                self._reload()
            self._apply_locked(changes)

    def _apply_locked(self, changes):
        for path, digest, rows in changes:
            self.rows.pop(path, None)
            self.files.pop(path, None)
            if digest is not None:
                self.files[path] = digest
                self.rows[path] = [tuple(r) for r in rows]
        if self.path:
            write_json_atomic(self.path, {"version": self.version, "files": self.files, "mentions": self.rows})
        self._aggregate()

    def _aggregate(self):
        delta = LinkDelta()
        for rows in self.rows.values():
            delta.add(rows, +1)
        self._entities = [(k, c, f, m) for k, (c, f, m) in delta.entities.items() if c > 0]
        self._spellings = [(k, s, kind, n) for (k, s, kind), n in delta.spellings.items() if n > 0]
        by_key = {}
        for path, rows in self.rows.items():
            for _, ordinal, key, _, _, n in rows:
                chunks = by_key.setdefault(key, Counter())
                chunks[(path, ordinal)] += n
        self._by_key = by_key

    def entity_rows(self):
        return list(self._entities)

    def spelling_rows(self):
        return list(self._spellings)

    def mentions_of(self, keys):
        return [(k, p, o, n) for k in keys for (p, o), n in self._by_key.get(k, {}).items()]

    def mentions_in(self, path, ordinal=None):
        out = Counter()
        for _, o, key, _, _, n in self.rows.get(path, []):
            if ordinal is None or o == ordinal:
                out[(key, o)] += n
        return [(k, path, o, n) for (k, o), n in out.items()]

    def keys_in_chunks(self, refs):
        wanted = set(refs)
        out = {}
        for path in {p for p, _ in wanted}:
            for _, o, key, _, _, _ in self.rows.get(path, []):
                if (path, o) in wanted:
                    out.setdefault((path, o), set()).add(key)
        return out
