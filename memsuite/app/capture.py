"""Extractive capture of an agent session: what the user asked and stated,
the assistant's conclusions, files touched, errors and their fixes, from a
transcript (JSON Lines: Claude Code, OpenClaw, Codex), with secrets
redacted and <private> blocks, tool output, thinking and injected memory
left out.  No model, no network: sentences are picked by cue words.

capture_lines(path, cwd) -> [str]: the bullet lines of a session's block.
redact(text) -> text with secrets replaced by [redacted].
"""
import json
import os
import re

from ..files.transcripts import transcript_line
from ..text.redact import redact

MAX_ITEMS = 40          # bullet lines one capture writes at most
MAX_ITEM_CHARS = 300    # one bullet's text
MAX_BLOCK_CHARS = 8000  # a session's block never grows past this
MEMORY_TAG = "memory-notes"  # what the hooks wrap around injected memory

# --- reading a transcript ---------------------------------------------------

_CUE_FACT = re.compile(
    r"(?i)\b(?:remember|note that|don't forget|keep in mind|from now on|always|never|i prefer|i'd prefer|"
    r"i like|i don't like|i hate|i want|we decided|decided|let's use|we use|we'll use|my .{1,30} is|"
    r"our .{1,30} is|is called|lives? (?:at|in)|deadline|birthday)\b"
    r"|记住|记得|别忘|以后|今后|从现在起|我喜欢|我不喜欢|我更喜欢|我偏好|偏好|习惯|决定|约定|我的.{1,12}是|我们用|改用|截止|生日|叫做")
_CUE_CONCLUSION = re.compile(
    r"(?i)\b(?:fixed|the fix|the cause|root cause|caused by|resolved|solved|works now|now works|"
    r"the problem was|the issue was|in summary|to summarize|conclusion|done:|decided|turned out)\b"
    r"|修复|原因|解决|结论|总结|搞定|改好|已完成|问题是")
_TRIVIAL = re.compile(r"(?i)^\W*(?:ok(?:ay)?|yes|no|y|n|sure|thanks?(?: you)?|thx|go on|go ahead|continue|"
                      r"proceed|next|done|great|good|nice|cool|lgtm|好的?|好|嗯|是的?|对|继续|谢谢|可以|行)\W*$")
_SENTENCE = re.compile(r"(?:[^.!?。！？\n]|[.!?](?=[^\s\"')\]]))+(?:[.!?]+(?=[\s\"')\]]|$)|[。！？]+|$)")
_CITATION = re.compile(r"\[?[\w./-]+\.md:\d+(?:-\d+)?\]?")
_EDIT_TOOLS = ("edit", "write", "multiedit", "notebookedit", "create", "str_replace", "apply_patch",
               "str_replace_based_edit_tool", "replace")


def _codex(record):
    """A Codex rollout line as the Claude Code shape transcript_line reads."""
    payload = record.get("payload")
    if record.get("type") == "response_item" and isinstance(payload, dict) and payload.get("type") == "message":
        parts = payload.get("content") if isinstance(payload.get("content"), list) else []
        texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") in (
            "input_text", "output_text", "text") and isinstance(p.get("text"), str)]
        return {"type": payload.get("role"), "message": {"role": payload.get("role"),
                                                         "content": [{"type": "text", "text": t} for t in texts]}}
    return record


def _strip_injected(text):
    """Remove what the hooks injected (and any text citing memory lines)."""
    if MEMORY_TAG in text:
        text = re.sub(r"<%s\b.*?(?:</%s>|\Z)" % (MEMORY_TAG, MEMORY_TAG), " ", text, flags=re.S)
    return text


def read_turns(path, max_bytes=64 << 20):
    """(turns [(role, text)], files touched, errors [(message, index of turn after)]) of a transcript."""
    with open(path, "rb") as f:
        data = f.read(max_bytes)
    text = data.decode("utf-8", "replace")
    turns, files, errors = [], [], []
    for line in text.split("\n"):
        if not line.strip():
            continue
        if _bulk(line):  # a tool's output, no error in it: the bulk of a transcript, never captured
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "payload" in record:
            record = _codex(record)
        message = record.get("message") if isinstance(record.get("message"), dict) else record
        content = message.get("content")
        if isinstance(content, list) and ('"tool_use"' in line or '"toolCall"' in line or '"is_error"' in line
                                          or '"function_call"' in line):
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind in ("tool_use", "toolCall"):
                    name = str(block.get("name") or "").lower()
                    args = block.get("input") if isinstance(block.get("input"), dict) else block.get("arguments")
                    if isinstance(args, dict) and any(t == name or name.endswith(t) for t in _EDIT_TOOLS):
                        target = args.get("file_path") or args.get("notebook_path") or args.get("path")
                        if isinstance(target, str) and target and target not in files:
                            files.append(target)
                elif kind == "tool_result" and block.get("is_error"):
                    body = block.get("content")
                    if isinstance(body, list):
                        body = " ".join(b.get("text", "") for b in body if isinstance(b, dict))
                    if isinstance(body, str) and body.strip():
                        first = next((l.strip() for l in body.splitlines() if l.strip()), "")
                        errors.append((first, len(turns)))
        if message.get("role") == "toolResult" and message.get("isError"):  # OpenClaw
            body = message.get("content")
            if isinstance(body, list):
                body = " ".join(b.get("text", "") for b in body if isinstance(b, dict))
            if isinstance(body, str) and body.strip():
                errors.append((body.strip().splitlines()[0], len(turns)))
        if isinstance(content, (str, list)) and MEMORY_TAG in line:
            record = _without_injected(record)
        said = transcript_line(record)  # the suite's reader: tool calls, thinking dropped; private masked
        if said:
            role, _, body = said.partition(": ")
            body = " ".join(body.replace("[private]", " ").split())
            if body:
                turns.append((role, body))
    return turns, files, errors


