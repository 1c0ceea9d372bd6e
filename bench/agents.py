#!/usr/bin/env python3
"""The agent-facing paths of the suite: start-up, watch, MCP, concurrent
writes, the tokens an agent reads, and the JSON backend, printed as
Markdown tables.

    python3 bench/agents.py            # everything (about 8 minutes on 2 cores)
    python3 bench/agents.py --quick    # smaller folders, fewer runs, 15 s of watching

What it measures:
  1. start-up   cold `search.sh --dir F QUERY --json` on examples/memory with
                the bytecode cache usable, with PYTHONDONTWRITEBYTECODE=1, and
                from a read-only copy of the suite (bytecode then goes to
                ~/.cache/memory-suite/pycache; a fresh HOME makes the first
                run cold), each beside a bare interpreter
  2. watch      CPU an idle `search.sh watch --quiet` uses (utime + stime
                of its python process) on a 5 MB folder and on ~10,000 small
                files, and the cold query there without and with a watcher
  3. MCP        spawn-to-initialize time of `search.sh mcp` and the round
                trip of memory_search calls, beside the CLI cold query
  4. writes     8 processes each running `search.sh add` 50 times at once,
                beside a loop of searches; every note must be in the
                Markdown exactly once, whole, where `add` said it put it
  5. tokens     estimated tokens (memory_search.estimate_tokens) of each
                output form for ~50 eval questions, English and Chinese
  6. backend    cold query on a 1 MB folder, MEMORY_BACKEND=json vs sqlite

The suite's files are copied once at the start (the measured code does not
change while others edit the repository).  Whole-process timings run one
fixed interpreter (--python; default /usr/bin/python3) without
PYTHONDONTWRITEBYTECODE (most machines do not set it) and without MEMORY_*
settings; medians of --runs runs, the compared ways interleaved so that a
noisy machine slows them alike.  Folders are generated from ../shared/eval-data
(bench/corpus.py).  Standard library only.
"""
import argparse
import contextlib
import glob
import io
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import corpus  # noqa: E402  (memory_search and quality are imported from the snapshot: load_suite)

SUITE_GLOBS = ("memory_*.py", "*.sh")
SUITE_DIRS = ("data", "memsuite")
EXAMPLES = os.path.join(ROOT, "examples", "memory")
EXAMPLE_QUERIES = ["博客RSS配置", "RSS duplicate items", "十三香小龙虾", "OpenClaw"]
NOBODY = 65534
START = time.time()
ms = mstore = quality = None  # the snapshot's memory_search, memory_store and bench/quality


# --------------------------------------------------------------------------
# Environment, the suite's snapshot, timing
# --------------------------------------------------------------------------

def default_python():
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def clean_env(python, **extra):
    """The environment of a timed command: no MEMORY_* settings, bytecode caching on."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMORY_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["MEMORY_PYTHON"] = python
    env.update(extra)
    return env


def copy_suite(dest):
    """The suite's own files (memory_*.py, *.sh, data/, memsuite/) copied to dest, without bytecode."""
    os.makedirs(dest)
    for pattern in SUITE_GLOBS:
        for path in glob.glob(os.path.join(ROOT, pattern)):
            shutil.copy2(path, dest)
    for name in SUITE_DIRS:
        shutil.copytree(os.path.join(ROOT, name), os.path.join(dest, name),
                        ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def load_suite(snapshot):
    """Import memory_search, memory_store and bench/quality from the snapshot."""
    global ms, mstore, quality
    sys.path.insert(0, snapshot)
    sys.dont_write_bytecode = True  # keep the snapshot free of this process's bytecode
    import memory_search
    import memory_store
    import quality as quality_mod  # finds the snapshot's modules already imported
    sys.path.insert(0, snapshot)  # quality put the repository first: lazy imports come from the snapshot too
    ms, mstore, quality = memory_search, memory_store, quality_mod


def suite_state():
    """The commit measured, and the suite files changed since it."""
    def git(*args):
        proc = subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True, text=True)
        return proc.stdout.strip() if proc.returncode == 0 else ""
    dirty = [l[3:] for l in git("status", "--porcelain").splitlines()
             if l[3:].startswith("memory_") or l[3:].endswith(".sh")]
    return git("rev-parse", "--short", "HEAD") or "?", dirty


def as_user(user):
    return {} if user is None else {"user": user, "group": user, "extra_groups": []}


