"""Extractive capture of an agent session: what the user asked and stated,
the assistant's conclusions, files touched, errors and their fixes, from a
transcript (JSON Lines: Claude Code, OpenClaw, Codex), with secrets
redacted and <private> blocks, tool output, thinking and injected memory
left out.  No model, no network: sentences are picked by cue words.  A
transcript is read on from where the last capture of it stopped.

capture_lines(path, cwd, resume=...) -> [str]: the bullet lines of a session's block.
worth_a_file(lines): whether they hold more than a trivial exchange.
one_line(value): a hook event's value as it may enter a note.
redact(text) -> text with secrets replaced by [redacted].
"""
import json
import os
import re
import time

from ..files.transcripts import client_record, compaction_boundary, transcript_line
from ..text.redact import redact, redact_start

MAX_ITEMS = 40          # bullet lines a part's capture writes at most, besides the stated facts
MAX_ITEM_CHARS = 300    # one bullet's text
MAX_BLOCK_CHARS = 8000  # a session's block grows past this only by what was stated (Noted, Corrected)
PART_BYTES = 32 << 20   # a transcript is read this much at a time (each part captured before the next is read)
MAX_LINE_BYTES = 16 << 20  # a longer transcript line (a tool's output, never a person's message) is skipped
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


def _codex(record, typed):
    """A Codex rollout line as the Claude Code shape transcript_line reads.
    typed: the rollout records what the user typed as event_msg user_message
    (and the replies as agent_message); then its response_item messages are
    the model's input, with the client's context (environment, instructions,
    compaction summaries) among them, and are left out."""
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return record
    kind = payload.get("type")
    if typed and record.get("type") == "event_msg" and kind in ("user_message", "agent_message"):
        role = "user" if kind == "user_message" else "assistant"
        text = payload.get("message") if isinstance(payload.get("message"), str) else ""
        return {"type": role, "message": {"role": role, "content": [{"type": "text", "text": text}]}}
    if record.get("type") == "response_item" and kind == "message":
        if typed:
            return {}
        parts = payload.get("content") if isinstance(payload.get("content"), list) else []
        texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") in (
            "input_text", "output_text", "text") and isinstance(p.get("text"), str)]
        return {"type": payload.get("role"), "message": {"role": payload.get("role"),
                                                         "content": [{"type": "text", "text": t} for t in texts]}}
    return record if record.get("type") == "response_item" else {}


def _strip_injected(text):
    """Remove what the hooks injected (and any text citing memory lines)."""
    if MEMORY_TAG in text:
        text = re.sub(r"<%s\b.*?(?:</%s>|\Z)" % (MEMORY_TAG, MEMORY_TAG), " ", text, flags=re.S)
    return text


def read_turns(path, resume=None, log=None):
    """(turns [(role, text, day)], files touched, errors [(message, index of
    turn after)]) of the part of a transcript that follows resume["at"] (a
    byte offset; 0 without resume), read a line at a time.  resume (a dict,
    kept in the session's state) is brought up to where the reading stopped:
    the start of a line not yet written whole, or PART_BYTES further (the
    next call goes on from there), with what a reader must carry across
    parts.  A line above MAX_LINE_BYTES is skipped, and logged."""
    resume = {} if resume is None else resume
    at = _offset(resume.get("at"))
    lines = []
    with open(path, "rb") as f:
        f.seek(at)
        while at - _offset(resume.get("at")) < PART_BYTES:
            line = f.readline(MAX_LINE_BYTES)
            if len(line) == MAX_LINE_BYTES and not line.endswith(b"\n"):
                skipped = _skip_line(f)
                if skipped is None:  # still being written: read it whole next time
                    break
                at += len(line) + skipped
                if log:
                    log("a transcript line of %d bytes (over %d) skipped" % (len(line) + skipped, MAX_LINE_BYTES))
                continue
            if not line.endswith(b"\n"):
                break  # the end, or a line still being written
            at += len(line)
            text = line.decode("utf-8", "replace")
            if not _bulk(text):  # a tool's output is never captured: not held either
                lines.append(text)
    out = turns_of(lines, resume)
    resume["at"] = at
    return out


