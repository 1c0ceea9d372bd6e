"""Writing the JSON index: whole files written aside and moved into place."""
import os
from collections import Counter

from ...base.fileio import FileLock, write_bytes_atomic, write_json_atomic
from ..records import FileState, timestamp_now
from .format import JsonChunk, file_text, json_stored, parse_postings, parse_terms
from ..prepare import chunk_terms


class JsonWriter:
    """Changes to the JSON index, under an exclusive lock file so two writers
    never interleave, written at the end: nothing on error."""

    def __init__(self, backend, rebuild):
        self.backend, self.rebuild = backend, rebuild
        self.lock = FileLock(backend.path)

    def __enter__(self):
        self.lock.__enter__()
        try:
            self.backend.open()  # read again under the lock: another writer may have gone first
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        backend = self.backend
        data = backend.data
        self.files = {p: dict(v) for p, v in data["files"].items()}
        self.texts = {}  # path -> (lines, units) of files put now
        self.chunks = {c.key: c for c in backend.chunk_records}
        self.terms = parse_terms(bytes(backend.term_lines.buf))  # {term: [df, postings text or dict]}
        self.next_key, self.total = data["next_key"], data["total_terms"]
        if self.rebuild:
            self.files, self.chunks, self.terms, self.total = {}, {}, {}, 0
        return self

    def known_files(self):
        return {p: FileState(v["size"], v["mtime_ns"], v["hash"]) for p, v in self.files.items()}

    def _postings(self, term):
        entry = self.terms.setdefault(term, [0, {}])
        if not isinstance(entry[1], dict):
            entry[1] = parse_postings(entry[1])
        return entry[1]

    def _file_lines(self, path):
        return self.texts[path] if path in self.texts else self.backend.file_lines(path)

    def remove(self, path):
        if path not in self.files:
            return
        entry, file_lines = self.files.pop(path), self._file_lines(path)
        self.texts.pop(path, None)
        expanded = {}
        for key in [k for k, c in self.chunks.items() if c.path == path]:
            c = self.chunks.pop(key)
            stored = json_stored(c, file_lines, entry["date"], self.backend.params)
            terms = chunk_terms(stored.units, stored.head_units, expanded)
            for term in set(terms.body.split()) | set(terms.head.split()):
                self._postings(term).pop(key, None)
            for feature in terms.features:
                self.terms.setdefault(feature, [0, ""])[0] -= 1
            self.total -= terms.length

    def put(self, f, analysed):
        self.remove(f.path)
        self.files[f.path] = {"size": f.size, "mtime_ns": f.mtime_ns, "hash": analysed.digest,
                              "issue": analysed.issue, "date": analysed.date, "at": None}
        self.texts[f.path] = (analysed.lines, analysed.units)
        for item in analysed.chunks:
            c, t, key = item.chunk, item.terms, self.next_key
            self.next_key += 1
            self.chunks[key] = JsonChunk(key, c.path, c.ordinal, c.start_line, c.end_line, c.piece,
                                         c.heading, item.head_units, c.hash, t.length, t.norm_terms, t.n_grams)
            body, head = Counter(t.body.split()), Counter(t.head.split())
            for term in set(body) | set(head):
                self._postings(term)[key] = (body.get(term, 0), head.get(term, 0))
            self.total += t.length
        if analysed.df is not None:
            self.count_features(analysed.df)

    def count_features(self, df):
        for feature, n in df.items():
            self.terms.setdefault(feature, [0, ""])[0] += n

    def touch(self, f):
        entry = self.files.get(f.path)
        if entry:
            entry["size"], entry["mtime_ns"] = f.size, f.mtime_ns

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self._commit()
        finally:
            self.lock.__exit__(None, None, None)
        return False

    def _commit(self):
        backend = self.backend
        texts, offset = [], 0
        for path in sorted(self.files):
            blob = file_text(*self._file_lines(path))
            self.files[path]["at"] = [offset, len(blob)]
            texts.append(blob)
            offset += len(blob)
        data = dict(backend.data, files=self.files, next_key=self.next_key, total_terms=self.total,
                    last_sync=timestamp_now(), generation=backend.data["generation"] + 1,
                    chunks=[list(c) for c in sorted(self.chunks.values(), key=lambda c: (c.path, c.ordinal))])
        lines = []
        for term, (df, postings) in self.terms.items():
            if isinstance(postings, dict):
                postings = " ".join("%d:%d:%d" % (k, b, h) for k, (b, h) in sorted(postings.items()))
            if df > 0 or postings:
                lines.append(("%s\t%d\t%s" % (term, max(df, 0), postings)).encode("utf-8", "surrogatepass"))
        lines.sort(key=lambda line: line[:line.index(b"\t")])
        terms_data, text_data = b"\n".join(lines), b"".join(texts)
        if not backend.path:
            backend.install(data, terms_data, text_data)
            return
        generation = data["generation"]
        for kind, payload in (("terms", terms_data), ("text", text_data)):
            write_bytes_atomic(backend.generation_path(kind, generation), payload)
        write_json_atomic(backend.path, data)
        backend.close()
        backend.install(data, *backend.map_generation(generation))
        keep = {os.path.basename(backend.generation_path(k, generation)) for k in ("terms", "text")}
        for name in os.listdir(backend.index_dir):  # older generations
            if name.endswith(".txt") and name.startswith(("terms-", "text-")) and name not in keep:
                try:
                    os.unlink(os.path.join(backend.index_dir, name))
                except OSError:
                    pass
