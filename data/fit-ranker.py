#!/usr/bin/env python3
"""Fit a scorer for the search from bench/ltr_dump.py's files:
a logistic regression over each candidate's features (search/features.py),
label = the chunk holds a gold line, so its output is the chance that it
does (meant as a calibrated score; left out, it is not: docs/benchmarks.md).

Features are chosen by leave-one-dataset-out: the model is fitted on every
set but one and measured (R@1, R@5, MRR over the candidates, RealMem's
session R@5 too) on the one left out, beside the order the search gave
(`rules`, the rank the dump recorded).  --select drops a feature while
dropping it raises the mean left-out MRR; --forward adds one to a base
while adding it raises it by 0.001 or more.  The weights written are fitted on the
tuning halves of every set (bench/quality.py reports the held-out halves).
Measured so far, it does not beat the rules on any left-out set, so no
weight file ships and the search does not read one (docs/benchmarks.md).

Each set weighs the same in a fit, and each question the same within its
set.  numpy is used when present (Newton's method); without it a pure-Python
gradient descent fits the same model (tests/test_features.py checks it on
made-up data; on the real dumps it is slow and was not measured).

--trees N fits boosted trees instead (numpy only; the model, JSON, is
scored by tree_score in plain Python): --loss logistic or pairwise, --stack
adds the rules' rank as a feature.  Measured, they do not beat the rules on
the left-out sets either (docs/benchmarks.md), so none ships.

Usage: python3 bench/ltr_dump.py --out /tmp/ltr
       python3 data/fit-ranker.py [--dumps /tmp/ltr] [--split tune] [--forward F,..] [--select] [--write FILE]
       python3 data/fit-ranker.py --trees 40 [--depth 2] [--shrink 0.1] [--loss pairwise] [--stack] [--split tune]
"""
import argparse
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from memsuite.search.features import FEATURES  # noqa: E402

L2 = 1.0  # ridge penalty on the weights (not the bias), in units of one set's weight


def load(dumps):
    """{set: [query record]} of the dump files, queries with no candidate left out."""
    out = {}
    for path in sorted(glob.glob(os.path.join(dumps, "*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if rec["cands"]:
                    out.setdefault(rec["set"], []).append(rec)
    return out


TURN = FEATURES.index("chat_turn")
REGIMES = ("question", "turn")  # a chat turn (ranking.is_chat_turn) has weights of its own


def regime(rec):
    return REGIMES[int(rec["cands"][0][0][TURN] > 0.5)]


def fit_regimes(records, columns):
    """{regime: weights}: one logistic regression per regime, each fitted on
    its own questions (each set weighing the same); a regime no question
    of the sets is of gets the weights fitted on all."""
    out = {}
    for r in REGIMES:
        chosen = [c for c in ([rec for rec in recs if regime(rec) == r] for recs in records) if c]
        out[r] = fit(*design(chosen, columns)) if chosen else None
    for r in REGIMES:
        out[r] = out[r] or fit(*design(records, columns))
    return out


def design(records, columns):
    """(rows of the chosen columns plus a constant, labels, sample weights):
    each question weighs 1 / its number of candidates, each set the same."""
    X, y, w = [], [], []
    for recs in records:
        per_set = 1.0 / len(recs)
        for rec in recs:
            share = per_set / len(rec["cands"])
            for feats, label, *_ in rec["cands"]:
                X.append([feats[i] for i in columns] + [1.0])
                y.append(label)
                w.append(share)
    return X, y, w


def fit(X, y, w, iterations=30):
    """Logistic regression weights (the last is the bias), ridge on the others."""
    try:
        import numpy as np
    except ImportError:
        return _fit_plain(X, y, w)
    X, y, w = np.array(X), np.array(y, dtype=float), np.array(w)
    d = X.shape[1]
    ridge = np.full(d, L2 * 1e-3)
    ridge[-1] = 0.0
    beta = np.zeros(d)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ beta, -30, 30)))
        grad = X.T @ (w * (p - y)) + ridge * beta
        hess = (X * (w * p * (1 - p))[:, None]).T @ X + np.diag(ridge) + 1e-9 * np.eye(d)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-7:
            break
    return list(beta)


def _fit_plain(X, y, w, iterations=3000, rate=None):
    """The same fit by gradient descent, no numpy (slow; nearly the same weights)."""
    d = len(X[0])
    beta = [0.0] * d
    total = sum(w)
    rate = rate or 4.0 / total
    for _ in range(iterations):
        grad = [0.0] * d
        for row, label, weight in zip(X, y, w):
            z = sum(b * v for b, v in zip(beta, row))
            p = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
            g = weight * (p - label)
            for j, v in enumerate(row):
                grad[j] += g * v
        for j in range(d):
            penalty = L2 * 1e-3 * beta[j] if j < d - 1 else 0.0
            beta[j] -= rate * (grad[j] + penalty)
    return beta


