#!/usr/bin/env python3
"""Retrieval quality of the suite on ../shared/eval-data (or --data DIR).

Metrics per data set and per question category (LoCoMo's adversarial
questions left out):
  R@k     a gold line lies inside one of the top-k results' line ranges
  MRR@10  1 / rank of the first result holding a gold line
  R@4kc   a gold line is reached when reading the results' lines in rank
          order within 4,000 characters (lines already read are not counted
          twice), which is what an agent with a token budget gets
  lines   average lines per returned result (top 5)

Usage: python3 bench/quality.py [--data DIR] [--mode hybrid] [--limit-questions N]
"""
import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import memory_search  # noqa: E402
import memory_store  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "eval-data"))
BUDGET = 4000
DATASETS = ("locomo", "cmrc2018")


def load_questions(data, name):
    path = os.path.join(data, name, "questions.jsonl")
    with open(path, encoding="utf-8") as f:
        items = [json.loads(line) for line in f if line.strip()]
    return [q for q in items if not q.get("adversarial")]


def corpus_roots(data, name, questions):
    """{corpus root (absolute): [questions]} - each root is indexed alone."""
    groups = collections.OrderedDict()
    for q in questions:
        root = os.path.normpath(os.path.join(data, name, q["corpus"]))
        groups.setdefault(root, []).append(q)
    return groups


def read_lines(root, rel, cache):
    key = (root, rel)
    if key not in cache:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            cache[key] = memory_store.split_lines(f.read())
    return cache[key]


def score_question(q, ranges, lines_of):
    """Metrics of one question given result ranges [(path, start, end)]."""
    gold = {(g["path"], g["line"]) for g in q["gold"]}
    first = None
    for i, (p, s, e) in enumerate(ranges[:10]):
        if any(gp == p and s <= gl <= e for gp, gl in gold):
            first = i
            break
    m = {"R@%d" % k: float(first is not None and first < k) for k in (1, 5, 10)}
    m["MRR"] = 1.0 / (first + 1) if first is not None else 0.0
    used, seen, hit = 0, set(), 0.0
    for p, s, e in ranges:
        for ln in range(s, e + 1):
            if (p, ln) in seen:
                continue
            seen.add((p, ln))
            used += len(lines_of(p)[ln - 1]) + 1
            if used > BUDGET:
                break
            if (p, ln) in gold:
                hit = 1.0
        if used > BUDGET or hit:
            break
    m["R@4kc"] = hit
    top = ranges[:5]
    m["lines"] = sum(e - s + 1 for _, s, e in top) / len(top) if top else 0.0
    return m


def copy_corpus(root, tmp):
    dest = os.path.join(tmp, os.path.basename(root) or "corpus")
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(".memory"))
    return dest


def suite_searcher(mode="hybrid", backend=None):
    """Index a corpus copy with the suite; return a search function."""
    def make(root):
        store = memory_store.MemoryStore(root, backend=backend, index_dir=os.path.join(root, ".memory"))
        store.sync()

        def run(query):
            try:
                hits = memory_search.search(store, query, limit=10, mode=mode)
            except memory_search.UsageError:  # the data has two empty queries
                return []
            return [(h.path, h.start_line, h.end_line) for h in hits]
        return run
    return make


def evaluate(data, name, make_searcher, limit_questions=None):
    questions = load_questions(data, name)[:limit_questions]
    totals = collections.defaultdict(list)
    cache = {}
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in corpus_roots(data, name, questions).items():
            copy = copy_corpus(root, tmp)
            run = make_searcher(copy)
            for q in qs:
                m = score_question(q, run(q["query"]), lambda p: read_lines(copy, p, cache))
                for k, v in m.items():
                    totals[("all", k)].append(v)
                    totals[(q.get("category_name") or "all", k)].append(v)
    return {k: sum(v) / len(v) for k, v in totals.items()}, len(questions)


METRICS = ("R@1", "R@5", "R@10", "MRR", "R@4kc", "lines")


def format_table(title, rows):
    """rows: [(label, {metric: value})] -> a Markdown table."""
    out = ["### " + title, "", "| | " + " | ".join(METRICS) + " |",
           "|---|" + "---:|" * len(METRICS)]
    for label, stats in rows:
        cells = []
        for m in METRICS:
            v = stats.get(("all", m))
            cells.append("-" if v is None else ("%.1f" % v if m == "lines" else "%.3f" % v))
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    return "\n".join(out)


def category_table(title, stats):
    cats = sorted({c for c, _ in stats if c != "all"})
    out = ["### " + title, "", "| category | " + " | ".join(METRICS) + " |",
           "|---|" + "---:|" * len(METRICS)]
    for c in cats:
        cells = []
        for m in METRICS:
            v = stats.get((c, m))
            cells.append("-" if v is None else ("%.1f" % v if m == "lines" else "%.3f" % v))
        out.append("| %s | %s |" % (c, " | ".join(cells)))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--backend", default=None)
    ap.add_argument("--limit-questions", type=int)
    ap.add_argument("--categories", action="store_true")
    args = ap.parse_args(argv)
    for name in DATASETS:
        t = time.time()
        stats, n = evaluate(args.data, name, suite_searcher(args.mode, args.backend), args.limit_questions)
        print(format_table("%s (%d questions, %.1f s)" % (name, n, time.time() - t),
                           [("suite " + args.mode, stats)]))
        if args.categories:
            print()
            print(category_table(name + " by category", stats))
        print()


if __name__ == "__main__":
    main()
