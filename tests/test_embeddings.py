"""Optional embedding providers: off by default, the whole path with a
deterministic stand-in, HTTP providers against a local stub, failures that
never hang a query or poison the index."""
import contextlib
import json
import os
import socket
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

from helpers import TempMemory, clean_env, run_script
import memory_search as search_mod
import memory_store as ms
from memsuite.search import embeddings


@contextlib.contextmanager
def modules_missing(*names):
    """These modules cannot be imported meanwhile.  (mock.patch.dict on
    sys.modules would also drop every module first imported inside, so a
    later test would meet a second copy of the suite's classes.)"""
    saved = {n: sys.modules[n] for n in names if n in sys.modules}
    sys.modules.update(dict.fromkeys(names))
    try:
        yield
    finally:
        for n in names:
            sys.modules.pop(n, None)
        sys.modules.update(saved)


class Counting(search_mod.HashEmbedder):
    """The test-hash provider, counting the texts it embeds."""

    def __init__(self, model="trigram-hash-64"):
        self.model, self.texts = model, []

    def embed(self, texts):
        self.texts.extend(texts)
        return search_mod.HashEmbedder.embed(self, texts)


class StubService:
    """An embedding service on 127.0.0.1: answers as Ollama or OpenAI do, or
    badly (wrong dimension, NaN, an error) when told to."""

    def __init__(self, test, mode="ollama", dim=8, fail_after=None, bad=None):
        self.requests, stub = [], self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8"))
                stub.requests.append((self.path, dict(self.headers), body))
                if fail_after is not None and len(stub.requests) > fail_after:
                    self.send_response(500)
                    self.end_headers()
                    return
                vectors = stub.vectors(body["input"], dim)
                if bad == "dim":
                    vectors = [v[:-1] for v in vectors]
                elif bad == "nan":
                    vectors[0][0] = float("nan")
                answer = {"embeddings": vectors} if mode == "ollama" else \
                    {"data": [{"index": i, "embedding": v} for i, v in enumerate(vectors)]}
                data = json.dumps(answer).replace("NaN", "NaN").encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        test.addCleanup(self.server.server_close)
        test.addCleanup(self.server.shutdown)

    def vectors(self, texts, dim):
        return [[float((i + len(t)) % 7) + 1.0 for i in range(dim)] for t in texts]


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class HashProviderTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def store(self, embedder):
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        return store

    def test_the_whole_path(self):
        embedder = Counting()
        store = self.store(embedder)
        store.refresh()
        have, total = store.embeddings.counts(embedder.key)
        self.assertEqual(have, total)
        self.assertEqual(len(embedder.texts), total)  # each distinct text once
        hits = search_mod.search(store, "configure the RSS feed")
        self.assertEqual(hits.channels, ["keyword", "vector", "semantic"])
        self.assertTrue(all(h.semantic is not None for h in hits))

        embedder.texts = []
        store.refresh()
        self.assertEqual(embedder.texts, [])  # unchanged: nothing embedded again
        self.write("memory/2026-03-22.md", "# 2026-03-22\nA new line about the zebrafish.\n")
        store.refresh()
        self.assertEqual(len(embedder.texts), 1)  # only the changed chunk
        self.assertIn("zebrafish", embedder.texts[0])

        other = Counting(model="another-model")
        store.use_embedder(other)
        store.refresh()
        have, total = store.embeddings.counts(other.key)
        self.assertEqual((have, len(other.texts)), (total, total))  # a changed model embeds afresh

    def test_chinese_queries_keep_their_lexical_scores(self):
        store = self.store(Counting())
        store.refresh()
        hits = search_mod.search(store, "博客RSS配置")
        with_vectors = [(h.id, h.score) for h in hits]
        self.assertEqual(hits.channels, ["keyword", "vector"])  # semantic_weight_cjk is 0
        store.use_embedder(None)
        self.assertEqual(with_vectors, [(h.id, h.score) for h in search_mod.search(store, "博客RSS配置")])

    def test_which_queries_the_channel_weighs(self):
        from memsuite.search.ranking import semantic_share
        params = ms.Params()
        english, multilingual = mock.Mock(embedder=Counting()), mock.Mock(embedder=Counting())
        multilingual.embedder.multilingual = True
        cases = [("configure the RSS feed", 0.3, 0.3), ("13800138000", 0.0, 0.0), ("139-7410-0562", 0.0, 0.0),
                 ("Wi-Fi 密码", 0.0, 0.3), ("博客RSS配置", 0.0, 0.3), ("SF140233778", 0.3, 0.3)]
        for query, for_english, for_multilingual in cases:
            self.assertEqual((semantic_share(english, query, params), semantic_share(multilingual, query, params)),
                             (for_english, for_multilingual), query)

    def test_the_json_backend_keeps_vectors_too(self):
        store = ms.MemoryStore(self.dir, backend="json")
        self.addCleanup(store.close)
        store.use_embedder(Counting())
        store.refresh()
        self.assertTrue(os.path.exists(os.path.join(self.dir, ".memory", "vectors.json")))
        have, total = store.embeddings.counts(store.embedder.key)
        self.assertEqual(have, total)
        self.assertIn("semantic", search_mod.search(store, "configure the RSS feed").channels)

    def test_cli_status_and_channels(self):
        env = clean_env(MEMORY_EMBED="test-hash")
        code, out, err = run_script("search.sh", "--dir", self.dir, "configure the RSS feed", "--json", env=env)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["channels"], ["keyword", "vector", "semantic"])
        self.assertIn("semantic", doc["results"][0]["scores"])
        code, out, _ = run_script("search.sh", "--dir", self.dir, "status", "--json", env=env)
        info = json.loads(out)["embedding"]
        self.assertEqual((info["provider"], info["dim"]), ("test-hash", 64))
        self.assertEqual(info["embedded"], info["texts"])
        code, out, _ = run_script("search.sh", "--dir", self.dir, "RSS", "--json")
        self.assertEqual(json.loads(out)["channels"], ["keyword", "vector"])  # off by default