def score(feats, columns, beta):
    z = beta[-1] + sum(b * feats[i] for b, i in zip(beta, columns))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def metrics(recs, rank_of):
    """{metric: mean} over the questions: R@1, R@5, MRR@10 of the gold-line
    label, and of the session label (RealMem's session R@5), counting the
    candidates that show a new line (distinct)."""
    sums = {"R@1": 0.0, "R@5": 0.0, "MRR": 0.0, "sR@5": 0.0}
    for rec in recs:
        ranked = distinct(rank_of(rec))
        first = next((i for i, c in enumerate(ranked) if c[1]), None)
        first_s = next((i for i, c in enumerate(ranked) if c[2]), None)
        sums["R@1"] += first is not None and first < 1
        sums["R@5"] += first is not None and first < 5
        sums["MRR"] += 1.0 / (first + 1) if first is not None and first < 10 else 0.0
        sums["sR@5"] += first_s is not None and first_s < 5
    return {k: v / len(recs) for k, v in sums.items()}


def distinct(ranked):
    """The candidates that show a line no better one shows (overlapping chunks
    become one passage in the search's results, results.build_passages)."""
    shown, out = set(), []
    for c in ranked:
        lines = {(c[4], n) for n in range(c[5], c[6] + 1)} if len(c) > 6 else {id(c)}
        if lines - shown:
            out.append(c)
            shown |= lines
    return out


def by_rules(rec):
    return sorted(rec["cands"], key=lambda c: c[3])


def by_model(columns, betas):
    def rank(rec):
        beta = betas[regime(rec)]
        return sorted(rec["cands"], key=lambda c: (-score(c[0], columns, beta), c[3]))
    return rank


def lodo(data, columns, split=None):
    """{left-out set: (rules metrics, model metrics)}: fitted on the other sets."""
    out = {}
    for name in sorted(data):
        train = [[r for r in data[o] if split is None or r["split"] == split] for o in sorted(data) if o != name]
        betas = fit_regimes([t for t in train if t], columns)
        held = [r for r in data[name] if split is None or r["split"] != split]
        out[name] = (metrics(held, by_rules), metrics(held, by_model(columns, betas)),
                     top_scores(held, columns, betas))
    return out


def top_scores(recs, columns, betas):
    """[(the fitted score of a question's top candidate, whether it holds a gold line)]."""
    out = []
    for rec in recs:
        beta = betas[regime(rec)]
        top = max(rec["cands"], key=lambda c: (score(c[0], columns, beta), -c[3]))
        out.append((score(top[0], columns, beta), top[1]))
    return out


BANDS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def print_reliability(table):
    """Per left-out set, the share of right top candidates in each band of
    their fitted score: a calibrated score is right about 4 in 10 at 0.4."""
    print("| left out | " + " | ".join("%.1f" % b for b in BANDS) + " |")
    print("|---|" + "---:|" * len(BANDS))
    for name, (_, _, tops) in table.items():
        cells = []
        for low in BANDS:
            band = [right for p, right in tops if low <= p < low + 0.1 or (low >= 0.9 and p >= 1.0)]
            cells.append("%.2f (%d)" % (sum(band) / len(band), len(band)) if band else "-")
        print("| %s | %s |" % (name, " | ".join(cells)))


def mean_mrr(table):
    return sum(m["MRR"] for _, m, _ in table.values()) / len(table)


def select(data, columns, split=None):
    """Drop features while dropping one raises the mean left-out MRR."""
    best = mean_mrr(lodo(data, columns, split))
    improved = True
    while improved and len(columns) > 1:
        improved = False
        trials = [(mean_mrr(lodo(data, [c for c in columns if c != drop], split)), drop) for drop in columns]
        value, drop = max(trials)
        print("  best drop %-12s mean MRR %.4f (now %.4f)" % (FEATURES[drop], value, best), flush=True)
        if value > best + 1e-4:
            best, improved = value, True
            columns = [c for c in columns if c != drop]
    return columns


