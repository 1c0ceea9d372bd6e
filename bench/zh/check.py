#!/usr/bin/env python3
"""Validate the Chinese retrieval sets in bench/zh/{dev,test}.

Standard library only.  Usage:
    python3 bench/zh/check.py              # validate both sets
    python3 bench/zh/check.py --sample 20  # also print 20 random gold lines per set

Checks, per set:
  * every .md / .jsonl / .json file decodes as UTF-8 (no BOM)
  * questions.jsonl: one JSON object per line, unique ids, known kind,
    non-empty query / answer / gold
  * every gold path exists, every gold line number is within the file
    and the line is not blank
  * entities.json: known kinds, every variant occurs in the set's text
Prints the number of questions per kind; prints nothing per question
unless something is wrong.  Exit status 1 on any error.
"""
import json
import os
import random
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SETS = ("dev", "test")
KINDS = ("t2s", "s2t", "name", "number", "synonym", "fullwidth", "boundary", "plain")
MIN_PER_KIND = {"t2s": 15, "s2t": 15, "name": 15, "number": 12, "synonym": 12,
                "fullwidth": 5, "boundary": 8, "plain": 15}
ENTITY_KINDS = ("name", "place", "org", "product", "term", "acronym")


def read_utf8(path, errors):
    raw = open(path, "rb").read()
    if raw.startswith(b"\xef\xbb\xbf"):
        errors.append(f"{path}: has a UTF-8 BOM")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        errors.append(f"{path}: not UTF-8 ({e})")
        return None


def check_set(name, sample):
    root = os.path.join(HERE, name)
    errors = []
    texts = {}
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            t = read_utf8(p, errors)
            if t is not None and f.endswith(".md"):
                texts[os.path.relpath(p, root).replace(os.sep, "/")] = t
    if "MEMORY.md" not in texts:
        errors.append(f"{name}: MEMORY.md missing")

    qpath = os.path.join(root, "questions.jsonl")
    questions = []
    if not os.path.exists(qpath):
        errors.append(f"{name}: questions.jsonl missing")
    else:
        for n, line in enumerate(open(qpath, encoding="utf-8"), 1):
            if not line.strip():
                continue
            try:
                questions.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{name}/questions.jsonl:{n}: bad JSON ({e})")

    ids = Counter(q.get("id") for q in questions)
    for i, c in ids.items():
        if c > 1:
            errors.append(f"{name}: duplicate id {i}")
    kinds = Counter()
    for q in questions:
        qid = q.get("id", "?")
        kinds[q.get("kind")] += 1
        if q.get("kind") not in KINDS:
            errors.append(f"{qid}: unknown kind {q.get('kind')!r}")
        for field in ("query", "answer"):
            if not isinstance(q.get(field), str) or not q[field].strip():
                errors.append(f"{qid}: empty {field}")
        gold = q.get("gold")
        if not isinstance(gold, list) or not gold:
            errors.append(f"{qid}: no gold")
            continue
        for g in gold:
            path, ln = g.get("path"), g.get("line")
            if path not in texts:
                errors.append(f"{qid}: gold path {path!r} does not exist")
                continue
            lines = texts[path].split("\n")
            if not isinstance(ln, int) or not 1 <= ln <= len(lines):
                errors.append(f"{qid}: line {ln} out of range for {path} ({len(lines)} lines)")
                continue
            if not lines[ln - 1].strip():
                errors.append(f"{qid}: gold line {path}:{ln} is blank")

    epath = os.path.join(root, "entities.json")
    n_ent = 0
    if not os.path.exists(epath):
        errors.append(f"{name}: entities.json missing")
    else:
        try:
            ents = json.load(open(epath, encoding="utf-8"))["entities"]
            n_ent = len(ents)
            alltext = "\n".join(texts.values())
            for e in ents:
                if e.get("kind") not in ENTITY_KINDS:
                    errors.append(f"{name}: entity {e.get('name')!r} has unknown kind {e.get('kind')!r}")
                for v in e.get("variants") or []:
                    if v not in alltext:
                        errors.append(f"{name}: entity variant {v!r} not found in text")
                if not e.get("variants"):
                    errors.append(f"{name}: entity {e.get('name')!r} has no variants")
        except (ValueError, KeyError, TypeError) as e:
            errors.append(f"{name}: bad entities.json ({e})")

    size = sum(len(t.encode("utf-8")) for t in texts.values())
    print(f"[{name}] {len(texts)} markdown files, {size} bytes, "
          f"{len(questions)} questions, {n_ent} entities")
    print("  " + "  ".join(f"{k}={kinds.get(k, 0)}" for k in KINDS))
    for k, m in MIN_PER_KIND.items():
        if kinds.get(k, 0) < m:
            print(f"  warning: only {kinds.get(k, 0)} {k} questions (target >= {m})")

    if sample and questions:
        rng = random.Random(sample)
        for q in rng.sample(questions, min(sample, len(questions))):
            print(f"  {q['id']} [{q['kind']}] Q: {q['query']}  A: {q['answer']}")
            for g in q["gold"]:
                line = texts.get(g["path"], "").split("\n")[g["line"] - 1]
                print(f"      {g['path']}:{g['line']}: {line}")
    for e in errors:
        print("  ERROR " + e)
    return not errors


def main():
    sample = 0
    if "--sample" in sys.argv:
        sample = int(sys.argv[sys.argv.index("--sample") + 1])
    ok = all([check_set(s, sample) for s in SETS])
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
