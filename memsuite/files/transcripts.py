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
    out = []
    for line in split_lines(text):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            record = None
        out.append(redact(transcript_line(record)) if isinstance(record, dict) else "")  # indexed: no secret
    return "\n".join(out)


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
