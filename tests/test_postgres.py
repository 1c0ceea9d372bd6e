"""The PostgreSQL backend (memsuite/index/postgres/): the same contract and the
same hits as SQLite, namespaces kept apart, one transaction per sync, and a
server that fails or goes away.

Needs a server: MEMORY_TEST_PG_DSN (set by .ci/run, which starts a throwaway
cluster) and a driver (psycopg 3 or pg8000) importable by this Python; without
them these tests skip, saying why.  Every test uses namespaces of its own.
"""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
import uuid
from unittest import mock

from helpers import PYTHON, ROOT, TempMemory, bump_mtime, clean_env, run_script
import memory_search
import memory_store as ms

DSN = os.environ.get("MEMORY_TEST_PG_DSN", "")
SECRET = "s3cr3t-Pw-%d" % os.getpid()  # put in DSNs; must never be printed (trust auth ignores it)


def _drivers():
    found = []
    for name in ("psycopg", "pg8000"):
        try:
            __import__(name)
            found.append(name)
        except ImportError:
            pass
    return found


DRIVERS = _drivers()
SKIP_REASON = ("MEMORY_TEST_PG_DSN is not set (.ci/run starts a PostgreSQL server for these tests)" if not DSN
               else "no PostgreSQL driver importable here (pip install 'psycopg[binary]' or pg8000)"
               if not DRIVERS else None)
QUERIES = ["博客RSS配置", "十三香", "京都 机票", "configure the RSS feed", "KX-4471",
           "OpenClaw skills", "Google Search Console", "laptop Neovim", "的",
           "Feedley", "Feedley duplicate", "what did I book on 19 February"]


def new_ns(tag):
    return "t-%s-%s" % (tag, uuid.uuid4().hex[:10])


def pg_env(ns=None, dsn=None, **extra):
    """A CLI environment pointing at the test server."""
    env = clean_env(MEMORY_BACKEND="postgres", MEMORY_PG_DSN=dsn or DSN, **extra)
    if ns:
        env["MEMORY_NAMESPACE"] = ns
    return env


def with_password(dsn):
    return (dsn + " password=" + SECRET) if "=" in dsn and "://" not in dsn else dsn


def admin():
    """A plain connection to the test server (for checks behind the backend's back)."""
    from memsuite.index.postgres import backend as postgres
    os.environ["MEMORY_PG_DSN"] = DSN
    driver = postgres.load_driver()
    dsn, kw, _ = postgres.dsn_settings()
    if driver.name.startswith("psycopg"):
        return driver.module.connect(dsn, autocommit=True)
    conn = driver.module.connect(**postgres.pg8000_args(kw))
    conn.autocommit = True
    return conn


def sql(conn, statement, args=()):
    cur = conn.cursor()
    cur.execute(statement, args) if args else cur.execute(statement)
    rows = cur.fetchall() if cur.description is not None else []
    cur.close()
    return rows


def namespace_rows(conn, ns):
    """Every row a namespace owns, as a comparable summary."""
    out = {}
    for table in ("memsuite_files", "memsuite_chunks", "memsuite_postings", "memsuite_terms", "memsuite_meta"):
        out[table] = sql(conn, "SELECT count(*), md5(coalesce(string_agg(t::text, ',' ORDER BY t::text), '')) "
                               "FROM " + table + " t WHERE ns=%s", (ns,))[0]
    out["blocks"] = sql(conn, "SELECT count(*), md5(coalesce(string_agg(b.data::text, ',' ORDER BY b.file, b.block), "
                              "'')) FROM memsuite_blocks b JOIN memsuite_files f ON f.id=b.file WHERE f.ns=%s",
                        (ns,))[0]
    return out


def make_corpus(folder, files=30, lines=40, seed=1, marker="marker"):
    rng = random.Random(seed)
    words = ("kyoto flight hotel blog rss feed hugo papermod openclaw skill memory search index "
             "sqlite python garden coffee train ticket museum temple budget 十三香 京都 机票 博客 配置").split()
    os.makedirs(os.path.join(folder, "memory"), exist_ok=True)
    for i in range(files):
        body = ["# 2026-01-%02d" % (i % 28 + 1), ""]
        for j in range(lines):
            if j % 12 == 0:
                body.append("## Topic %d-%d" % (i, j))
            body.append(" ".join(rng.choice(words) for _ in range(14)) + " %s%d_%d" % (marker, i, j))
        with open(os.path.join(folder, "memory", "2026-01-%02d-%d.md" % (i % 28 + 1, i)), "w",
                  encoding="utf-8") as f:
            f.write("\n".join(body) + "\n")


