#!/usr/bin/env python3
"""The hooks' recall on a memory that grows as a user's does (RealMem).

For each persona of ../shared/eval-data/realmem, its sessions are replayed
in time order on a temporary memory folder (bench/realmem.py): before a
session's prompts, SessionStart; each of its prompts that the questions file
lists goes through `search.sh hook --dir FOLDER` with the JSON Claude Code
sends on stdin; the session's file is added to the folder before the next
session.  Beside each prompt, the next persona's prompt of the same time step
(name order) is sent into this memory, in a session of its own: it should
inject nothing.

Reported for the tuning personas beside the held-out ones, n beside every
figure: the share of prompts whose prompt-hook text cites a gold session
(`gold_session`) and a gold turn (`gold`), by category; the same for the
SessionStart brief the prompt's session began with, and for either; the
share of prompts that inject anything; characters injected; the share of
the next persona's prompts that inject nothing; the hook's cost per prompt,
beside a warm search of the same prompt in the same run (their ratio holds
when the machine is busy, the milliseconds do not).  The hook's cost holds
indexing the sessions added since the last prompt: with --limit many are,
so read the cost on full runs only.

The hook runs in-process by default (memory_search.main, stdin and stdout
redirected: the cost leaves out the interpreter's start-up and imports);
--subprocess runs search.sh as Claude Code does (MEMORY_PYTHON, default
/usr/bin/python3).  MEMORY_HOOK_* settings in the environment apply.

Usage: python3 bench/autorecall.py [--personas A,B] [--limit N] [--subprocess] [--json]
"""
import argparse
import collections
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import realmem  # noqa: E402
from run import default_python, percentile  # noqa: E402
import memory_search  # noqa: E402

SEARCH = os.path.join(quality._CODE, "search.sh")
HALVES = (("tune", "tune"), ("held", "held-out"))


# --- calling the hook ------------------------------------------------------------

def payload(event, session, folder, **fields):
    """The JSON Claude Code sends a command hook on stdin: the common fields, then the event's."""
    data = {"session_id": session, "transcript_path": os.path.join(folder, "..", "transcripts", session + ".jsonl"),
            "cwd": folder, "permission_mode": "default", "hook_event_name": event}
    data.update(fields)
    return data


def write_transcript(path, turns):
    """A Claude Code transcript (JSONL) holding turns [(role, text)], the
    conversation before the prompt; the path, which the payload names."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for role, text in turns:
            f.write(json.dumps({"type": role, "message": {"role": role, "content": text}}, ensure_ascii=False) + "\n")
    return path


def session_id(*parts):
    """A stable UUID for a session, as Claude Code names them."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "realmem:" + ":".join(parts)))


def hook_in_process(folder, event):
    """(stdout, seconds) of `search.sh hook --dir folder`, run in this process."""
    stdin = io.TextIOWrapper(io.BytesIO(json.dumps(event).encode("utf-8")), encoding="utf-8")
    out = io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8")
    saved = sys.stdin, sys.stdout
    sys.stdin, sys.stdout = stdin, stdout
    start = time.perf_counter()
    try:
        memory_search.main(["hook", "--dir", folder])
        stdout.flush()
    finally:
        sys.stdin, sys.stdout = saved
    return out.getvalue().decode("utf-8", "replace"), time.perf_counter() - start


def hook_process(python):
    """A hook caller that runs search.sh as a new process, as the agent does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_") or k.startswith("MEMORY_HOOK_")}
    env["MEMORY_PYTHON"] = python

    def call(folder, event):
        start = time.perf_counter()
        proc = subprocess.run([SEARCH, "hook", "--dir", folder], input=json.dumps(event).encode("utf-8"),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        return proc.stdout.decode("utf-8", "replace"), time.perf_counter() - start
    return call


def injected(stdout):
    """The context a hook's output adds: additionalContext, or plain text."""
    text = stdout.strip()
    if not text:
        return ""
    try:
        return json.loads(text).get("hookSpecificOutput", {}).get("additionalContext", "")
    except (ValueError, AttributeError):
        return text


# --- the replay --------------------------------------------------------------------

