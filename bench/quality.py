#!/usr/bin/env python3
"""Retrieval quality of the suite on ../shared/eval-data and bench/zh.

Metrics per data set and per question category (LoCoMo's adversarial
questions left out):
  R@k     a gold line lies inside one of the top-k results' line ranges
  MRR@10  1 / rank of the first result holding a gold line
  R@4kc   a gold line is reached when reading the results' lines in rank
          order within 4,000 characters (lines already read are not counted
          twice), which is what an agent with a token budget gets
  lines   average lines per returned result (top 5)

Every data set has a tuning half and a held-out half, reported side by side
(tune on the first, report the second beside it):
  locomo    conversations conv-26, conv-30, conv-41 | conv-42, conv-43
  cmrc2018  questions about alternate days: even | odd (by sorted file name)
  zh        bench/zh/dev | bench/zh/test (kinds: t2s, s2t, name, number, ...)
  memdaily  Chinese personal facts, one tiny folder per question: even | odd folder number
  xling     whole questions in the other language (../shared/eval-data/xling): LoCoMo's English
            chats asked in Chinese, MemDaily's Chinese notes asked in English, over the original
            folders; split as their source sets are (LoCoMo by conversation, MemDaily by folder
            number); category = direction
  xling-mono the same questions as first written (query_en / query_zh): the monolingual ceiling
  xling-mixed the same questions over bilingual folders: each folder with notes of the other
            language beside its own (LoCoMo's with 20 MemDaily folders' Chinese notes, MemDaily's
            with three sessions of LoCoMo's conv-26), so the question's own words are held too
  madial    Chinese recall prompts in a conversation (MADial-Bench zh): the user's last turn
            alone; user-1 | user-2
  madial-context  the same prompts searched with the conversation before them as context
            (search's `context`: the last turns, both roles)
  notes     eight people's notes no one here had seen (bench/notes): mei, hao, priya, jiawei | tom, yuting, sam, lucia;
            asked against each question's `today`; category = kind (absent questions left out)
  realmem   prompts in the middle of long assistant-user conversations (bench/realmem.py):
            Adeleke_Okonjo, Kenta_Tanaka, Liam_O_Connor | Oliver_Smith, Sarah_Miller.
  realmem-context  the same prompts searched with the turns of their session before them as context
            Each persona's memory grows session by session, so a prompt sees only
            the sessions before its own (the `before` rule); R@k and MRR are at the
            session level (gold_session), "turn" ones and R@500t.. at the exact
            turns (gold); categories with n are always printed

Usage: python3 bench/quality.py [--data DIR] [--mode hybrid] [--sets locomo,zh] [--param NAME=VALUE]
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
# --code DIR measures another copy of the suite (an earlier commit, for before/after)
_CODE = sys.argv[sys.argv.index("--code") + 1] if "--code" in sys.argv[:-1] else os.path.dirname(HERE)
sys.path.insert(0, os.path.abspath(_CODE))

import memory_search  # noqa: E402
import memory_store  # noqa: E402
sys.path.insert(0, HERE)
import realmem  # noqa: E402

DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "eval-data"))
ZH_DIR = os.path.join(HERE, "zh")
NOTES_DIR = os.path.join(HERE, "notes")
TUNE_NOTES = ("mei", "hao", "priya", "jiawei")
BUDGET = 4000
DATASETS = ("locomo", "cmrc2018", "zh", "memdaily", "xling", "xling-mono", "xling-mixed", "madial", "madial-context",
            "realmem", "realmem-context", "notes")
XLING_SOURCES = (("locomo-dev.jsonl", "locomo", "query_en"), ("memdaily-dev.jsonl", "memdaily", "query_zh"))
TUNE_CONVERSATIONS = {"conv-26", "conv-30", "conv-41"}
SPLITS = ("tune", "held")
METRICS = ("R@1", "R@5", "R@10", "MRR", "R@4kc", "lines")
REALMEM_METRICS = ("R@1", "R@5", "R@10", "MRR", "turn R@1", "turn R@5", "turn MRR", "turn R@4kc")
BUDGET_METRICS = ("R@500t", "R@1500t", "R@4000t")
CATEGORY_METRICS = {None: ("R@1", "R@5", "MRR"), "realmem": ("R@1", "R@5", "R@10", "MRR", "turn R@5")}


def dataset_dir(data, name):
    if name.endswith("-context"):
        name = name[:-len("-context")]
    if name in ("zh", "notes"):
        return ZH_DIR if name == "zh" else NOTES_DIR
    return os.path.join(data, "xling" if name.startswith("xling") else name)


def conversation_of(q):
    """The turns before a question's prompt, as search's context takes them
    ([Turn(role, text)]): madial's `conversation`; None for other sets."""
    if not q.get("conversation"):
        return None
    from memsuite.search.context import Turn
    return [Turn(t["role"], t["text"]) for t in q["conversation"]]