def _offset(value):
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _skip_line(f):
    """Read past the rest of an over-long line: the bytes skipped, or None if it has no end yet."""
    skipped = 0
    while True:
        piece = f.readline(1 << 20)
        skipped += len(piece)
        if not piece:
            return None
        if piece.endswith(b"\n"):
            return skipped


def turns_of(lines, resume=None):
    """read_turns on JSON lines (a transcript's, or an agent's messages one a
    line).  resume: what the lines before these leave open (a Codex
    rollout seen, a compaction boundary, a <private> block), updated."""
    resume = {} if resume is None else resume
    turns, files, errors = [], [], []
    typed = resume.get("typed") is True or any('"user_message"' in line and '"event_msg"' in line
                                               for line in lines)  # Codex: see _codex
    after_boundary = resume.get("after_boundary") is True
    private = {"depth": _offset(resume.get("private"))}
    turn_start = 0
    for line in lines:
        if not line.strip():
            continue
        if _bulk(line):  # a tool's output, no error in it: the bulk of a transcript, never captured
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if "payload" in record:
            if record.get("type") == "compacted":  # Codex: the turn that wrote the summary is not what was said
                del turns[turn_start:]
            elif isinstance(record["payload"], dict) and record["payload"].get("type") == "task_started":
                turn_start = len(turns)
            record = _codex(record, typed)
        if compaction_boundary(record):  # Claude Code: the summary is the next user record
            after_boundary = True
            continue
        if client_record(record, after_boundary):
            after_boundary = False
            continue
        message = record.get("message") if isinstance(record.get("message"), dict) else record
        content = message.get("content")
        if isinstance(content, list) and ('"tool_use"' in line or '"toolCall"' in line or '"is_error"' in line
                                          or '"function_call"' in line):
            _tools(content, len(turns), files, errors)
        if message.get("role") == "toolResult" and message.get("isError"):  # OpenClaw
            body = message.get("content")
            if isinstance(body, list):
                body = " ".join(b.get("text", "") for b in body if isinstance(b, dict))
            if isinstance(body, str) and body.strip():
                errors.append((body.strip().splitlines()[0], len(turns)))
        if isinstance(content, (str, list)) and MEMORY_TAG in line:
            record = _without_injected(record)
        said = transcript_line(record, private)  # the suite's reader: tool calls, thinking dropped; private masked
        if said:
            role, _, body = said.partition(": ")
            body = _CLIENT_TAG.sub(" ", body.replace("[private]", " "))
            body = " ".join(body.split())
            if body and not _BRACKETED.match(body):
                after_boundary = False
                turns.append((role, body, _day(record)))
    resume.update(typed=typed, after_boundary=after_boundary, private=private["depth"])
    return turns, files, errors


# A client's own blocks inside a message: lower-case tag names joined by - or _
# (<environment_context>, <system-reminder>, <command-name>, <user_instructions>);
# people do not type these.  A message wholly in brackets is a client's notice
# ("[Request interrupted by user]").
_CLIENT_TAG = re.compile(r"<([a-z]+(?:[_-][a-z]+)+)\b[^<>]{0,200}>.*?(?:</\1>|\Z)", re.S)
_BRACKETED = re.compile(r"^\[[^\[\]]*\]$")


def _day(record):
    """The day a record was written: an ISO timestamp, or epoch milliseconds (OpenClaw's messages)."""
    stamp = record.get("timestamp")
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool) and 1e11 < stamp < 1e14:
        return time.strftime("%Y-%m-%d", time.localtime(stamp / 1000.0))
    return stamp[:10] if isinstance(stamp, str) and re.match(r"\d{4}-\d{2}-\d{2}", stamp) else None


def _tools(content, at, files, errors):
    """Files an edit tool touched and tool errors, from a message's blocks."""
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
                errors.append((first, at))


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


_SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one (from JSON's escapes) cannot be written as UTF-8


def _clean(text, limit=MAX_ITEM_CHARS):
    """Redacted, without citations of memory lines (those came from the hooks);
    of a text far longer than the limit it will be clipped to, its start only."""
    text = redact_start(text, 4 * limit + 64)
    text = _CITATION.sub(" ", text)
    text = _SURROGATE.sub("\ufffd", text)
    return " ".join(text.split())


def capture_lines(path, cwd=None, messages=None, resume=None, log=None):
    """The bullet lines ('- ...') a session's block should hold, most useful
    first: every stated fact and correction, and within MAX_ITEMS the rest.
    messages: the conversation as a list of message objects (OpenClaw's
    plugin events) instead of a transcript file.  resume: where the last
    capture of this transcript stopped (read_turns); only what follows is
    read, PART_BYTES at a time, and resume is brought to its end."""
    if messages is not None:
        turns, files, errors = turns_of([json.dumps(m) for m in messages if isinstance(m, dict)])
        return _picked(turns, files, errors, cwd, log)
    resume = {} if resume is None else resume
    out = []
    while True:
        start = _offset(resume.get("at"))
        turns, files, errors = read_turns(path, resume, log)
        out += _picked(turns, files, errors, cwd, log)
        if resume["at"] - start < PART_BYTES:  # the end, or a line still being written
            return _once(out)


def _picked(turns, files, errors, cwd, log=None):
    """capture_lines of one part's turns."""
    noted, asked, concluded, answered = [], [], [], {}  # raw text first: only what is kept is cleaned
    for i, (role, text, day) in enumerate(turns):
        if not text or (role == "user" and (_TRIVIAL.match(text) or text.startswith("/"))):
            continue
        if role == "user":
            facts = _facts(text) if _CUE_FACT.search(text) else []
            noted.extend((fact, day) for fact in facts)
            if facts:
                continue
            answer = _reply(turns, i)
            if _question(text):  # only its answer is kept: the question's words would outrank the facts
                if answer and answer[0] not in answered:
                    answered[answer[0]] = "- Answered: " + _clip(_clean(answer[1], 240), 240)
            elif len(asked) < MAX_ITEMS:
                asked.append(text)
        elif _CUE_CONCLUSION.search(text) and i not in answered:
            concluded.extend([s for s in _sentences(text) if _CUE_CONCLUSION.search(s)][:2])
            del concluded[:-16]
    noted = [_noted_line(s, day) for s, day in noted]  # all of them: a late correction is what counts
    asked = ["- Asked: " + _clip(_clean(t, 200), 200) for t in asked]
    concluded = ["- Concluded: " + _clip(_clean(s)) for s in concluded[-8:]]
    last = next(((k, t) for k, (r, t, _) in reversed(list(enumerate(turns))) if r == "assistant"), None)
    if last and last[0] not in answered:
        whole = _clean(last[1], 240)
        # the last reply whole, unless a sentence of it is a line already (a containment, not a prefix)
        if len(whole) > 1 and not any(_body(c).rstrip("…") in whole for c in concluded):
            concluded.append("- Concluded: " + _clip(whole, 240))
    fixes = []
    for message, after in errors[:5]:
        reply = next((t for r, t, _ in turns[after:] if r == "assistant"), "")
        fix = _clip(_clean(reply, 160), 160) if reply else ""
        message = re.sub(r"(?i)^(?:error|exception)\s*:\s*", "", _clean(message, 160))
        fixes.append("- Error: %s%s" % (_clip(message, 160), (" -> " + fix) if fix else ""))
        concluded = [c for c in concluded if _body(c).rstrip("…")[:80] not in fix]
    shown = []
    for p in files[:15]:
        if cwd and os.path.isabs(p) and p.startswith(cwd.rstrip("/") + "/"):
            p = p[len(cwd.rstrip("/")) + 1:]
        shown.append("`%s`" % one_line(_clean(p, 200), 200))
    files_line = ["- Files touched: " + ", ".join(shown)] if shown else []
    others = files_line + fixes + concluded[-8:] + list(answered.values())
    others += asked[:max(0, MAX_ITEMS - len(others))]
    lines = _once(noted + others)
    rest = [l for l in lines if not l.startswith(STATED)]
    if len(rest) > MAX_ITEMS and log:
        log("%d capture line(s) over %d left out (not facts: those are all kept)" % (len(rest) - MAX_ITEMS, MAX_ITEMS))
    cut = set(rest[MAX_ITEMS:])
    return [l for l in lines if l not in cut]


STATED = ("- Noted: ", "- Corrected (")  # what a person stated: always kept


# what a person asks for (the reply is the point, not what they said): "write a haiku", "请翻译"
_REQUEST = re.compile(
    r"(?i)^(?:(?:please|pls|can you|could you|would you|will you|now|then|and|ok(?:ay)?,?|hey,?)\s+)*"
    r"(?:write|make|create|generate|draw|compose|tell|show|give|list|explain|describe|summari[sz]e|translate|"
    r"help|find|suggest|recommend|brainstorm|rewrite|rephrase|review|check|look|try|run|say|sing|play|imagine)\b"
    r"|^(?:请|帮我|帮忙|麻烦|给我|写|讲|翻译|解释|总结|介绍|推荐|生成|画|做|来)")


def worth_a_file(lines):
    """Whether captured lines hold more than a trivial exchange: a stated
    fact, a decision or conclusion, files touched, an error fixed, or
    something a person said that is not a request (a haiku asked for and
    written, a question answered, are not kept)."""
    return any(l.startswith(STATED + ("- Files touched: ", "- Error: "))
               or l.startswith("- Concluded: ") and _CUE_CONCLUSION.search(l)
               or l.startswith("- Asked: ") and not _REQUEST.match(_body(l)) for l in lines)


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]+")


