#!/usr/bin/env python3
"""The PostgreSQL backend against SQLite, in one run (issue 20).

    MEMORY_PG_DSN="host=/tmp/pg user=postgres dbname=postgres" \\
    PYTHONPATH=/tmp/pgvenv/lib/python3.11/site-packages \\
        /usr/bin/python3 bench/postgres.py --mb 50 --seconds 60

A bench folder (bench/corpus.py) of --mb megabytes is split into two folders,
each its own namespace on the server (each its own index for SQLite).  For
both backends: build rate (a full `search.sh sync` of each folder), warm
query median through the MCP server, cold CLI query median, a one-file
update (append a line, `search.sh sync`), and the index size (the database's
memsuite tables; the SQLite files).  Then top-5 agreement on
../shared/eval-data (each corpus indexed by both, every question searched).
Then four writers (two per namespace, `search.sh add`) and eight searchers
(`--namespace all`) for --seconds: errors, and notes not found afterwards.

Runs in a fresh database (created, then dropped) on the server MEMORY_PG_DSN
names; the driver (psycopg or pg8000) must be importable by --python.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import corpus  # noqa: E402
import memory_search  # noqa: E402
import memory_store  # noqa: E402

SEARCH_SH = os.path.join(ROOT, "search.sh")
QUERIES = ["what did Caroline research", "adoption agencies", "Melanie painting sunrise", "camping trip",
           "LGBTQ support group", "pottery class", "北京大学", "长江", "诺贝尔奖", "唐朝 皇帝",
           "足球 比赛", "音乐 专辑"]


def median(values):
    return statistics.median(values) if values else float("nan")


def with_db(dsn, db):
    if dsn.startswith(("postgres://", "postgresql://")):
        from urllib.parse import urlsplit, urlunsplit
        p = urlsplit(dsn)
        return urlunsplit((p.scheme, p.netloc, "/" + db, p.query, p.fragment))
    return (dsn + " dbname=%s" % db).strip()


def admin_connect(dsn):
    os.environ["MEMORY_PG_DSN"] = dsn
    from memsuite.index.postgres import backend as postgres
    driver = postgres.load_driver()
    _, kw, _ = postgres.dsn_settings()
    if driver.name.startswith("psycopg"):
        return driver.module.connect(dsn, autocommit=True)
    conn = driver.module.connect(**postgres.pg8000_args(kw))
    conn.autocommit = True
    return conn


def run(argv, env, check=True):
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if check and proc.returncode != 0:
        raise SystemExit("failed: %s\n%s" % (" ".join(argv), proc.stderr.decode(errors="replace")[-600:]))
    return seconds, proc


def folder_bytes(folder):
    return sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(folder) for n in ns
               if n.endswith(".md") and ".memory" not in d)


def split_folder(src, a, b):
    """Every other daily log to a, the rest to b."""
    names = sorted(os.listdir(os.path.join(src, "memory")))
    for folder in (a, b):
        os.makedirs(os.path.join(folder, "memory"))
    for i, name in enumerate(names):
        shutil.move(os.path.join(src, "memory", name), os.path.join(a if i % 2 == 0 else b, "memory", name))


def envs(args, tmp, dsn):
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    base.update(MEMORY_PYTHON=args.python, NO_COLOR="1")
    out = {}
    for backend in ("sqlite", "postgres"):
        for name in ("a", "b"):
            env = dict(base, MEMORY_BACKEND=backend)
            if backend == "postgres":
                env.update(MEMORY_PG_DSN=dsn, MEMORY_NAMESPACE="bench-" + name)
            else:
                env["MEMORY_INDEX_DIR"] = os.path.join(tmp, "sqlite-index-" + name)
            out[(backend, name)] = env
    return out


class Mcp:
    def __init__(self, folder, env, extra=()):
        self.proc = subprocess.Popen([SEARCH_SH, "--dir", folder, "mcp"] + list(extra), env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.n = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench-postgres", "version": "1"}})
        self.proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')

    def call(self, method, params):
        self.n += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method,
                                          "params": params}).encode() + b"\n")
        response = json.loads(self.proc.stdout.readline())
        assert "result" in response and not response["result"].get("isError"), response
        return response["result"]

    def search(self, query):
        start = time.perf_counter()
        self.call("tools/call", {"name": "memory_search", "arguments": {"query": query}})
        return time.perf_counter() - start

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def speed(args, folders, env_of, conn, tmp):
    rows = {}
    for backend in ("sqlite", "postgres"):
        r = {}
        build = 0.0
        for name in ("a", "b"):
            seconds, _ = run([SEARCH_SH, "--dir", folders[name], "sync"], env_of[(backend, name)])
            build += seconds
        total = sum(folder_bytes(f) for f in folders.values())
        r["build_s"] = build
        r["build_mb_s"] = total / 1048576.0 / build
        env = env_of[(backend, "a")]
        mcp = Mcp(folders["a"], env)
        mcp.search(QUERIES[0])
        warm = [mcp.search(q) for _ in range(args.runs) for q in QUERIES]
        mcp.close()
        r["warm_ms"] = median(warm) * 1000
        if backend == "postgres":  # reading both namespaces at once (SQLite has no such thing)
            mcp = Mcp(folders["a"], env, ["--namespace", "all"])
            mcp.search(QUERIES[0])
            r["warm_all_ms"] = median([mcp.search(q) for _ in range(args.runs) for q in QUERIES]) * 1000
            mcp.close()
        cold = [run([SEARCH_SH, "--dir", folders["a"], q], env)[0] for _ in range(args.runs) for q in QUERIES[:6]]
        r["cold_ms"] = median(cold) * 1000
        updates = []
        target = os.path.join(folders["a"], "memory", sorted(os.listdir(os.path.join(folders["a"], "memory")))[3])
        for i in range(args.runs):
            with open(target, "a", encoding="utf-8") as f:
                f.write("\n- bench update %s %d\n" % (backend, i))
            updates.append(run([SEARCH_SH, "--dir", folders["a"], "sync"], env)[0])
        r["update_ms"] = median(updates) * 1000
        if backend == "sqlite":
            r["bytes"] = sum(os.path.getsize(os.path.join(d, n)) for name in ("a", "b")
                             for d, _, ns in os.walk(os.path.join(tmp, "sqlite-index-" + name)) for n in ns
                             if n.startswith("index.sqlite3"))
        else:
            cur = conn.cursor()
            cur.execute("SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE left(relname, 9) = 'memsuite_' "
                        "AND relkind IN ('r', 'S')")
            r["bytes"] = int(cur.fetchone()[0])
            cur.close()
        rows[backend] = r
        print("  %s: %s" % (backend, r), file=sys.stderr)
    return rows


def agreement(args, dsn, tmp):
    """(questions, identical top-5 id lists, per data set) on ../shared/eval-data."""
    import quality
    os.environ["MEMORY_PG_DSN"] = dsn
    out = {}
    for name in args.eval_sets.split(","):
        questions = quality.load_questions(args.data, name)[:args.limit_questions]
        same = total = 0
        for root, qs in quality.corpus_roots(args.data, name, questions).items():
            folder = quality.copy_corpus(root, tempfile.mkdtemp(dir=tmp))
            os.environ["MEMORY_NAMESPACE"] = "eval-%s-%d" % (name, total)
            stores = [memory_store.MemoryStore(folder, backend=b, index_dir=os.path.join(folder, ".memory"))
                      if b == "sqlite" else memory_store.MemoryStore(folder, backend=b) for b in ("sqlite", "postgres")]
            for s in stores:
                s.sync()
            for q in qs:
                ids = [[h.id for h in memory_search.search(s, q["query"], limit=5)] for s in stores]
                same += ids[0] == ids[1]
                total += 1
            for s in stores:
                s.close()
        out[name] = (total, same)
        print("  top-5 %s: %d of %d identical" % (name, same, total), file=sys.stderr)
    return out


def hammer(args, folders, env_of):
    """Four writers (two per namespace) and eight searchers for args.seconds."""
    stop = time.time() + args.seconds
    errors, added, searches = [], [], [0]
    lock = threading.Lock()

    def writer(n):
        name = "ab"[n % 2]
        env = env_of[("postgres", name)]
        i = 0
        while time.time() < stop:
            token = "zqnote%dx%d" % (n, i)
            _, proc = run([SEARCH_SH, "--dir", folders[name], "add", "hammer note " + token,
                           "--file", "memory/live-%d.md" % n], env, check=False)
            _, sync = run([SEARCH_SH, "--dir", folders[name], "sync"], env, check=False)
            with lock:
                if proc.returncode or sync.returncode:
                    errors.append("writer %d: %s" % (n, (proc.stderr + sync.stderr).decode(errors="replace")[-300:]))
                else:
                    added.append((name, token))
            i += 1

    def searcher(n):
        rng = random.Random(n)
        name = "ab"[n % 2]
        env = env_of[("postgres", name)]
        while time.time() < stop:
            q = rng.choice(QUERIES + ["hammer note"])
            _, proc = run([SEARCH_SH, "--dir", folders[name], q, "--json", "--namespace", "all"], env, check=False)
            with lock:
                searches[0] += 1
                try:
                    assert proc.returncode == 0
                    json.loads(proc.stdout)
                except Exception:
                    errors.append("searcher %d: %s" % (n, proc.stderr.decode(errors="replace")[-300:]))

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    threads += [threading.Thread(target=searcher, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lost = []
    for name in ("a", "b"):
        env = env_of[("postgres", name)]
        run([SEARCH_SH, "--dir", folders[name], "sync"], env)
        for folder_name, token in added:
            if folder_name != name:
                continue
            _, proc = run([SEARCH_SH, "--dir", folders[name], token, "--json", "--min-score", "0"], env)
            if not any(token in r["snippet"] for r in json.loads(proc.stdout)["results"]):
                lost.append(token)
    return {"seconds": args.seconds, "notes_added": len(added), "searches": searches[0], "errors": errors,
            "lost": lost}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--python", default="/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--data", default=corpus.DEFAULT_DATA)
    ap.add_argument("--eval-sets", default="locomo,cmrc2018,memdaily")
    ap.add_argument("--limit-questions", type=int, default=300)
    ap.add_argument("--skip", default="", help="comma list of parts to skip: speed,agree,hammer")
    args = ap.parse_args(argv)
    dsn = os.environ.get("MEMORY_PG_DSN", "")
    if not dsn:
        raise SystemExit("set MEMORY_PG_DSN to a server where a database may be created")
    skip = set(args.skip.split(","))
    conn = admin_connect(dsn)
    db = "memsuite_bench_%d" % os.getpid()
    cur = conn.cursor()
    cur.execute("CREATE DATABASE " + db + " ENCODING 'UTF8' TEMPLATE template0")
    cur.close()
    bench_dsn = with_db(dsn, db)
    tmp = tempfile.mkdtemp(prefix="bench-pg-")
    report = {"mb": args.mb, "python": args.python, "corpus": {"bytes": 0}}
    try:
        db_conn = admin_connect(bench_dsn)
        src = os.path.join(tmp, "src")
        files, size = corpus.generate(src, args.mb, args.data)
        folders = {"a": os.path.join(tmp, "a"), "b": os.path.join(tmp, "b")}
        split_folder(src, folders["a"], folders["b"])
        report["corpus"] = {"files": files, "bytes": size}
        print("corpus: %d files, %.1f MB, split in two" % (files, size / 1048576.0), file=sys.stderr)
        env_of = envs(args, tmp, bench_dsn)
        if "speed" not in skip:
            report["speed"] = speed(args, folders, env_of, db_conn, tmp)
        if "agree" not in skip:
            report["agreement"] = agreement(args, bench_dsn, tmp)
        if "hammer" not in skip:
            if "speed" in skip:  # the namespaces exist before the writers start
                for name in ("a", "b"):
                    run([SEARCH_SH, "--dir", folders[name], "sync"], env_of[("postgres", name)])
            report["hammer"] = hammer(args, folders, env_of)
        db_conn.close()
    finally:
        shutil.rmtree(tmp, True)
        cur = conn.cursor()
        cur.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)")
        cur.close()
        conn.close()
    print_report(report)


def print_report(report):
    print("PostgreSQL vs SQLite, %.1f MB in two namespaces (%s)" % (report["corpus"]["bytes"] / 1048576.0,
                                                                   report["python"]))
    speed = report.get("speed")
    if speed:
        print("\n| | SQLite | PostgreSQL |\n|---|---|---|")
        for key, label, fmt in (("build_mb_s", "build rate (MB/s)", "%.2f"), ("build_s", "build, both folders (s)", "%.1f"),
                                ("warm_ms", "warm query, MCP (ms, median)", "%.1f"),
                                ("warm_all_ms", "warm query, MCP, --namespace all (ms)", "%.1f"),
                                ("cold_ms", "cold CLI query (ms, median)", "%.0f"),
                                ("update_ms", "1-file update, sync (ms, median)", "%.0f"),
                                ("bytes", "index size (MB)", None)):
            vals = [speed[b].get(key) for b in ("sqlite", "postgres")]
            cells = ["-" if v is None else "%.1f" % (v / 1048576.0) if fmt is None else fmt % v for v in vals]
            print("| %s | %s | %s |" % (label, cells[0], cells[1]))
    for name, (total, same) in (report.get("agreement") or {}).items():
        print("top-5 identical on %s: %d of %d questions" % (name, same, total))
    h = report.get("hammer")
    if h:
        print("4 writers + 8 searchers for %gs: %d notes added, %d searches, %d errors, %d lost"
              % (h["seconds"], h["notes_added"], h["searches"], len(h["errors"]), len(h["lost"])))
        for e in h["errors"][:5]:
            print("  error: %s" % " ".join(e.split()))


if __name__ == "__main__":
    main()