def pick(prompts, limit):
    """At most limit prompts, spread evenly over the persona's time."""
    if not limit or limit >= len(prompts):
        return prompts
    return [prompts[i * len(prompts) // limit] for i in range(limit)]


def cites(text, q):
    """(cites a gold session, cites a gold turn) for a hook's injected text."""
    ranges = realmem.citations(text)
    return realmem.holds(ranges, realmem.gold_lines(q, "gold_session")), realmem.holds(ranges, realmem.gold_lines(q))


def prompt_event(folder, sid, q, root, conversation):
    """UserPromptSubmit for a prompt; with conversation, its transcript holds
    the turns of its session before it (realmem.earlier_turns)."""
    event = payload("UserPromptSubmit", sid, folder, prompt=q["query"])
    if conversation:
        write_transcript(event["transcript_path"], realmem.earlier_turns(root, q))
    return event


def replay_persona(root, folder, prompts, others, call, conversation=True, other_root=None):
    """One record per prompt of a persona, on its memory as it grows (with
    conversation, each prompt's transcript holds its session's turns before
    it, the next persona's prompts theirs)."""
    persona, records = os.path.basename(root), []
    for session, step in realmem.replay(root, folder, prompts):
        sid = session_id(persona, session)
        brief = call(folder, payload("SessionStart", sid, folder, source="startup"))
        store = None
        for q in step:
            own = call(folder, prompt_event(folder, sid, q, root, conversation))
            if store is None:  # opened after the hook, whose cost holds syncing the new session
                store = quality.open_store(folder)
            other = realmem.foreign_prompt(others, len(records))  # the same time step of the next persona
            foreign = call(folder, prompt_event(folder, session_id(persona, q["id"], "other"), other, other_root,
                                                conversation))
            records.append(dict(record(q, own, brief, foreign), search_ms=search_seconds(store, q["query"]) * 1000))
        if store is not None:
            store.close()
    return records


def search_seconds(store, query):
    """A warm search of the prompt on an up-to-date store: the yardstick of
    the hook's cost, in the same run (absolute times depend on the load)."""
    start = time.perf_counter()
    try:
        memory_search.search(store, query)
    except memory_search.UsageError:
        pass
    return time.perf_counter() - start


def record(q, own, brief, foreign):
    """What one prompt got: each of own, brief, foreign is (hook stdout, seconds)."""
    text, brief_text = injected(own[0]), injected(brief[0])
    prompt_session, prompt_turn = cites(text, q)
    brief_session, brief_turn = cites(brief_text, q)
    return {"persona": q["corpus"], "split": q["split"], "category": q["category_name"], "id": q["id"],
            "prompt_session": prompt_session, "prompt_turn": prompt_turn,
            "brief_session": brief_session, "brief_turn": brief_turn,
            "chars": len(text), "tokens": memory_search.estimate_tokens(text) if text else 0, "ms": own[1] * 1000,
            "brief_chars": len(brief_text), "brief_ms": brief[1] * 1000,
            "other_silent": not injected(foreign[0]), "other_ms": foreign[1] * 1000}


def hook_log(folder):
    """The lines the hook logged (it fails open: its problems are only there)."""
    try:
        with open(os.path.join(folder, ".memory", "hooks.log"), encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError:
        return []


def run_all(data, names, limit, call, conversation=True):
    """(records of every prompt of the chosen personas, the hook's log lines)."""
    personas = realmem.by_persona(quality.load_questions(data, "realmem"))
    records, log = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for persona in names:
            if persona not in personas:
                raise SystemExit("autorecall.py: no such persona: %s (have %s)" % (persona, ", ".join(personas)))
            other = realmem.next_persona(persona, personas)
            others = pick(personas[other], limit)
            root = os.path.join(quality.dataset_dir(data, "realmem"), persona)
            folder = os.path.join(tmp, persona, "workspace")
            records += replay_persona(root, folder, pick(personas[persona], limit), others, call, conversation,
                                      os.path.join(quality.dataset_dir(data, "realmem"), other))
            log += hook_log(folder)
    return records, log


def run_madial(data, call, conversation=True):
    """One record per MADial prompt: the hook on its user's memory (a copy),
    the conversation before it as the prompt's transcript; beside it, the
    other user's prompt of the same place, with its conversation, which
    should inject nothing."""
    questions = quality.load_questions(data, "madial-context")
    users = sorted({q["corpus"] for q in questions})
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in quality.corpus_roots(data, "madial-context", questions).items():
            folder = quality.copy_corpus(root, tmp)
            strangers = [q for q in questions if q["corpus"] != qs[0]["corpus"]]
            for k, q in enumerate(qs):
                other = strangers[k % len(strangers)] if len(users) > 1 else None
                own = call(folder, madial_event(folder, q, conversation))
                foreign = call(folder, madial_event(folder, other, conversation, "other")) if other else ("", 0.0)
                text = injected(own[0])
                records.append({"persona": q["corpus"], "split": q["split"], "id": q["id"],
                                "relevant": realmem.holds(realmem.citations(text), realmem.gold_lines(q)),
                                "chars": len(text), "tokens": memory_search.estimate_tokens(text) if text else 0,
                                "ms": own[1] * 1000, "other_silent": not injected(foreign[0])})
    return records


def run_notes(call):
    """One record per question of bench/notes: the prompt hook on its
    person's notes (a copy; no conversation), asked on the question's today.
    An answerable question: does what is sent cite a gold line, and hold one
    whole; an absent one: is nothing sent."""
    records = []
    questions = quality.load_notes()
    saved = os.environ.get("MEMORY_TODAY")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for root, qs in quality.corpus_roots(None, "notes", questions).items():
                folder = quality.copy_corpus(root, tmp)
                for q in qs:
                    os.environ["MEMORY_TODAY"] = q["today"]
                    event = payload("UserPromptSubmit", session_id("notes", q["id"]), folder, prompt=q["query"])
                    text = injected(call(folder, event)[0])
                    gold = realmem.gold_lines(q)
                    records.append({"persona": q["corpus"], "split": q["split"], "id": q["id"], "absent": not gold,
                                    "speaks": bool(text), "cites": realmem.holds(realmem.citations(text), gold),
                                    "whole": any(line in text for line in gold_texts(root, q)),
                                    "tokens": memory_search.estimate_tokens(text) if text else 0})
    finally:
        os.environ.pop("MEMORY_TODAY", None) if saved is None else os.environ.update(MEMORY_TODAY=saved)
    return records


def gold_texts(root, q):
    """The gold lines of a question as the notes write them, list marks taken off."""
    out = []
    for g in q["gold"]:
        with open(os.path.join(root, g["path"]), encoding="utf-8") as f:
            out.append(f.read().split("\n")[g["line"] - 1].strip().lstrip("-*+ ").strip())
    return [t for t in out if t]


def notes_report(records):
    """Markdown: the prompt hook on bench/notes, tuning sets beside held-out ones."""
    lines = ["### The prompt hook on bench/notes (no conversation), value (n)", "",
             "| | tune | held-out |", "|---|---:|---:|"]
    figures = (("answerable: it sends something", "speaks", False), ("answerable: it cites a gold line", "cites", False),
               ("answerable: it sends a gold line whole", "whole", False),
               ("absent: it sends nothing", "speaks", True))
    for label, key, absent in figures:
        cells = []
        for split, _ in HALVES:
            mine = [r for r in records if r["split"] == split and r["absent"] == absent]
            value, n = share(mine, key)
            cells.append(cell(label, (1 - value) if absent and value is not None else value, n))
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    return "\n".join(lines)


def madial_event(folder, q, conversation, *tag):
    """UserPromptSubmit of a MADial prompt in a session of its own; with
    conversation, its transcript holds the turns before it."""
    event = payload("UserPromptSubmit", session_id("madial", q["id"], *tag), folder, prompt=q["query"])
    if conversation:
        write_transcript(event["transcript_path"], [(t["role"], t["text"]) for t in q["conversation"]])
    return event


def madial_report(records):
    """Markdown: the MADial hook figures, tuning user beside the held-out one."""
    lines = ["### The prompt hook on MADial (the conversation as its transcript), value (n)", "",
             "| | tune | held-out |", "|---|---:|---:|"]
    figures = (("injects a relevant memory", "relevant"), ("injects anything", "chars"),
               ("the other user's prompts inject nothing", "other_silent"))
    for label, key in figures:
        lines.append("| %s | %s |" % (label, " | ".join(cell(label, *share([r for r in records if r["split"] == s], key))
                                                      for s, _ in HALVES)))
    tokens = [[r["tokens"] for r in records if r["split"] == s and r["chars"]] for s, _ in HALVES]
    lines.append("| tokens when it speaks, max | %s |" % " | ".join(cell("tokens", max(t) if t else None, len(t))
                                                                 for t in tokens))
    return "\n".join(lines)


# --- the report --------------------------------------------------------------------

def share(records, key):
    """(share of records where key is true, n), or (None, 0)."""
    flags = [bool(r[key]) for r in records]
    return (sum(flags) / float(len(flags)) if flags else None), len(flags)


def summary(records):
    """{figure: (value, n)} over a group of prompt records."""
    speaking = [r["chars"] for r in records if r["chars"]]
    out = collections.OrderedDict()
    out["prompt hook cites a gold session"] = share(records, "prompt_session")
    out["prompt hook cites a gold turn"] = share(records, "prompt_turn")
    for category in sorted({r["category"] for r in records}):
        inside = [r for r in records if r["category"] == category]
        out["  %s: gold session" % category] = share(inside, "prompt_session")
        out["  %s: gold turn" % category] = share(inside, "prompt_turn")
    out["brief cites a gold session"] = share(records, "brief_session")
    out["brief cites a gold turn"] = share(records, "brief_turn")
    either = [dict(r, either=r["prompt_session"] or r["brief_session"]) for r in records]
    out["brief or prompt hook cites a gold session"] = share(either, "either")
    out["prompt hook injects anything"] = share(records, "chars")
    out["chars injected per prompt, mean"] = (mean([r["chars"] for r in records]), len(records))
    out["chars injected when it speaks, mean"] = (mean(speaking), len(speaking))
    out["chars injected when it speaks, median"] = (median(speaking), len(speaking))
    tokens = [r["tokens"] for r in records if r["chars"]]
    out["tokens injected when it speaks, median"] = (median(tokens), len(tokens))
    out["tokens injected when it speaks, max"] = (max(tokens) if tokens else None, len(tokens))
    out["brief chars, median"] = (median([r["brief_chars"] for r in records]), len(records))
    out["next persona's prompts inject nothing"] = share(records, "other_silent")
    out["prompt hook ms, median"] = (median([r["ms"] for r in records]), len(records))
    out["prompt hook ms, p90"] = (percentile([r["ms"] for r in records], 90) if records else None, len(records))
    out["SessionStart ms, median"] = (median([r["brief_ms"] for r in records]), len(records))
    out["warm search of the prompt ms, median"] = (median([r["search_ms"] for r in records]), len(records))
    out["cost ratio: prompt hook / warm search (medians)"] = (
        median([r["ms"] for r in records]) / median([r["search_ms"] for r in records]) if records else None,
        len(records))
    return out


def mean(values):
    return statistics.mean(values) if values else None


def median(values):
    return statistics.median(values) if values else None


def cell(figure, value, n):
    """'0.350 (371)' for a share, '412 (371)' for characters, tokens or milliseconds."""
    if value is None:
        return "- (0)"
    counted = any(unit in figure for unit in ("chars", "tokens", " ms"))
    return ("%.0f (%d)" if counted else "%.3f (%d)") % (value, n)


def report(records):
    """Markdown: tuning personas beside held-out ones, then each persona."""
    halves = [(label, summary([r for r in records if r["split"] == split])) for split, label in HALVES]
    lines = ["### Recall by the hooks on a growing memory (RealMem), value (n)", "",
             "| | %s |" % " | ".join(label for label, _ in halves), "|---|" + "---:|" * len(halves)]
    for figure in halves[0][1] if records else ():
        lines.append("| %s | %s |" % (figure, " | ".join(cell(figure, *s.get(figure, (None, 0))) for _, s in halves)))
    lines += ["", "| persona | prompts | cites gold session | cites gold turn | injects | next persona silent |",
              "|---|---:|---:|---:|---:|---:|"]
    for persona in sorted({r["persona"] for r in records}):
        mine = [r for r in records if r["persona"] == persona]
        lines.append("| %s | %d | %s |" % (persona, len(mine), " | ".join(
            "%.3f" % share(mine, k)[0] for k in ("prompt_session", "prompt_turn", "chars", "other_silent"))))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--code", default=quality._CODE, help="the suite's folder (read by quality.py)")
    ap.add_argument("--personas", help="comma-separated (default: all five)")
    ap.add_argument("--limit", type=int, help="at most N prompts per persona, spread over its time")
    ap.add_argument("--subprocess", action="store_true", help="run search.sh per call, as the agent does")
    ap.add_argument("--python", default=default_python(), help="MEMORY_PYTHON for --subprocess")
    ap.add_argument("--json", action="store_true", help="the figures and every prompt's record as JSON")
    ap.add_argument("--set", choices=("realmem", "madial", "notes"), default="realmem",
                    help="RealMem's growing memories (default), MADial's conversations or bench/notes' questions")
    ap.add_argument("--no-conversation", action="store_true",
                    help="no transcript: the hook sees the prompt alone (the figures before issue 37)")
    args = ap.parse_args(argv)
    os.environ.pop("MEMORY_INDEX_DIR", None)  # each replayed folder keeps its own index
    call = hook_process(args.python) if args.subprocess else hook_in_process
    if args.set in ("madial", "notes"):
        records = run_madial(args.data, call, not args.no_conversation) if args.set == "madial" else run_notes(call)
        if args.json:
            json.dump({"records": records}, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            print(madial_report(records) if args.set == "madial" else notes_report(records))
        return
    names = args.personas.split(",") if args.personas else list(realmem.by_persona(
        quality.load_questions(args.data, "realmem")))
    started = time.time()
    records, log = run_all(args.data, names, args.limit, call, not args.no_conversation)
    if args.json:
        halves = {split: {figure: {"value": v, "n": n} for figure, (v, n) in
                          summary([r for r in records if r["split"] == split]).items()} for split, _ in HALVES}
        json.dump({"halves": halves, "records": records, "hook_log": log}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    print(report(records))
    print("\n%d prompts, %s, %.0f s; hook settings: %s" % (
        len(records), "whole process (%s)" % args.python if args.subprocess else "in-process",
        time.time() - started, ", ".join("%s=%s" % kv for kv in sorted(os.environ.items())
                                         if kv[0].startswith("MEMORY_HOOK_")) or "defaults"))
    if log:
        print("The hook logged %d line(s), e.g.: %s" % (len(log), log[0]))


if __name__ == "__main__":
    main()
