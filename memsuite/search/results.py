"""The objects every door (CLI --json, MCP, hooks) returns: hits, entries, cited lines."""

from ..text.citations import parse_reference
from ..text.markdown import content_lines
from .recall import gist
from ..base.records import StoreError, UsageError
from ..files.sources import is_session, read_memory_lines, safe_join


# Output: the one place that renders results

def compact_json(hit):
    return {"id": hit.id, "date": hit.date, "score": hit.score, "gist": gist(hit.snippet)}


def hit_json(hit):
    scores = {"keyword": hit.keyword, "vector": hit.vector}
    if hit.semantic is not None:
        scores["semantic"] = hit.semantic
    return {"id": hit.id, "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line,
            "heading": hit.heading, "score": hit.score, "snippet": hit.snippet, "scores": scores,
            "source": "sessions" if is_session(hit.path) else "memory"}


def gist_text(text):
    """The lines of a chunk worth a gist (no blank lines or headings)."""
    lines = text.split("\n")
    return " ".join(lines[i].strip() for i in content_lines(lines))


def entry_json(e, full=True):
    out = {"id": e.id, "path": e.path, "start_line": e.start_line, "end_line": e.end_line,
           "date": e.date, "heading": e.heading, "anchor": e.anchor}
    if full:
        out["text"] = e.text
    else:
        out["gist"] = gist(gist_text(e.text))
    return out


MAX_GET_LINES = 200


def read_cited(root, reference, start=None, count=None, store=None):
    """The lines a reference names, as JSON-ready data: a citation
    ('file.md:31-44'), a chunk ('file.md#5', which needs the store) or a file
    (its first MAX_GET_LINES lines); start and count choose other lines.
    Only memory files inside root (no '..', no symlink out, no index)."""
    try:
        path, first, last = parse_reference(reference)
    except ValueError as exc:
        raise UsageError(str(exc))
    if path.startswith("./"):
        path = path[2:]
    if first == "#":
        first, last = _chunk_lines(store, path, last)
    lines = store.read_lines(path) if store is not None else read_memory_lines(root, path)
    begin = start or first or 1
    if begin > max(len(lines), 1):
        raise StoreError("%s has %d lines; line %d is past the end" % (path, len(lines), begin))
    if count:
        end = begin + count - 1
    elif start is None and last is not None:
        end = last
    else:
        end = begin + MAX_GET_LINES - 1
    end = min(end, len(lines))
    return {"path": path, "start_line": begin, "end_line": end, "total_lines": len(lines),
            "lines": lines[begin - 1:end]}


def _chunk_lines(store, path, ordinal):
    """The line range of chunk 'path#ordinal' in the current index."""
    if store is None:
        raise UsageError("a chunk id (file.md#N) needs the index; cite lines instead (file.md:5-9)")
    safe_join(store.root, path)
    store.refresh()
    chunks = [c for c in store.chunks_of(path.replace("\\", "/")) if c.ordinal == ordinal]
    if not chunks:
        raise StoreError("no chunk %s#%d (ids change when a file changes; search again)" % (path, ordinal))
    return chunks[0].start_line, chunks[0].end_line


def problems_json(problems):
    return [{"path": p, "issue": i} for p, i in problems]