_BULK = ('"type":"tool_result"', '"type": "tool_result"', '"role":"toolResult"', '"role": "toolResult"',
         '"type":"function_call_output"', '"type": "function_call_output"')


def _bulk(line):
    """Whether a JSONL line is a tool result without an error (read without
    parsing it: JSON escapes the quotes of such words inside a string)."""
    if not any(marker in line for marker in _BULK):
        return False
    return not ('"is_error":true' in line or '"is_error": true' in line or '"isError":true' in line
                or '"isError": true' in line)


def _without_injected(record):
    message = record.get("message") if isinstance(record.get("message"), dict) else record
    content = message.get("content")
    if isinstance(content, str):
        content = _strip_injected(content)
    else:
        content = [dict(b, text=_strip_injected(b["text"])) if isinstance(b, dict) and isinstance(
            b.get("text"), str) else b for b in content]
    new_message = dict(message, content=content)
    return dict(record, message=new_message) if message is not record else new_message


def _clip(text, limit=MAX_ITEM_CHARS):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


_ABBREVIATION = re.compile(r"(?i)(?:\b(?:mr|mrs|ms|dr|prof|st|sr|jr|vs|etc|e\.g|i\.e|no|inc|ltd|approx)|\b[A-Z])\.$")


def _sentences(text):
    out = []
    for s in _SENTENCE.findall(text):
        s = s.strip()
        if not s:
            continue
        if out and _ABBREVIATION.search(out[-1]):  # "Ms. Okafor" is one sentence
            out[-1] += " " + s
        else:
            out.append(s)
    return out


def _clean(text):
    """Redacted, without citations of memory lines (those came from the hooks)."""
    text = redact(text)
    text = _CITATION.sub(" ", text)
    text = "".join(c if not ("\ud800" <= c <= "\udfff") else "\ufffd" for c in text)
    return " ".join(text.split())


def capture_lines(path, cwd=None):
    """The bullet lines ('- ...') a session's block should hold, most
    useful first, within MAX_ITEMS."""
    turns, files, errors = read_turns(path)
    noted, asked, concluded = [], [], []  # raw text first: only what is kept is cleaned (redaction costs)
    for i, (role, text) in enumerate(turns):
        if not text or (role == "user" and (_TRIVIAL.match(text) or text.startswith("/"))):
            continue
        if role == "user":
            facts = [s for s in _sentences(text) if _CUE_FACT.search(s)] if _CUE_FACT.search(text) else []
            noted.extend(facts)
            if not facts and len(asked) < MAX_ITEMS:
                asked.append(text)
        elif _CUE_CONCLUSION.search(text):
            concluded.extend([s for s in _sentences(text) if _CUE_CONCLUSION.search(s)][:2])
            del concluded[:-16]
    noted = ["- Noted: " + _clip(_clean(s)) for s in noted[:20]]
    asked = ["- Asked: " + _clip(_clean(t), 200) for t in asked]
    concluded = ["- Concluded: " + _clip(_clean(s)) for s in concluded[-8:]]
    last = next((t for r, t in reversed(turns) if r == "assistant"), None)
    if last:
        line = "- Concluded: " + _clip(_clean(last), 240)
        if len(line) > 14 and not any(line.startswith(c.rstrip("…")[:60]) for c in concluded):
            concluded.append(line)
    fixes = []
    for message, after in errors[:5]:
        reply = next((t for r, t in turns[after:] if r == "assistant"), "")
        fix = _clip(_clean(reply), 160) if reply else ""
        message = re.sub(r"(?i)^(?:error|exception)\s*:\s*", "", _clean(message))
        fixes.append("- Error: %s%s" % (_clip(message, 160), (" -> " + fix) if fix else ""))
        concluded = [c for c in concluded if c[len("- Concluded: "):].rstrip("…")[:80] not in fix]
    shown = []
    for p in files[:15]:
        if cwd and os.path.isabs(p) and p.startswith(cwd.rstrip("/") + "/"):
            p = p[len(cwd.rstrip("/")) + 1:]
        shown.append("`%s`" % _clean(p))
    files_line = ["- Files touched: " + ", ".join(shown)] if shown else []
    picked = noted[:20] + files_line + fixes + concluded[-8:]
    picked += asked[:max(0, MAX_ITEMS - len(picked))]
    out, seen = [], set()
    for line in picked:
        key = line.casefold()
        if key not in seen and len(line.split(": ", 1)[-1].strip()) > 1:
            seen.add(key)
            out.append(line)
    return out[:MAX_ITEMS]
