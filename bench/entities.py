#!/usr/bin/env python3
"""Entity quality of the linker on the labelled Chinese sets (bench/zh):
precision of the top 40 entities (an entity counts when it is one a
Chinese reader listed, in any spelling), recall of the gold list, and
whether a name is kept apart from the longer names it starts (李明 vs 李明轩).
dev is the tuning set, test is held out.

Usage: python3 bench/entities.py [--top 40] [--show]
"""
import argparse
import json
import os
import sys
import tempfile
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import memory_linker  # noqa: E402
import memory_store  # noqa: E402


def norm(text):
    if hasattr(memory_store, "fold"):
        return memory_store.fold(text).replace(" ", "")
    return unicodedata.normalize("NFKC", text).lower().replace(" ", "")  # an earlier checkout


def load_gold(folder):
    with open(os.path.join(quality.ZH_DIR, folder, "entities.json"), encoding="utf-8") as f:
        gold = json.load(f)["entities"]
    return gold, {norm(v): g["name"] for g in gold for v in g["variants"] + [g["name"]]}


def _lines(root, place):
    with open(os.path.join(root, place.path), encoding="utf-8") as f:
        return f.read().split("\n")[place.start_line - 1:place.end_line]


def evaluate(folder, top=40, show=False):
    gold, by_variant = load_gold(folder)
    with tempfile.TemporaryDirectory() as tmp:
        copy = quality.copy_corpus(os.path.join(quality.ZH_DIR, folder), tmp)
        store = memory_store.MemoryStore(copy, index_dir=os.path.join(copy, ".memory"))
        store.sync()
        graph = memory_linker.LinkGraph(store)
        graph.sync()
        table = graph.table()
        spellings = graph.spellings() if hasattr(graph, "spellings") else {}  # an earlier checkout
        names = [e for e in gold if e["kind"] == "name"]
        conflated = []
        for a in names:  # a name whose chunks include ones naming only a longer name
            for b in names:
                if a is not b and norm(b["name"]).startswith(norm(a["name"])):
                    try:
                        ea = graph.find(a["name"])
                    except memory_store.StoreError:
                        continue
                    for place in graph.appearances(ea, 1000):  # the chunk's lines, not its snippet
                        text = norm("".join(_lines(copy, place)))
                        if norm(b["name"]) in text and norm(a["name"]) not in text.replace(norm(b["name"]), ""):
                            conflated.append((a["name"], b["name"], place.id))
        store.close()
    right, found = [], set()
    for e in table:
        forms = {norm(e.name)} | {norm(s) for s in spellings.get(e.key, ())}
        hit = next((by_variant[f] for f in forms if f in by_variant), None)
        if hit:
            found.add(hit)
        right.append(hit)
    precision = sum(1 for r in right[:top] if r) / float(min(top, len(table)) or 1)
    recall = len(found) / float(len(gold))
    if show:
        print("top %d of %s:" % (top, folder), ", ".join("%s%s" % (e.name, "" if r else "(x)")
                                                         for e, r in zip(table[:top], right[:top])))
        print("missed:", ", ".join(g["name"] for g in gold if g["name"] not in found))
    return precision, recall, len(table), conflated


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", help="the suite's folder (read by quality.py; default: this checkout)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--show", action="store_true", help="list the top entities and the gold ones missed")
    args = ap.parse_args(argv)
    print("| set | precision@%d | recall of gold | entities | names conflated with longer ones |" % args.top)
    print("|---|---:|---:|---:|---:|")
    for folder, label in (("dev", "dev (tuning)"), ("test", "test (held out)")):
        p, r, n, conflated = evaluate(folder, args.top, args.show and folder == "dev")  # never peek at test
        print("| %s | %.3f | %.3f | %d | %d |" % (label, p, r, n, len(conflated)))
        if args.show and folder == "dev" and conflated:
            print("conflated:", conflated[:10])


if __name__ == "__main__":
    main()
