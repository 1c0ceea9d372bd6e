"""-o FILE never replaces a note, or a file the command did not write, without --force."""
import contextlib
import io
import os
import unittest

from helpers import TempMemory

import memory_linker
import memory_search

NOTES = {
    "MEMORY.md": "# Long-term\n- Alice works on OpenClaw with Bob.\n",
    "memory/2026-11-30.md": "# 2026-11-30\n- Met Bob about OpenClaw and Alice.\n",
}


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


class OutputFileTest(TempMemory):
    files = NOTES

    def run_main(self, main, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--dir", self.dir] + list(argv))
        return code, out.getvalue(), err.getvalue()

    def graph(self, *argv):
        return self.run_main(memory_linker.main, "graph", *argv)

    def report(self, *argv):
        return self.run_main(memory_search.main, "report", "--html", *argv)

    def assert_refused_unchanged(self, result, path, before):
        code, _, err = result
        self.assertEqual(code, 2, err)
        self.assertIn("--force", err)
        self.assertEqual(read_bytes(path), before)

    def test_an_indexed_note_is_never_replaced(self):
        for rel in ("MEMORY.md", "memory/2026-11-30.md"):
            path = os.path.join(self.dir, *rel.split("/"))
            before = read_bytes(path)
            self.assert_refused_unchanged(self.graph("--format", "html", "-o", path), path, before)
            self.assert_refused_unchanged(self.graph("-o", path), path, before)
            self.assert_refused_unchanged(self.report("-o", path), path, before)

    def test_a_new_note_path_is_refused_too(self):
        path = os.path.join(self.dir, "memory", "2026-12-01.md")
        code, _, err = self.graph("--format", "html", "-o", path)
        self.assertEqual(code, 2, err)
        self.assertFalse(os.path.exists(path))

    def test_an_unrelated_existing_file_is_kept(self):
        path = os.path.join(self.tmp, "todo.txt")
        with open(path, "w") as f:
            f.write("buy milk\n")
        self.assert_refused_unchanged(self.report("-o", path), path, b"buy milk\n")
        self.assert_refused_unchanged(self.graph("--format", "dot", "-o", path), path, b"buy milk\n")

    def test_its_own_earlier_output_is_replaced(self):
        page = os.path.join(self.tmp, "memory.html")
        self.assertEqual(self.report("-o", page)[0], 0)
        self.assertEqual(self.graph("--format", "html", "-o", page)[0], 0)
        drawing = os.path.join(self.tmp, "graph.txt")
        for fmt in ("mermaid", "dot", "json", "mermaid"):
            code, _, err = self.graph("--format", fmt, "-o", drawing)
            self.assertEqual(code, 0, fmt + ": " + err)
        self.assertTrue(read_bytes(drawing).startswith(b"graph LR"))

    def test_force_replaces_and_leaves_no_temporary_file(self):
        path = os.path.join(self.tmp, "todo.txt")
        with open(path, "w") as f:
            f.write("buy milk\n")
        code, _, err = self.report("-o", path, "--force")
        self.assertEqual(code, 0, err)
        self.assertIn(b"memory-suite", read_bytes(path))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["mem", "todo.txt"])


if __name__ == "__main__":
    unittest.main()
