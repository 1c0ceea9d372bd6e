#!/usr/bin/env python3
"""Can an agent cut on the score?  For answerable questions: the share whose
top hit is right and scores at or above a cut-off.  For no-match queries:
the share whose every hit scores below it (cut off).  No-match queries are
LoCoMo's adversarial questions (about things its conversations never say,
though in their words) and bench/nomatch.txt, queries about absent topics,
kept for a folder only when no line of it holds half of their content words.
Each half (tuning, held-out) is reported beside the other.

With --embed P (a python that has the provider) the semantic channel is on,
--param NAME=VALUE (repeatable) changes a Params field, e.g. semantic_fusion=rrf.

Usage: python3 bench/calibration.py [--sets locomo,cmrc2018,zh] [--embed P] [--param NAME=VALUE]
"""
import argparse
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import memory_search  # noqa: E402
import memory_store  # noqa: E402

CUTS = (0.3, 0.35, 0.4, 0.45)
NOMATCH = os.path.join(HERE, "nomatch.txt")


def nomatch_queries(lang):
    """[(query, split)] of bench/nomatch.txt in one language, alternate halves."""
    out = []
    with open(NOMATCH, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("|", 1) for line in f if line.strip() and not line.startswith("#")]
    for i, (code, query) in enumerate(r for r in rows if r[0] == lang):
        out.append((query, "tune" if i % 2 == 0 else "held"))
    return out


def content_terms(query):
    """A query's content terms: its words, or its Chinese bigrams outside function words."""
    units = memory_store.text_units(query)
    weights = memory_search.own_weights(units)
    return {t for t in memory_store.expand(units) if weights.get(t, 1.0) >= 1.0 and not (
        len(t) == 1 and memory_store.is_cjk(t))}


def absent_from(root, query):
    """Whether no line under root holds half of the query's content terms."""
    wanted = content_terms(query)
    if not wanted:
        return False
    for dirpath, _, names in os.walk(root):
        for name in names:
            if name.endswith(".md"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    for line in f:
                        if 2 * len(wanted & set(memory_store.tokenize(line))) >= len(wanted):
                            return False
    return True


def top_score(run, query):
    hits = run(query)
    return hits[0].score if hits else 0.0


def collect(data, name, params=None, embedder=None):
    """(answerable [(split, right at 1, top score)], no-match [(split, kind, top score)])."""
    answerable, nomatch = [], []
    questions = quality.load_questions(data, name)
    adversarial = quality.load_questions(data, name, adversarial=True) if name == "locomo" else []
    absent = nomatch_queries("en" if name == "locomo" else "zh")
    with tempfile.TemporaryDirectory() as tmp:
        roots = quality.corpus_roots(data, name, questions + adversarial)
        for root, qs in roots.items():
            copy = quality.copy_corpus(root, tmp)
            store = memory_store.MemoryStore(copy, index_dir=os.path.join(copy, ".memory"), params=params)
            store.sync()
            if embedder is not None:
                store.embedder = embedder
                store.fill_vectors()

            def run(query):
                try:
                    return memory_search.search(store, query, limit=5, min_score=0.0)
                except memory_search.UsageError:
                    return []
            for q in qs:
                hits = run(q["query"])
                score = hits[0].score if hits else 0.0
                if q.get("adversarial"):
                    nomatch.append((q["split"], "adversarial", score))
                    continue
                gold = {(g["path"], g["line"]) for g in q["gold"]}
                right = bool(hits) and any(p == hits[0].path and hits[0].start_line <= l <= hits[0].end_line
                                           for p, l in gold)
                answerable.append((q["split"], right, score))
            for query, split in absent:
                if absent_from(copy, query):
                    nomatch.append((split, "absent topic", top_score(run, query)))
            store.close()
    return answerable, nomatch


def table(name, answerable, nomatch):
    out = ["### %s" % name, "",
           "| cut | half | right top hit above cut | absent topics cut off | adversarial cut off |",
           "|---:|---|---:|---:|---:|"]
    for cut in CUTS:
        for split, label in (("tune", "tune"), ("held", "held-out")):
            ans = [(r, s) for sp, r, s in answerable if sp == split]
            kinds = collections.defaultdict(list)
            for sp, kind, s in nomatch:
                if sp == split:
                    kinds[kind].append(s < cut)
            cells = ["%.3f (%d)" % (sum(1 for r, s in ans if r and s >= cut) / float(len(ans)), len(ans))]
            for kind in ("absent topic", "adversarial"):
                got = kinds.get(kind)
                cells.append("%.3f (%d)" % (sum(got) / float(len(got)), len(got)) if got else "-")
            out.append("| %.2f | %s | %s |" % (cut, label, " | ".join(cells)))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", help="the suite's folder (read by quality.py; default: this checkout)")
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(quality.DATASETS))
    ap.add_argument("--embed", help="an embedding provider (sentence-transformers, openai, ...)")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE: a Params field")
    args = ap.parse_args(argv)
    from memsuite.text.params import DEFAULT_PARAMS
    changes = {}
    for item in args.param:
        field, _, value = item.partition("=")
        kind = type(getattr(DEFAULT_PARAMS, field))
        changes[field] = value if kind is str else kind(value)
    params = DEFAULT_PARAMS._replace(**changes) if changes else None
    embedder = None
    if args.embed:
        embedder, report = memory_search.make_embedder(args.embed)
        if embedder is None:
            raise SystemExit("calibration: %s did not start (%s)" % (args.embed, report["skipped"]))
    for name in args.sets.split(","):
        print(table("%s%s%s" % (name, ", " + embedder.model if embedder else "",
                                 ", " + ", ".join(args.param) if args.param else ""),
                    *collect(args.data, name, params, embedder)))
        print()


if __name__ == "__main__":
    main()
