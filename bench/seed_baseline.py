#!/usr/bin/env python3
"""The seed-style baseline the suite replaces, rebuilt for comparison: pure
Python TF-IDF that splits files on '## ' headings, keeps one JSON index
file, compares a query with every document, and reads Chinese as single
characters.  Standard library only.

Usage: seed_baseline.py index DIR            (writes DIR/.seed_index.json)
       seed_baseline.py query DIR QUERY...   (prints JSON results)
"""
import json
import math
import os
import re
import sys
from collections import Counter

from corpus import markdown_files  # same folder, standard library only

INDEX = ".seed_index.json"
TOKEN = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")


def tokenize(text):
    return TOKEN.findall(text.lower())


def sections(root):
    """(path, start_line, end_line, text) per '## ' section of every .md file."""
    for rel, lines in markdown_files(root):
        start = 0
        for i, line in enumerate(lines + ["## end"]):
            if line.startswith("## ") and i > start:
                yield rel, start + 1, i, "\n".join(lines[start:i])
                start = i


def build(root):
    docs = list(sections(root))
    counts = [Counter(tokenize(d[3])) for d in docs]
    df = Counter(t for c in counts for t in c)
    n = len(docs)
    idf = {t: math.log(n / d) + 1.0 for t, d in df.items()}
    out = []
    for (path, start, end, _), c in zip(docs, counts):
        vec = {t: tf * idf[t] for t, tf in c.items()}
        norm = math.sqrt(sum(w * w for w in vec.values())) or 1.0
        out.append({"path": path, "start": start, "end": end, "vec": {t: w / norm for t, w in vec.items()}})
    with open(os.path.join(root, INDEX), "w", encoding="utf-8") as f:
        json.dump({"idf": idf, "docs": out}, f, ensure_ascii=False)


def load(root):
    with open(os.path.join(root, INDEX), encoding="utf-8") as f:
        return json.load(f)


def search(index, query, k=10):
    q = Counter(tokenize(query))
    qv = {t: tf * index["idf"].get(t, 0.0) for t, tf in q.items()}
    norm = math.sqrt(sum(w * w for w in qv.values())) or 1.0
    scored = []
    for d in index["docs"]:  # every document, every query: the seed's way
        s = sum(w * d["vec"].get(t, 0.0) for t, w in qv.items()) / norm
        if s > 0:
            scored.append((s, d["path"], d["start"], d["end"]))
    scored.sort(key=lambda x: -x[0])
    return [(p, s, e) for _, p, s, e in scored[:k]]


def main(argv):
    if len(argv) >= 2 and argv[0] == "index":
        build(argv[1])
        return 0
    if len(argv) >= 3 and argv[0] == "query":
        print(json.dumps(search(load(argv[1]), " ".join(argv[2:]))))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
