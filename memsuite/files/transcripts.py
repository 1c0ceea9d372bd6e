"""Session transcripts (OpenClaw and Claude Code JSONL) read as text: a second, optional
source (sources.discover_sessions finds them); and the excerpts of a session a
client writes into the memory folder itself, read redacted like them."""
import os
import re

from ..text.markdown import mask_private_carried, split_lines
from ..base.patterns import pattern
from ..text.redact import redact


def render_transcript(text):
    """An agent's session transcript (JSON Lines, as OpenClaw and Claude Code
    write them) as text with the same line numbers: each user or assistant
    message is one line, 'user: ...' or 'assistant: ...'; tool calls, tool
    results, thinking and everything else are blank lines."""
    import json
    out, after_boundary, private = [], False, {}
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
                said = redact(transcript_line(record, private))  # indexed: no secret
                after_boundary = after_boundary and not said
        out.append(said)
    return "\n".join(out)


# OpenClaw's bundled session-memory hook writes memory/YYYY-MM-DD-<slug>.md on /new:
# '# Session: <time>', then the conversation's last lines as they were said, secrets and all
_CLIENT_NOTE_NAME = re.compile(r"\d{4}-\d{2}-\d{2}-[^/\\]+\.md\Z")
_CLIENT_NOTE_HEAD = re.compile(r"\s*# Session: ")


def client_session_note(abspath, text):
    """Whether a Markdown file is a session's excerpt a client wrote (OpenClaw's session-memory)."""
    return bool(_CLIENT_NOTE_NAME.match(os.path.basename(abspath)) and _CLIENT_NOTE_HEAD.match(text[:200]))


def render_client_note(text):
    """A client's session excerpt as the index and `get` read it: redacted
    line by line (as render_transcript redacts each message), every line
    break kept, so citations stay exact."""
    return "".join(redact(line) + brk for line, brk in _lines_and_breaks(text))


def _lines_and_breaks(text):
    """[(line, its line break)] of text, the breaks as they were."""
    out, at = [], 0
    for m in pattern("line_break").finditer(text):
        out.append((text[at:m.start()], m.group(0)))
        at = m.end()
    return out + [(text[at:], "")]


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


def transcript_line(record, private=None):
    """'role: text' of a person's or the assistant's message ('' for any other
    record), <private> blocks masked.  private: a dict carrying the depth of
    blocks open from one message to the next (a block may close in a later
    message of the same transcript)."""
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
    depth = private.get("depth", 0) if private is not None else 0
    text, depth = mask_private_carried(" ".join(p for p in parts if isinstance(p, str)), depth)  # before any tag goes
    if private is not None:
        private["depth"] = depth
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
