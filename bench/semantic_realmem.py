#!/usr/bin/env python3
"""The semantic channel on RealMem, quickly (issue 27, item 7): each persona
indexed and embedded once, whole, and a prompt's hits outside the sessions
before its own dropped after the search (quality.py replays the memory
session by session instead, exact but about ten times slower with a model:
it did not finish a persona in 20 minutes here).  Idf counts the later
sessions too, so the numbers sit near quality.py's, not on them; every
configuration is measured the same way, so they compare.

Configurations: the channel off, the weighted sum at semantic_weight 0.3
(the default share) and 0.5, reciprocal-rank fusion at 0.3.  Tuning half
beside the held-out half (bench/realmem.py's personas).

Usage: MEMORY_EMBED_MODEL=/path/to/all-MiniLM-L6-v2 /path/to/venv/bin/python \\
           bench/semantic_realmem.py [--provider sentence-transformers] [--data DIR] [--personas A,B]
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import memory_search  # noqa: E402
from memsuite.text.params import DEFAULT_PARAMS  # noqa: E402

CONFIGS = (("semantic off", None), ("weighted 0.3 (default share)", {}), ("weighted 0.5", {"semantic_weight": 0.5}),
           ("rrf, 0.3", {"semantic_fusion": "rrf"}))
COLUMNS = ("R@1", "R@5", "MRR", "turn R@5")


def persona_records(root, questions, store, params, cache):
    records = []
    for q in questions:
        hits = memory_search.search(store, q["query"], limit=50, min_score=0, params=params)
        found = [(h.path, h.start_line, h.end_line) for h in hits]

        def lines_of(path, root=root):
            return quality.read_lines(root, path, cache)
        records.append((q, quality.score_found("realmem", q, found[:50], lines_of)))
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--provider", default="sentence-transformers")
    ap.add_argument("--personas", help="comma-separated (default: all); the table follows each persona")
    args = ap.parse_args(argv)
    embedder, report = memory_search.make_embedder(args.provider)
    if embedder is None:
        raise SystemExit("no provider runs here: %s" % report["skipped"])
    print("provider %s, model %s (%d dimensions)" % (embedder.name, embedder.model, embedder.dim))
    questions = quality.load_questions(args.data, "realmem")
    if args.personas:
        questions = [q for q in questions if q["corpus"] in args.personas.split(",")]
    rows = {label: [] for label, _ in CONFIGS}
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in quality.corpus_roots(args.data, "realmem", questions).items():
            folder = os.path.join(tmp, os.path.basename(root))
            shutil.copytree(root, folder, ignore=shutil.ignore_patterns(".memory"))
            store = quality.open_store(folder, embedder=embedder)
            cache = {}
            for label, overrides in CONFIGS:
                store.embedder = None if overrides is None else embedder
                params = DEFAULT_PARAMS._replace(**(overrides or {}))
                rows[label] += persona_records(folder, qs, store, params, cache)
            store.close()
            print("\n%s: %d prompts (%.0f s)" % (os.path.basename(root), len(qs), time.time() - started))
            print_table(rows)


def print_table(rows):
    """The table so far: each configuration, the tuning half beside the held-out half."""
    print("| | %s |" % " | ".join("%s %s" % (m, h) for m in COLUMNS for h in ("tune", "held-out")))
    print("|---|" + "---:|" * (2 * len(COLUMNS)))
    for label, records in rows.items():
        halves = (quality.summarise(records, "tune"), quality.summarise(records, "held"))
        print("| %s | %s |" % (label, " | ".join("%.3f" % half.get(("all", m), float("nan"))
                                                  for m in COLUMNS for half in halves)))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
