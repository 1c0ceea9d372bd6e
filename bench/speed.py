#!/usr/bin/env python3
"""Index and cold-query timings of the suite, as an agent calls it.

For each folder (copied to a temporary folder first): the time of a full
index build (`reindex.sh`), of a no-change sync, and of a cold whole-process
query (`search.sh QUERY --json`, a new Python process each time).  Medians
of several runs, with one fixed interpreter (set PYTHON=...; default is the
one running this script).

With --before DIR (another checkout of the suite), instead: the CPU time
(user + system) of the same cold queries and of `link.sh entity NAME` for
both checkouts, runs interleaved so the machine's load falls on both alike,
with bytecode written beside the code and with PYTHONDONTWRITEBYTECODE=1;
the ratio now / before is the figure (issue 27: "a cold query no slower").

Usage: python3 bench/speed.py [--runs N] [FOLDER ...]
       python3 bench/speed.py --before DIR [--runs N] [--entity NAME] [FOLDER ...]
       (default folders: examples/memory and ../shared/eval-data)
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_FOLDERS = [os.path.join(ROOT, "examples", "memory"),
                   os.path.normpath(os.path.join(ROOT, "..", "shared", "eval-data"))]
QUERIES = ["博客RSS配置", "When did Caroline go to the LGBTQ support group?", "十三香小龙虾", "OpenClaw"]


def env_for(python):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = python
    return env


def timed(argv, env, runs):
    """Median wall time (seconds) of running argv `runs` times."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - t)
        if proc.returncode != 0:
            raise SystemExit("failed: %s\n%s" % (" ".join(argv), proc.stderr.decode()))
    return statistics.median(times)


def folder_size(path):
    total, files = 0, 0
    for dirpath, dirnames, names in os.walk(path):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for n in names:
            if n.endswith(".md"):
                total += os.path.getsize(os.path.join(dirpath, n))
                files += 1
    return files, total


def measure(folder, python, runs):
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "memory")
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(".memory"))
        env = env_for(python)
        search = os.path.join(ROOT, "search.sh")
        reindex = os.path.join(ROOT, "reindex.sh")
        build = timed([reindex, "--dir", copy], env, runs)
        nochange = timed([search, "sync", "--dir", copy], env, runs)
        cold = statistics.median(timed([search, "--dir", copy, q, "--json"], env, runs) for q in QUERIES)
        start = timed([python, "-c", "import sqlite3, json, argparse, re"], env, runs)
        files, size = folder_size(copy)
    return {"folder": folder, "files": files, "bytes": size, "build": build,
            "sync_nochange": nochange, "cold_query": cold, "python_start": start}


def cpu_ms(argv, env):
    """CPU time (user + system, ms) of running argv, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def compare(folder, before, python, runs, entity):
    """{(bytecode mode, "query" or "entity"): (median ms before, median ms now)}:
    each checkout on its own copy of folder (their index versions may differ)."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        copies = {}
        for name, code in (("before", before), ("now", ROOT)):
            copies[name] = (code, os.path.join(tmp, name))
            shutil.copytree(folder, copies[name][1], ignore=shutil.ignore_patterns(".memory"))
        for bytecode in (True, False):
            env = env_for(python)
            if bytecode:
                env.pop("PYTHONDONTWRITEBYTECODE", None)
            else:
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            calls = {name: [[os.path.join(code, "search.sh"), "--dir", copy, q, "--json"] for q in QUERIES]
                     + [[os.path.join(code, "link.sh"), "--dir", copy, "entity", entity]] * len(QUERIES)
                     for name, (code, copy) in copies.items()}
            for argvs in calls.values():  # index built, bytecode written: not what is measured
                for argv in argvs[:1] + argvs[-1:]:
                    cpu_ms(argv, env)
            times = {(name, kind): [] for name in copies for kind in ("query", "entity")}
            for _ in range(runs):
                for name, argvs in calls.items():
                    for argv in argvs:
                        times[name, "entity" if "link.sh" in argv[0] else "query"].append(cpu_ms(argv, env))
            mode = "bytecode written" if bytecode else "PYTHONDONTWRITEBYTECODE=1"
            for kind in ("query", "entity"):
                out[mode, kind] = (statistics.median(times["before", kind]), statistics.median(times["now", kind]))
    return out


def print_comparison(args):
    print("interpreter: %s; before: %s; %d interleaved runs" % (args.python, args.before, args.runs))
    print("| folder | bytecode | cold query CPU, before → now | ratio | link.sh entity %s | ratio |" % args.entity)
    print("|---|---|---:|---:|---:|---:|")
    for folder in args.folders:
        for mode, pair in sorted(_by_mode(compare(folder, args.before, args.python, args.runs, args.entity))):
            (qb, qn), (eb, en) = pair
            print("| %s | %s | %.1f → %.1f ms | %.3f | %.1f → %.1f ms | %.3f |" % (
                os.path.relpath(folder, ROOT), mode, qb, qn, qn / qb, eb, en, en / eb))


def _by_mode(result):
    return [(mode, (result[mode, "query"], result[mode, "entity"])) for mode in {m for m, _ in result}]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", default=DEFAULT_FOLDERS)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=os.environ.get("PYTHON", sys.executable))
    ap.add_argument("--before", metavar="DIR", help="another checkout: CPU time ratios against it")
    ap.add_argument("--entity", default="OpenClaw", help="the entity link.sh looks up (with --before)")
    args = ap.parse_args(argv)
    if args.before:
        if not os.path.isfile(os.path.join(args.before, "search.sh")):
            ap.error("--before %s: no search.sh there (give a checkout of the suite)" % args.before)
        print_comparison(args)
        return
    print("interpreter: %s" % args.python)
    print("| folder | files | size | index build | no-change sync | cold query | bare python |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for folder in args.folders:
        r = measure(folder, args.python, args.runs)
        print("| %s | %d | %.0f KB | %.0f ms | %.0f ms | %.0f ms | %.0f ms |" % (
            os.path.relpath(r["folder"], ROOT), r["files"], r["bytes"] / 1024.0, r["build"] * 1000,
            r["sync_nochange"] * 1000, r["cold_query"] * 1000, r["python_start"] * 1000))


if __name__ == "__main__":
    main()
