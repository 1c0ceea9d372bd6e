#!/usr/bin/env python3
"""Cold whole-process timings, this checkout against another, interleaved in one run.

For each folder: `search.sh QUERY --json` (a new process per call, as an agent
calls it), `link.sh entity NAME`, and a bare `python -S -c pass`, each run
in turn so that both checkouts see the same machine load.  With
--no-bytecode the wrappers run as on a machine with PYTHONDONTWRITEBYTECODE=1
(bytecode then comes from ~/.cache/memory-suite/pycache).  Medians in ms.

Usage: python3 bench/cold.py --before DIR [--runs 7] FOLDER...
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
QUERIES = ["When did Caroline go to the support group", "博客RSS配置", "OpenClaw", "十三香小龙虾"]
ENTITY = "OpenClaw"


def timed(argv, env):
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - t


def run(copies, checkouts, python, runs, env):
    """copies: {checkout name: its own copy of the folder} (indexes are never shared)."""
    times = {}
    for _ in range(runs):
        times.setdefault("bare", []).append(timed([python, "-S", "-c", "pass"], env))
        for name, code in checkouts:
            for q in QUERIES:
                times.setdefault((name, "query"), []).append(
                    timed([os.path.join(code, "search.sh"), "--dir", copies[name], q, "--json"], env))
            times.setdefault((name, "entity"), []).append(
                timed([os.path.join(code, "link.sh"), "entity", ENTITY, "--dir", copies[name]], env))
    return {k: statistics.median(v) * 1000 for k, v in times.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--before", required=True, help="another checkout of the suite")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--no-bytecode", action="store_true", help="set PYTHONDONTWRITEBYTECODE=1")
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = args.python
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    checkouts = [("before", os.path.abspath(args.before)), ("after", ROOT)]
    tmp = tempfile.mkdtemp()
    copies = {}
    for folder in args.folders:
        copies[folder] = {}
        for name, code in checkouts:  # each its own copy and index; warm: built, bytecode written
            copy = copies[folder][name] = os.path.join(tmp, name, os.path.basename(folder.rstrip("/")))
            shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".memory"))
            for argv in (["reindex.sh", "--dir", copy], ["search.sh", "x", "--dir", copy],
                         ["link.sh", "build", "--dir", copy]):
                subprocess.run([os.path.join(code, argv[0])] + argv[1:], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("interpreter %s, PYTHONDONTWRITEBYTECODE=%s, %d runs" % (args.python, "1" if args.no_bytecode else "unset",
                                                                   args.runs))
    print("| folder | bare python -S | query before | query after | after − bare | entity before | entity after |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for folder in args.folders:
        t = run(copies[folder], checkouts, args.python, args.runs, env)
        print("| %s | %.0f | %.0f | %.0f | +%.0f | %.0f | %.0f |" % (
            os.path.basename(folder.rstrip("/")), t["bare"], t[("before", "query")], t[("after", "query")],
            t[("after", "query")] - t["bare"], t[("before", "entity")], t[("after", "entity")]))
        sys.stdout.flush()
    shutil.rmtree(tmp, True)


if __name__ == "__main__":
    main()
