#!/usr/bin/env python3
"""Which ranking rules earn their keep: each rule turned off by its Params
field, measured on every data set beside the defaults.

A rule whose removal costs nothing on the sets it was not tuned on is a
candidate for deletion (issue 36: one place per idea, no rule per case).
Printed per variant and set: the change against the defaults, tuning half |
held-out half, of R@5 and MRR (RealMem: session R@5, MRR and turn R@5).
Rules that also move scores (the hooks' cut reads them) are checked with
bench/calibration.py --param before one is deleted.

Usage: python3 bench/ablation.py [--sets locomo,memdaily] [--variant NAME ...]
       [--variant NAME:field=value,field=value]   (a variant of your own)
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quality  # noqa: E402  (puts the suite on sys.path)
import memory_store  # noqa: E402

# each rule off: the value that makes it do nothing (see memsuite/text/params.py)
VARIANTS = {
    "no-proximity": {"proximity_weight": 0.0},
    "no-date": {"date_weight": 0.0},
    "no-when": {"when_weight": 0.0},
    "no-label": {"label_weight": 0.0},
    "no-frame-only-share": {"frame_only_share": 1.0},
    "no-longer-words": {"longer_word_share": 1.0},
    "no-synonyms": {"synonym_weight": 0.0},
    "no-regional": {"regional_weight": 0.0},
    "no-lexicon": {"lexicon_weight": 0.0},
    "no-filler": {"filler_weight": 1.0},
    "no-topic-prior": {"topic_prior": 0.0},
    "no-file-evidence": {"file_weight": 0.0},
    "no-spread": {"spread_share": 1.0},
    "no-turn-recency": {"turn_half_life": 0.0},
    "no-supersede": {"supersede_share": 1.0},
    "no-duplicates": {"duplicate_share": 1.0},
    "no-rarity-floor": {"rarity_docs": 1},
}
SETS = ("locomo", "cmrc2018", "zh", "memdaily", "xling", "xling-mono", "madial", "madial-context", "realmem", "notes")


def metrics_of(name):
    return ("R@5", "MRR", "turn R@5") if name == "realmem" else ("R@5", "MRR")


def measure(data, name, changes):
    """{split: stats} of one data set with these Params changes."""
    params = memory_store.DEFAULT_PARAMS._replace(**changes)
    records = quality.evaluate_records(data, name, quality.suite_searcher(params=params))
    return {split: quality.summarise(records, split) for split in quality.SPLITS}


def parse_variant(text):
    """NAME from VARIANTS, or NAME:field=value,... (values typed as the defaults)."""
    if ":" not in text:
        if text not in VARIANTS:
            raise SystemExit("ablation.py: no such variant: %s (one of %s)" % (text, ", ".join(VARIANTS)))
        return text, VARIANTS[text]
    name, _, fields = text.partition(":")
    return name, quality.with_params(fields.split(","))._asdict()


def delta_cells(base, other, name):
    """'tune | held-out' change of each metric, to 3 places."""
    return ["%+.3f \\| %+.3f" % tuple(other[s][("all", m)] - base[s][("all", m)] for s in quality.SPLITS)
            for m in metrics_of(name)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--variant", action="append", default=[], help="a name of VARIANTS or NAME:field=value,...")
    args = ap.parse_args(argv)
    variants = [parse_variant(v) for v in args.variant] or list(VARIANTS.items())
    unknown = [n for n in args.sets.split(",") if n not in SETS]
    if unknown:
        raise SystemExit("ablation.py: no such set: %s (one of %s)" % (", ".join(unknown), ", ".join(SETS)))
    for name in args.sets.split(","):
        t = time.time()
        base = measure(args.data, name, {})
        print("### %s (defaults: %s)\n" % (name, ", ".join(
            "%s %.3f | %.3f" % (m, base["tune"][("all", m)], base["held"][("all", m)]) for m in metrics_of(name))))
        print("| variant | " + " | ".join(metrics_of(name)) + " |")
        print("|---|" + "---:|" * len(metrics_of(name)))
        for label, changes in variants:
            print("| %s | %s |" % (label, " | ".join(delta_cells(base, measure(args.data, name, changes), name))))
            sys.stdout.flush()
        print("\n(%.0f s)\n" % (time.time() - t))


if __name__ == "__main__":
    main()
