#!/usr/bin/env python3
"""Redaction and the long-line bounds at scale (issue 39): each run a
backtracking pattern could rescan, as a 1 MB line, timed against an ordinary
1 MB line (the ratio; 1.0 is linear), then the SessionStart brief (the hook
as a process, the index warm) of the example folder with such a line in the
newest daily note, against the same folder without it, and the capture of
a transcript holding one, against one without.

Then (resume) a transcript of --resume-mb megabytes captured at SessionEnd,
one turn added, captured again: the second capture reads the new part only.

Usage: python3 bench/redact.py [--mb 1] [--runs 3] [--parts lines,brief,capture,resume] [--resume-mb 70]
Timings of the hook use MEMORY_PYTHON (default /usr/bin/python3).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))
from memsuite.text.redact import redact  # noqa: E402
from helpers import best_time  # noqa: E402
from test_redact import ADVERSARIAL_UNITS  # noqa: E402

SEARCH = os.path.join(ROOT, "search.sh")
ORDINARY = "the quick brown fox jumps over the lazy dog "


def run_of(unit, size):
    return (unit * (size // len(unit) + 1))[:size]


def run_lines(size, runs):
    base = best_time(lambda: redact(run_of(ORDINARY, size)), runs)
    print("### redact() on %d-character lines (best of %d)\n" % (size, runs))
    print("| line | seconds | × an ordinary line |")
    print("|---|---:|---:|")
    print("| ordinary prose | %.3f | 1.0 |" % base)
    worst = 0.0
    for unit in ADVERSARIAL_UNITS:
        line = run_of(unit, size)
        spent = best_time(lambda: redact(line), runs)
        worst = max(worst, spent / base)
        print("| `%s` repeated | %.3f | %.1f |" % (unit.replace("|", "\\|"), spent, spent / base))
    print("\nworst ratio %.1f\n" % worst)


def hook(folder, payload, env):
    t = time.perf_counter()
    p = subprocess.run([SEARCH, "hook", "--dir", folder], input=json.dumps(payload).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=600)
    return time.perf_counter() - t, p


def folder_with(tmp, name, line):
    folder = os.path.join(tmp, name)
    shutil.copytree(os.path.join(ROOT, "examples", "memory"), folder, ignore=shutil.ignore_patterns(".memory"))
    day = time.strftime("%Y-%m-%d")
    with open(os.path.join(folder, "memory", day + ".md"), "w", encoding="utf-8") as f:
        f.write("# %s\n\n## Today\n- The deploy moved to Fly.io in region fra.\n" % day)
        if line:
            f.write("- " + line + "\n")
        f.write("- Invoices go out on the 3rd.\n")
    return folder


def env_of():
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = os.environ.get("MEMORY_PYTHON") or "/usr/bin/python3"
    return env


def run_brief(tmp, size, runs):
    env = env_of()
    print("### SessionStart brief (the hook as a process, index warm; median of %d)\n" % runs)
    print("| newest note holds | seconds | × without the line |")
    print("|---|---:|---:|")
    rows = [("no long line", None), ("1 MB of `x_`", run_of("x_", size)), ("1 MB of `_`", run_of("_", size)),
            ("1 MB of prose", run_of(ORDINARY, size))]
    base = None
    for k, (label, line) in enumerate(rows):
        folder = folder_with(tmp, "brief-%d" % k, line)
        payload = {"session_id": "bench", "hook_event_name": "SessionStart", "source": "startup", "cwd": folder}
        _, p = hook(folder, payload, env)  # indexes the folder
        if b"Fly.io" not in p.stdout:
            sys.exit("no brief: %s" % p.stderr.decode("utf-8", "replace")[-300:])
        spent = statistics.median(hook(folder, payload, env)[0] for _ in range(runs))
        base = spent if base is None else base
        print("| %s | %.3f | %.2f |" % (label, spent, spent / base))
    print()


def transcript(path, line):
    turns = [("user", "Remember that the deploy target is Fly.io in region fra."), ("assistant", "Noted.")]
    if line:
        turns.append(("user", line))
    turns.append(("assistant", "Fixed: the cause was a missing dependency."))
    with open(path, "w", encoding="utf-8") as f:
        for role, text in turns:
            f.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")


def run_capture(tmp, size, runs):
    env = env_of()
    print("### SessionEnd capture (the hook as a process; median of %d, each on a new session)\n" % runs)
    print("| transcript holds | seconds | × without the line |")
    print("|---|---:|---:|")
    base = None
    for n, (label, line) in enumerate([("no long message", None), ("a 1 MB message of `x_`", run_of("x_", size)),
                                       ("a 1 MB message of prose", run_of(ORDINARY, size))]):
        folder = folder_with(tmp, "capture-%d" % n, None)
        path = os.path.join(tmp, "t-%d.jsonl" % n)
        transcript(path, line)
        times = []
        for k in range(runs + 1):
            payload = {"session_id": "bench-%d" % k, "hook_event_name": "SessionEnd", "transcript_path": path,
                       "cwd": folder}
            times.append(hook(folder, payload, env)[0])
        spent = statistics.median(times[1:])  # the first one indexes the folder
        base = spent if base is None else base
        print("| %s | %.3f | %.2f |" % (label, spent, spent / base))
    print()


def tool_heavy_transcript(path, megabytes):
    """A session whose bulk is tool output: a stated fact, a conclusion and 1 MB of output a turn."""
    sys.path.insert(0, HERE)
    from hooks import cc
    out = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "x" * (1 << 20)}]}})
    with open(path, "w", encoding="utf-8") as f:
        for k in range(int(megabytes)):
            f.write(cc("user", "Remember that step %d of the migration uses bucket b%d." % (k, k)) + "\n")
            f.write(cc("assistant", "Step %d done: the cause was a stale lock, fixed." % k) + "\n" + out + "\n")
    return os.path.getsize(path)


def run_resume(tmp, megabytes):
    sys.path.insert(0, HERE)
    from hooks import big_transcript, cc  # bench/hooks.py: the shape of a long Claude Code session
    env = env_of()
    print("### Capture of a long transcript, read on from where it stopped (SessionEnd as a process)\n")
    print("| transcript | first capture | one turn added | nothing new | stated facts in the file |")
    print("|---|---:|---:|---:|---:|")
    for n, (label, make) in enumerate([("a fact every 3 KB (bench/hooks.py's)", big_transcript),
                                       ("1 MB of tool output a turn", tool_heavy_transcript)]):
        folder = folder_with(tmp, "resume-%d" % n, None)
        path = os.path.join(tmp, "big-%d.jsonl" % n)
        size = make(path, megabytes)
        payload = {"session_id": "big", "hook_event_name": "SessionEnd", "transcript_path": path, "cwd": folder}
        first = hook(folder, payload, env)[0]
        with open(path, "a", encoding="utf-8") as f:
            f.write(cc("user", "Remember that the release is on Friday the 12th.") + "\n")
        added = hook(folder, payload, env)[0]
        again = hook(folder, payload, env)[0]
        text = ""
        for name in os.listdir(os.path.join(folder, "memory")):
            if "-session-" in name:
                with open(os.path.join(folder, "memory", name), encoding="utf-8") as f:
                    text += f.read()
        late = "Friday the 12th" in text
        print("| %s, %.0f MB | %.3f s | %.3f s | %.3f s | %d%s |" % (label, size / 1048576.0, first, added, again,
                                                                 text.count("- Noted: "), "" if late else
                                                                 " (not the late one)"))
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--parts", default="lines,brief,capture,resume")
    ap.add_argument("--resume-mb", type=float, default=70.0)
    args = ap.parse_args(argv)
    size = int(args.mb * 1048576)
    parts = args.parts.split(",")
    tmp = tempfile.mkdtemp(prefix="bench-redact-")
    try:
        if "lines" in parts:
            run_lines(size, args.runs)
        if "brief" in parts:
            run_brief(tmp, size, args.runs)
        if "capture" in parts:
            run_capture(tmp, size, args.runs)
        if "resume" in parts:
            run_resume(tmp, args.resume_mb)
    finally:
        shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
