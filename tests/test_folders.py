"""Where memories live and which index answers for them (issue: the right folder)."""
import os
import subprocess
import sys
import unittest

from helpers import ROOT, TempMemory, clean_env, run_script
import memory_search
import memory_store as ms


class SharedIndexFolderTest(TempMemory):
    """Two memory folders pointed at one MEMORY_INDEX_DIR: neither answers for the other."""

    def test_a_shared_index_folder_never_answers_for_another_folder(self):
        a, b = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        index = os.path.join(self.dir, "shared-index")
        self.write("a/MEMORY.md", "# A\n\nThe alpha note about kyoto.\n")
        self.write("b/MEMORY.md", "# B\n\nThe beta note about osaka.\n")
        env = clean_env(MEMORY_INDEX_DIR=index)
        code, out, err = run_script("search.sh", "kyoto", "--dir", a, "--json", env=env)
        self.assertEqual(code, 0, err)
        self.assertIn("alpha", out)
        code, out, err = run_script("search.sh", "kyoto", "--dir", b, "--json", env=env)
        self.assertEqual(code, 0, err)
        self.assertNotIn("alpha", out)
        self.assertIn("another memory folder", err)
        code, out, err = run_script("search.sh", "osaka", "--dir", b, "--json", env=env)
        self.assertIn("beta", out)

    def test_a_watcher_of_another_folder_is_not_trusted(self):
        a, b = os.path.join(self.dir, "a"), os.path.join(self.dir, "b")
        self.write("a/MEMORY.md", "alpha\n")
        self.write("b/MEMORY.md", "beta\n")
        index = os.path.join(self.dir, "shared-index")
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        self.addCleanup(sleeper.kill)
        store_a = ms.MemoryStore(a, index_dir=index)
        self.addCleanup(store_a.close)
        real_pid = os.getpid
        os.getpid = lambda: sleeper.pid  # the heartbeat of a live watcher process of folder a
        try:
            store_a.beat(5.0)
        finally:
            os.getpid = real_pid
        self.assertTrue(store_a.watcher_is_fresh())
        store_b = ms.MemoryStore(b, index_dir=index)
        self.addCleanup(store_b.close)
        self.assertIsNone(store_b.watcher())
        self.assertFalse(store_b.watcher_is_fresh())


class IndexOutOfGitTest(TempMemory):
    def test_the_index_folder_holds_a_gitignore(self):
        self.write("MEMORY.md", "a note\n")
        code, _, err = run_script("search.sh", "note", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.dir, ".memory", ".gitignore"), encoding="utf-8") as f:
            self.assertIn("*", f.read().split())
        if subprocess.run(["git", "--version"], capture_output=True).returncode == 0:
            subprocess.run(["git", "init", "-q", self.dir], check=True)
            status = subprocess.run(["git", "-C", self.dir, "status", "--porcelain", "--untracked-files=all"],
                                    capture_output=True, text=True).stdout
            self.assertIn("MEMORY.md", status)
            self.assertNotIn(".memory", status)


if __name__ == "__main__":
    unittest.main()
