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

Usage: python3 bench/ltr_dump.py --out /tmp/ltr
       python3 data/fit-ranker.py [--dumps /tmp/ltr] [--split tune] [--forward F,..] [--select] [--write FILE]
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
    args = ap.parse_args(argv)
    data = load(args.dumps)
    columns = [FEATURES.index(f) for f in args.features.split(",")] if args.features else list(range(len(FEATURES)))
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
