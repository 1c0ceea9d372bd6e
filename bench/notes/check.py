#!/usr/bin/env python3
"""Check the hand-written note folders (bench/notes/<set>): every gold line
exists and is not blank, and print each with its question, to be read.

Usage: python3 bench/notes/check.py [SET ...]   (default: every set)"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ("fact", "changed", "relative_date", "person", "paraphrase", "multihop", "crosslang", "absent")


def sets():
    return sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "questions.jsonl")))


def check(name, show=True):
    """The problems of one set (gold lines missing or blank, unknown kinds), printing each gold line."""
    problems = []
    with open(os.path.join(HERE, name, "questions.jsonl"), encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    for q in questions:
        if q.get("kind") not in KINDS:
            problems.append("%s: unknown kind %r" % (q["id"], q.get("kind")))
        if (q["kind"] == "absent") != (not q["gold"]):
            problems.append("%s: an absent question has no gold, and only it" % q["id"])
        for g in q["gold"]:
            path = os.path.join(HERE, name, g["path"])
            lines = open(path, encoding="utf-8").read().split("\n") if os.path.isfile(path) else []
            text = lines[g["line"] - 1] if 0 < g["line"] <= len(lines) else None
            if not text or not text.strip():
                problems.append("%s: no line %s:%d" % (q["id"], g["path"], g["line"]))
            elif show:
                print("%s %s\n    %s:%d %s" % (q["id"], q["query"], g["path"], g["line"], text.strip()))
    return problems


if __name__ == "__main__":
    found = [p for name in (sys.argv[1:] or sets()) for p in check(name)]
    for p in found:
        print("PROBLEM " + p, file=sys.stderr)
    sys.exit(1 if found else 0)
