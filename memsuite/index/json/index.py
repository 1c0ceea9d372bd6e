"""The JSON index (fallback when sqlite3 or FTS5 is missing): reading it."""
import os
import time

from ...text.bm25 import bm25_idf, bm25_weight
from ..records import (SCHEMA_VERSION, FileState, LazyTables, StoredChunk, _now, filters_admit,
                            has_filters)
from ...text.params import DEFAULT_PARAMS, index_settings, settings_change
from ..prepare import chunk_text
from ...base.records import IndexDamaged, record
from ...base.sorted_lines import SortedLines, map_file
from ...text.tokenizer import text_units


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

JSON_CHUNK_FIELDS = ("key", "path", "ordinal", "start_line", "end_line", "piece", "heading", "head_units",
                     "hash", "length", "norm_terms", "n_grams")
JsonChunk = record("JsonChunk", JSON_CHUNK_FIELDS)
JsonChunk.__doc__ = "A chunk record of the JSON index (the fields of StoredChunk it stores)."


class JsonBackend(LazyTables):
    name = "json"
    filename = "index.json"
    TABLES = {"links": ("index.link_tables", "JsonLinks"), "embeddings": ("index.embedding_tables", "JsonEmbeddings")}

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
                terms, texts = self._map_generation(data["generation"])
                break
            except FileNotFoundError:  # a writer replaced it just now: read index.json again
                time.sleep(0.02)
        else:
            raise IndexDamaged("the files of index generation %d are missing" % data["generation"])
        self._install(data, terms, texts)

    def _map_generation(self, generation):
        if not generation:
            return b"", b""
        return map_file(self._generation_path("terms", generation)), \
            map_file(self._generation_path("text", generation))

    def _install(self, data, terms, texts):
        """Make data (a loaded or just written index) the one this backend reads."""
        self.data, self._terms, self._texts = data, SortedLines(terms), texts
        self._chunks = [JsonChunk._make(row) for row in data["chunks"]]
        self._by_key = self._by_path = None
        self._lines = {}
        self._avg = None

    def _load_index(self):
        fresh = {"schema_version": SCHEMA_VERSION, "settings": self.settings, "created": _now(),
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
        problem = _json_index_problem(data)
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

    def _generation_path(self, kind, generation):
        return os.path.join(self.index_dir, "%s-%d.txt" % (kind, generation))

    def close(self):
        for buf in (getattr(self, "_texts", None), getattr(getattr(self, "_terms", None), "buf", None)):
            if hasattr(buf, "close"):
                buf.close()
        self.data = None

    def is_corruption(self, exc):
        """Whether an error found after opening means a damaged file (text
        that no longer decodes), not a bug."""
        import zlib
        return isinstance(exc, (UnicodeDecodeError, zlib.error)) or type(exc).__name__ == "JSONDecodeError"

    def files_on_disk(self):
        if not self.path:
            return []
        generation = self.data["generation"] if self.data else 0
        extra = [self._generation_path(k, generation) for k in ("terms", "text")] if generation else []
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
        return len(self._chunks)

    def total_terms(self):
        return self.data["total_terms"]

    def doc_freqs(self, terms):
        out = {}
        for t in terms:
            fields = self._terms.get(t) if "\n" not in t and "\t" not in t else None
            if fields:
                out[t] = int(fields[0])
        return out

    def _postings(self, phrase):
        """{key: (body tf, head tf)} of a term, or of every term starting with prefix + '*'."""
        if "\n" in phrase or "\t" in phrase:
            return {}
        if phrase.endswith("*"):
            out = {}
            for _, fields in self._terms.starting_with(phrase[:-1]):
                for key, (b, h) in _parse_postings(fields[1]).items():
                    ob, oh = out.get(key, (0, 0))
                    out[key] = (ob + b, oh + h)
            return out
        fields = self._terms.get(phrase)
        return _parse_postings(fields[1]) if fields else {}

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        phrases = [self._postings(t) for t in terms] + [self._postings(p + "*") for p in prefixes]
        if not phrases:
            return []
        chunks = self._chunk_index()
        n = len(self._chunks)
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
            self._avg = (sum(c.length for c in self._chunks) / float(len(self._chunks))) if self._chunks else 1.0
        return self._avg or 1.0

    def _chunk_index(self):
        if self._by_key is None:
            self._by_key = {c.key: c for c in self._chunks}
        return self._by_key

    def _file_lines(self, path):
        """(lines, units) of a file."""
        if path not in self._lines:
            start, size = self.data["files"][path]["at"]
            self._lines[path] = _split_file_text(bytes(self._texts[start:start + size]))
        return self._lines[path]

    def _stored(self, c):
        return _json_stored(c, self._file_lines(c.path), self.data["files"][c.path]["date"], self.params)

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
            for c in self._chunks:
                by_path.setdefault(c.path, []).append(c)
            self._by_path = by_path
        return [self._stored(c) for c in sorted(self._by_path.get(path, []), key=lambda c: c.ordinal)]

    def file_issues(self):
        return sorted((p, v["issue"]) for p, v in self.data["files"].items() if v["issue"])

    def stats(self):
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": len(self.data["files"]), "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self.data.get("last_sync"), "schema_version": SCHEMA_VERSION}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        from .writer import JsonWriter
        return JsonWriter(self, rebuild)

    def backup_to(self, dest):
        """One self-contained file: index.json with the terms and texts inside."""
        import json
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(dict(self.data, terms=bytes(self._terms.buf).decode("utf-8", "surrogatepass"),
                           texts=bytes(self._texts).decode("utf-8", "surrogatepass")), f, ensure_ascii=False)