def _read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_questions(data, name, adversarial=False):
    """The questions of a data set, each with its "split" (tune or held) and
    category; LoCoMo's adversarial ones only when asked for."""
    if name == "zh":
        items = []
        for folder, split in (("dev", "tune"), ("test", "held")):
            for q in _read_jsonl(os.path.join(ZH_DIR, folder, "questions.jsonl")):
                items.append(dict(q, corpus=folder, category_name=q["kind"], split=split))
        return items
    if name.startswith("xling"):
        return load_xling(data, original=name == "xling-mono")  # xling-mixed: asked as xling is
    if name == "notes":
        return [q for q in load_notes() if bool(q["adversarial"]) == adversarial]
    items = _read_jsonl(os.path.join(dataset_dir(data, name), "questions.jsonl"))
    if name != "madial-context":  # the last turn alone
        for q in items:
            q.pop("conversation", None)
    if name.startswith("madial"):
        for q in items:
            q["split"] = "tune" if q["corpus"] == "user-1" else "held"
    elif name == "locomo":
        for q in items:
            q["split"] = "tune" if q["conv"] in TUNE_CONVERSATIONS else "held"
    elif name.startswith("realmem"):
        for q in items:
            q["split"] = realmem.split_of(q["corpus"])
            if name == "realmem-context":  # the turns of its own session before it, as a transcript holds them
                root = os.path.join(dataset_dir(data, name), q["corpus"])
                q["conversation"] = [{"role": r, "text": t} for r, t in realmem.earlier_turns(root, q)]
    elif name == "memdaily":
        for q in items:  # by the folder's number: even tunes, odd is held out
            q["split"] = "tune" if int(q["corpus"].rsplit("_", 1)[1]) % 2 == 0 else "held"
            q["category_name"] = q.get("category_name") or q["category"]
    elif not all("split" in q for q in items):  # a set that splits itself (bench/duplicates.py) is kept so
        days = sorted({g["path"] for q in items for g in q["gold"]})
        parity = {path: i % 2 for i, path in enumerate(days)}
        for q in items:
            q["split"] = "tune" if parity[q["gold"][0]["path"]] == 0 else "held"
    return [q for q in items if bool(q.get("adversarial")) == adversarial]


def load_notes():
    """The questions of bench/notes, each with its set as corpus, its kind as
    category, its half, and an absent one (no gold) marked as a no-match query."""
    items = []
    for name in sorted(os.listdir(NOTES_DIR)):
        path = os.path.join(NOTES_DIR, name, "questions.jsonl")
        if os.path.isfile(path):
            items += [dict(q, corpus=name, category_name=q["kind"], adversarial=not q["gold"],
                           split="tune" if name in TUNE_NOTES else "held") for q in _read_jsonl(path)]
    return items


