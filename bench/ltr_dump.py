#!/usr/bin/env python3
"""The training data of the fitted scorer: for every question of every set
bench/quality.py knows, each candidate chunk's features (search/features.py),
whether it holds a gold line (RealMem: also whether it is of a gold session),
and its place in the order the search ranked it.  RealMem keeps its `before`
rule: a prompt sees only the sessions before its own, and candidates of later
files are left out.

One JSON line per question: {"set", "split", "query", "cands": [[features],
label, session label, rank, path, first line, last line]}.  data/fit-ranker.py reads these files.

Usage: python3 bench/ltr_dump.py [--sets locomo,zh] [--out DIR]
"""
import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import realmem  # noqa: E402
import memory_search  # noqa: E402

SETS = ("locomo", "cmrc2018", "zh", "memdaily", "xling", "madial", "realmem", "notes")


def holds(row, gold):
    return any(p == row.path and row.start_line <= line <= row.end_line for p, line in gold)


def dump_question(store, q, name):
    """The record of one question, or None for a query the search refuses."""
    try:
        hits = memory_search.search(store, q["query"], limit=10, min_score=0,
                                    filters=memory_search.Filters(today=q["today"]) if q.get("today") else None)
    except memory_search.UsageError:
        return None
    ranked = getattr(hits, "ranked", None)
    if not ranked:
        return {"set": name, "split": q["split"], "query": q["query"], "cands": []}
    order, _, rows = ranked
    feats = hits.features()
    gold = realmem.gold_lines(q)
    session = realmem.gold_lines(q, "gold_session") if name == "realmem" else gold
    cands = []
    for rank, key in enumerate(order):
        row = rows[key]
        if name == "realmem" and not realmem.visible(row.path, q["before"]):
            continue
        cands.append([[round(v, 5) for v in feats[key]], int(holds(row, gold)), int(holds(row, session)), rank,
                      row.path, row.start_line, row.end_line])
    return {"set": name, "split": q["split"], "query": q["query"], "cands": cands}


def dump_set(data, name, out):
    questions = quality.load_questions(data, name)
    n = 0
    with open(os.path.join(out, name + ".jsonl"), "w", encoding="utf-8") as f, \
            tempfile.TemporaryDirectory() as tmp:
        for root, qs in quality.corpus_roots(data, name, questions).items():
            for folder, _, step in quality.searchable_steps(name, root, qs, tmp, lambda folder: None):
                store = quality.open_store(folder)
                for q in step:
                    rec = dump_question(store, q, name)
                    if rec is not None:
                        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
                        n += 1
                store.close()
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "ltr"))
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for name in args.sets.split(","):
        print("%s: %d questions -> %s" % (name, dump_set(args.data, name, args.out), args.out), flush=True)


if __name__ == "__main__":
    main()
