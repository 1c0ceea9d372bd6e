#!/usr/bin/env python3
"""Index and cold-query timings of the suite, as an agent calls it.

For each folder (copied to a temporary folder first): the time of a full
index build (`reindex.sh`), of a no-change sync, and of a cold whole-process
query (`search.sh QUERY --json`, a new Python process each time).  Medians
of several runs, with one fixed interpreter (set PYTHON=...; default is the
one running this script).

Usage: python3 bench/speed.py [--runs N] [FOLDER ...]
       (default folders: examples/memory and ../shared/eval-data)
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", default=DEFAULT_FOLDERS)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--python", default=os.environ.get("PYTHON", sys.executable))
    args = ap.parse_args(argv)
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