class HttpProviderTest(TempMemory):
    files = {"a.md": "# A\nThe blog moved to Cloudflare Pages.\n", "b.md": "# B\nKyoto trip in March.\n"}

    def test_ollama(self):
        stub = StubService(self)
        with mock.patch.dict(os.environ, {"OLLAMA_HOST": stub.url}):
            embedder, report = search_mod.make_embedder("ollama")
        self.assertEqual(report["provider"], "ollama")
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        store.refresh()
        path, _, body = stub.requests[0]
        self.assertEqual(path, "/api/embed")
        self.assertEqual(body["model"], "nomic-embed-text")
        self.assertEqual(len(body["input"]), 2)
        self.assertEqual(store.embeddings.counts(embedder.key), (2, 2))

    def test_openai_compatible_with_a_key(self):
        stub = StubService(self, mode="openai")
        env = {"MEMORY_EMBED_URL": stub.url + "/v1", "MEMORY_EMBED_KEY": "sk-test", "MEMORY_EMBED_MODEL": "m1"}
        with mock.patch.dict(os.environ, env):
            embedder, _ = search_mod.make_embedder("openai")
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        store.refresh()
        path, headers, body = stub.requests[0]
        self.assertEqual((path, body["model"]), ("/v1/embeddings", "m1"))
        self.assertEqual(headers["Authorization"], "Bearer sk-test")
        self.assertEqual(store.embeddings.counts(embedder.key), (2, 2))

    def test_a_dead_provider_never_hangs_a_query(self):
        env = clean_env(MEMORY_EMBED="ollama", OLLAMA_HOST="http://127.0.0.1:%d" % closed_port())
        started = time.time()
        code, out, err = run_script("search.sh", "--dir", self.dir, "Cloudflare", "--json", env=env)
        self.assertLess(time.time() - started, 10)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["results"][0]["path"], "a.md")
        self.assertEqual(doc["channels"], ["keyword", "vector"])
        self.assertIn("connection refused", err)

    def test_a_provider_dying_mid_sync_leaves_a_consistent_index(self):
        for i in range(150):
            self.write("notes/n%03d.md" % i, "# N\nnote %d about hugo\n" % i)
        stub = StubService(self, fail_after=1)
        with mock.patch.dict(os.environ, {"OLLAMA_HOST": stub.url}):
            embedder, _ = search_mod.make_embedder("ollama")
        warnings = []
        store = ms.MemoryStore(self.dir, warn=warnings.append)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        store.refresh()
        have, total = store.embeddings.counts(embedder.key)
        from memsuite.store.embedding_fill import EMBED_BATCH
        self.assertEqual((have, total), (EMBED_BATCH, 152))  # one batch, then the failure
        self.assertTrue(any("embedding stopped" in w for w in warnings))
        self.assertEqual(store.chunk_count(), 152)  # the keyword index is whole
        self.assertTrue(search_mod.search(store, "note 77 hugo"))
        ok = StubService(self)
        with mock.patch.dict(os.environ, {"OLLAMA_HOST": ok.url}):
            store.use_embedder(*search_mod.make_embedder("ollama"))
        store.refresh()
        self.assertEqual(store.embeddings.counts(embedder.key), (152, 152))  # filled in later

    def _refresh_against(self, serve):
        """Refresh a folder of 40 notes against a stub whose POST handler is
        serve(handler, answer); the store and the warnings it gave."""
        for i in range(40):
            self.write("notes/n%02d.md" % i, "# N\nnote %d about hugo\n" % i)
        stub = StubService(self)
        handler = stub.server.RequestHandlerClass
        answer = handler.do_POST

        def post(self):
            try:
                serve(self, answer)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up, as it should
                pass
        handler.do_POST = post
        with mock.patch.dict(os.environ, {"OLLAMA_HOST": stub.url}):
            embedder, _ = search_mod.make_embedder("ollama")
        warnings = []
        store = ms.MemoryStore(self.dir, warn=warnings.append)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        with mock.patch.object(embeddings, "HTTP_TIMEOUT", (0.5, 0.3)):
            store.refresh()
        return store, warnings

    def test_a_server_that_never_answers_costs_two_timeouts_not_seven(self):
        posts = []

        def hung(handler, answer):  # accepts the connection, answers after the client gave up
            posts.append(1)
            time.sleep(0.6)
            answer(handler)
        _, warnings = self._refresh_against(hung)
        self.assertEqual(len(posts), 2)  # 64 texts, then 1 to tell slow from hung: not 64, 32, ... 1
        self.assertEqual(len(warnings), 1, warnings)
        self.assertIn("timed out", warnings[0])

    def test_a_slow_server_gets_smaller_batches(self):
        def slow_over_8(handler, answer):  # as a CPU model: over 8 texts a batch takes longer than the timeout
            size = int(handler.headers["Content-Length"])
            body = handler.rfile.peek(size) if hasattr(handler.rfile, "peek") else b""
            if body.count(b"note ") > 8:
                time.sleep(0.6)
            answer(handler)
        store, warnings = self._refresh_against(slow_over_8)
        self.assertEqual(store.embeddings.counts(store.embedder.key), (42, 42), warnings)
        self.assertEqual(warnings, [])

    def test_bad_vectors_are_refused(self):
        for bad, says in (("dim", "dimensions"), ("nan", "NaN")):
            stub = StubService(self, bad=bad)
            with mock.patch.dict(os.environ, {"OLLAMA_HOST": stub.url}):
                embedder, _ = search_mod.make_embedder("ollama")
            embedder.dim = 8  # the model's dimension, known from before
            warnings = []
            store = ms.MemoryStore(self.dir, warn=warnings.append)
            store.use_embedder(embedder)
            store.refresh()
            self.assertEqual(store.embeddings.counts(embedder.key)[0], 0, bad)  # nothing stored
            self.assertIn(says, " ".join(warnings))
            self.assertIn(says, store.embed_error)
            store.close()


