"""The JSON index (fallback when sqlite3 or FTS5 is missing): reading it."""
import os
import time

from ...text.bm25 import bm25_idf, bm25_weight
from ..records import SCHEMA_VERSION, FileState, timestamp_now, filters_admit, has_filters
from ...text.params import DEFAULT_PARAMS, index_settings, settings_change
from ...base.records import IndexDamaged
from ...base.compiled import SortedLines, map_file
from ..backend import Backend, move_aside
from .format import (JSON_CHUNK_FIELDS, JsonChunk, json_index_problem, json_stored, parse_postings,
                     split_file_text)


# JSON backend: the same information in plain files, for Pythons without
# sqlite3 or FTS5 (or MEMORY_BACKEND=json).  A query reads only what it
# needs:
#   index.json          the files and chunk records (small: no text)
#   text-<gen>.txt      each file's masked lines and their units; index.json
#                       holds each file's byte range, so a chunk's text is
#                       one seek and read
#   terms-<gen>.txt     one sorted line per feature, "term<TAB>df<TAB>postings"
#                       (postings "key:body_tf:head_tf ..."), looked up by
#                       binary search in a memory map, never parsed whole
# BM25 is FTS5's formula, so both backends rank alike.  A write creates the
# next generation's files, then replaces index.json, which names them, then
# removes the old ones: a reader never mixes generations (it retries when a
# writer removed its generation under it).

