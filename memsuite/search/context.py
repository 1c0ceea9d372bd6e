"""A prompt's conversation as weighted extra query terms.

A prompt in the middle of a conversation ("Okay, Option 1 it is",
"我特别期待那天晚上") carries few of its topic words; the turns before it
carry them (TREC CAsT's historical query expansion).  The last few turns
add their topic words to the query, weighted below the prompt's own (which
stay first and alone say what a full match holds): the user's words above
the assistant's, the recent above the old.  Context comes as turns
[(role, text)], from a transcript's tail, an event's messages, or a file of
"user: ..." / "assistant: ..." lines."""
import math

from ..base.records import record
from ..text.chinese import function_spans, is_cjk
from ..text.filler import is_filler
from ..text.tokenizer import text_units, tokenize

CONTEXT_TURNS = 6        # the last turns read (three exchanges)
CONTEXT_WEIGHT = 0.8     # a term of the latest user turn weighs this much beside the prompt's own 1.0
ASSISTANT_SHARE = 0.7    # an assistant's term: this share of a user's
TURN_DECAY = 0.9         # each turn further back: this share of the one after it
CONTEXT_TERMS = 24       # at most this many terms, the weightiest (weight x idf)
COMMON_SHARE = 0.2       # a term in more than this share of the chunks tells no topic
TAIL_BYTES = 256 << 10   # a transcript's tail read for its last turns: bounded, never the whole file
MAX_TURN_CHARS = 2000    # a turn's first characters (a pasted log tells little more)

Turn = record("Turn", "role text")
Turn.__doc__ = "One turn of a conversation: its role (user or assistant) and what was said."


def turns_from_lines(text):
    """Turns of a context file: each line "user: ..." or "assistant: ..."
    (a line without a role is the user's; a line without either role joins
    the turn before it when that one named its role)."""
    turns = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        role, _, said = line.partition(":")
        role = role.strip().lower()
        if role in ("user", "assistant") and said.strip():
            turns.append(Turn(role, said.strip()))
        else:
            turns.append(Turn("user", line))
    return turns


def turns_from_messages(messages):
    """Turns of an event's messages (OpenClaw's event.messages: role and
    content, a string or text blocks); other roles and shapes are skipped."""
    turns = []
    for m in messages if isinstance(messages, list) else ():
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant"):
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = " ".join(b.get("text", "") for b in content if isinstance(b, dict)
                               and isinstance(b.get("text"), str))
        if isinstance(content, str) and content.strip():
            turns.append(Turn(m["role"], content))
    return turns


def turns_from_transcript(path, max_bytes=TAIL_BYTES):
    """The last turns of a JSONL transcript (Claude Code's, Codex's), read
    from its tail only; [] when it cannot be read."""
    import json
    from ..files.transcripts import tail_lines, transcript_line
    turns = []
    for line in tail_lines(path, max_bytes):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        said = transcript_line(codex_message(rec)) if isinstance(rec, dict) else ""
        role, _, text = said.partition(": ")
        if text:
            turns.append(Turn(role, text))
    return turns


def codex_message(rec):
    """A Codex rollout record ({"type": "response_item", "payload": {"type":
    "message", "role", "content": [{"type": "input_text"|"output_text"}]}})
    as the message shape transcript_line reads; any other record as it is."""
    payload = rec.get("payload")
    if rec.get("type") != "response_item" or not isinstance(payload, dict) or payload.get("type") != "message":
        return rec
    blocks = [{"type": "text", "text": b.get("text", "")} for b in payload.get("content") or ()
              if isinstance(b, dict) and b.get("type") in ("input_text", "output_text")]
    role = payload.get("role")
    return {"message": {"role": role if role in ("user", "assistant") else "other", "content": blocks}}


def before_prompt(turns, prompt=""):
    """The turns before the prompt: the prompt itself, when a transcript
    already holds it as its last user turn, is left out."""
    turns = [t for t in turns if t.role in ("user", "assistant") and t.text.strip()]
    if turns and prompt and turns[-1].role == "user" and " ".join(turns[-1].text.split()) == " ".join(prompt.split()):
        turns = turns[:-1]
    return turns