class ConceptService(StubService):
    """An OpenAI-compatible embedding service on 127.0.0.1 that knows a few
    concepts in two languages: Tokyo and 帝都 (the capital, as Tokyo is
    called; a name the lexicon does not hold, so only meaning reaches it) get
    the same vector, as a multilingual model gives them nearly the same one."""

    CONCEPTS = (("tokyo", "帝都"), ("kyoto", "京都"), ("bread", "面包"))

    def __init__(self, test):
        super().__init__(test, mode="openai")
        self.url += "/v1"

    def vectors(self, texts, dim):
        out = []
        for text in texts:
            vec = [0.01] * (len(self.CONCEPTS) + 1)
            for d, words in enumerate(self.CONCEPTS):
                if any(w in text.lower() for w in words):
                    vec[d] = 1.0
            out.append(vec)
        return out


class CrossLanguageTest(TempMemory):
    """A query whose words are in no note still finds the note that means
    them, through a provider's vectors alone, in pure Python (no numpy, no
    sqlite-vec: a scan of the stored vectors)."""
    files = {"trip.md": "# 出差\n下个月去帝都见客户。\n",
             "kitchen.md": "# Kitchen\nBanana bread with walnuts, 180 degrees.\n",
             "kyoto.md": "# Kyoto\nTemples in Kyoto in the autumn.\n"}

    def setUp(self):
        super().setUp()
        self.stub = ConceptService(self)
        # packages that raise ImportError, ahead of site-packages: this machine may have numpy
        self.blocked = os.path.join(self.tmp, "blocked")
        os.makedirs(os.path.join(self.blocked, "numpy"))
        for path in (os.path.join(self.blocked, "numpy", "__init__.py"), os.path.join(self.blocked, "sqlite_vec.py")):
            with open(path, "w") as f:
                f.write("raise ImportError('blocked by the test')\n")

    def env(self, **extra):
        return clean_env(**dict(dict(MEMORY_EMBED="openai", MEMORY_EMBED_URL=self.stub.url,
                                     MEMORY_EMBED_MODEL="stub", PYTHONPATH=self.blocked), **extra))

    def search(self, query, **extra):
        code, out, err = run_script("search.sh", "--dir", self.dir, query, "--json", env=self.env(**extra))
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def test_tokyo_finds_the_note_saying_dongjing(self):
        doc = self.search("Tokyo")
        self.assertEqual(doc["channels"], ["keyword", "vector", "semantic"])
        self.assertEqual([r["path"] for r in doc["results"]], ["trip.md"])
        self.assertLess(doc["results"][0]["score"], 0.4)  # no word of the query is in it: under the cut
        self.assertEqual(self.search("Tokyo", MEMORY_EMBED="off")["results"], [])  # unchanged without a provider

    def test_explain_says_a_hit_was_found_by_meaning_alone(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "Tokyo", "--explain", env=self.env())
        self.assertEqual(code, 0, err)
        self.assertIn("matched: (no query word: by meaning alone, the semantic channel)", out)
        self.assertNotIn("trigrams or prefixes", out)

    def test_a_chinese_query_needs_a_model_that_reads_chinese(self):
        self.write("trip.md", "# Trip\nMeeting the client in Tokyo next month.\n")
        self.assertEqual(self.search("帝都")["results"], [])  # semantic_weight_cjk is 0
        doc = self.search("帝都", MEMORY_EMBED_MULTILINGUAL="1")
        self.assertEqual([r["path"] for r in doc["results"]], ["trip.md"])
        code, _, err = run_script("search.sh", "--dir", self.dir, "帝都",
                                  env=self.env(MEMORY_EMBED_MULTILINGUAL="maybe"))
        self.assertEqual((code, err.count("\n")), (2, 1), err)
        self.assertIn("MEMORY_EMBED_MULTILINGUAL", err)

    def test_the_library_scans_without_numpy(self):
        with mock.patch.dict(os.environ, {"MEMORY_EMBED_URL": self.stub.url, "MEMORY_EMBED_MODEL": "stub"}), \
                modules_missing("numpy", "sqlite_vec"):
            store = ms.MemoryStore(self.dir)
            self.addCleanup(store.close)
            store.use_embedder(*search_mod.make_embedder("openai"))
            store.refresh()
            hits = search_mod.search(store, "Tokyo")
            self.assertEqual([h.path for h in hits], ["trip.md"])
            self.assertGreater(hits[0].semantic, 0.99)
            # rrf: the order of reciprocal ranks (kyoto.md's weak lexical match to "Tokyo" ranks
            # first in both lists), the scores of the weighted sum, best first
            every = search_mod.search(store, "Tokyo", min_score=0)
            rrf = search_mod.search(store, "Tokyo", min_score=0, params=store.params._replace(semantic_fusion="rrf"))
            self.assertEqual([h.path for h in rrf], ["kyoto.md", "trip.md", "kitchen.md"])
            self.assertEqual([h.score for h in rrf], [h.score for h in every])
            capped = search_mod.search(store, "Tokyo", params=store.params._replace(semantic_scan_limit=2))
            self.assertEqual(list(capped), [])  # over the limit: the lexical candidates only, and there are none