def _file_text(lines, units):
    """How the JSON index keeps a file: its lines, NUL, their units."""
    return ("\n".join(lines) + "\0" + "\n".join(units)).encode("utf-8", "surrogatepass")


def _split_file_text(data):
    text, units = data.decode("utf-8", "surrogatepass").rsplit("\0", 1)
    return text.split("\n"), units.split("\n")


def _json_stored(c, file_lines, date, params):
    """A StoredChunk from a JSON chunk record and its file's (lines, units)."""
    lines, units = file_lines
    text = chunk_text(lines, c.start_line, c.end_line, c.piece, params)
    line_units = (text_units(text),) if c.piece else tuple(units[c.start_line - 1:c.end_line])
    return StoredChunk(c.key, c.path, c.ordinal, c.start_line, c.end_line, c.heading, date, text, c.hash,
                       line_units, c.head_units, c.length, c.norm_terms, c.n_grams)


def _parse_postings(text):
    out = {}
    for item in text.split():
        key, b, h = item.split(":")
        out[int(key)] = (int(b), int(h))
    return out


def _json_index_problem(data):
    """Why a loaded index.json is not an index of ours, or None."""
    if not isinstance(data, dict):
        return "not a memory index (a JSON %s)" % type(data).__name__
    need = {"schema_version": int, "settings": str, "generation": int, "next_key": int,
            "total_terms": int, "files": dict, "chunks": list, "chunk_fields": list}
    for key, kind in need.items():
        if not isinstance(data.get(key), kind):
            if data.get("schema_version") != SCHEMA_VERSION and isinstance(data.get("schema_version"), int):
                return None  # another version's index: rebuilt, not damaged
            return "not a memory index (%s missing or wrong)" % key
    if data["chunk_fields"] != list(JSON_CHUNK_FIELDS):
        return "unknown chunk fields"
    for path, entry in data["files"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), list) \
                or not all(k in entry for k in ("size", "mtime_ns", "hash", "issue", "date")):
            return "bad file record for %s" % path
    for row in data["chunks"]:
        if not isinstance(row, list) or len(row) != len(JSON_CHUNK_FIELDS) or row[1] not in data["files"]:
            return "bad chunk record"
    return None


def _parse_terms(data):
    terms = {}
    for line in data.decode("utf-8", "surrogatepass").split("\n"):
        if line:
            term, df, postings = line.split("\t")
            terms[term] = [int(df), postings]
    return terms