def load_xling(data, original=False):
    """The cross-language questions over their source folders (the corpus
    made relative to xling/), split as the source set is; with original, each
    asked as first written."""
    items = []
    for filename, source, first in XLING_SOURCES:
        for q in _read_jsonl(os.path.join(data, "xling", filename)):
            q = dict(q, corpus=os.path.join("..", source, q["corpus"]), category_name=q["xling"])
            if source == "locomo":
                q["split"] = "tune" if q["conv"] in TUNE_CONVERSATIONS else "held"
            else:
                q["split"] = "tune" if int(q["corpus"].rsplit("_", 1)[1]) % 2 == 0 else "held"
            if original:
                q["query"] = q[first]
            items.append(q)
    return items


def corpus_roots(data, name, questions):
    """{corpus root (absolute): [questions]} - each root is indexed alone."""
    groups = collections.OrderedDict()
    for q in questions:
        root = os.path.normpath(os.path.join(dataset_dir(data, name), q["corpus"]))
        groups.setdefault(root, []).append(q)
    return groups


def read_lines(root, rel, cache):
    key = (root, rel)
    if key not in cache:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            cache[key] = memory_store.split_lines(f.read())
    return cache[key]


def score_question(q, ranges, lines_of, budget=BUDGET):
    """Metrics of one question given result ranges [(path, start, end)]."""
    gold = {(g["path"], g["line"]) for g in q["gold"]}
    first = None
    for i, (p, s, e) in enumerate(ranges[:10]):
        if any(gp == p and s <= gl <= e for gp, gl in gold):
            first = i
            break
    m = {"R@%d" % k: float(first is not None and first < k) for k in (1, 5, 10)}
    m["MRR"] = 1.0 / (first + 1) if first is not None else 0.0
    m["R@4kc"] = reached_within(ranges, gold, lines_of, budget)
    top = ranges[:5]
    m["lines"] = sum(e - s + 1 for _, s, e in top) / len(top) if top else 0.0
    return m


def reached_within(ranges, gold, lines_of, budget):
    """1.0 if a gold line is read within `budget` characters, reading the
    results' lines in rank order (each line once), else 0.0."""
    used, seen = 0, set()
    for p, s, e in ranges:
        for ln in range(s, e + 1):
            if (p, ln) in seen:
                continue
            seen.add((p, ln))
            used += len(lines_of(p)[ln - 1]) + 1
            if used > budget:
                return 0.0
            if (p, ln) in gold:
                return 1.0
    return 0.0


def copy_corpus(root, tmp):
    dest = os.path.join(tmp, os.path.basename(root) or "corpus")
    shutil.copytree(root, dest, ignore=shutil.ignore_patterns(".memory", "questions.jsonl", "entities.json", "README.md"))
    return dest


BUDGETS = (500, 1500, 4000)  # tokens of a context pack (search.sh context --budget)


def open_store(root, backend=None, params=None, embedder=None):
    """A store of a corpus copy, its index brought up to date (with an
    embedder, its vectors too)."""
    extra = {"params": params} if params is not None else {}
    store = memory_store.MemoryStore(root, backend=backend, index_dir=os.path.join(root, ".memory"), **extra)
    store.sync()
    if embedder is not None:
        store.embedder = embedder
        store.fill_vectors()
    return store


def suite_searcher(mode="hybrid", backend=None, params=None, limit=10, budgets=(), embedder=None):
    """Index a corpus copy with the suite; return a search function giving
    result ranges, and with budgets {budget: ranges of the context pack}."""
    def make(root):
        store = open_store(root, backend, params, embedder)

        def run(query, context=None, today=None):
            extra = {"context": context} if context else {}  # (an earlier checkout has no context)
            if today:  # the day its relative dates are read against
                extra["filters"] = memory_search.Filters(today=today)
            try:
                hits = memory_search.search(store, query, limit=max(limit, 50 if budgets else 0), mode=mode,
                                            **extra)
            except memory_search.UsageError:  # the data has two empty queries
                hits = []
            ranges = [(h.path, h.start_line, h.end_line) for h in hits[:limit]]
            if not budgets:
                return ranges
            packs = {b: [(e.path, e.start_line, e.end_line) for e in memory_search.pack(hits, query, b)[1]]
                     for b in budgets}
            return ranges, packs
        return run
    return make


