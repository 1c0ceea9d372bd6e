"""What a session's transcript already carries of the notes the hooks sent:
the lines of every <memory-notes> block in its records and the sessions the
blocks name, whatever the client or the session id.  A fork's transcript
holds its parent's records, blocks included (Claude Code's --fork-session
copies them under a new id; a Codex fork only names its parent).  A transcript only
grows, so a look starts where the last one stopped.  A compaction drops the
notes from the model's context (both clients, December 2026), but for the
messages it keeps."""
import json
import os
import re

MAX_READ = 64 << 20
# a block as the hooks' additionalContext holds it: the tag, a newline, the lines
# (the same text JSON-escaped inside a record of the hook's raw stdout has no
# real newline after the tag and is not read twice)
_BLOCK = re.compile(r"<memory-notes\b([^>\n]*)>\n(.*?)</memory-notes>", re.S)
_SESSION = re.compile(r"\bsession=\"([0-9a-f]{1,40})\"")


def carried(path, start=0):
    """(items, end) of the transcript at path from byte start on, in order:
    ("notes", record uuid or None, lines, session tags) for each whole record
    holding <memory-notes> blocks (their lines, the tags their session="..."
    attributes name), ("compacted", uuids kept) for each compaction (Claude
    Code's compact_boundary names the messages it kept; Codex's compacted
    record holds them, and is read for notes after it); end: the offset
    after the last whole record read (where the next look starts).  A file
    shorter than start was rewritten: it is read from its beginning.  None
    when it cannot be read."""
    try:
        with open(os.path.expanduser(path), "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < start:
                start = 0
            f.seek(start)
            data = f.read(MAX_READ)
    except (OSError, TypeError, ValueError):
        return None
    end = data.rfind(b"\n") + 1  # a record still being written is read next time
    items = []
    for raw in data[:end].split(b"\n"):
        if b"<memory-notes" not in raw and b"compact" not in raw:
            continue
        try:
            record = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):  # a line nested too deep for json
            continue
        if not isinstance(record, dict):
            continue
        kept = _compaction(record)
        if kept is not None:
            items.append(("compacted", kept))
        lines, tags = [], set()
        for text in _strings(record):
            for m in _BLOCK.finditer(text):
                tags.update(_SESSION.findall(m.group(1)))
                lines += m.group(2).split("\n")
        if lines:
            uuid = record.get("uuid")
            items.append(("notes", uuid if isinstance(uuid, str) else None, lines, tags))
    return items, start + end


def _compaction(record):
    """The uuids of the messages a compaction record says it kept (a set), or
    None when the record is no compaction."""
    if record.get("type") == "compacted":  # Codex: what it kept is in the record itself
        return set()
    if record.get("type") != "system" or record.get("subtype") != "compact_boundary":
        return None
    meta = record.get("compactMetadata")
    kept = meta.get("preservedMessages") if isinstance(meta, dict) else None
    uuids = kept.get("allUuids") or kept.get("uuids") if isinstance(kept, dict) else None
    return {u for u in uuids if isinstance(u, str)} if isinstance(uuids, list) else set()


def _strings(obj):
    """Every string a JSON value holds, without recursion."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "<memory-notes" in item:
                yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
