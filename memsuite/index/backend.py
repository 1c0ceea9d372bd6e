"""The backend contract: what every index (SQLite, JSON, PostgreSQL) does for the store.

A backend keeps, for each memory file: its stat, content hash, read issue,
date and masked text; for each chunk: file, ordinal, line range, piece,
heading trail and text hash; a keyword index over the chunks' index terms
(body and heading columns, BM25 as FTS5 computes it); the document frequency
of every feature (scoring terms and trigrams); the totals BM25 needs; its
metadata (schema version, settings, times); the linker's tables; and the
embeddings of a provider.

Errors: IndexDamaged when the index is unreadable or not ours (the store
discards it and rebuilds); StoreError for what a user can act on; anything
else is a bug and surfaces as one.
"""
import os
import time


class Backend:
    """Every method raises NotImplementedError here; a backend implements all
    of them (tests/test_design.py checks)."""

    name = None  # what status calls it: "sqlite-fts5", "json", "postgres"

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        """Open the index; raises IndexDamaged for one that is unreadable or
        not ours, and starts afresh (with a warning) when it was built by
        another schema or other settings."""
        raise NotImplementedError

    def close(self):
        raise NotImplementedError

    def is_corruption(self, exc):
        """Whether an error met after opening means the index itself is
        damaged (not busy, not a bug)."""
        raise NotImplementedError

    def discard(self):
        """Put a damaged index out of the way so the next open() starts
        afresh; returns what was done, for the warning ("moved it to ...")."""
        raise NotImplementedError

    def files_on_disk(self):
        """The index's files (none for a server)."""
        raise NotImplementedError

    # --- reads ---------------------------------------------------------------
    def known_files(self):
        """{path: FileState} of every indexed file."""
        raise NotImplementedError

    def file_issues(self):
        """[(path, issue)] of the files that could not be read cleanly."""
        raise NotImplementedError

    def file_dates(self):
        """{path: date or None}: the date a daily log's name or a transcript's
        first line gives."""
        raise NotImplementedError

    def chunk_count(self):
        raise NotImplementedError  # BM25's N

    def total_terms(self):
        """Index terms in all chunks: BM25's average length is this / chunks."""
        raise NotImplementedError

    def doc_freqs(self, terms):
        """{term: document frequency} for the terms the index holds."""
        raise NotImplementedError

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """BM25 over the keyword index: [(key, score)], best first."""
        raise NotImplementedError

    def fetch(self, keys):
        """{key: StoredChunk}."""
        raise NotImplementedError

    def chunks_of(self, path):
        """[StoredChunk] of one file, in order."""
        raise NotImplementedError

    def snapshot(self):
        """A context manager: every read inside sees one committed index,
        whatever writers commit meanwhile (a rebuild renumbers chunks)."""
        raise NotImplementedError

    def meta(self, key):
        raise NotImplementedError

    def set_meta(self, key, value):
        """Inside a writer, part of its transaction."""
        raise NotImplementedError

    def stats(self):
        """{files, chunks, index_bytes, last_sync, schema_version} for status."""
        raise NotImplementedError

    # --- writes --------------------------------------------------------------
    def writer(self, rebuild=False):
        """A context manager, all or nothing: remove(path), put(file,
        PreparedFile), touch(file), count_features(df), known_files()."""
        raise NotImplementedError

    def backup_to(self, dest):
        raise NotImplementedError

    # --- parts a search never needs, made on first use -----------------------
    def make_links(self):
        """The linker's tables (link_tables.py); imports their module only now."""
        raise NotImplementedError

    def make_embeddings(self):
        """Stored embeddings (embedding_tables.py); imports their module only now."""
        raise NotImplementedError

    @property
    def links(self):
        return self._part("links", self.make_links)

    @property
    def embeddings(self):
        return self._part("embeddings", self.make_embeddings)

    def _part(self, name, make):
        parts = self.__dict__.setdefault("_parts", {})
        if name not in parts:
            parts[name] = make()
        return parts[name]


def move_aside(backend):
    """discard() for a backend kept in files: close it and rename each file
    to <name>.damaged-<time>; says where the main one went."""
    backend.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    moved = None
    for path in backend.files_on_disk():
        if os.path.exists(path):
            target = "%s.damaged-%s" % (path, stamp)
            os.replace(path, target)
            moved = moved or target
    return "moved it to %s" % (moved or "nowhere")
