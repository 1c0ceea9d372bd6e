#!/usr/bin/env python3
"""The linker on ../shared/eval-data: build time, entities found, and whether
the graph helps retrieval.

1. `link.sh build` wall time on a copy of each corpus (a new process, cold).
2. Entities by kind, and the most mentioned ones (to eyeball precision).
3. Related memories on LoCoMo multi-hop questions: starting from the chunk
   holding the first gold line, is another gold line (outside that chunk)
   among the top-5 related memories?  Two scorings compared.
4. Graph expansion of search: the top hits plus their related memories
   (inserted after the 3rd hit) against plain search, on R@5 / MRR / R@4kc.

Usage: python3 bench/linker.py [--data DIR]
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import memory_linker  # noqa: E402
import memory_search  # noqa: E402
import memory_store  # noqa: E402
import quality  # noqa: E402


def build_time(root, python=sys.executable):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = python
    t = time.perf_counter()
    subprocess.run([os.path.join(ROOT, "link.sh"), "build", "--dir", root], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def chunk_of_line(store, path, line):
    for row in store.chunks_of(path):
        if row.start_line <= line <= row.end_line:
            return row
    return None


def related_eval(store, graph, questions, scoring, k=5):
    hits = total = 0
    for q in questions:
        gold = [(g["path"], g["line"]) for g in q["gold"]]
        start = chunk_of_line(store, *gold[0])
        if start is None:
            continue
        others = [(p, l) for p, l in gold if not (p == start.path and start.start_line <= l <= start.end_line)]
        if not others:
            continue
        total += 1
        related = graph.related_to_chunks([(start.path, start.ordinal)], limit=k, scoring=scoring)
        if any(r.path == p and r.start_line <= l <= r.end_line for r in related for p, l in others):
            hits += 1
    return hits, total


def expanded_search(store, graph, query):
    hits = memory_search.search(store, query, limit=10)
    extra = [r for r, _ in graph.related_to_hits(hits[:3], limit=2)]
    ranges = [(h.path, h.start_line, h.end_line) for h in hits]
    linked = [(r.path, r.start_line, r.end_line) for r in extra]
    return ranges[:3] + linked + ranges[3:]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    args = ap.parse_args(argv)
    print("## Linker on %s\n" % args.data)
    print("| corpus | files | chunks | entities | by kind | link.sh build |")
    print("|---|---:|---:|---:|---|---:|")
    rel = collections.Counter()
    plain, expanded = collections.defaultdict(list), collections.defaultdict(list)
    top_names = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("locomo", "cmrc2018", "zh"):  # not MemDaily's 591 tiny folders
            questions = quality.load_questions(args.data, name)
            for root, qs in quality.corpus_roots(args.data, name, questions).items():
                copy = quality.copy_corpus(root, tmp)
                seconds = build_time(copy)
                store = memory_store.MemoryStore(copy)
                store.sync()
                graph = memory_linker.LinkGraph(store)
                graph.sync()
                ents = graph.table()
                kinds = collections.Counter(e.kind for e in ents)
                label = "%s/%s" % (name, os.path.basename(root)) if name == "locomo" else name
                print("| %s | %d | %d | %d | %s | %.2f s |" % (
                    label, len(store.backend.known_files()), store.chunk_count(), len(ents),
                    ", ".join("%s %d" % kv for kv in kinds.most_common()), seconds))
                top_names[label] = [e.name for e in ents[:15]]
                if name != "locomo":
                    store.close()
                    continue
                multi = [q for q in qs if q["category_name"] == "multi-hop"]
                for scoring, same_day in (("jaccard", 0.0), ("overlap", 0.0), ("overlap", 0.25)):
                    graph.params = graph.params._replace(same_day_weight=same_day)
                    label = scoring + (" + same-day %.2f" % same_day if same_day else "")
                    h, t = related_eval(store, graph, multi, scoring)
                    rel[(label, "hit")] += h
                    rel[(label, "total")] += t
                graph.params = store.params
                cache = {}
                for q in qs:
                    lines_of = lambda p: quality.read_lines(copy, p, cache)  # noqa: E731
                    base = [(h.path, h.start_line, h.end_line) for h in memory_search.search(store, q["query"], 10)]
                    for target, ranges in ((plain, base), (expanded, expanded_search(store, graph, q["query"]))):
                        m = quality.score_question(q, ranges, lines_of)
                        for key in ("R@5", "MRR", "R@4kc"):
                            target[("all", key)].append(m[key])
                            target[(q["category_name"], key)].append(m[key])
                store.close()
    print("\nMost mentioned entities:\n")
    for label, names in top_names.items():
        print("- %s: %s" % (label, ", ".join(names)))
    print("\n### Related memories, LoCoMo multi-hop (another gold line in the top 5)\n")
    for label in sorted({k for k, _ in rel}):
        h, t = rel[(label, "hit")], rel[(label, "total")]
        print("- %s: %d / %d = %.3f" % (label, h, t, h / t if t else 0))
    print("\n### Graph expansion of search on LoCoMo (related memories after the 3rd hit)\n")
    print("| category | R@5 plain | R@5 expanded | MRR plain | MRR expanded | R@4kc plain | R@4kc expanded |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for cat in sorted({c for c, _ in plain}):
        avg = lambda d, k: sum(d[(cat, k)]) / len(d[(cat, k)])  # noqa: E731
        print("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            cat, avg(plain, "R@5"), avg(expanded, "R@5"), avg(plain, "MRR"), avg(expanded, "MRR"),
            avg(plain, "R@4kc"), avg(expanded, "R@4kc")))


if __name__ == "__main__":
    main()