def one_line(value, limit=80):
    """A value from a hook event or a tool's arguments (a folder, a session
    id, a title, a path) as it may enter a note: one line of printable
    text, its tags neutralised (no <private>, no <!-- anchor -->), clipped."""
    text = _UNPRINTABLE.sub(" ", value if isinstance(value, str) else str(value or ""))
    text = " ".join(text.replace("<", "‹").replace(">", "›").split())
    return _clip(text, limit)


def _once(lines):
    """The lines without repeats: none twice, none whose text another line
    holds whole.  Two stated facts are compared whole only (there may be
    thousands; the containment check is against the few other lines)."""
    bodies = [_body(line).rstrip("…").casefold() for line in lines]
    others = [b for line, b in zip(lines, bodies) if not line.startswith(STATED)]
    out, seen = [], set()
    for k, line in enumerate(lines):
        body = bodies[k]
        against = others if line.startswith(STATED) else bodies
        inside = any(len(other) > len(body) and body in other for other in against)
        if body not in seen and len(body.strip()) > 1 and not inside:
            seen.add(body)
            out.append(line)
    return out


_QUESTION_END = re.compile(r"(?:[?？]|[吗呢么][。.]?)\W*$")
_CUE_CORRECTION = re.compile(
    r"(?i)\b(?:no longer|not any ?more|any ?more|instead|(?:is|are) (?:now )?void|cancel(?:l?ed)?|changed? to|"
    r"moved? to|switch(?:ed)? to|from now on|(?:is|are) now|now (?:is|are)|the old one|used to be|"
    r"replac(?:e|es|ed)|(?:my|our) new)\b"
    r"|改到|改成|改为|改在|改用|换成|换到|不再|以后|今后|从现在起|从今天起|作废|取消|新的")


def _reply(turns, i):
    """(index, text) of the assistant's reply to turn i, before the next user turn; or None."""
    for k in range(i + 1, len(turns)):
        if turns[k][0] != "assistant":
            return None
        return k, turns[k][1]
    return None


def _question(text):
    return bool(_QUESTION_END.search(text))


def _facts(text):
    """The sentences of a person's message that state something to keep (a cue,
    not a question), each with the next sentence when that completes it (no
    cue, not a question: "...is 88412. The old one (7731) is void.")."""
    sentences = _sentences(text)
    out = []
    for k, s in enumerate(sentences):
        if not _CUE_FACT.search(s) or _question(s):
            continue
        nxt = sentences[k + 1] if k + 1 < len(sentences) else ""
        if nxt and not _CUE_FACT.search(nxt) and not _question(nxt) and len(s) + len(nxt) < MAX_ITEM_CHARS:
            s = s + " " + nxt
        out.append(s)
    return out


def _noted_line(sentence, day):
    """'- Noted: ...', or '- Corrected (day): ...' for what replaces an earlier
    statement, so that the newest can win."""
    text = _clip(_clean(sentence))
    if _CUE_CORRECTION.search(sentence):
        return "- Corrected (%s): %s" % (day or time.strftime("%Y-%m-%d"), text)
    return "- Noted: " + text


def _body(line):
    return line.split(": ", 1)[-1]
