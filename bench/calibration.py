#!/usr/bin/env python3
"""Can an agent cut on the score?  For answerable questions: the share whose
top hit is right and scores at or above a cut-off, that share of the right
top hits alone (how often a right answer is trusted), and the share whose
top hit is wrong yet scores at or above it.  For no-match queries:
the share whose every hit scores below it (cut off).  No-match queries are
LoCoMo's adversarial questions (about things its conversations never say,
though in their words) and bench/nomatch.txt, queries about absent topics,
kept for a folder only when no line of it holds half of their content words;
bench/notes asks its own (its absent questions).
On RealMem (bench/realmem.py) a top hit is right when it holds a line of a
gold session, on the memory as it was at the prompt (earlier sessions only),
and the no-match queries are the next persona's prompts at the same time step.
The cut SKILL.md and the hooks use is read from the code and marked (current).
Each half (tuning, held-out) is reported beside the other, and a reliability
table beside it: the share of right top hits in each band of their score
(0.4-0.5 should be right about 4 times in 10).

With --embed P (a python that has the provider) the semantic channel is on,
--param NAME=VALUE (repeatable) changes a Params field, e.g. semantic_fusion=rrf.

Usage: python3 bench/calibration.py [--sets locomo,cmrc2018,zh,memdaily,realmem] [--embed P] [--param NAME=VALUE]
"""
import argparse
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quality  # noqa: E402  (puts the suite on sys.path)
import realmem  # noqa: E402
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


def current_cut():
    """The score cut SKILL.md and the hooks use: ANSWER_CUT (memsuite/search/
    ranking.py), or in older code RECALL_CUT, read wherever memsuite kept it;
    None if neither."""
    try:
        from memsuite.search.ranking import ANSWER_CUT
        return ANSWER_CUT
    except ImportError:
        pass
    for dirpath, _, names in os.walk(os.path.join(quality._CODE, "memsuite")):
        for name in sorted(n for n in names if n.endswith(".py")):
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                found = re.search(r"^RECALL_CUT\s*=\s*([0-9.]+)", f.read(), re.M)
            if found:
                return float(found.group(1))
    return None


def hit_searcher(params=None, embedder=None):
    """make(root) -> run(query): the top 5 hits with every score (run.store to close)."""
    def make(root):
        store = quality.open_store(root, params=params, embedder=embedder)

        def run(query, today=None):
            try:
                return memory_search.search(store, query, limit=5, min_score=0.0,
                                            filters=memory_search.Filters(today=today) if today else None)
            except memory_search.UsageError:
                return []
        run.store = store
        return run
    return make


def top_score(hits):
    return hits[0].score if hits else 0.0


def right_at_top(hits, gold):
    return bool(hits) and realmem.holds([(hits[0].path, hits[0].start_line, hits[0].end_line)], gold)


def collect(data, name, params=None, embedder=None):
    """(answerable [(split, right at 1, top score)], no-match [(split, kind, top score)])."""
    if name == "realmem":
        return collect_realmem(data, params, embedder)
    answerable, nomatch = [], []
    questions = quality.load_questions(data, name)
    adversarial = quality.load_questions(data, name, adversarial=True) if name in ("locomo", "notes") else []
    absent = nomatch_queries("en" if name == "locomo" else "zh") if name != "notes" else []  # (notes ask their own)
    make = hit_searcher(params, embedder)
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in quality.corpus_roots(data, name, questions + adversarial).items():
            for copy, run, step in quality.searchable_steps(name, root, qs, tmp, make):
                for q in step:
                    hits = run(q["query"], q.get("today"))
                    if q.get("adversarial"):
                        nomatch.append((q["split"], "absent question" if name == "notes" else "adversarial",
                                        top_score(hits)))
                    else:
                        answerable.append((q["split"], right_at_top(hits, realmem.gold_lines(q)), top_score(hits)))
                for query, split in absent:
                    if absent_from(copy, query):
                        nomatch.append((split, "absent topic", top_score(run(query))))
                run.store.close()
    return answerable, nomatch