def evaluate_records(data, name, make_searcher, limit_questions=None):
    """[(question, metrics)] for every question of a data set."""
    questions = load_questions(data, name)[:limit_questions]
    records, cache = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for root, qs in corpus_roots(data, name, questions).items():
            for folder, run, step in searchable_steps(name, root, qs, tmp, make_searcher):
                def lines_of(path, folder=folder):
                    return read_lines(folder, path, cache)
                records += [(q, score_found(name, q, run(q["query"], conversation_of(q), q.get("today")), lines_of))
                            for q in step]
    return records


MIXED_MEMDAILY = 20           # xling-mixed: MemDaily folders beside a LoCoMo conversation...
MIXED_LOCOMO = ("conv-26", 3)  # ...and the sessions of a LoCoMo conversation beside a MemDaily folder


def add_other_language(root, copy):
    """Notes of the other language under copy/other/: a bilingual folder
    (xling-mixed).  The gold lines' paths are left as they were."""
    data = os.path.dirname(os.path.dirname(root))
    if os.path.basename(os.path.dirname(root)) == "locomo":
        folders = sorted(f for f in os.listdir(os.path.join(data, "memdaily")) if not f.endswith(".jsonl"))
        sources = [(os.path.join(data, "memdaily", f, "memory"), None) for f in folders[:MIXED_MEMDAILY]]
    else:
        conv, sessions = MIXED_LOCOMO
        sources = [(os.path.join(data, "locomo", conv, "memory"), sessions)]
    for source, first in sources:
        names = sorted(n for n in os.listdir(source) if n.endswith(".md"))[:first]
        dest = os.path.join(copy, "other", os.path.basename(os.path.dirname(source)))
        os.makedirs(dest, exist_ok=True)
        for n in names:
            shutil.copy(os.path.join(source, n), os.path.join(dest, n))


def searchable_steps(name, root, questions, tmp, make_searcher):
    """Yield (folder, search function, questions): a corpus copy and all its
    questions, or for RealMem one step per session on a folder that grows, so
    a prompt sees only the sessions before its own."""
    if not name.startswith("realmem"):
        copy = copy_corpus(root, tmp)
        if name == "xling-mixed":
            add_other_language(root, copy)
        yield copy, make_searcher(copy), questions
        return
    folder = os.path.join(tmp, os.path.basename(root))
    for _, step in realmem.replay(root, folder, questions):
        yield folder, make_searcher(folder), step


def score_found(name, q, found, lines_of):
    """The metrics of one question given what a searcher found: result
    ranges, or (ranges, {budget: ranges of the context pack})."""
    ranges, packs = found if isinstance(found, tuple) else (found, {})
    if name.startswith("realmem"):  # session-level gold first, the exact turns as "turn ..."
        ranges = [r for r in ranges if realmem.visible(r[0], q["before"])]
        m = score_question(dict(q, gold=q["gold_session"]), ranges, lines_of)
        m.update(("turn " + k, v) for k, v in score_question(q, ranges, lines_of).items())
    else:
        m = score_question(q, ranges, lines_of)
    gold = realmem.gold_lines(q)
    for budget, entries in packs.items():
        m["R@%dt" % budget] = float(realmem.holds(entries, gold))
    return m


def summarise(records, split=None):
    """{(category or "all", metric): mean} over the records of a split (or
    all), and {(category or "all", "n"): number of questions}."""
    totals = collections.defaultdict(list)
    for q, m in records:
        if split and q["split"] != split:
            continue
        for k, v in m.items():
            totals[("all", k)].append(v)
            totals[(q.get("category_name") or "all", k)].append(v)
    stats = {k: sum(v) / len(v) for k, v in totals.items()}
    stats.update(((c, "n"), len(v)) for (c, k), v in totals.items() if k == "MRR")
    return stats


def evaluate(data, name, make_searcher, limit_questions=None, split=None):
    """(stats, number of questions) of a data set, or of one split of it."""
    records = evaluate_records(data, name, make_searcher, limit_questions)
    chosen = [r for r in records if not split or r[0]["split"] == split]
    return summarise(chosen), len(chosen)


