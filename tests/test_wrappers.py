"""The wrappers' interpreter (memsuite/python.sh): MEMORY_PYTHON wins; a
version manager's shim on the PATH is asked once for the interpreter behind
it, which later calls run straight away."""
import os
import stat
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, clean_env

SHIM = """#!/bin/sh
echo called >> "%s"
exec "%s" "$@"
"""


class ShimTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        base = self.tmp.name
        self.shims, self.cache, self.log = (os.path.join(base, n) for n in ("shims", "cache", "shim.log"))
        os.mkdir(self.shims)
        self.shim = os.path.join(self.shims, "python3")
        with open(self.shim, "w") as f:
            f.write(SHIM % (self.log, sys.executable))
        os.chmod(self.shim, os.stat(self.shim).st_mode | stat.S_IEXEC)
        self.memory = os.path.join(base, "memory")
        os.mkdir(self.memory)
        with open(os.path.join(self.memory, "MEMORY.md"), "w") as f:
            f.write("# Facts\n- the deploy key lives in the vault\n")

    def run_search(self, **extra):
        env = clean_env(PATH=self.shims + os.pathsep + os.environ["PATH"], XDG_CACHE_HOME=self.cache, **extra)
        if "MEMORY_PYTHON" not in extra:
            del env["MEMORY_PYTHON"]
        p = subprocess.run([os.path.join(ROOT, "search.sh"), "--dir", self.memory, "deploy key"],
                           capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("MEMORY.md", p.stdout)
        return p

    def shim_calls(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return len(f.read().split())

    def remembered(self):
        with open(os.path.join(self.cache, "memory-suite", "python-behind-shim")) as f:
            return f.read().rstrip("\n").split("\t")

    def test_the_shim_is_asked_once_then_skipped(self):
        self.run_search()
        self.assertEqual(self.shim_calls(), 1)
        shim, real = self.remembered()
        self.assertEqual(shim, self.shim)
        self.assertEqual(os.path.realpath(real), os.path.realpath(sys.executable))
        self.run_search()
        self.run_search()
        self.assertEqual(self.shim_calls(), 1)  # the remembered interpreter ran both

    def test_a_remembered_interpreter_gone_is_asked_again(self):
        os.makedirs(os.path.join(self.cache, "memory-suite"))
        with open(os.path.join(self.cache, "memory-suite", "python-behind-shim"), "w") as f:
            f.write("%s\t%s\n" % (self.shim, os.path.join(self.tmp.name, "no-such-python")))
        self.run_search()
        self.assertEqual(self.shim_calls(), 1)
        self.assertEqual(self.remembered()[0], self.shim)
        self.assertTrue(os.access(self.remembered()[1], os.X_OK))

    def test_memory_python_wins_over_the_shim(self):
        self.run_search(MEMORY_PYTHON=self.shim)
        self.run_search(MEMORY_PYTHON=self.shim)
        self.assertEqual(self.shim_calls(), 2)  # run as given, every time
        self.assertFalse(os.path.exists(os.path.join(self.cache, "memory-suite", "python-behind-shim")))

    def test_an_unwritable_cache_still_runs_through_the_shim(self):
        with open(self.cache, "w") as f:  # a file where the cache folder should be
            f.write("")
        self.run_search()
        self.run_search()
        self.assertEqual(self.shim_calls(), 2)  # asked on each call (nothing is remembered), never broken


if __name__ == "__main__":
    unittest.main()