def collect_realmem(data, params=None, embedder=None):
    """RealMem on memories that grow session by session: a top hit is right
    when it holds a line of a gold session; the no-match prompts are the next
    persona's, asked at the same time step."""
    answerable, nomatch = [], []
    personas = realmem.by_persona(quality.load_questions(data, "realmem"))
    make = hit_searcher(params, embedder)
    with tempfile.TemporaryDirectory() as tmp:
        for persona, qs in personas.items():
            others = personas[realmem.next_persona(persona, personas)]
            root = os.path.join(quality.dataset_dir(data, "realmem"), persona)
            k = 0
            for _, run, step in quality.searchable_steps("realmem", root, qs, tmp, make):
                for q in step:
                    hits = run(q["query"])
                    answerable.append((q["split"], right_at_top(hits, realmem.gold_lines(q, "gold_session")),
                                       top_score(hits)))
                    other = realmem.foreign_prompt(others, k)
                    nomatch.append((q["split"], "next persona", top_score(run(other["query"]))))
                    k += 1
                run.store.close()
    return answerable, nomatch


NOMATCH_KINDS = ("absent topic", "adversarial", "next persona", "absent question")


def table(name, answerable, nomatch, cut=None):
    kinds = [k for k in NOMATCH_KINDS if any(kind == k for _, kind, _ in nomatch)]
    out = ["### %s" % name, "",
           "| cut | half | right top hit above cut | of the right top hits | wrong top hit above cut | %s |"
           % " | ".join("%s cut off" % k for k in kinds),
           "|---:|---|---:|---:|---:|" + "---:|" * len(kinds)]
    for c in sorted(set(CUTS) | ({cut} if cut else set())):
        for split, label in (("tune", "tune"), ("held", "held-out")):
            ans = [(r, s) for sp, r, s in answerable if sp == split]
            cells = [share([r and s >= c for r, s in ans]), share([s >= c for r, s in ans if r]),
                     share([not r and s >= c for r, s in ans])]
            cells += [share([s < c for sp, kind, s in nomatch if sp == split and kind == k]) for k in kinds]
            out.append("| %.2f%s | %s | %s |" % (c, " (current)" if c == cut else "", label, " | ".join(cells)))
    return "\n".join(out)


BINS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def reliability(name, answerable):
    """A reliability table: the answerable questions by their top hit's score
    (bins of 0.1), and the share of each bin whose top hit is right; a score
    that means what it says has the share near the bin's score (about 4 in 10
    at 0.4) on every set and both halves."""
    out = ["### %s: reliability of the top hit's score" % name, "",
           "| score | tune: right (n) | held-out: right (n) |", "|---:|---:|---:|"]
    for low in BINS:
        cells = [share([r for sp, r, s in answerable if sp == split and low <= s < low + 0.1 + (low >= 0.9)])
                 for split in ("tune", "held")]
        out.append("| %.1f-%.1f | %s |" % (low, low + 0.1, " | ".join(cells)))
    return "\n".join(out)


def share(flags):
    """'0.812 (n)' for a list of booleans, '-' for none."""
    return "%.3f (%d)" % (sum(flags) / float(len(flags)), len(flags)) if flags else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--code", help="the suite's folder (read by quality.py; default: this checkout)")
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(quality.DATASETS))
    ap.add_argument("--embed", help="an embedding provider (sentence-transformers, openai, ...)")
    ap.add_argument("--param", action="append", default=[], help="NAME=VALUE: a Params field")
    args = ap.parse_args(argv)
    params = quality.with_params(args.param)
    embedder = None
    if args.embed:
        embedder, report = memory_search.make_embedder(args.embed)
        if embedder is None:
            raise SystemExit("calibration: %s did not start (%s)" % (args.embed, report["skipped"]))
    cut = current_cut()
    for name in args.sets.split(","):
        title = "%s%s%s" % (name, ", " + embedder.model if embedder else "",
                            ", " + ", ".join(args.param) if args.param else "")
        answerable, nomatch = collect(args.data, name, params, embedder)
        print(table(title, answerable, nomatch, cut=cut))
        print()
        print(reliability(title, answerable))
        print()


if __name__ == "__main__":
    main()