def _cell(stats, category, metric):
    v = stats.get((category, metric))
    if v is None:
        return "-"
    return "%d" % v if metric == "n" else "%.1f" % v if metric == "lines" else "%.3f" % v


def table_metrics(name):
    """The columns of a data set's table."""
    return REALMEM_METRICS if name.startswith("realmem") else METRICS


def category_metrics(name):
    """The columns of a data set's table by category (beside n)."""
    return CATEGORY_METRICS.get(name.replace("-context", ""), CATEGORY_METRICS[None])


def format_table(title, rows, metrics=METRICS):
    """rows: [(label, {metric: value})] -> a Markdown table."""
    metrics = metrics + tuple(m for m in BUDGET_METRICS if any(("all", m) in stats for _, stats in rows))
    out = ["### " + title, "", "| | " + " | ".join(metrics) + " |", "|---|" + "---:|" * len(metrics)]
    for label, stats in rows:
        out.append("| %s | %s |" % (label, " | ".join(_cell(stats, "all", m) for m in metrics)))
    return "\n".join(out)


def category_table(title, stats_by_label, metrics=CATEGORY_METRICS[None]):
    """Rows per category, with n; stats_by_label: [(label, stats)] shown side by side."""
    cats = sorted({c for _, stats in stats_by_label for c, _ in stats if c != "all"})
    columns = ("n",) + tuple(metrics)
    head = " | ".join("%s %s" % (label, m) for label, _ in stats_by_label for m in columns)
    out = ["### " + title, "", "| category | " + head + " |",
           "|---|" + "---:|" * (len(columns) * len(stats_by_label))]
    for c in cats:
        cells = [_cell(stats, c, m) for _, stats in stats_by_label for m in columns]
        out.append("| %s | %s |" % (c, " | ".join(cells)))
    return "\n".join(out)


def split_rows(label, records):
    """Table rows for the tuning half, the held-out half and all of a data set."""
    return [("%s, %s (%d)" % (label, name, sum(1 for q, _ in records if q["split"] == split)),
             summarise(records, split)) for split, name in (("tune", "tune"), ("held", "held-out"))]


def with_params(settings):
    """memory_store.Params with NAME=VALUE changes (numbers), or None for none."""
    if not settings:
        return None
    changes = {}
    for setting in settings:
        name, _, value = setting.partition("=")
        if name not in memory_store.Params._fields:
            raise SystemExit("quality.py: no such parameter: %s" % name)
        changes[name] = type(getattr(memory_store.DEFAULT_PARAMS, name))(value)
    return memory_store.DEFAULT_PARAMS._replace(**changes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--backend", default=None)
    ap.add_argument("--sets", default=",".join(DATASETS), help="comma-separated: " + ", ".join(DATASETS))
    ap.add_argument("--limit-questions", type=int)
    ap.add_argument("--categories", action="store_true")
    ap.add_argument("--code", default=_CODE, help="the suite's folder (default: this checkout)")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="measure with this Params field changed (repeatable), e.g. recent_half_life=30")
    args = ap.parse_args(argv)
    params = with_params(args.param)
    for name in args.sets.split(","):
        t = time.time()
        budgets = BUDGETS if hasattr(memory_search, "pack") else ()  # an earlier checkout has no packs
        records = evaluate_records(args.data, name, suite_searcher(args.mode, args.backend, params, budgets=budgets),
                                   args.limit_questions)
        rows = split_rows("suite " + args.mode + "".join(" " + p for p in args.param), records)
        print(format_table("%s (%d questions, %.1f s)" % (name, len(records), time.time() - t), rows,
                           table_metrics(name)))
        if args.categories or name.startswith("realmem") or name.startswith("xling"):
            print()
            print(category_table(name + " by category", [("tune", rows[0][1]), ("held-out", rows[1][1])],
                                 category_metrics(name)))
        print()


if __name__ == "__main__":
    main()