# A small parent times the command: a child's peak RSS counts the memory of
# the process it was spawned from, and this one holds the suite and its data.
MEASURE = ("import resource, subprocess, sys, time\n"
           "t = time.perf_counter()\n"
           "p = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
           "d = time.perf_counter() - t\n"
           "sys.stderr.write(p.stderr.decode(errors='replace')[-800:])\n"
           "print(p.returncode, d, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
MEASURER = [default_python()]  # the interpreter of that parent: --python (user nobody can run it)


def run_timed(argv, env, user=None):
    """(seconds, peak RSS in MiB) of one command; its output is thrown away."""
    proc = subprocess.run([MEASURER[0], "-S", "-c", MEASURE] + argv, env=env, capture_output=True, text=True,
                          **as_user(user))
    try:
        code, seconds, rss = proc.stdout.split()
    except ValueError:
        code, seconds, rss = "?", 0, 0
    if code != "0":
        raise SystemExit("failed (%s): %s\n%s" % (code, " ".join(argv), proc.stderr[-800:]))
    return float(seconds), int(rss) / 1024.0


def run_output(argv, env):
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (proc.returncode, " ".join(argv), proc.stderr[-800:]))
    return proc.stdout


def ms_(seconds):
    return "%.0f ms" % (seconds * 1000)


def median(values):
    return statistics.median(values) if values else float("nan")


def cold_queries(search_sh, folder, queries, env, runs):
    """Seconds of every cold `search.sh --dir folder QUERY --json` (runs per query)."""
    return [run_timed([search_sh, "--dir", folder, q, "--json"], env)[0] for _ in range(runs) for q in queries]


def eval_queries(data, count, seed=7):
    """count questions, half LoCoMo (English), half CMRC (Chinese): [(language, query, corpus root)]."""
    rng = random.Random(seed)
    picked = []
    for name, language in (("locomo", "English"), ("cmrc2018", "Chinese")):
        qs = [q for q in quality.load_questions(data, name) if q["query"].strip()]
        for q in rng.sample(qs, count // 2):
            root = os.path.normpath(os.path.join(quality.dataset_dir(data, name), q["corpus"]))
            picked.append((language, q["query"], root))
    return picked


# --------------------------------------------------------------------------
# Folders
# --------------------------------------------------------------------------

def copy_folder(src, dest):
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(".memory", "questions.jsonl", "entities.json"))
    return dest