def topic_terms_of(text):
    """The terms of a turn that can carry a topic: no lone CJK character, no
    pair touching a function word (的, 什么), no chat filler."""
    text = text[:MAX_TURN_CHARS]
    weak = set()
    for run in text_units(text).split():
        if is_cjk(run[0]) and len(run) > 1:
            fn = function_spans(run)
            weak.update(run[i:i + 2] for i in range(len(run) - 1) if fn[i] or fn[i + 1])
    return [t for t in dict.fromkeys(tokenize(text))
            if not (len(t) == 1 and is_cjk(t)) and t not in weak and not is_filler(t)]


def turn_weights(turns, weight=CONTEXT_WEIGHT):
    """{term: weight} over the last CONTEXT_TURNS turns, newest last: the latest turn's weigh
    weight (a user's) or that x ASSISTANT_SHARE, each turn back
    TURN_DECAY of the next; a term said several times keeps its best."""
    weights = {}
    for age, turn in enumerate(reversed(turns[-CONTEXT_TURNS:])):
        w = weight * TURN_DECAY ** age * (1.0 if turn.role == "user" else ASSISTANT_SHARE)
        for t in topic_terms_of(turn.text):
            weights[t] = max(weights.get(t, 0.0), w)
    return weights


def context_weights(store, turns, own=()):
    """({term: weight}, {term: document frequency}) of a conversation's
    turns: kept_terms of their turn_weights."""
    return kept_terms(store, turn_weights(turns), own)


def kept_terms(store, weights, own=(), most=CONTEXT_TERMS):
    """({term: weight}, {term: document frequency}): the terms of weights this
    memory holds, not the query's own (`own`), not in more than
    COMMON_SHARE of its chunks, the `most` weightiest by weight x idf."""
    weights = {t: w for t, w in weights.items() if t not in own}
    if not weights:
        return {}, {}
    n_docs = store.chunk_count()
    dfs = store.doc_freqs(sorted(weights))
    kept = {t: w for t, w in weights.items() if dfs.get(t) and dfs[t] <= max(1, COMMON_SHARE * n_docs)}
    ranked = sorted(kept, key=lambda t: (-kept[t] * math.log(1 + n_docs / dfs[t]), t))[:most]
    return {t: kept[t] for t in ranked}, {t: dfs[t] for t in ranked}


def with_context(store, q, turns):
    """An analysed query (ranking.Query) with its conversation's terms added
    (with_terms)."""
    return with_terms(q, context_weights(store, turns, set(q.weights) | set(q.missing)))


def with_terms(q, kept):
    """An analysed query with extra terms ({term: weight}, {term: df}, as
    kept_terms gives them): they score and find candidates like a synonym
    does (weights below the prompt's own, in `probe`), but are not its own
    words (not in `base`), so a hit's score still says how much of the
    prompt it holds and is raised by how much of the extra it holds besides."""
    weights, dfs = kept
    if not weights:
        return q
    merged = dict(q.weights)
    merged.update(weights)
    all_dfs = dict(q.dfs)
    all_dfs.update(dfs)
    probe = list(q.probe) + [t for t in weights if t not in q.probe]
    return q._replace(weights=merged, dfs=all_dfs, probe=probe)


def spoken_with(prompt, turns, limit=1000):
    """The prompt and the user's turns before it, newest first, as one text
    of at most `limit` characters: the conversation as the user put it."""
    out = " ".join(prompt.split())
    for turn in reversed(turns[-CONTEXT_TURNS:]):
        if turn.role == "user":
            out += " " + " ".join(turn.text.split())
    return out[:limit]


def event_turns(event, prompt=""):
    """The conversation before a hook event's prompt: OpenClaw's
    event.messages, else the tail of transcript_path (Claude Code, Codex);
    [] when there is neither."""
    import os
    messages = event.get("messages")
    if isinstance(messages, list):
        turns = turns_from_messages(messages)
    else:
        path = event.get("transcript_path")
        turns = turns_from_transcript(os.path.expanduser(path)) if isinstance(path, str) and path else []
    return before_prompt(turns, prompt)