class NoDriverTest(unittest.TestCase):
    """Runs everywhere: the driver is optional and imported only when chosen."""

    HIDE = "import sys; sys.modules['psycopg'] = None; sys.modules['pg8000'] = None; "

    def test_without_a_driver_status_says_why_in_one_line(self):
        env = clean_env(MEMORY_BACKEND="postgres", MEMORY_PG_DSN="host=/nonexistent password=" + SECRET)
        proc = subprocess.run([PYTHON, "-c", self.HIDE + "import memory_search; "
                               "sys.exit(memory_search.main(['status']))"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
        self.assertIn("no driver", proc.stderr)
        self.assertIn("psycopg", proc.stderr)
        self.assertIn("pg8000", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertNotIn(SECRET, proc.stderr + proc.stdout)

    def test_other_backends_never_import_a_driver(self):
        code = ("import sys, memory_store, memory_search; s = memory_store.MemoryStore(sys.argv[1], backend='sqlite'); "
                "memory_search.search(s, 'kyoto', sync=True); "
                "print([m for m in ('psycopg', 'pg8000', 'memsuite.index.postgres.backend') if m in sys.modules])")
        proc = subprocess.run([PYTHON, "-c", code, os.path.join(ROOT, "examples", "memory")], cwd=ROOT,
                              env=clean_env(MEMORY_INDEX_DIR=os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                                          "memtest-nodriver-%d" % os.getpid())),
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "[]")

    def test_namespace_needs_the_postgres_backend(self):
        code, out, err = run_script("search.sh", "--dir", os.path.join(ROOT, "examples", "memory"), "kyoto",
                                    "--namespace", "a,b", "--backend", "json",
                                    env=clean_env(MEMORY_INDEX_DIR=os.path.join(
                                        os.environ.get("TMPDIR", "/tmp"), "memtest-ns-%d" % os.getpid())))
        self.assertEqual(code, 2, err)
        self.assertIn("postgres", err)

    def test_namespaces_parse_and_bad_names_are_usage_errors(self):
        from memsuite.index.postgres import backend as postgres
        from memsuite.index.postgres import connect as postgres_connect
        with mock.patch.dict(os.environ, {"MEMORY_NAMESPACE": ""}):
            own, reads = postgres.parse_namespaces(None, "/x/notes")
            self.assertTrue(own.startswith("notes-"))
            self.assertEqual(reads, [own])
            self.assertEqual(postgres.parse_namespaces("bob", "/x/notes"), ("bob", ["bob"]))
            self.assertEqual(postgres.parse_namespaces("a,b", "/x/notes"), (own, ["a", "b"]))
            self.assertEqual(postgres.parse_namespaces("all", "/x/notes"), (own, None))
            for bad in ("", "a b", "x;DROP", "all", "-x", "a" * 64):
                with self.assertRaises(ms.UsageError):
                    postgres_connect.check_namespace(bad)

    def test_dsn_forms_and_scrubbing(self):
        from memsuite.index.postgres import backend as postgres
        with mock.patch.dict(os.environ, {"MEMORY_PG_DSN": "postgresql://ann:p%40ss@db.example:6543/team",
                                          "PGPASSWORD": ""}):
            dsn, kw, pw = postgres.dsn_settings()
            self.assertEqual((kw["user"], kw["password"], kw["host"], kw["port"], kw["dbname"]),
                             ("ann", "p@ss", "db.example", "6543", "team"))
            self.assertNotIn("p@ss", postgres.describe_server(kw))
            self.assertNotIn("p%40ss", postgres.scrub("failed for " + dsn, [pw, dsn]))
        with mock.patch.dict(os.environ, {"MEMORY_PG_DSN": "host=/run/pg dbname=m password='a b'"}):
            _, kw, pw = postgres.dsn_settings()
            self.assertEqual((kw["host"], kw["dbname"], pw), ("/run/pg", "m", "a b"))
            self.assertEqual(postgres.scrub("x password=zzz y", []), "x password=*** y")


@unittest.skipIf(SKIP_REASON, SKIP_REASON)
class PostgresCase(TempMemory):
    driver = None  # None: the default choice (psycopg, else pg8000)

    def setUp(self):
        super().setUp()
        env = {"MEMORY_PG_DSN": DSN, "MEMORY_NAMESPACE": ""}
        if self.driver:
            env["MEMORY_PG_DRIVER"] = self.driver
        patcher = mock.patch.dict(os.environ, env)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.admin = admin()
        self.addCleanup(self.admin.close)
        self.namespaces = []
        self.addCleanup(self._drop_namespaces)

    def _drop_namespaces(self):
        for ns in self.namespaces:
            sql(self.admin, "DELETE FROM memsuite_blocks WHERE file IN (SELECT id FROM memsuite_files WHERE ns=%s)",
                (ns,))
            for table in ("memsuite_postings", "memsuite_terms", "memsuite_chunks", "memsuite_files", "memsuite_meta",
                          "memsuite_link_mentions", "memsuite_link_entities", "memsuite_link_spellings",
                          "memsuite_link_files", "memsuite_link_meta"):
                sql(self.admin, "DELETE FROM " + table + " WHERE ns=%s", (ns,))

    def ns(self, tag):
        name = new_ns(tag)
        self.namespaces.append(name)
        return name

    def pg_store(self, folder=None, ns=None, warn=None):
        store = ms.MemoryStore(folder or self.dir, backend="postgres", namespace=ns or self.ns("s"),
                               warn=warn or (lambda msg: None))
        self.addCleanup(store.close)
        return store


class SameHitsAsSqliteTest(PostgresCase):
    """The backends-agree test, extended: SQLite, JSON and PostgreSQL give
    the same hits with the same scores on the same folder."""

    def test_the_same_top_results_as_sqlite(self):
        self.copy_examples()
        results = {}
        for backend in ("sqlite", "postgres"):
            s = self.pg_store() if backend == "postgres" else ms.MemoryStore(self.dir, backend=backend)
            s.sync()
            results[backend] = [[(h.id, round(h.score, 3)) for h in memory_search.search(s, q)] for q in QUERIES]
            if backend == "sqlite":
                sqlite_counts = (s.chunk_count(), s.total_terms(), len(s.known_files()))
            else:
                self.assertEqual((s.chunk_count(), s.total_terms(), len(s.known_files())), sqlite_counts)
            s.close()
        for q, a, b in zip(QUERIES, results["sqlite"], results["postgres"]):
            self.assertTrue(a, q)
            self.assertEqual(a, b, q)

    def test_date_and_path_filters_agree(self):
        for rel, text in {"MEMORY.md": "# Facts\nkyoto hotel and hugo blog\n",
                          "memory/2026-02-01.md": "# 2026-02-01\nkyoto trip planning\n",
                          "memory/2026-02-15.md": "# 2026-02-15\nkyoto flights booked, hugo theme\n",
                          "notes/2026-02-20.md": "# 2026-02-20\nkyoto ramen list\n"}.items():
            self.write(rel, text)
        cases = [ms.Filters(), ms.Filters(since="2026-02-10"), ms.Filters(until="2026-02-16"),
                 ms.Filters(dated_only=True), ms.Filters(path_glob="memory"), ms.Filters(path_glob="notes/*"),
                 ms.Filters(path_glob="nothing/*")]
        got = {}
        for backend in ("sqlite", "postgres"):
            s = self.pg_store() if backend == "postgres" else ms.MemoryStore(self.dir, backend=backend)
            s.sync()
            got[backend] = [sorted(h.path for h in memory_search.search(s, "kyoto", limit=10, filters=f))
                            for f in cases]
            s.close()
        self.assertEqual(got["postgres"], got["sqlite"])
        self.assertEqual(got["postgres"][1], ["MEMORY.md", "memory/2026-02-15.md", "notes/2026-02-20.md"])
        self.assertEqual(got["postgres"][-1], [])

    def test_random_queries_agree_with_sqlite(self):
        """The reliability suite's fuzzed queries: never an error, the same hits."""
        from test_inputs import random_query
        self.copy_examples()
        rng = random.Random(20261201)
        queries = [random_query(rng) for _ in range(200)] + [
            "'; DROP TABLE memsuite_files; --", "%s %% %(x)s $1 ::text", "\\x00 E'\\\\'", "kyoto\x00hotel"]
        sq, pg = ms.MemoryStore(self.dir, backend="sqlite"), self.pg_store()
        self.addCleanup(sq.close)
        sq.sync()
        pg.sync()
        for q in queries:
            try:
                want = [h.id for h in memory_search.search(sq, q)]
            except memory_search.UsageError:
                continue
            self.assertEqual([h.id for h in memory_search.search(pg, q)], want, repr(q))
        self.assertEqual(len(pg.known_files()), len(sq.known_files()))  # the tables are all still there

    def test_updates_and_removals(self):
        self.write("memory/2026-01-01.md", "# 2026-01-01\nalpha kyoto\n")
        self.write("memory/2026-01-02.md", "# 2026-01-02\nbeta kyoto\n")
        s = self.pg_store()
        s.sync()
        self.write("memory/2026-01-01.md", "# 2026-01-01\ngamma kyoto\n")
        os.unlink(os.path.join(self.dir, "memory", "2026-01-02.md"))
        report = s.sync()
        self.assertEqual((report.updated, report.removed), (["memory/2026-01-01.md"], ["memory/2026-01-02.md"]))
        self.assertEqual([h.id for h in memory_search.search(s, "gamma")], ["memory/2026-01-01.md:1-2"])
        self.assertEqual(memory_search.search(s, "alpha"), [])
        self.assertEqual(memory_search.search(s, "beta"), [])
        sq = ms.MemoryStore(self.dir, backend="sqlite")
        self.addCleanup(sq.close)
        sq.sync()
        self.assertEqual((s.chunk_count(), s.total_terms()), (sq.chunk_count(), sq.total_terms()))
        self.assertEqual(s.doc_freqs(["kyoto", "gamma", "alpha"]), sq.doc_freqs(["kyoto", "gamma", "alpha"]))


class Pg8000Test(SameHitsAsSqliteTest):
    """The same, with the pure-Python driver."""
    driver = "pg8000"

    def setUp(self):
        if "pg8000" not in DRIVERS:
            self.skipTest("pg8000 is not importable here")
        super().setUp()


class CliTest(PostgresCase):
    def test_search_status_get_and_link_from_the_wrappers(self):
        self.copy_examples()
        ns = self.ns("cli")
        env = pg_env(ns)
        code, out, err = run_script("search.sh", "--dir", self.dir, "博客RSS配置", "--limit", "2", env=env)
        self.assertEqual(code, 0, err)
        self.assertIn("memory/2026-02-20.md:1-7", out)
        code, out, err = run_script("search.sh", "--dir", self.dir, "status", env=env)
        self.assertEqual(code, 0, err)
        self.assertIn("backend:        postgres", out)
        self.assertIn("namespace:      " + ns, out)
        self.assertRegex(out, r"driver:\s+(psycopg|pg8000)")
        code, out, err = run_script("search.sh", "--dir", self.dir, "get", "memory/2026-02-19.md:3-4", env=env)
        self.assertEqual(code, 0, err)
        self.assertIn("KX-4471", out)
        outputs = {}
        for name, e in (("postgres", env), ("sqlite", clean_env())):
            got = []
            for args in (["entity", "openclaw", "--limit", "2"], ["related", "memory/2026-02-20.md:9-13"],
                         ["graph", "--entity", "RSS配置", "--format", "json"], ["entity", "OpenClow"]):
                got.append(run_script("link.sh", "--dir", self.dir, *args, env=e))
            outputs[name] = got
        self.assertEqual(outputs["postgres"], outputs["sqlite"])
        self.assertIn("OpenClaw (name): 5 chunks in 5 files", outputs["postgres"][0][1])
        self.assertEqual(outputs["postgres"][3][0], 1)  # unknown entity: exit 1 with a suggestion

    def test_credentials_are_never_printed(self):
        self.copy_examples()
        ns = self.ns("cred")
        dsn = with_password(DSN)
        outs = []
        for args in (["status"], ["status", "--json"], ["kyoto", "--json"], ["sync"]):
            outs.append(run_script("search.sh", "--dir", self.dir, *args, env=pg_env(ns, dsn=dsn)))
        bad_db = dsn + " dbname=no_such_db_%d" % os.getpid() if "=" in dsn else dsn
        outs.append(run_script("search.sh", "--dir", self.dir, "kyoto", env=pg_env(ns, dsn=bad_db)))
        outs.append(run_script("search.sh", "--dir", self.dir, "status",
                               env=pg_env(ns, dsn="postgresql://ann:%s@127.0.0.1:1/x" % SECRET)))
        outs.append(run_script("search.sh", "--dir", self.dir, "status",
                               env=pg_env(ns, dsn="host=127.0.0.1 port=1", PGPASSWORD=SECRET)))
        for code, out, err in outs:
            self.assertNotIn(SECRET, out + err)
            self.assertNotIn("Traceback", err)
        self.assertEqual([o[0] for o in outs], [0, 0, 0, 0, 1, 1, 1], [o[2] for o in outs])
        for code, out, err in outs[4:]:
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("PostgreSQL", err)


class NamespacesTest(PostgresCase):
    def two_folders(self):
        a, b = os.path.join(self.tmp, "alice"), os.path.join(self.tmp, "bob")
        for folder, who in ((a, "alice"), (b, "bob")):
            os.makedirs(os.path.join(folder, "memory"))
            with open(os.path.join(folder, "memory", "2026-02-01.md"), "w", encoding="utf-8") as f:
                f.write("# 2026-02-01\nkyoto plans of %s\n\n## Other\n%s keeps the %sonly notes\n" % (who, who, who))
        return a, b

    def test_search_reads_its_own_namespace_unless_asked(self):
        a, b = self.two_folders()
        na, nb = self.ns("a"), self.ns("b")
        for folder, ns in ((a, na), (b, nb)):
            code, _, err = run_script("search.sh", "--dir", folder, "sync", env=pg_env(ns))
            self.assertEqual(code, 0, err)
        code, out, err = run_script("search.sh", "--dir", a, "kyoto", "--json", env=pg_env(na))
        self.assertEqual(code, 0, err)
        self.assertEqual([r["id"] for r in json.loads(out)["results"]], ["memory/2026-02-01.md:1-2"])
        code, out, err = run_script("search.sh", "--dir", a, "kyoto", "--json", "--namespace", "%s,%s" % (na, nb),
                                    env=pg_env(na))
        self.assertEqual(code, 0, err)
        hits = json.loads(out)["results"]
        self.assertEqual(sorted(r["id"] for r in hits), sorted(["memory/2026-02-01.md:1-2",
                                                                 "%s:memory/2026-02-01.md:1-2" % nb]))
        theirs = [r for r in hits if r["id"].startswith(nb + ":")][0]
        self.assertIn("bob", theirs["snippet"])  # its text comes from the index
        code, out, err = run_script("search.sh", "--dir", a, "bobonly", "--json", "--namespace", "all",
                                    env=pg_env(na))
        self.assertEqual([r["id"] for r in json.loads(out)["results"]], ["%s:memory/2026-02-01.md:4-5" % nb])
        code, out, err = run_script("search.sh", "--dir", a, "bobonly", "--json", env=pg_env(na))
        self.assertEqual(json.loads(out)["results"], [])
        # get reads the local folder: alice's own line, never bob's
        code, out, err = run_script("search.sh", "--dir", a, "get", "memory/2026-02-01.md:2", env=pg_env(na))
        self.assertIn("alice", out)

    def test_a_namespace_indexed_before_schema_9_is_read_as_it_was_written(self):
        """Another folder's namespace keeps its old format until that folder
        syncs: its long lines' units are whole (schema 8), and a search
        reading it still scores and shows their pieces as a fresh index does."""
        a, b = self.two_folders()
        with open(os.path.join(b, "memory", "2026-02-02.md"), "w", encoding="utf-8") as f:
            f.write(" ".join("word%d" % i for i in range(400)) + " bobonly temples at dawn\n")
        na, nb = self.ns("a"), self.ns("b")
        self.pg_store(a, na).sync()
        self.pg_store(b, nb).sync()

        def search():
            with mock.patch.dict(os.environ, {"MEMORY_NAMESPACE": na}):
                store = ms.MemoryStore(a, backend="postgres", namespace="%s,%s" % (na, nb))
            self.addCleanup(store.close)
            return [(h.id, h.score, h.snippet) for h in memory_search.search(store, "bobonly temples")]
        fresh = search()
        self.assertTrue(fresh)
        from memsuite.index.blocks import pack_block, unpack_block
        from memsuite.text.tokenizer import text_units
        for file_id, block, data in sql(self.admin, "SELECT b.file, b.block, b.data FROM memsuite_blocks b JOIN "
                                                    "memsuite_files f ON f.id = b.file WHERE f.ns=%s", (nb,)):
            lines, _ = unpack_block(bytes(data))
            sql(self.admin, "UPDATE memsuite_blocks SET data=%s WHERE file=%s AND block=%s",
                (pack_block(lines, [text_units(line) for line in lines]), file_id, block))
        sql(self.admin, "UPDATE memsuite_meta SET value='8' WHERE ns=%s AND key='schema_version'", (nb,))
        self.assertEqual(search(), fresh)

    def test_a_folder_never_replaces_another_folders_namespace(self):
        a, b = self.two_folders()
        na = self.ns("a")
        code, _, err = run_script("search.sh", "--dir", a, "sync", env=pg_env(na))
        self.assertEqual(code, 0, err)
        before = namespace_rows(self.admin, na)
        code, out, err = run_script("search.sh", "--dir", b, "sync", env=pg_env(na))
        self.assertEqual(code, 1, err)
        self.assertIn("choose another --namespace", err)
        self.assertEqual(namespace_rows(self.admin, na), before)
        code, out, err = run_script("search.sh", "--dir", b, "sync", env=pg_env(na, MEMORY_NAMESPACE_TAKEOVER="1"))
        self.assertEqual(code, 0, err)
        self.assertEqual(list(self.pg_store(b, na).known_files()), ["memory/2026-02-01.md"])
        self.assertIn("bob", memory_search.search(self.pg_store(b, na), "kyoto")[0].text)

    def test_candidate_lookup_is_an_index_range_of_the_query_terms(self):
        a, b = self.two_folders()
        na, nb = self.ns("a"), self.ns("b")
        self.pg_store(a, na).sync()
        self.pg_store(b, nb).sync()
        for namespace in (na, "%s,%s" % (na, nb), "all"):
            with mock.patch.dict(os.environ, {"MEMORY_NAMESPACE": na}):
                backend = ms.MemoryStore(a, backend="postgres", namespace=namespace).backend
            self.addCleanup(backend.close)
            for prefix in (False, True):
                statement, args = backend.postings_query("kyoto", prefix)
                backend.q("BEGIN", fetch=False)
                backend.q("SET LOCAL enable_seqscan = off", fetch=False)  # what a big table makes the planner do
                plan = "\n".join(r[0] for r in backend.q("EXPLAIN " + statement, args))
                backend.q("ROLLBACK", fetch=False)
                conds = [line for line in plan.splitlines() if "Index Cond" in line]
                self.assertTrue(conds and "term" in conds[0] and "ns" in conds[0], (namespace, plan))

    def test_damage_of_one_namespace_does_not_touch_another(self):
        a, b = self.two_folders()
        na, nb = self.ns("a"), self.ns("b")
        sa, sb = self.pg_store(a, na), self.pg_store(b, nb)
        sa.sync()
        sb.sync()
        before = namespace_rows(self.admin, nb)
        sql(self.admin, "UPDATE memsuite_blocks SET data = '\\x00ff'::bytea WHERE file IN "
                        "(SELECT id FROM memsuite_files WHERE ns=%s)", (na,))
        warnings = []
        damaged = self.pg_store(a, na, warn=warnings.append)
        memory_search.search(damaged, "kyoto", sync=True)  # finds the damage, rebuilds the namespace
        hits = memory_search.search(damaged, "kyoto", sync=True)
        self.assertEqual([h.id for h in hits], ["memory/2026-02-01.md:1-2"])
        self.assertIn("alice", hits[0].text)
        self.assertTrue(any("damaged" in w and na in w for w in warnings), warnings)
        self.assertEqual(namespace_rows(self.admin, nb), before)
        self.assertEqual([h.id for h in memory_search.search(sb, "kyoto")], ["memory/2026-02-01.md:1-2"])

    def test_a_reader_of_all_skips_another_namespaces_damage(self):
        a, b = self.two_folders()
        na, nb = self.ns("a"), self.ns("b")
        self.pg_store(b, nb).sync()
        sa = self.pg_store(a, na)
        sa.sync()
        sql(self.admin, "UPDATE memsuite_blocks SET data = '\\x00ff'::bytea WHERE file IN "
                        "(SELECT id FROM memsuite_files WHERE ns=%s)", (nb,))
        before = namespace_rows(self.admin, nb)
        warnings = []
        with mock.patch.dict(os.environ, {"MEMORY_NAMESPACE": na}):  # the folder's own, read with another
            reader = ms.MemoryStore(a, backend="postgres", namespace="%s,%s" % (na, nb), warn=warnings.append)
        self.addCleanup(reader.close)
        hits = memory_search.search(reader, "kyoto")
        self.assertEqual([h.id for h in hits], ["memory/2026-02-01.md:1-2"])
        self.assertTrue(any(nb in w for w in warnings), warnings)
        self.assertEqual(namespace_rows(self.admin, nb), before)  # only its own folder rebuilds it

    def test_readers_and_other_namespaces_are_not_blocked_by_a_writer(self):
        a, b = self.two_folders()
        na, nb = self.ns("a"), self.ns("b")
        sa = self.pg_store(a, na)
        sa.sync()
        holder = admin()
        self.addCleanup(holder.close)
        sql(holder, "BEGIN")
        from memsuite.index.postgres.schema import LOCK_SPACE
        sql(holder, "SELECT pg_advisory_xact_lock(%s::int, hashtext(%s))", (LOCK_SPACE, na))  # a writer of na
        started = time.time()
        self.assertEqual(len(memory_search.search(sa, "kyoto")), 1)  # a reader of na
        sb = self.pg_store(b, nb)
        sb.sync()  # a writer of nb
        self.assertLess(time.time() - started, 5)
        self.assertEqual(len(memory_search.search(sb, "kyoto")), 1)
        done = []
        with open(os.path.join(a, "memory", "2026-02-02.md"), "w") as f:
            f.write("# 2026-02-02\nwaiting note\n")
        t = threading.Thread(target=lambda: done.append(self.pg_store(a, na).sync()))
        t.start()
        time.sleep(1.0)
        self.assertEqual(done, [])  # a second writer of na waits for the lock...
        sql(holder, "ROLLBACK")
        t.join(30)
        self.assertEqual(done[0].added, ["memory/2026-02-02.md"])  # ...and then goes on


class ConcurrencyTest(PostgresCase):
    def test_two_processes_sync_different_namespaces_at_once(self):
        folders, names = [], []
        for i in range(2):
            folder = os.path.join(self.tmp, "f%d" % i)
            make_corpus(folder, files=25, lines=40, seed=i, marker="m%d_" % i)
            folders.append(folder)
            names.append(self.ns("c%d" % i))
        procs = [subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", f, "sync"], env=pg_env(n),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for f, n in zip(folders, names)]
        for p in procs:
            out, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        for i, (folder, ns) in enumerate(zip(folders, names)):
            s = self.pg_store(folder, ns)
            self.assertEqual(len(s.known_files()), 25)
            hits = memory_search.search(s, "m%d_3_7" % i)
            self.assertEqual(hits[0].path, "memory/2026-01-04-3.md")
            other = memory_search.search(s, "m%d_3_7" % (1 - i))
            self.assertEqual(other, [])

    def test_a_killed_sync_leaves_the_namespace_as_it_was(self):
        make_corpus(self.dir, files=5, lines=10)
        ns = self.ns("kill")
        s = self.pg_store(ns=ns)
        s.sync()
        before = namespace_rows(self.admin, ns)
        make_corpus(self.dir, files=80, lines=80, seed=9, marker="late")  # rewrites the 5, adds 75
        proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", self.dir, "sync"], env=pg_env(ns),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from memsuite.index.postgres.schema import LOCK_SPACE
        deadline, wrote = time.time() + 60, False
        while time.time() < deadline and proc.poll() is None:
            # the sync holds the namespace's lock and has written rows in its transaction
            rows = sql(self.admin, "SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                                   "WHERE l.locktype='advisory' AND l.classid=%s::int::oid AND "
                                   "l.objid=hashtext(%s)::oid AND a.backend_xid IS NOT NULL",
                       (LOCK_SPACE, ns))
            if rows:
                time.sleep(0.3)
                wrote = True
                break
            time.sleep(0.02)
        self.assertTrue(wrote and proc.poll() is None, "the sync ended before it could be killed")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        for _ in range(100):  # the server notices the closed connection and rolls back
            if not sql(self.admin, "SELECT 1 FROM pg_locks WHERE locktype='advisory' AND objid=hashtext(%s)::oid",
                       (ns,)):
                break
            time.sleep(0.05)
        self.assertEqual(namespace_rows(self.admin, ns), before)
        report = self.pg_store(ns=ns).sync()  # and the next sync completes it
        self.assertEqual(len(report.added) + len(report.updated), 80)


class _CuttingProxy:
    """A TCP proxy to the test server that drops both sides once the client
    sends a statement naming `trigger` (the server 'goes away' mid-query)."""

    def __init__(self, trigger):
        from memsuite.index.postgres import backend as postgres
        _, kw, _ = postgres.dsn_settings()
        self.target = postgres.pg8000_args(kw)
        self.trigger = trigger
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        self.cut = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _upstream(self):
        if "unix_sock" in self.target:
            s = socket.socket(socket.AF_UNIX)
            s.connect(self.target["unix_sock"])
        else:
            s = socket.create_connection((self.target["host"], self.target["port"]))
        return s

    def _serve(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = self._upstream()
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src, dst, watch):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if watch and self.trigger in data:
                    self.cut.set()
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def close(self):
        self.listener.close()


class ServerGoesAwayTest(PostgresCase):
    def test_a_server_gone_mid_query_is_one_line_exit_1_and_nothing_lost(self):
        self.copy_examples()
        ns = self.ns("gone")
        code, want, err = run_script("search.sh", "--dir", self.dir, "kyoto", "--json", env=pg_env(ns))
        self.assertEqual(code, 0, err)
        before = namespace_rows(self.admin, ns)
        proxy = _CuttingProxy(b"memsuite_postings")
        self.addCleanup(proxy.close)
        dsn = "host=127.0.0.1 port=%d user=%s dbname=%s password=%s" % (
            proxy.port, proxy.target["user"], proxy.target["database"], SECRET)
        for args in (["kyoto"], ["kyoto", "--json"]):
            code, out, err = run_script("search.sh", "--dir", self.dir, *args, env=pg_env(ns, dsn=dsn))
            self.assertTrue(proxy.cut.is_set())
            self.assertEqual(code, 1, (out, err))
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertIn("PostgreSQL", err)
            self.assertNotIn("Traceback", err)
            self.assertNotIn(SECRET, out + err)
            proxy.cut.clear()
        self.assertIn('"error"', out)
        self.assertEqual(namespace_rows(self.admin, ns), before)  # nothing lost
        code, again, err = run_script("search.sh", "--dir", self.dir, "kyoto", "--json", env=pg_env(ns))
        self.assertEqual(again, want)

    def test_a_sync_cut_mid_write_leaves_the_namespace_as_it_was(self):
        self.copy_examples()
        ns = self.ns("cutw")
        s = self.pg_store(ns=ns)
        s.sync()
        before = namespace_rows(self.admin, ns)
        self.write("memory/2026-09-09.md", "# 2026-09-09\nfresh note about kyoto\n")
        proxy = _CuttingProxy(b"COPY memsuite_postings")
        self.addCleanup(proxy.close)
        dsn = "host=127.0.0.1 port=%d user=%s dbname=%s" % (proxy.port, proxy.target["user"], proxy.target["database"])
        code, out, err = run_script("search.sh", "--dir", self.dir, "sync", env=pg_env(ns, dsn=dsn))
        self.assertEqual(code, 1, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        for _ in range(100):
            if namespace_rows(self.admin, ns) == before:
                break
            time.sleep(0.05)
        self.assertEqual(namespace_rows(self.admin, ns), before)
        self.assertEqual(self.pg_store(ns=ns).sync().added, ["memory/2026-09-09.md"])


if __name__ == "__main__":
    unittest.main()
