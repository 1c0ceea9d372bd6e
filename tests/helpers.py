"""Shared test helpers: temporary memory folders and running the CLI."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
EXAMPLES = os.path.join(ROOT, "examples", "memory")
PYTHON = sys.executable or "python3"

# The tests' own user cache (hooks.log, compiled tables, indexes of folders
# they cannot write), never the person's running them: removed at exit.
TEST_CACHE = tempfile.mkdtemp(prefix="memtest-cache-")
os.environ["XDG_CACHE_HOME"] = TEST_CACHE
atexit.register(shutil.rmtree, TEST_CACHE, True)


def clean_env(**extra):
    """An environment that cannot point the suite at a real memory folder."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MEMORY_") and k not in ("NO_COLOR", "XDG_CACHE_HOME")}
    env["NO_COLOR"] = "1"
    if "HOME" not in extra:  # (a test giving its own HOME finds the cache there)
        env["XDG_CACHE_HOME"] = TEST_CACHE
    env["MEMORY_PYTHON"] = PYTHON
    env["MEMORY_RESIDENT"] = "0"  # each hook in its own process, as the cold path; test_resident.py tests the other
    env.update(extra)
    return env


class TempMemory(unittest.TestCase):
    """A test case with a fresh memory folder in self.dir (removed afterwards)."""

    files = {}  # relative path -> text, written before each test

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="memtest-")
        self.dir = os.path.join(self.tmp, "mem")
        os.makedirs(self.dir)
        for rel, text in self.files.items():
            self.write(rel, text)
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, rel, text, mode="w"):
        path = os.path.join(self.dir, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(text, bytes):
            with open(path, mode + "b") as f:
                f.write(text)
        else:
            with open(path, mode, encoding="utf-8", newline="") as f:
                f.write(text)
        bump_mtime(path)
        return path

    def copy_examples(self):
        shutil.rmtree(self.dir)
        shutil.copytree(EXAMPLES, self.dir, ignore=shutil.ignore_patterns(".memory"))


class SyncedMemory(TempMemory):
    """A test case with its files written, synced, in self.store; top(query)
    is the best hit's (path, score), (None, 0.0) when nothing matches."""

    def setUp(self):
        super().setUp()
        import memory_store
        self.store = memory_store.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def top(self, query, **kw):
        import memory_search
        hits = memory_search.search(self.store, query, min_score=0, **kw)
        return (hits[0].path, hits[0].score) if hits else (None, 0.0)


class ExamplesStore(TempMemory):
    """A test case with a copy of the bundled examples, synced, in self.store."""

    def setUp(self):
        super().setUp()
        self.copy_examples()
        import memory_store
        self.store = memory_store.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def search(self, query, **kw):
        import memory_search
        return memory_search.search(self.store, query, **kw)


def bump_mtime(path):
    """Make sure a rewrite is seen even on filesystems with coarse mtimes."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def run_script(script, *args, cwd=None, env=None, input_text=None):
    """Run one of the shell wrappers: (exit code, stdout, stderr)."""
    proc = subprocess.run([os.path.join(ROOT, script)] + list(args), cwd=cwd or tempfile.gettempdir(),
                          env=env or clean_env(), input=input_text, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def best_time(fn, runs=3):
    """The least of runs timings of fn() in seconds (for ratios between two
    inputs in one run, never compared with a fixed time)."""
    import time
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        spent = time.perf_counter() - start
        best = spent if best is None else min(best, spent)
    return best
