"""The JSON index's file formats: chunk records, a file's text, the terms file's
postings, and what a valid index.json holds (read by the index, written by the writer)."""
from ..records import SCHEMA_VERSION, StoredChunk, join_units, split_units, stored_chunk
from ...base.records import record

JSON_CHUNK_FIELDS = ("key", "path", "ordinal", "start_line", "end_line", "piece", "heading", "head_units",
                     "hash", "length", "norm_terms", "n_grams")
JsonChunk = record("JsonChunk", JSON_CHUNK_FIELDS)
JsonChunk.__doc__ = "A chunk record of the JSON index (the fields of StoredChunk it stores)."


def file_text(lines, units):
    """How the JSON index keeps a file: its lines, NUL, their units."""
    return ("\n".join(lines) + "\0" + join_units(units)).encode("utf-8", "surrogatepass")


def split_file_text(data):
    text, units = data.decode("utf-8", "surrogatepass").rsplit("\0", 1)
    return text.split("\n"), split_units(units)


def json_stored(c, file_lines, date, params):
    """A StoredChunk from a JSON chunk record and its file's (lines, units)."""
    lines, units = file_lines
    text, line_units = stored_chunk(lambda n: (lines[n - 1], units[n - 1]), c.start_line, c.end_line, c.piece,
                                    params.chunk_chars)
    return StoredChunk(c.key, c.path, c.ordinal, c.start_line, c.end_line, c.heading, date, text, c.hash,
                       line_units, c.head_units, c.length, c.norm_terms, c.n_grams)


def parse_postings(text):
    out = {}
    for item in text.split():
        key, b, h = item.split(":")
        out[int(key)] = (int(b), int(h))
    return out


def json_index_problem(data):
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


def parse_terms(data):
    terms = {}
    for line in data.decode("utf-8", "surrogatepass").split("\n"):
        if line:
            term, df, postings = line.split("\t")
            terms[term] = [int(df), postings]
    return terms