def many_small_files(folder, count, data, kb=5, per_day=4, seed=2):
    """count dated notes of ~kb KB in memory/YYYY/YYYY-MM-DD-N.md, per_day a day,
    the newest yesterday, each file's modification time its own date (as an
    old folder has); (files, bytes)."""
    rng = random.Random(seed)
    sections = corpus.source_sections(data)
    day = time.time() - 86400
    written = 0
    for i in range(count):
        stamp = day - (i // per_day) * 86400
        date = time.strftime("%Y-%m-%d", time.localtime(stamp))
        path = os.path.join(folder, "memory", date[:4], "%s-%d.md" % (date, i % per_day + 1))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        parts, size = ["# %s\n" % date], 0
        while size < kb * 1024:
            title, lines = rng.choice(sections)
            parts.append("\n## %s\n%s\n" % (title, "\n".join(lines)))
            size += len(parts[-1].encode("utf-8"))
        text = "".join(parts)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.utime(path, (stamp, stamp))
        written += len(text.encode("utf-8"))
    return count, written


def backdate(folder):
    """Each dated Markdown file's modification time set to noon of its date."""
    for path in glob.glob(os.path.join(folder, "**", "*.md"), recursive=True):
        date = mstore.file_date(os.path.relpath(path, folder).replace(os.sep, "/"))
        if date:
            stamp = time.mktime(time.strptime(date + " 12", "%Y-%m-%d %H"))
            os.utime(path, (stamp, stamp))


def touch_all(folder):
    """Every Markdown file modified now (a fresh copy or checkout looks so)."""
    now = time.time()
    for path in glob.glob(os.path.join(folder, "**", "*.md"), recursive=True):
        os.utime(path, (now, now))


def sync(search_sh, folder, env):
    return run_timed([search_sh, "--dir", folder, "sync"], env)[0]


def folder_size(folder):
    files = [p for p in glob.glob(os.path.join(folder, "**", "*.md"), recursive=True)]
    return len(files), sum(os.path.getsize(p) for p in files)


# --------------------------------------------------------------------------
# 1. Start-up
# --------------------------------------------------------------------------

def pyc_count(folder):
    return len(glob.glob(os.path.join(folder, "**", "*.pyc"), recursive=True))


def make_read_only(folder):
    for dirpath, _, names in os.walk(folder):
        for name in names:
            os.chmod(os.path.join(dirpath, name), 0o555 if name.endswith(".sh") else 0o444)
        os.chmod(dirpath, 0o555)


def make_writable(folder):
    for dirpath, _, names in os.walk(folder):
        os.chmod(dirpath, 0o755)
        for name in names:
            os.chmod(os.path.join(dirpath, name), 0o644)


def chown_tree(folder, user):
    for dirpath, _, names in os.walk(folder):
        os.chown(dirpath, user, user)
        for name in names:
            os.chown(os.path.join(dirpath, name), user, user)


def startup_ways(tmp, python, index_sh):
    """[(label, search.sh, memory folder, env, user, suite copy, home)] of the three ways."""
    ways = []
    user = NOBODY if os.geteuid() == 0 else None  # root writes anywhere: run the read-only way as nobody
    for label, extra, read_only in (("bytecode cache usable (normal)", {}, False),
                                    ("PYTHONDONTWRITEBYTECODE=1", {"PYTHONDONTWRITEBYTECODE": "1"}, False),
                                    ("suite folder read-only", {}, True)):
        base = os.path.join(tmp, "startup-%d" % len(ways))
        suite, home = copy_suite(os.path.join(base, "suite")), os.path.join(base, "home")
        os.makedirs(home)
        folder = copy_folder(EXAMPLES, os.path.join(base, "memory"))
        env = clean_env(python, HOME=home, **extra)
        env.pop("XDG_CACHE_HOME", None)
        sync(index_sh, folder, clean_env(python))  # by the snapshot: no bytecode lands in this way's copy or HOME
        way_user = None
        if read_only:
            make_read_only(suite)
            if user is not None:
                os.chmod(tmp, 0o755)
                os.chmod(base, 0o755)
                chown_tree(home, user)
                chown_tree(folder, user)
                way_user = user
        ways.append((label, os.path.join(suite, "search.sh"), folder, env, way_user, suite, home))
    return ways


def startup_section(tmp, python, index_sh, runs):
    print("## 1. Start-up: a cold query on examples/memory\n")
    ways = startup_ways(tmp, python, index_sh)
    bare = clean_env(python)
    baselines = [("`python -S -c pass`", [python, "-S", "-c", "pass"]),
                 ("`python -c \"import sqlite3, json, re, argparse\"`",
                  [python, "-c", "import sqlite3, json, re, argparse"])]
    first = {w[0]: run_timed([w[1], "--dir", w[2], EXAMPLE_QUERIES[0], "--json"], w[3], w[4])[0] for w in ways}
    later = {label: [] for label, *_ in ways}
    base_times = {label: [] for label, _ in baselines}
    for i in range(runs * 2):
        q = EXAMPLE_QUERIES[i % len(EXAMPLE_QUERIES)]
        for label, search_sh, folder, env, user, *_ in ways:
            later[label].append(run_timed([search_sh, "--dir", folder, q, "--json"], env, user)[0])
        for label, argv in baselines:
            base_times[label].append(run_timed(argv, bare)[0])
    bare_s, imports_s = (median(base_times[label]) for label, _ in baselines)
    print("`search.sh --dir F QUERY --json` as a new process, %s; first run with an empty bytecode cache "
          "(a fresh copy of the suite and a fresh HOME), then the median of %d later runs, interleaved "
          "with the bare interpreter.%s\n" % (python, runs * 2, " The read-only way runs as user nobody "
                                              "(root may write anywhere)." if os.geteuid() == 0 else ""))
    print("| way | first run | later runs (median) | over `-S -c pass` | ÷ python + imports | .pyc beside suite | .pyc in ~/.cache |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, _, _, _, _, suite, home in ways:
        t = median(later[label])
        print("| %s | %s | %s | +%s | %.1fx | %d | %d |" % (
            label, ms_(first[label]), ms_(t), ms_(t - bare_s), t / imports_s, pyc_count(suite),
            pyc_count(os.path.join(home, ".cache"))))
    for label, _ in baselines:
        print("| bare: %s | | %s | | | | |" % (label, ms_(median(base_times[label]))))
    print()
    for *_, suite, _ in ways:
        make_writable(suite)


# --------------------------------------------------------------------------
# 2. Watch
# --------------------------------------------------------------------------

def cpu_seconds(pid):
    """utime + stime of a process, in seconds (from /proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def python_pid(pid):
    """pid itself if it runs python (the wrapper execs it), else its python child."""
    for candidate in [pid] + children(pid):
        try:
            if "python" in os.path.basename(os.readlink("/proc/%d/exe" % candidate)):
                return candidate
        except OSError:
            continue
    raise SystemExit("no python process under the watcher's pid %d" % pid)


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def heartbeat(folder):
    try:
        with open(os.path.join(folder, ".memory", "watch.heartbeat")) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class Watcher:
    """A running `search.sh --dir F watch --quiet`, stopped on exit."""

    def __init__(self, search_sh, folder, env):
        self.folder = folder
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([search_sh, "--dir", folder, "watch", "--quiet"], env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)

    def __enter__(self):
        deadline = time.time() + 900
        while heartbeat(self.folder) is None:  # its first check of the folder is done
            if self.proc.poll() is not None or time.time() > deadline:
                self.log.seek(0)
                raise SystemExit("the watcher did not start: %s" % self.log.read().decode(errors="replace"))
            time.sleep(0.05)
        self.pid = python_pid(self.proc.pid)
        self.execs = self.pid == self.proc.pid
        self.beats_own_pid = heartbeat(self.folder) == self.pid
        return self

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.clean_exit = self.proc.returncode == 0 and heartbeat(self.folder) is None
        self.log.close()


def idle_cpu(watcher, seconds):
    """(CPU seconds over the window, busiest second's CPU, RSS MiB at the end)."""
    pid = watcher.pid
    start = last = cpu_seconds(pid)
    busiest = 0.0
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(min(1.0, max(0.0, end - time.time())))
        now = cpu_seconds(pid)
        busiest, last = max(busiest, now - last), now
    return last - start, busiest, rss_mib(pid)


def watch_folder(search_sh, folder, env, queries, runs, seconds, touched=False):
    """CPU of an idle watcher on folder, and cold queries without and with one."""
    build = sync(search_sh, folder, env)  # a full build, or (second time round) a no-change sync
    if touched:
        touch_all(folder)
        build = sync(search_sh, folder, env)
    without = [] if touched else cold_queries(search_sh, folder, queries, env, runs)
    with Watcher(search_sh, folder, env) as w:
        cpu, busiest, rss = idle_cpu(w, seconds)
        with_w = [] if touched else cold_queries(search_sh, folder, queries, env, runs)
    if not touched:
        without += cold_queries(search_sh, folder, queries, env, runs)  # before and after: noise alike
    files, size = folder_size(folder)
    return {"files": files, "mb": size / 1048576.0, "build": build, "cpu": cpu, "busiest": busiest,
            "rss": rss, "without": median(without), "with": median(with_w), "execs": w.execs,
            "beat": w.beats_own_pid, "clean": w.clean_exit}


def watch_folders(tmp, data, mb, count):
    """[(label, folder, touched)]: daily logs of mb MB, and count small files (twice)."""
    five = os.path.join(tmp, "watch-%gmb" % mb)
    corpus.generate(five, mb, data)
    backdate(five)
    many = os.path.join(tmp, "watch-many")
    many_small_files(many, count, data)
    return [("%g MB of 10-KB daily logs, old modification times" % mb, five, False),
            ("%d small files, old modification times" % count, many, False),
            ("the same, every file modified today", many, True)]


def watch_section(tmp, search_sh, data, env, queries, runs, seconds, sizes):
    print("## 2. Watch: an idle watcher's CPU, and the query it saves\n")
    folders = watch_folders(tmp, data, *sizes)
    results = []
    for label, folder, touched in folders:
        results.append((label, watch_folder(search_sh, folder, env, queries, runs, seconds, touched)))
        sys.stderr.write("agents: watched %s\n" % label)
    print_watch(results, seconds, runs * len(queries))
    return folders[0][1]


def print_watch(results, seconds, samples):
    print("`search.sh --dir F watch --quiet` left idle for %d s after its first check; CPU = utime + stime "
          "of its python process from /proc. A watcher checks the files changed in the last two days (at most "
          "the 200 newest) and the folders every second and every file every 30 s, backing off to 5 minutes while nothing "
          "changes.\n" % seconds)
    print("| folder | files | size | index build* | CPU in %d s | of one core | busiest second | watcher RSS |" % seconds)
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, r in results:
        print("| %s | %d | %.0f MB | %.1f s | %.2f s | %.2f%% | %.0f ms | %.0f MiB |" % (
            label, r["files"], r["mb"], r["build"], r["cpu"], 100.0 * r["cpu"] / seconds, r["busiest"] * 1000,
            r["rss"]))
    print("\n\\* `search.sh sync` from no index; on the last row, the sync after every file's time changed.")
    print("\nCold `search.sh QUERY --json` (median of %d; no watcher: before and after it ran):\n" % samples)
    print("| folder | no watcher | healthy watcher running | saved |")
    print("|---|---:|---:|---:|")
    for label, r in results[:2]:
        print("| %s | %s | %s | %.0f%% |" % (label, ms_(r["without"]), ms_(r["with"]),
                                            100.0 * (1 - r["with"] / r["without"])))
    checks = all(r["execs"] and r["beat"] and r["clean"] for _, r in results)
    print("\nChecks: the wrapper execs python (the pid is python's), the heartbeat names it, and SIGTERM "
          "stops it with exit 0 and removes the heartbeat: %s.\n" % ("pass" if checks else "FAIL %r" % [
              (label, r["execs"], r["beat"], r["clean"]) for label, r in results]))


# --------------------------------------------------------------------------
# 3. MCP
# --------------------------------------------------------------------------

class McpClient:
    """`search.sh --dir F mcp` and its line-delimited JSON-RPC."""

    def __init__(self, search_sh, folder, env):
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([search_sh, "--dir", folder, "mcp"], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, bufsize=0)
        self.next_id = 0

    def send(self, method, params=None, notify=False):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        self.proc.stdin.write(json.dumps(message).encode("utf-8") + b"\n")

    def receive(self):
        line = self.proc.stdout.readline()
        if not line:
            self.err.seek(0)
            raise SystemExit("the MCP server ended: %s" % self.err.read().decode(errors="replace")[-800:])
        response = json.loads(line)
        assert response.get("id") == self.next_id and "result" in response, response
        return response["result"]

    def request(self, method, params=None):
        self.send(method, params)
        return self.receive()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.err.close()


INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {},
              "clientInfo": {"name": "bench-agents", "version": "1"}}


def handshake(search_sh, folder, env):
    """(seconds from spawn to the initialize response, the client, ready for calls)."""
    start = time.perf_counter()
    client = McpClient(search_sh, folder, env)
    client.request("initialize", INITIALIZE)
    seconds = time.perf_counter() - start
    client.send("notifications/initialized", notify=True)
    return seconds, client


def mcp_search(client, query):
    """Seconds of one memory_search round trip."""
    start = time.perf_counter()
    result = client.request("tools/call", {"name": "memory_search", "arguments": {"query": query}})
    seconds = time.perf_counter() - start
    assert not result.get("isError"), result
    return seconds


def mcp_folder(search_sh, folder, env, queries, runs):
    """Handshakes, then memory_search round trips interleaved with cold CLI queries."""
    handshakes = []
    for _ in range(runs):
        seconds, client = handshake(search_sh, folder, env)
        handshakes.append(seconds)
        client.close()
    seconds, client = handshake(search_sh, folder, env)
    first = mcp_search(client, queries[0])
    calls, cli = [], []
    for _ in range(runs):
        for q in queries:
            calls.append(mcp_search(client, q))
            cli += cold_queries(search_sh, folder, [q], env, 1)
    client.close()
    return {"handshake": median(handshakes), "first": first, "call": median(calls), "cli": median(cli)}


def mcp_section(tmp, search_sh, env, examples, big, big_label, queries, runs):
    print("## 3. MCP: one server process against a process per query\n")
    rows = [("examples/memory", mcp_folder(search_sh, examples, env, EXAMPLE_QUERIES, runs)),
            (big_label, mcp_folder(search_sh, big, env, queries, runs))]
    print("Handshake = spawn of `search.sh --dir F mcp` to its initialize response (median of %d). Round "
          "trip = a `tools/call` memory_search request to its response on a running server (each call "
          "checks the folder, as the CLI does); first call = the first after the handshake. CLI = cold "
          "`search.sh QUERY --json`, interleaved with the round trips (medians of %d).\n"
          % (runs, runs * len(EXAMPLE_QUERIES)))
    print("| folder | handshake | first call | round trip (median) | CLI cold query | CLI ÷ round trip |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in rows:
        print("| %s | %s | %s | %.1f ms | %s | %.0fx |" % (label, ms_(r["handshake"]), ms_(r["first"]),
                                                         r["call"] * 1000, ms_(r["cli"]), r["cli"] / r["call"]))
    print()


# --------------------------------------------------------------------------
# 4. Concurrent writes
# --------------------------------------------------------------------------

def note_text(writer, n):
    return "bench note w%02d n%03d kw%02dx%03d" % (writer, n, writer, n)


def writer(search_sh, folder, env, w, count, out):
    for n in range(count):
        start = time.perf_counter()
        proc = subprocess.run([search_sh, "--dir", folder, "add", note_text(w, n), "--json"], env=env,
                              capture_output=True, text=True)
        seconds = time.perf_counter() - start
        try:
            where = json.loads(proc.stdout) if proc.returncode == 0 else None
        except ValueError:
            where = None
        out.append((w, n, proc.returncode, where, seconds, proc.stderr.strip()[-200:]))


def searcher(search_sh, folder, env, stop, out):
    while not stop.is_set():
        start = time.perf_counter()
        proc = subprocess.run([search_sh, "--dir", folder, "bench note", "--json"], env=env,
                              capture_output=True, text=True)
        try:
            ok = proc.returncode == 0 and "results" in json.loads(proc.stdout)
        except ValueError:
            ok = False
        out.append((ok, time.perf_counter() - start, proc.stderr.strip()[-200:]))


def read_notes(folder):
    """{path: [lines]} of every Markdown file under memory/ (the text split at newlines)."""
    found = {}
    for path in glob.glob(os.path.join(folder, "memory", "**", "*.md"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            found[os.path.relpath(path, folder).replace(os.sep, "/")] = f.read().split("\n")
    return found


def new_lines(before, after):
    """The lines appended to each file since `before` ({path: lines}), and how
    many files had earlier lines changed."""
    added, changed = [], 0
    for path, lines in after.items():
        old = before.get(path, [])
        if old and old[-1] == "":
            old = old[:-1]  # the file's last newline: the next note goes after it
        if lines[:len(old)] != old:
            changed += 1
        added += lines[len(old):]
    return added, changed


def verify_notes(folder, before, adds, writers, count):
    """Counts of notes found once, missing, duplicated, torn lines (anything
    appended that is not a whole note, a blank line or a new log's heading),
    earlier lines changed, and right citations."""
    expected = {"- " + note_text(w, n) for w in range(writers) for n in range(count)}
    files = read_notes(folder)
    appended, changed = new_lines(before, files)
    seen = {}
    torn = 0
    for line in appended:
        if line in expected:
            seen[line] = seen.get(line, 0) + 1
        elif line.strip() and not (line.startswith("# ") and mstore.file_date(line[2:]) == line[2:]):
            torn += 1
    cited_right = 0
    for w, n, code, where, _, _ in adds:
        lines = files.get(where["path"], []) if where else []
        if where and 0 < where["start_line"] <= len(lines) and lines[where["start_line"] - 1] == "- " + note_text(w, n):
            cited_right += 1
    return {"once": sum(1 for v in seen.values() if v == 1), "missing": len(expected - set(seen)),
            "duplicated": sum(1 for v in seen.values() if v > 1), "torn": torn, "changed": changed,
            "cited": cited_right}


def indexed_notes(folder, writers, count, sample=10):
    """How many of a sample of notes a search finds at the top after all the adds."""
    rng = random.Random(3)
    picks = [(rng.randrange(writers), rng.randrange(count)) for _ in range(sample)]
    store = mstore.MemoryStore(folder)
    try:
        store.sync()
        found = 0
        for w, n in picks:
            hits = ms.search(store, "kw%02dx%03d" % (w, n), limit=1)
            found += bool(hits) and "kw%02dx%03d" % (w, n) in hits[0].snippet
    finally:
        store.close()
    return found, sample


def concurrent_adds(search_sh, folder, env, writers, count):
    """(wall seconds, adds, searches) of writers adding count notes each beside a search loop."""
    adds, searches, stop = [], [], threading.Event()
    threads = [threading.Thread(target=writer, args=(search_sh, folder, env, w, count, adds)) for w in range(writers)]
    reader = threading.Thread(target=searcher, args=(search_sh, folder, env, stop, searches))
    start = time.perf_counter()
    reader.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    stop.set()
    reader.join()
    return wall, adds, searches


def writes_section(tmp, search_sh, env, writers, count):
    print("## 4. Concurrent writes\n")
    folder = copy_folder(EXAMPLES, os.path.join(tmp, "writes"))
    sync(search_sh, folder, env)
    before = read_notes(folder)
    wall, adds, searches = concurrent_adds(search_sh, folder, env, writers, count)
    v = verify_notes(folder, before, adds, writers, count)
    failed = [a for a in adds if a[2] != 0]
    bad_searches = [s for s in searches if not s[0]]
    found, sample = indexed_notes(folder, writers, count)
    total = writers * count
    ok = (v["once"] == total and not v["missing"] and not v["duplicated"] and not v["torn"] and not v["changed"]
          and v["cited"] == total and not failed and not bad_searches and found == sample)
    print_writes(writers, count, wall, adds, searches, failed, bad_searches)
    print_checks(v, total, found, sample, ok)
    for item in (failed[:3] + bad_searches[:3]):
        print("\n> failure: %s" % (item[-1],))
    print()


def print_writes(writers, count, wall, adds, searches, failed, bad_searches):
    total = writers * count
    print("%d processes at once, each running `search.sh --dir F add \"...\" --json` %d times (a unique "
          "note each), while one more loop runs `search.sh --dir F \"bench note\" --json`.\n" % (writers, count))
    print("| adds | wall | adds/s | add latency (median) | failed adds | searches meanwhile | search (median) | failed searches |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %.1f s | %.1f | %s | %d | %d | %s | %d |" % (
        total, wall, total / wall, ms_(median([a[4] for a in adds])), len(failed), len(searches),
        ms_(median([s[1] for s in searches])), len(bad_searches)))


def print_checks(v, total, found, sample, ok):
    print("\n| check | result |\n|---|---|")
    print("| notes in the Markdown exactly once | %d of %d |" % (v["once"], total))
    print("| missing / duplicated / torn lines | %d / %d / %d |" % (v["missing"], v["duplicated"], v["torn"]))
    print("| files whose earlier lines changed | %d |" % v["changed"])
    print("| `add` cited the line the note is on | %d of %d |" % (v["cited"], total))
    print("| sampled notes found by a search afterwards | %d of %d |" % (found, sample))
    print("| **overall** | **%s** |" % ("pass" if ok else "FAIL"))


# --------------------------------------------------------------------------
# 5. Tokens an agent reads
# --------------------------------------------------------------------------

FORMS = [("`QUERY -n 5` (default)", ["-n", "5"]), ("`--compact`", ["--compact"]), ("`--json`", ["--json"]),
         ("`--compact --json`", ["--compact", "--json"]), ("`context QUERY --budget 1500`", ["context", "--budget", "1500"])]
MCP_FORMS = [("MCP memory_search (text content)", {}), ("MCP memory_search compact", {"compact": True})]


def cli_output(argv):
    """What `search.sh ARGV` prints, run in this process through memory_search.main."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = ms.main(argv)
    if code != 0:
        raise SystemExit("search.sh %s failed (%d)" % (" ".join(argv), code))
    return out.getvalue()


def form_argv(extra, folder, query):
    if extra[:1] == ["context"]:
        return ["context", "--dir", folder] + extra[1:] + ["--", query]
    return ["--dir", folder] + extra + ["--", query]


def mcp_text(server, query, extra):
    response = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                              "params": {"name": "memory_search", "arguments": dict(extra, query=query)}})
    return response["result"]["content"][0]["text"]


def token_counts(picked, copies):
    """{(form, language): [tokens per query]}."""
    counts = {}
    servers = {}
    try:
        for language, query, root in picked:
            folder = copies[root]
            for label, extra in FORMS:
                text = cli_output(form_argv(extra, folder, query))
                counts.setdefault((label, language), []).append(ms.estimate_tokens(text))
            if folder not in servers:
                servers[folder] = ms.McpServer(mstore.MemoryStore(folder))
            for label, extra in MCP_FORMS:
                counts.setdefault((label, language), []).append(
                    ms.estimate_tokens(mcp_text(servers[folder], query, extra)))
    finally:
        for server in servers.values():
            server.store.close()
    return counts


def tokens_section(tmp, data, count):
    print("## 5. Tokens an agent reads\n")
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:
        del os.environ[key]
    picked = eval_queries(data, count)
    copies = {}
    for _, _, root in picked:
        if root not in copies:
            copies[root] = copy_folder(root, os.path.join(tmp, "tokens-%d" % len(copies)))
    counts = token_counts(picked, copies)
    n = {lang: sum(1 for p in picked if p[0] == lang) for lang in ("English", "Chinese")}
    print("Estimated tokens (memory_search.estimate_tokens: one per CJK character, one per four other "
          "characters) of what each form prints, for %d LoCoMo (English) and %d CMRC (Chinese) questions "
          "against their own folders; medians. The MCP rows count the text content of a tools/call "
          "result (the same data also travels as structuredContent).\n" % (n["English"], n["Chinese"]))
    print("| form | English | ÷ default | Chinese | ÷ default |")
    print("|---|---:|---:|---:|---:|")
    base = {lang: median(counts[(FORMS[0][0], lang)]) for lang in n}
    for label, _ in FORMS + MCP_FORMS:
        cells = []
        for lang in ("English", "Chinese"):
            m = median(counts[(label, lang)])
            cells += ["%.0f" % m, "%.2f" % (m / base[lang])]
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()


# --------------------------------------------------------------------------
# 6. JSON backend
# --------------------------------------------------------------------------

def backend_section(tmp, search_sh, data, python, queries, runs):
    print("## 6. The JSON backend against SQLite (1 MB folder)\n")
    source = os.path.join(tmp, "backend-1mb")
    corpus.generate(source, 1.0, data)
    ways = []
    for label, extra in (("sqlite (default)", {}), ("json (MEMORY_BACKEND=json)", {"MEMORY_BACKEND": "json"})):
        folder = copy_folder(source, os.path.join(tmp, "backend-%d" % len(ways)))
        env = clean_env(python, **extra)
        build = run_timed([os.path.join(os.path.dirname(search_sh), "reindex.sh"), "--dir", folder], env)[0]
        backend = json.loads(run_output([search_sh, "--dir", folder, "status", "--json"], env)).get("backend")
        ways.append((label, folder, env, build, backend, [], []))
    for _ in range(runs):
        for q in queries:
            for label, folder, env, _, _, times, rss in ways:
                seconds, peak = run_timed([search_sh, "--dir", folder, q, "--json"], env)
                times.append(seconds)
                rss.append(peak)
    print("Cold `search.sh --dir F QUERY --json`, median of %d (the two backends interleaved); build = "
          "`reindex.sh`.\n" % (runs * len(queries)))
    print("| backend | reported as | build | cold query | ÷ sqlite | peak RSS |")
    print("|---|---|---:|---:|---:|---:|")
    base = median(ways[0][5])
    for label, _, _, build, backend, times, rss in ways:
        print("| %s | %s | %.2f s | %s | %.2fx | %.0f MiB |" % (label, backend, build, ms_(median(times)),
                                                             median(times) / base, max(rss)))
    print()


# --------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=corpus.DEFAULT_DATA, help="eval data (default ../shared/eval-data)")
    ap.add_argument("--python", default=default_python(), help="interpreter of the timed commands")
    ap.add_argument("--runs", type=int, help="runs per timing, medians (default 5; 3 with --quick)")
    ap.add_argument("--watch-seconds", type=float, help="idle watch window (default 60; 15 with --quick)")
    ap.add_argument("--quick", action="store_true", help="smaller folders, fewer runs, a shorter watch")
    ap.add_argument("--skip", action="append", default=[], help="leave out a section (1-6); repeatable")
    args = ap.parse_args(argv)
    runs = args.runs or (3 if args.quick else 5)
    MEASURER[0] = args.python
    seconds = args.watch_seconds or (15 if args.quick else 60)
    if not os.path.isdir(args.data):
        raise SystemExit("eval data not found: %s (use --data)" % args.data)
    started = time.time()
    tmp = tempfile.mkdtemp(prefix="bench-agents-")
    try:
        snapshot = copy_suite(os.path.join(tmp, "suite"))
        load_suite(snapshot)
        run_sections(args, tmp, snapshot, runs, seconds)
    finally:
        make_writable(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    print("\nTotal time of this benchmark: %.1f minutes." % ((time.time() - started) / 60))


def run_sections(args, tmp, snapshot, runs, seconds):
    commit, dirty = suite_state()
    search_sh = os.path.join(snapshot, "search.sh")
    env = clean_env(args.python)
    print("# memory-suite: the agent-facing paths\n")
    print("Suite: commit %s%s, copied at the start. Interpreter of the timed commands: %s (%s). "
          "%d cores, load average %.1f at the start; %s.\n" % (
              commit, " with uncommitted changes to %s" % ", ".join(dirty) if dirty else "", args.python,
              run_output([args.python, "-c", "import platform; print(platform.python_version())"], env).strip(),
              os.cpu_count() or 0, os.getloadavg()[0], time.strftime("%Y-%m-%d %H:%M")))
    queries = [q for _, q, _ in eval_queries(args.data, 4)]
    big_mb, many = (2.0, 2000) if args.quick else (5.0, 10000)
    examples = copy_folder(EXAMPLES, os.path.join(tmp, "examples"))
    sync(search_sh, examples, env)
    skip = set(args.skip)
    big = None
    for number, run in (("1", lambda: startup_section(tmp, args.python, search_sh, runs)),
                        ("2", lambda: watch_section(tmp, search_sh, args.data, env, queries, runs, seconds,
                                                    (big_mb, many))),
                        ("3", lambda: mcp_section(tmp, search_sh, env, examples, big or make_big(tmp, args.data, big_mb, search_sh, env),
                                                  "%g MB" % big_mb, queries, runs)),
                        ("4", lambda: writes_section(tmp, search_sh, env, 8, 20 if args.quick else 50)),
                        ("5", lambda: tokens_section(tmp, args.data, 20 if args.quick else 50)),
                        ("6", lambda: backend_section(tmp, search_sh, args.data, args.python, queries, runs))):
        if number in skip:
            continue
        result = run()
        big = result if number == "2" else big
        sys.stdout.flush()
        sys.stderr.write("agents: section %s done at %.0f s\n" % (number, time.time() - START))


def make_big(tmp, data, mb, search_sh, env):
    """The folder of section 3 when section 2 (which makes it) is skipped."""
    folder = os.path.join(tmp, "mcp-%gmb" % mb)
    corpus.generate(folder, mb, data)
    sync(search_sh, folder, env)
    return folder


if __name__ == "__main__":
    main()
