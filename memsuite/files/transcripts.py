"""Session transcripts (OpenClaw and Claude Code JSONL) read as text: a second, optional
source (sources.discover_sessions finds them)."""

from ..text.markdown import mask_private, split_lines
from ..base.patterns import pattern
from ..text.redact import redact


def render_transcript(text):
    """An agent's session transcript (JSON Lines, as OpenClaw and Claude Code
    write them) as text with the same line numbers: each user or assistant
    message is one line, 'user: ...' or 'assistant: ...'; tool calls, tool
    results, thinking and everything else are blank lines."""
    import json
    out, after_boundary = [], False
    for line in split_lines(text):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            record = None
        said = ""
        if isinstance(record, dict):
            if compaction_boundary(record):
                after_boundary = True
            elif client_record(record, after_boundary):  # a compaction summary is not what anyone said
                after_boundary = False
            else:
                said = redact(transcript_line(record))  # indexed: no secret
                after_boundary = after_boundary and not said
        out.append(said)
    return "\n".join(out)


def compaction_boundary(record):
    return record.get("type") == "system" and record.get("subtype") == "compact_boundary"


def client_record(record, after_boundary):
    """Whether a record is the client's rather than a person's: a compaction
    summary (flagged, or the first user record after a compaction boundary),
    a record only shown in the transcript, or a meta record."""
    if record.get("isCompactSummary") or record.get("isVisibleInTranscriptOnly") or record.get("isMeta"):
        return True
    message = record.get("message") if isinstance(record.get("message"), dict) else record
    return after_boundary and (message.get("role") or record.get("type")) == "user" and not tool_results(message)


def tool_results(message):
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def transcript_line(record):
    message = record.get("message") if isinstance(record.get("message"), dict) else record
    role = message.get("role") or record.get("type")
    if role not in ("user", "assistant") or record.get("isMeta") or record.get("isSidechain"):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    else:
        parts = []
    text = mask_private(" ".join(p for p in parts if isinstance(p, str)))  # before any tag goes
    text = " ".join(pattern("agent_tags").sub(" ", text).split())
    return "%s: %s" % (role, text) if text else ""


def transcript_date(abspath):
    """The day a transcript starts (its first timestamp), or None."""
    import json
    try:
        with open(abspath, encoding="utf-8", errors="replace") as f:
            for _, line in zip(range(50), f):
                try:
                    stamp = json.loads(line).get("timestamp")
                except (ValueError, AttributeError):
                    continue
                if isinstance(stamp, str) and pattern("date").match(stamp):
                    return stamp[:10]
    except OSError:
        pass
    return None


def tail_lines(abspath, max_bytes):
    """The whole lines of a file's last max_bytes (a transcript's latest
    records), oldest first: a bounded read whatever the file's size; [] when
    it cannot be read."""
    try:
        with open(abspath, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read(max_bytes)
    except OSError:
        return []
    lines = data.split(b"\n")
    if size > max_bytes:
        lines = lines[1:]  # the first is cut: not a whole record
    return [l.decode("utf-8", "replace") for l in lines if l.strip()]
