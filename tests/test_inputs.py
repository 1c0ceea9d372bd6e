"""Bad input: odd files in the memory folder, and random query strings.
Bigger variants (a 50 MB file, 20,000 files, 10,000 queries per backend)
run with MEMORY_STRESS=1."""
import contextlib
import io
import json
import os
import random
import unittest

from helpers import TempMemory
import memory_search
import memory_store as ms
from memsuite.index import prepare

STRESS = bool(os.environ.get("MEMORY_STRESS"))


class BadFilesTest(TempMemory):
    def sync(self, backend=None):
        store = ms.MemoryStore(self.dir, backend=backend)
        self.addCleanup(store.close)
        return store, store.sync()

    def find(self, store, query):
        return [(h.path, h.start_line, h.end_line) for h in memory_search.search(store, query, limit=10)]

    def test_encodings_and_line_endings_keep_exact_lines(self):
        self.write("bom.md", "\ufeffalpha line\nbeta line\n".encode("utf-8"))
        self.write("crlf.md", "one\r\ntwo\r\n\r\n## H\r\nkyotocrlf here\r\n")
        self.write("cr.md", "one\rtwo\r\rkyotocr here\r")
        self.write("mixed.md", "a\nb\r\nc\rkyotomixed\n")
        self.write("latin1.md", "caf\xe9 kyotolatin\n".encode("latin-1"))
        self.write("binary.md", b"\x00\x01\x02PNG kyotobinary")
        store, report = self.sync()
        self.assertIn(("binary.md", "binary"), report.problems)
        self.assertIn(("latin1.md", "invalid-utf8"), report.problems)
        self.assertEqual(self.find(store, "kyotocrlf"), [("crlf.md", 4, 5)])
        self.assertEqual(self.find(store, "kyotocr"), [("cr.md", 1, 4)])
        self.assertEqual(ms.read_memory_lines(self.dir, "cr.md")[3], "kyotocr here")
        hit = memory_search.search(store, "kyotomixed")[0]
        self.assertEqual((hit.start_line, hit.end_line), (1, 4))
        self.assertNotIn("binary.md", [p for p, _, _ in self.find(store, "kyotobinary")])
        self.assertEqual(self.find(store, "kyotolatin"), [("latin1.md", 1, 1)])
        self.assertEqual(memory_search.search(store, "alpha")[0].start_line, 1)

    def test_undecodable_file_name_is_reported_not_fatal(self):
        try:
            with open(os.path.join(self.dir.encode(), b"caf\xe9.md"), "wb") as f:
                f.write(b"kyotoname\n")
        except OSError:
            self.skipTest("this file system refuses undecodable names")
        self.write("ok.md", "kyotofine\n")
        for backend in ("sqlite", "json"):
            store, report = self.sync(backend)
            self.assertIn("bad-filename", dict(report.problems).values())
            self.assertEqual(self.find(store, "kyotofine"), [("ok.md", 1, 1)])
            self.assertIn("bad-filename", [p["issue"] for p in store.status()["problem_files"]])

    def test_private_blocks_keep_line_numbers_with_any_line_ending(self):
        for nl in ("\n", "\r\n", "\r"):
            text = nl.join(["line1", "<private reason='x'>", "secret", "</private>", "line5 kyotopriv", "line6"]) + nl
            self.write("p.md", text)
            store, _ = self.sync()
            hit = memory_search.search(store, "kyotopriv")[0]
            self.assertEqual((hit.start_line, hit.end_line), (1, 6), repr(nl))
            lines = ms.read_memory_lines(self.dir, "p.md")
            self.assertEqual(lines[4], "line5 kyotopriv")
            self.assertNotIn("secret", "\n".join(lines))
        self.write("open.md", "a\n<private>x\ny")  # never closed, no final newline
        self.assertEqual(ms.read_memory_lines(self.dir, "open.md"), ["a", "[private]", "[private]"])

    def test_longer_code_fences_hide_headings(self):
        text = "## Real\n````md\n```\n# not a heading\n```\n````\nafter kyotofence\n"
        chunks = ms.chunk_markdown("f.md", text)
        self.assertTrue(all(c.heading == "Real" for c in chunks))

    def test_huge_file_and_huge_line(self):
        size_mb = 50 if STRESS else 5
        line = "filler words about nothing in particular " * 2
        with open(os.path.join(self.dir, "big.md"), "w", encoding="utf-8") as f:
            for i in range(size_mb * 1024 * 1024 // (len(line) + 1)):
                f.write(line + ("needle%d" % i if i % 5000 == 0 else "") + "\n")
        self.write("oneline.md", "x " * (2 * 1024 * 1024) + "needleinline " + "y " * 500000)
        store, report = self.sync()
        self.assertEqual(report.problems, [])
        path, start, end = self.find(store, "needle5000")[0]
        self.assertEqual(path, "big.md")
        self.assertTrue(start <= 5001 <= end)
        self.assertIn("needle5000", ms.read_memory_lines(self.dir, "big.md")[5000])
        hits = self.find(store, "needleinline")
        self.assertEqual(hits, [("oneline.md", 1, 1)])

    def test_many_tiny_files_deep_folders_and_odd_names(self):
        count = 20000 if STRESS else 2000
        for i in range(count):
            self.write("many/%03d/n%d.md" % (i % 100, i), "note %d tinyfile%d\n" % (i, i))
        deep = "/".join("d%d" % i for i in range(60))
        self.write(deep + "/deep.md", "deepest kyotodeep\n")
        for name in ("with space.md", "quote's \"x\".md", "中文 笔记.md", "semi;colon $(x).md"):
            self.write("odd/" + name, "odd name kyotoodd\n")
        store, report = self.sync()
        self.assertEqual(report.problems, [])
        self.assertEqual(len(report.added), count + 5)
        self.assertEqual(self.find(store, "tinyfile%d" % (count - 1)), [("many/%03d/n%d.md" % ((count - 1) % 100, count - 1), 1, 1)])
        self.assertEqual(self.find(store, "kyotodeep"), [(deep + "/deep.md", 1, 1)])
        self.assertEqual(len(self.find(store, "kyotoodd")), 4)

    def test_symlink_loops_and_vanishing_files(self):
        self.write("real.md", "real note kyotoreal\n")
        os.symlink(self.dir, os.path.join(self.dir, "loop"))
        os.symlink(os.path.join(self.dir, "b.md"), os.path.join(self.dir, "a.md"))
        os.symlink(os.path.join(self.dir, "a.md"), os.path.join(self.dir, "b.md"))
        self.write("gone.md", "soon gone\n")
        original = prepare.read_source

        def vanish(path):
            if path.endswith("gone.md"):
                os.unlink(path)
            return original(path)
        prepare.read_source = vanish  # where prepare_file looks it up
        self.addCleanup(setattr, prepare, "read_source", original)
        store, report = self.sync()
        problems = dict(report.problems)
        self.assertEqual(problems.get("gone.md"), "unreadable")
        self.assertIn(problems.get("a.md"), ("unreadable", "symlink-outside"))
        self.assertEqual(self.find(store, "kyotoreal"), [("real.md", 1, 1)])
        prepare.read_source = original
        report = store.sync()
        self.assertIn("gone.md", report.removed)

    def test_file_changing_while_indexed_is_picked_up_next_time(self):
        self.write("moving.md", "first version kyotofirst\n")
        original = prepare.read_source

        def change_after_read(path):
            result = original(path)
            if path.endswith("moving.md"):
                with open(path, "w") as f:
                    f.write("second version kyotosecond\n")
            return result
        prepare.read_source = change_after_read
        self.addCleanup(setattr, prepare, "read_source", original)
        store, _ = self.sync()
        prepare.read_source = original
        self.assertEqual(self.find(store, "kyotofirst"), [("moving.md", 1, 1)])
        os.utime(os.path.join(self.dir, "moving.md"), ns=(0, 10 ** 18))
        store.sync()
        self.assertEqual(self.find(store, "kyotosecond"), [("moving.md", 1, 1)])
        hits = memory_search.search(store, "kyotofirst")  # only the new text is indexed
        self.assertFalse(any("kyotofirst" in h.text for h in hits))


def random_query(rng):
    pieces = ['"', "'", "(", ")", "*", "-", "+", ":", "^", "AND", "OR", "NOT", "NEAR(", "NEAR/2",
              "col:val", "body:", "\\", "%", "_", "{", "}", "[", "]", ";", "--", "/*", "\x00", "\x1b[31m",
              "\u202e", "\u200b", "\ufeff", "\ud800", "🎉", "👩‍👩‍👧", "的", "十三香", "京都", "RSS配置",
              "kyoto", "openclaw", "KX-4471", "2026-02-19", " ", "\n", "\t", "é", "ﬁ", "Ⅻ", "٣"]
    kind = rng.random()
    if kind < 0.4:
        return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
    if kind < 0.8:
        return "".join(chr(rng.choice([rng.randint(0, 0x7f), rng.randint(0x80, 0x2fff),
                                       rng.randint(0x3000, 0xffff), rng.randint(0x10000, 0x10ffff)]))
                       for _ in range(rng.randint(1, 40)))
    return "".join(rng.choice(pieces) for _ in range(rng.randint(50, 400)))


class FuzzQueriesTest(TempMemory):
    """Random strings (any Unicode, control characters, FTS5 syntax) are
    searched as text: never an error, always valid JSON."""

    COUNT = 10000 if STRESS else 1000

    def setUp(self):
        super().setUp()
        self.copy_examples()

    def test_random_queries_both_backends(self):
        rng = random.Random(20261130)
        queries = [random_query(rng) for _ in range(self.COUNT)]
        for backend in ("sqlite", "json"):
            store = ms.MemoryStore(self.dir, backend=backend)
            self.addCleanup(store.close)
            store.sync()
            for q in queries:
                try:
                    hits = memory_search.search(store, q)
                except memory_search.UsageError:
                    self.assertEqual(q.strip(), "", repr(q))
                    continue
                doc = json.loads(ms.to_json(
                    {"query": q, "results": [memory_search.hit_json(h) for h in hits]}))
                self.assertEqual(doc["query"], q)

    def test_random_queries_through_the_cli(self):
        rng = random.Random(7)
        runs = 2000 if STRESS else 300
        for i in range(runs):
            q = random_query(rng).replace("\x00", "")  # a NUL cannot be passed in argv
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = memory_search.main(["--dir", self.dir, "--json", "--backend",
                                           ("sqlite", "json")[i % 2], "--", q])
            if not q.strip():
                self.assertEqual(code, 2)
                continue
            if any("\ud800" <= c <= "\udfff" for c in q):  # bytes that are not UTF-8, as argv carries them
                self.assertEqual((code, len(err.getvalue().splitlines())), (2, 1), repr(q))
                self.assertIn("not valid UTF-8", err.getvalue())
                continue
            self.assertEqual(code, 0, (repr(q), err.getvalue()))
            self.assertIn("results", json.loads(out.getvalue()))


if __name__ == "__main__":
    unittest.main()
