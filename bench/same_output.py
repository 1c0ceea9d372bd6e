#!/usr/bin/env python3
"""Whether two checkouts of the suite answer alike: the same searches (--json,
--explain, --compact), prompt hooks and link.sh entity lookups on the same
folders (each checkout indexes its own copy), every output compared byte for
byte.  For a change meant to make the suite faster and nothing else.

Folders: examples/memory, tests/trust/month, LoCoMo conv-26 and RealMem
Oliver_Smith (../shared/eval-data); queries: a fixed list plus N drawn with a
fixed seed from each corpus's questions.

Usage: python3 bench/same_output.py BEFORE AFTER [N]   (BEFORE, AFTER: checkouts)
"""
import json, os, random, shutil, subprocess, sys, tempfile
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF, NEW = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 12
E = os.path.normpath(os.path.join(ROOT, "..", "shared", "eval-data"))
TMP = tempfile.mkdtemp(prefix="same-output-")
FOLDERS = {"examples": os.path.join(ROOT, "examples", "memory"), "month": os.path.join(ROOT, "tests", "trust", "month"),
           "conv-26": E + "/locomo/conv-26", "Oliver_Smith": E + "/realmem/Oliver_Smith"}
FIXED = ["博客RSS配置", "OpenClaw skills", "京都 trip", "what did I eat", "张伟的手机号", "妈妈什么时候来杭州",
         "上周三开会讨论了什么", "How long did the hike take?", "上周三", "what happened last week", "Tokyo",
         "when is the piano lesson", "2026-11-27", "几点开会", "what time is the meeting on Monday", "May 7 dentist",
         "rssLimit 20", "the badge number", "What should be the next step in the study plan?"]
def questions(corpus):
    out = []
    for path in (E + "/realmem/questions.jsonl", E + "/locomo/questions.jsonl"):
        for line in open(path, encoding="utf-8"):
            q = json.loads(line)
            if q.get("corpus") == corpus:
                out.append(q["query"])
    random.Random(5).shuffle(out)
    return out[:N]
env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
env["MEMORY_PYTHON"] = "/usr/bin/python3"
def run(code, argv, stdin=None):
    p = subprocess.run([code + "/" + argv[0]] + argv[1:], input=stdin, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
bad = total = 0
for name, src in FOLDERS.items():
    dirs = {}
    for tag, code in (("ref", REF), ("new", NEW)):
        d = os.path.join(TMP, "%s-%s" % (tag, name))
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d, ignore=shutil.ignore_patterns(".memory"))
        run(code, ["search.sh", "sync", "--dir", d])
        dirs[tag] = d
    qs = FIXED + questions(name)
    for i, q in enumerate(qs):
        cmds = [["search.sh", "--dir", "{d}", q, "--json", "--limit", "10"],
                ["search.sh", "--dir", "{d}", q, "--explain"],
                ["search.sh", "--dir", "{d}", q, "--compact", "--min-score", "0"],
                ["search.sh", "hook", "--dir", "{d}"]]
        for cmd in cmds:
            stdin = None
            if "hook" in cmd:
                stdin = json.dumps({"hook_event_name": "UserPromptSubmit", "session_id": "eq%d" % i, "prompt": q,
                                    "transcript_path": "", "cwd": "/w"}).encode()
            outs = [run(code, [a.replace("{d}", dirs[tag]) for a in cmd], stdin) for tag, code in (("ref", REF), ("new", NEW))]
            outs = [(c, o.replace(dirs[t], "D"), e.replace(dirs[t], "D")) for (c, o, e), t in zip(outs, ("ref", "new"))]
            total += 1
            if outs[0] != outs[1]:
                bad += 1
                print("DIFF", name, cmd[:2], q[:60], "\n  ref:", outs[0][1][:300], outs[0][2][:200], "\n  new:", outs[1][1][:300], outs[1][2][:200])
    for ent in ("OpenClaw", "张伟", "Caroline", "Oliver"):
        outs = [run(code, ["link.sh", "--dir", dirs[tag], "entity", ent]) for tag, code in (("ref", REF), ("new", NEW))]
        outs = [(c, o.replace(dirs[t], "D"), e.replace(dirs[t], "D")) for (c, o, e), t in zip(outs, ("ref", "new"))]
        total += 1
        if outs[0] != outs[1]:
            bad += 1; print("DIFF link", name, ent)
shutil.rmtree(TMP, ignore_errors=True)
print("compared", total, "differ", bad)
sys.exit(1 if bad else 0)