def forward(data, columns, candidates, split=None):
    """Add features to columns while adding one raises the mean left-out MRR."""
    best = mean_mrr(lodo(data, columns, split))
    while candidates:
        trials = [(mean_mrr(lodo(data, columns + [add], split)), add) for add in candidates]
        value, add = max(trials)
        print("  best add %-14s mean MRR %.4f (now %.4f)" % (FEATURES[add], value, best), flush=True)
        if value <= best + 1e-3:
            break
        best = value
        columns = columns + [add]
        candidates = [c for c in candidates if c != add]
    return columns


def print_table(table):
    print("| left out | rules R@1 | R@5 | MRR | sess R@5 | fitted R@1 | R@5 | MRR | sess R@5 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (rules, model, _) in table.items():
        cells = ["%.3f" % m[k] for m in (rules, model) for k in ("R@1", "R@5", "MRR", "sR@5")]
        print("| %s | %s |" % (name, " | ".join(cells)))


def write(path, columns, betas, data, note):
    n = sum(len(v) for v in data.values())
    with open(path, "w", encoding="utf-8") as f:
        f.write("# A fitted scorer: score = 1 / (1 + exp(-(bias + sum of weight x feature))), features of search/features.py.\n")
        f.write("# Made by data/fit-ranker.py (logistic regression, each set weighing the same) from bench/ltr_dump.py\n")
        f.write("# over the tuning halves of %s (%d questions); features chosen by leave-one-dataset-out.\n"
                % (", ".join(sorted(data)), n))
        f.write("# %s\n" % note)
        f.write("# feature\t" + "\t".join(REGIMES) + "\n")
        for j, i in enumerate(columns + [None]):
            name = FEATURES[i] if i is not None else "bias"
            f.write(name + "".join("\t%.6f" % betas[r][j] for r in REGIMES) + "\n")



# Boosted trees (issue 36 item 1, second attempt): the rules are gates (a chat
# turn or a question, short or long, Chinese or English), which a tree can
# split on and a linear term cannot.  Newton boosting (XGBoost's leaf values
# and gains) on quantile bins, with logistic loss on each candidate or
# LambdaRank's pairwise loss within a question.  A tree is [feature, threshold,
# left, right] (a value <= threshold goes left) or a leaf's number; a model
# is {"trees": [tree]} (features numbered as stacked() gives them), its score the sum of its
# trees' leaves.  Fitting uses numpy; tree_score is plain Python.

STACK = "rules_rank"  # --stack: 1 / (1 + the rules' rank), a column after FEATURES


def tree_value(tree, row):
    while isinstance(tree, list):
        tree = tree[2] if row[tree[0]] <= tree[1] else tree[3]
    return tree


def tree_score(model, feats):
    """A candidate's score: the sum of the model's trees (plain Python);
    feats: its FEATURES and the rules' rank (stacked); a residual model
    starts from the rules' order (rules_prior)."""
    start = -model.get("residual", 0.0) * math.log(1.0 / feats[len(FEATURES)]) if model.get("residual") else 0.0
    return start + sum(tree_value(t, feats) for t in model["trees"])


def stacked(cand):
    """A candidate's features, and the rules' rank as one more (--stack)."""
    return list(cand[0]) + [1.0 / (1 + cand[3])]


def tree_design(records, columns):
    """(X, labels, candidate weights, [(start, end, question weight)]): each
    set weighs the same, each question the same within it."""
    np = _numpy()
    rows, y, w, spans = [], [], [], []
    for recs in records:
        per_set = 1.0 / len(recs)
        for rec in recs:
            start = len(rows)
            for cand in rec["cands"]:
                feats = stacked(cand)
                rows.append([feats[i] for i in columns])
                y.append(cand[1])
                w.append(per_set / len(rec["cands"]))
            spans.append((start, len(rows), per_set))
    return np.array(rows, dtype=float), np.array(y, dtype=float), np.array(w), spans


def logistic_grad(F, y, w, spans):
    np = _numpy()
    p = 1.0 / (1.0 + np.exp(-np.clip(F, -30, 30)))
    return w * (p - y), w * p * (1 - p)


def lambdarank_grad(F, y, w, spans):
    """LambdaRank: each (right, wrong) pair of a question pulls them apart by
    the change in its NDCG their swap would make (a wrong candidate above a
    right one near the top costs most)."""
    np = _numpy()
    g, h = np.zeros_like(F), np.zeros_like(F)
    for start, end, weight in spans:
        lab = y[start:end]
        npos = int(lab.sum())
        if npos == 0 or npos == end - start:
            continue
        s = F[start:end]
        rank = np.empty(len(s), dtype=int)
        rank[np.argsort(-s, kind="stable")] = np.arange(len(s))
        disc = 1.0 / np.log2(2.0 + rank)
        ideal = (1.0 / np.log2(2.0 + np.arange(npos))).sum()
        pos, neg = np.where(lab > 0)[0], np.where(lab == 0)[0]
        delta = np.abs(disc[pos][:, None] - disc[neg][None, :]) / ideal
        rho = 1.0 / (1.0 + np.exp(np.clip(s[pos][:, None] - s[neg][None, :], -30, 30)))
        lam, hes = weight * rho * delta, weight * rho * (1 - rho) * delta
        g[start + pos] -= lam.sum(axis=1)
        g[start + neg] += lam.sum(axis=0)
        h[start + pos] += hes.sum(axis=1)
        h[start + neg] += hes.sum(axis=0)
    return g, h


LOSSES = {"logistic": logistic_grad, "pairwise": lambdarank_grad}


def quantile_bins(X, bins=32):
    """[thresholds of each column] (its distinct quantiles) and X as bin numbers."""
    np = _numpy()
    cuts, binned = [], np.zeros(X.shape, dtype=np.int32)
    for j in range(X.shape[1]):
        edges = np.unique(np.quantile(X[:, j], np.linspace(0, 1, bins + 1)[1:-1]))
        cuts.append(edges)
        binned[:, j] = np.searchsorted(edges, X[:, j], side="left")
    return cuts, binned


def grow(binned, cuts, g, h, idx, depth, settings):
    """A tree over the rows idx, split where Newton's gain is largest."""
    np = _numpy()
    G, H = g[idx].sum(), h[idx].sum()
    lam = settings["l2"]
    leaf = float(-settings["shrink"] * G / (H + lam))
    if depth == 0 or len(idx) < 2:
        return leaf
    best = (settings["min_gain"], None, None)
    for j, edges in enumerate(cuts):
        if not len(edges):
            continue
        col = binned[idx, j]
        gl = np.cumsum(np.bincount(col, weights=g[idx], minlength=len(edges) + 1))[:-1]
        hl = np.cumsum(np.bincount(col, weights=h[idx], minlength=len(edges) + 1))[:-1]
        ok = (hl >= settings["min_child"]) & (H - hl >= settings["min_child"])
        if not ok.any():
            continue
        gain = gl ** 2 / (hl + lam) + (G - gl) ** 2 / (H - hl + lam) - G ** 2 / (H + lam)
        gain[~ok] = -1.0
        b = int(np.argmax(gain))
        if gain[b] > best[0]:
            best = (gain[b], j, b)
    _, j, b = best
    if j is None:
        return leaf
    left = binned[idx, j] <= b
    return [j, float(cuts[j][b]), grow(binned, cuts, g, h, idx[left], depth - 1, settings),
            grow(binned, cuts, g, h, idx[~left], depth - 1, settings)]


TREE_SETTINGS = {"trees": 40, "depth": 2, "shrink": 0.1, "l2": 1e-3, "min_child": 2e-3, "min_gain": 0.0,
                 "loss": "logistic", "residual": 0.0}


def _numpy():
    """numpy, which the trees are fitted with (the search never needs it), or a one-line error."""
    try:
        import numpy
    except ImportError:
        sys.exit("fit-ranker: --trees needs numpy (pip install numpy); the linear model works without it")
    return numpy


def fit_trees(records, columns, settings=None):
    """{"trees"}: boosted trees fitted on the records (one list per set) over the chosen columns."""
    np = _numpy()
    settings = dict(TREE_SETTINGS, **(settings or {}))
    X, y, w, spans = tree_design(records, columns)
    scale = 1.0 / w.sum()  # the sample weights sum to 1, so l2 and min_child mean the same on any data
    w = w * scale
    spans = [(a, b, q * scale) for a, b, q in spans]
    cuts, binned = quantile_bins(X)
    rate = float(np.clip((w * y).sum(), 1e-6, 1 - 1e-6))  # logistic loss starts from the base rate (a leaf)
    trees = [math.log(rate / (1 - rate))] if settings["loss"] == "logistic" else []
    F = float(sum(trees)) + settings["residual"] * rules_prior(X_ranks(records))
    grad = LOSSES[settings["loss"]]
    idx = np.arange(len(y))
    for _ in range(settings["trees"]):
        g, h = grad(F, y, w, spans)
        tree = grow(binned, cuts, g, h, idx, settings["depth"], settings)
        trees.append(remap(tree, columns))
        F += tree_values(tree, X)
    return {"trees": trees, "residual": settings["residual"]}


def X_ranks(records):
    np = _numpy()
    return np.array([c[3] for recs in records for rec in recs for c in rec["cands"]], dtype=float)


def rules_prior(rank):
    """A residual model's starting score: the rules' order, -log(1 + rank)
    (times the residual setting; the trees learn corrections to it)."""
    np = _numpy()
    return -np.log1p(rank)


def tree_values(tree, X):
    """The tree's value of every row of X (numpy, for the fit)."""
    np = _numpy()
    if not isinstance(tree, list):
        return np.full(len(X), tree)
    left = X[:, tree[0]] <= tree[1]
    out = np.empty(len(X))
    out[left] = tree_values(tree[2], X[left])
    out[~left] = tree_values(tree[3], X[~left])
    return out


def remap(tree, columns):
    """The tree with its column numbers read as indices of stacked features."""
    if not isinstance(tree, list):
        return tree
    return [columns[tree[0]], tree[1], remap(tree[2], columns), remap(tree[3], columns)]


def by_trees(model):
    def rank(rec):
        return sorted(rec["cands"], key=lambda c: (-tree_score(model, stacked(c)), c[3]))
    return rank


def lodo_trees(data, columns, split=None, settings=None):
    """{left-out set: (rules metrics, tree metrics, [])}: fitted on the other sets."""
    out = {}
    for name in sorted(data):
        train = [[r for r in data[o] if split is None or r["split"] == split] for o in sorted(data) if o != name]
        model = fit_trees([t for t in train if t], columns, settings)
        held = [r for r in data[name] if split is None or r["split"] != split]
        out[name] = (metrics(held, by_rules), metrics(held, by_trees(model)), [])
    return out


def main_trees(args, data, columns):
    settings = {"trees": args.trees, "depth": args.depth, "shrink": args.shrink, "l2": args.l2, "loss": args.loss,
                "residual": args.residual}
    print("trees: %s; features: %s" % (json.dumps(settings, sort_keys=True),
                                       ",".join((FEATURES + (STACK,))[c] for c in columns)))
    print_table(lodo_trees(data, columns, args.split, settings))
    if args.write:
        tune = [[r for r in data[s] if r["split"] == "tune"] for s in sorted(data)]
        model = fit_trees([t for t in tune if t], columns, settings)
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump(dict(model, features=list(FEATURES + (STACK,)), settings=settings), f)
        print("wrote " + args.write)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dumps", default="/tmp/ltr")
    ap.add_argument("--select", action="store_true", help="choose features by leave-one-dataset-out")
    ap.add_argument("--forward", metavar="FEATURES",
                    help="start from these features and add others by leave-one-dataset-out")
    ap.add_argument("--features", help="comma-separated features to use (default: all)")
    ap.add_argument("--split", choices=("tune", "held"),
                    help="fit on this half of the other sets, measure the other half of the left-out one")
    ap.add_argument("--write", help="write the weights fitted on every set's tuning half here")
    ap.add_argument("--trees", type=int, help="boosted trees instead of the linear model: this many")
    ap.add_argument("--depth", type=int, default=TREE_SETTINGS["depth"])
    ap.add_argument("--shrink", type=float, default=TREE_SETTINGS["shrink"])
    ap.add_argument("--l2", type=float, default=TREE_SETTINGS["l2"])
    ap.add_argument("--loss", choices=sorted(LOSSES), default=TREE_SETTINGS["loss"])
    ap.add_argument("--stack", action="store_true", help="trees: the rules' rank as one more feature")
    ap.add_argument("--residual", type=float, default=0.0,
                    help="trees: start from this times -log(1 + the rules' rank), learn corrections")
    args = ap.parse_args(argv)
    data = load(args.dumps)
    columns = [FEATURES.index(f) for f in args.features.split(",")] if args.features else list(range(len(FEATURES)))
    if args.trees:
        return main_trees(args, data, columns + ([len(FEATURES)] if args.stack else []))
    if args.select:
        columns = select(data, columns, args.split)
    if args.forward:
        base = [FEATURES.index(f) for f in args.forward.split(",")]
        columns = forward(data, base, [c for c in columns if c not in base], args.split)
    print("features: " + ",".join(FEATURES[c] for c in columns))
    table = lodo(data, columns, args.split)
    print_table(table)
    print()
    print_reliability(table)
    if args.write:
        tune = [[r for r in data[s] if r["split"] == "tune"] for s in sorted(data)]
        betas = fit_regimes([t for t in tune if t], columns)
        write(args.write, columns, betas, data, "features: " + ",".join(FEATURES[c] for c in columns))
        print("wrote " + args.write)


if __name__ == "__main__":
    main()