class DefaultIsOffTest(TempMemory):
    files = {"a.md": "# A\nhello world\n"}

    def test_no_provider_and_no_socket_by_default(self):
        def no_sockets(*args, **kwargs):
            raise AssertionError("a socket was opened")
        with mock.patch.object(socket, "socket", no_sockets), mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("MEMORY_EMBED", None)
            embedder, report = search_mod.make_embedder()
            self.assertIsNone(embedder)
            self.assertEqual(report["requested"], "off")
            store = ms.MemoryStore(self.dir)
            self.addCleanup(store.close)
            hits = search_mod.search(store, "hello", sync=True)
            self.assertEqual(hits.channels, ["keyword", "vector"])

    def test_auto_tries_local_providers_only(self):
        with mock.patch.dict(os.environ, {"OLLAMA_HOST": "http://127.0.0.1:%d" % closed_port(),
                                          "OPENAI_API_KEY": "sk-never-used"}):
            with mock.patch.object(embeddings, "_make_one", wraps=embeddings._make_one) as made:
                search_mod.make_embedder("auto")
        tried = [c.args[0] for c in made.call_args_list]
        # sentence-transformers first; Ollama only if that is missing; never openai
        self.assertEqual(tried, ["sentence-transformers", "ollama"][:len(tried)])
        self.assertNotIn("openai", tried)

    def test_an_unknown_provider_is_a_usage_error(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "hello", env=clean_env(MEMORY_EMBED="magic"))
        self.assertEqual(code, 2)
        self.assertIn("MEMORY_EMBED='magic'", err)


class SentenceTransformersTest(TempMemory):
    def test_a_real_model(self):
        embedder, report = search_mod.make_embedder("sentence-transformers")
        if embedder is None:
            self.skipTest("sentence-transformers or a local model is missing: %s" % report["skipped"])
        self.copy_examples()
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.use_embedder(embedder)
        store.refresh()
        hits = search_mod.search(store, "what broke with the feed reader while travelling")
        self.assertEqual(hits.channels, ["keyword", "vector", "semantic"])
        self.assertEqual(hits[0].path, "memory/2026-03-15.md")


if __name__ == "__main__":
    unittest.main()