class JsonBackend(Backend):
    name = "json"
    filename = "index.json"

    def __init__(self, index_dir, params=DEFAULT_PARAMS, warn=None, folder=None):
        self.index_dir = index_dir
        self.path = os.path.join(index_dir, self.filename) if index_dir else None
        self.params = params
        self.settings = index_settings(params, folder)
        self.warn = warn or (lambda msg: None)
        self.data = None

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        for attempt in range(50):
            data = self._load_index()
            try:
                terms, texts = self.map_generation(data["generation"])
                break
            except FileNotFoundError:  # a writer replaced it just now: read index.json again
                time.sleep(0.02)
        else:
            raise IndexDamaged("the files of index generation %d are missing" % data["generation"])
        self.install(data, terms, texts)

    def map_generation(self, generation):
        if not generation:
            return b"", b""
        return map_file(self.generation_path("terms", generation)), \
            map_file(self.generation_path("text", generation))

    def install(self, data, terms, texts):
        """Make data (a loaded or just written index) the one this backend reads."""
        self.data, self.term_lines, self._texts = data, SortedLines(terms), texts
        self.chunk_records = [JsonChunk._make(row) for row in data["chunks"]]
        self._by_key = self._by_path = None
        self._lines = {}
        self._avg = None

    def _load_index(self):
        fresh = {"schema_version": SCHEMA_VERSION, "settings": self.settings, "created": timestamp_now(),
                 "last_sync": None, "generation": 0, "next_key": 1, "total_terms": 0, "files": {},
                 "chunk_fields": list(JSON_CHUNK_FIELDS), "chunks": []}
        if not self.path or not os.path.exists(self.path):
            return fresh
        import json
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
            raise IndexDamaged("not valid JSON (%s)" % exc)
        problem = json_index_problem(data)
        if problem:
            raise IndexDamaged(problem)
        if data["schema_version"] != SCHEMA_VERSION or data.get("settings") != self.settings:
            why = ("its format is from another version of the suite" if data["schema_version"] != SCHEMA_VERSION
                   else "its settings changed (%s)" % settings_change(data.get("settings"), self.settings))
            if not getattr(self, "_said_rebuilding", False):  # once, though the writer reads it again
                self.warn("rebuilding the index: %s" % why)
                self._said_rebuilding = True
            return fresh
        return data

    def generation_path(self, kind, generation):
        return os.path.join(self.index_dir, "%s-%d.txt" % (kind, generation))

    def close(self):
        for buf in (getattr(self, "_texts", None), getattr(getattr(self, "term_lines", None), "buf", None)):
            if hasattr(buf, "close"):
                buf.close()
        self.data = None

    def is_corruption(self, exc):
        """Whether an error found after opening means a damaged file (text
        that no longer decodes), not a bug."""
        import zlib
        return isinstance(exc, (UnicodeDecodeError, zlib.error)) or type(exc).__name__ == "JSONDecodeError"

    def discard(self):
        return move_aside(self)

    def files_on_disk(self):
        if not self.path:
            return []
        generation = self.data["generation"] if self.data else 0
        extra = [self.generation_path(k, generation) for k in ("terms", "text")] if generation else []
        return [self.path] + extra

    # --- reads -------------------------------------------------------------
    def meta(self, key):
        return self.data.get("meta", {}).get(key)

    def set_meta(self, key, value):
        """Metadata of the JSON index is written with the next sync."""
        self.data.setdefault("meta", {})[key] = value

    def known_files(self):
        # a file that could not be read looks changed (mtime -1): the next sync tries it again
        return {p: FileState(v["size"], -1 if v.get("issue") == "unreadable" else v["mtime_ns"], v["hash"])
                for p, v in self.data["files"].items()}

    def file_dates(self):
        return {p: v["date"] for p, v in self.data["files"].items()}

    def chunk_count(self):
        return len(self.chunk_records)

    def total_terms(self):
        return self.data["total_terms"]

    def doc_freqs(self, terms):
        out = {}
        for t in terms:
            fields = self.term_lines.get(t) if "\n" not in t and "\t" not in t else None
            if fields:
                out[t] = int(fields[0])
        return out

    def _postings(self, phrase):
        """{key: (body tf, head tf)} of a term, or of every term starting with prefix + '*'."""
        if "\n" in phrase or "\t" in phrase:
            return {}
        if phrase.endswith("*"):
            out = {}
            for _, fields in self.term_lines.starting_with(phrase[:-1]):
                for key, (b, h) in parse_postings(fields[1]).items():
                    ob, oh = out.get(key, (0, 0))
                    out[key] = (ob + b, oh + h)
            return out
        fields = self.term_lines.get(phrase)
        return parse_postings(fields[1]) if fields else {}

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        phrases = [self._postings(t) for t in terms] + [self._postings(p + "*") for p in prefixes]
        if not phrases:
            return []
        chunks = self._chunk_index()
        n = len(self.chunk_records)
        avg = self._avg_length()
        scores = {}
        for postings in phrases:
            if not postings:
                continue
            idf = bm25_idf(n, len(postings))
            for key, (body_tf, head_tf) in postings.items():
                chunk = chunks[key]
                tf = body_tf + self.params.heading_weight * head_tf
                scores[key] = scores.get(key, 0.0) + bm25_weight(tf, idf, chunk.length, avg)
        if require_all:
            holding = set.intersection(*(set(p) for p in phrases))
            scores = {k: v for k, v in scores.items() if k in holding}
        if has_filters(filters):
            dates = self.file_dates()
            scores = {k: v for k, v in scores.items() if filters_admit(filters, dates[chunks[k].path], chunks[k].path)}
        ranked = sorted(scores, key=lambda k: (-scores[k], k))[:limit]
        return [(k, scores[k]) for k in ranked]

    def _avg_length(self):
        if self._avg is None:
            self._avg = (sum(c.length for c in self.chunk_records) / float(len(self.chunk_records))) if self.chunk_records else 1.0
        return self._avg or 1.0

    def _chunk_index(self):
        if self._by_key is None:
            self._by_key = {c.key: c for c in self.chunk_records}
        return self._by_key

    def file_lines(self, path):
        """(lines, units) of a file."""
        if path not in self._lines:
            start, size = self.data["files"][path]["at"]
            self._lines[path] = split_file_text(bytes(self._texts[start:start + size]))
        return self._lines[path]

    def _stored(self, c):
        return json_stored(c, self.file_lines(c.path), self.data["files"][c.path]["date"], self.params)

    def fetch(self, keys):
        index = self._chunk_index()
        return {k: self._stored(index[k]) for k in keys if k in index}

    def snapshot(self):
        """A loaded generation never changes under its reader (writers make a
        new one), so every read already sees one index."""
        import contextlib  # one file read at a time: nothing to hold
        return contextlib.nullcontext()

    def chunks_of(self, path):
        if self._by_path is None:
            by_path = {}
            for c in self.chunk_records:
                by_path.setdefault(c.path, []).append(c)
            self._by_path = by_path
        return [self._stored(c) for c in sorted(self._by_path.get(path, []), key=lambda c: c.ordinal)]

    def file_issues(self):
        return sorted((p, v["issue"]) for p, v in self.data["files"].items() if v["issue"])

    def stats(self):
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": len(self.data["files"]), "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self.data.get("last_sync"), "schema_version": SCHEMA_VERSION}

    def make_links(self):
        from ..link_tables import JsonLinks
        return JsonLinks(self)

    def make_embeddings(self):
        from ..embedding_tables import JsonEmbeddings
        return JsonEmbeddings(self)

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        from .writer import JsonWriter
        return JsonWriter(self, rebuild)

    def backup_to(self, dest):
        """One self-contained file: index.json with the terms and texts inside."""
        import json
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(dict(self.data, terms=bytes(self.term_lines.buf).decode("utf-8", "surrogatepass"),
                           texts=bytes(self._texts).decode("utf-8", "surrogatepass")), f, ensure_ascii=False)
