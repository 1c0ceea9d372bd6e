import os
import sqlite3
import stat
import unittest

from helpers import TempMemory, bump_mtime
import memory_search
import memory_store as ms
from memsuite.index import prepare


def ids(hits):
    return [h.id for h in hits]


class SyncTest(TempMemory):
    files = {
        "MEMORY.md": "# Memory\n\n## Blog\nThe blog uses Hugo with the PaperMod theme.\n",
        "memory/2026-02-20.md": "# 2026-02-20\n\n## 博客RSS配置优化\nRSS 输出全文。\n",
    }
    backend = "sqlite"

    def store(self):
        s = ms.MemoryStore(self.dir, backend=self.backend)
        self.addCleanup(s.close)
        return s

    def find(self, store, query):
        store.sync()
        return memory_search.search(store, query, limit=5)

    def test_first_sync_indexes_every_file(self):
        s = self.store()
        report = s.sync()
        self.assertEqual(sorted(report.added), ["MEMORY.md", "memory/2026-02-20.md"])
        self.assertEqual(s.chunk_count(), 2)
        again = s.sync()
        self.assertEqual((again.added, again.updated, again.removed), ([], [], []))

    def test_a_no_change_sync_does_not_read_what_the_index_knows_of_each_file(self):
        s = self.store()
        s.sync()
        self.addCleanup(setattr, s.backend, "known_files", s.backend.known_files)
        s.backend.known_files = lambda: self.fail("a no-change sync compared every file")
        self.assertEqual(s.sync().unchanged, ["MEMORY.md", "memory/2026-02-20.md"])

    def test_an_edit_keeping_the_size_is_seen_after_a_quick_check(self):
        s = self.store()
        self.assertTrue(self.find(s, "PaperMod"))
        self.write("MEMORY.md", "# Memory\n\n## Blog\nThe blog uses Hugo with the PaperMid theme.\n")
        bump_mtime(os.path.join(self.dir, "MEMORY.md"))
        self.assertEqual(s.sync().updated, ["MEMORY.md"])
        self.assertTrue(self.find(s, "PaperMid"))
        self.assertEqual(s.sync().updated, [])

    def test_added_file_is_found_by_the_next_search(self):
        s = self.store()
        self.assertEqual(self.find(s, "kyoto"), [])
        self.write("memory/2026-03-01.md", "Booked the Kyoto flight.\n")
        self.assertEqual(ids(self.find(s, "kyoto")), ["memory/2026-03-01.md:1-1"])

    def test_edited_file_replaces_its_old_chunks(self):
        s = self.store()
        self.assertTrue(self.find(s, "PaperMod"))
        self.write("MEMORY.md", "# Memory\n\nNow the theme is Stack.\n")
        self.assertEqual(self.find(s, "PaperMod"), [])
        self.assertEqual(ids(self.find(s, "stack theme")), ["MEMORY.md:1-3"])

    def test_renamed_file_is_found_under_its_new_path(self):
        s = self.store()
        self.find(s, "hugo")
        os.rename(os.path.join(self.dir, "MEMORY.md"), os.path.join(self.dir, "LONGTERM.md"))
        hits = self.find(s, "hugo")
        self.assertEqual([h.path for h in hits], ["LONGTERM.md"])

    def test_deleted_file_disappears(self):
        s = self.store()
        self.assertTrue(self.find(s, "RSS配置"))
        os.unlink(os.path.join(self.dir, "memory", "2026-02-20.md"))
        self.assertEqual(self.find(s, "RSS配置"), [])
        self.assertEqual(s.chunk_count(), 1)

    def test_touched_but_unchanged_file_is_not_reindexed(self):
        s = self.store()
        s.sync()
        bump_mtime(os.path.join(self.dir, "MEMORY.md"))
        report = s.sync()
        self.assertEqual(report.updated, [])
        self.assertIn("MEMORY.md", report.unchanged)

    def test_touched_files_in_a_big_parallel_sync_keep_frequencies(self):
        from unittest import mock
        patch = mock.patch.object(prepare, "PARALLEL_BYTES", 0)  # every sync takes the parallel path (2+ cores)
        patch.start()
        self.addCleanup(patch.stop)
        for i in range(40):
            self.write("memory/n%d.md" % i, "note %d about hugo and kyoto\n" % i)
        s = self.store()
        s.sync()
        before = s.doc_freqs(["hugo", "kyoto"])
        for i in range(40):
            bump_mtime(os.path.join(self.dir, "memory", "n%d.md" % i))
        self.write("memory/n0.md", "note 0 about kyoto only\n")
        report = s.sync()
        self.assertEqual(report.updated, ["memory/n0.md"])
        self.assertEqual(len(report.unchanged), 41)
        self.assertEqual(s.doc_freqs(["hugo", "kyoto"]), {"hugo": before["hugo"] - 1, "kyoto": before["kyoto"]})

    def test_document_frequencies_follow_edits(self):
        s = self.store()
        s.sync()
        self.assertEqual(s.doc_freqs(["hugo"]), {"hugo": 1})
        self.write("memory/2026-03-01.md", "Hugo again.\n")
        s.sync()
        self.assertEqual(s.doc_freqs(["hugo"]), {"hugo": 2})
        os.unlink(os.path.join(self.dir, "MEMORY.md"))
        os.unlink(os.path.join(self.dir, "memory", "2026-03-01.md"))
        s.sync()
        self.assertEqual(s.doc_freqs(["hugo"]), {})

    def test_markdown_is_never_modified(self):
        before = {}
        for root, _, names in os.walk(self.dir):
            for n in names:
                p = os.path.join(root, n)
                if ".memory" not in p:
                    with open(p, "rb") as f:
                        before[p] = f.read()
        s = self.store()
        s.sync()
        s.rebuild()
        for p, data in before.items():
            with open(p, "rb") as f:
                self.assertEqual(f.read(), data)


class JsonSyncTest(SyncTest):
    backend = "json"

    def test_no_sqlite_file_is_written(self):
        s = self.store()
        s.sync()
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".memory", "index.sqlite3")))
        self.assertTrue(os.path.exists(os.path.join(self.dir, ".memory", "index.json")))


class BackendsAgreeTest(TempMemory):
    def test_both_backends_give_the_same_top_results(self):
        self.copy_examples()
        queries = ["博客RSS配置", "十三香", "京都 机票", "configure the RSS feed", "KX-4471",
                   "OpenClaw skills", "Google Search Console", "laptop Neovim", "的",
                   "Feedley", "Feedley duplicate", "what did I book on 19 February"]
        results = {}
        for backend in ("sqlite", "json"):
            s = ms.MemoryStore(self.dir, backend=backend)
            s.sync()
            results[backend] = [[(h.id, round(h.score, 3)) for h in memory_search.search(s, q)]
                                for q in queries]
            s.close()
        for q, a, b in zip(queries, results["sqlite"], results["json"]):
            self.assertTrue(a, q)
            self.assertEqual(a, b, q)


class DiscoveryTest(TempMemory):
    files = {
        "MEMORY.md": "keep\n",
        "notes/deep/er/x.md": "keep nested\n",
        ".hidden.md": "skip\n",
        ".obsidian/y.md": "skip\n",
        "notes/readme.txt": "not markdown\n",
    }

    def test_hidden_and_non_markdown_files_are_skipped(self):
        found, problems = ms.discover(self.dir, os.path.join(self.dir, ".memory"))
        self.assertEqual(sorted(f.path for f in found), ["MEMORY.md", "notes/deep/er/x.md"])
        self.assertEqual(problems, [])

    def test_symlink_outside_the_folder_is_not_followed(self):
        outside = os.path.join(self.tmp, "outside.md")
        with open(outside, "w") as f:
            f.write("secret outside\n")
        os.symlink(outside, os.path.join(self.dir, "link.md"))
        os.symlink(self.tmp, os.path.join(self.dir, "loop"))
        found, problems = ms.discover(self.dir)
        self.assertNotIn("link.md", [f.path for f in found])
        self.assertIn(("link.md", "symlink-outside"), problems)
        self.assertFalse(any(f.path.startswith("loop/") for f in found))

    def test_suite_files_are_skipped_when_the_suite_is_the_memory_folder(self):
        found, _ = ms.discover(ms.SUITE_DIR)
        paths = [f.path for f in found]
        self.assertNotIn("README.md", paths)
        self.assertFalse(any(p.startswith(("tests/", "examples/")) for p in paths))

    def test_binary_and_invalid_utf8_files_are_reported_not_fatal(self):
        self.write("bin.md", b"\x89PNG\r\n\x1a\n\x00\x00binary")
        self.write("latin1.md", "caf\xe9 cr\xe8me".encode("latin-1"))
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        report = s.sync()
        self.assertIn(("bin.md", "binary"), report.problems)
        self.assertIn(("latin1.md", "invalid-utf8"), report.problems)
        issues = {p["path"]: p["issue"] for p in s.status()["problem_files"]}
        self.assertEqual(issues, {"bin.md": "binary", "latin1.md": "invalid-utf8"})
        self.assertTrue(memory_search.search(s, "caf"))  # read with replacement characters

    def test_bom_is_ignored(self):
        self.write("bom.md", "\ufeff# Title\nbody text\n".encode("utf-8"))
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        s.sync()
        hits = memory_search.search(s, "title")
        self.assertEqual((hits[0].path, hits[0].start_line, hits[0].heading), ("bom.md", 1, "Title"))


class RecoveryTest(TempMemory):
    files = {"a.md": "alpha beta\n", "b.md": "gamma delta\n"}

    def index_path(self):
        return os.path.join(self.dir, ".memory", "index.sqlite3")

    def build(self):
        s = ms.MemoryStore(self.dir)
        s.sync()
        s.close()

    def reopen_and_search(self):
        warnings = []
        s = ms.MemoryStore(self.dir, warn=warnings.append)
        self.addCleanup(s.close)
        s.sync()
        return memory_search.search(s, "gamma"), warnings

    def test_garbage_index_is_moved_aside_and_rebuilt(self):
        self.build()
        for suffix in ("-wal", "-shm"):
            if os.path.exists(self.index_path() + suffix):
                os.unlink(self.index_path() + suffix)
        with open(self.index_path(), "wb") as f:
            f.write(b"this is not a database at all" * 100)
        hits, warnings = self.reopen_and_search()
        self.assertEqual([h.path for h in hits], ["b.md"])
        self.assertEqual(len(warnings), 1)
        self.assertIn("damaged", warnings[0])
        moved = [n for n in os.listdir(os.path.join(self.dir, ".memory")) if ".damaged-" in n]
        self.assertTrue(moved)

    def test_zero_length_index_is_rebuilt(self):
        self.build()
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.index_path() + suffix):
                os.unlink(self.index_path() + suffix)
        open(self.index_path(), "wb").close()
        hits, _ = self.reopen_and_search()
        self.assertEqual([h.path for h in hits], ["b.md"])

    def test_old_schema_version_triggers_a_rebuild(self):
        self.build()
        conn = sqlite3.connect(self.index_path())
        conn.execute("UPDATE meta SET value='0' WHERE key='schema_version'")
        conn.commit()
        conn.close()
        hits, warnings = self.reopen_and_search()
        self.assertEqual([h.path for h in hits], ["b.md"])
        self.assertEqual(warnings, ["rebuilding the index: its format is from another version of the suite"])

    def test_damaged_json_index_is_rebuilt(self):
        s = ms.MemoryStore(self.dir, backend="json")
        s.sync()
        s.close()
        with open(os.path.join(self.dir, ".memory", "index.json"), "w") as f:
            f.write('{"schema_version": 1, "chunks": [[1, 2')
        warnings = []
        s = ms.MemoryStore(self.dir, backend="json", warn=warnings.append)
        self.addCleanup(s.close)
        s.sync()
        self.assertEqual([h.path for h in memory_search.search(s, "gamma")], ["b.md"])
        self.assertEqual(len(warnings), 1)

    def test_reindex_keeps_the_last_three_backups(self):
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        s.sync()
        made = []
        for _ in range(5):
            _, backup = s.rebuild()
            self.assertTrue(os.path.exists(backup))
            made.append(os.path.basename(backup))
        kept = sorted(os.listdir(os.path.join(self.dir, ".memory", "backups")))
        self.assertEqual(kept, made[-3:])
        restored = sqlite3.connect(os.path.join(self.dir, ".memory", "backups", kept[-1]))
        self.assertEqual(restored.execute("SELECT count(*) FROM chunks").fetchone()[0], 2)
        restored.close()

    def test_a_backup_another_rebuild_is_writing_is_not_pruned(self):
        """Two reindexes at once: the one finishing first prunes old backups,
        not the copy the other is still writing (it had failed with errno 2)."""
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        s.sync()
        folder = os.path.join(self.dir, ".memory", "backups")
        os.makedirs(folder, exist_ok=True)
        writing = os.path.join(folder, ".partial-20000101-000000-000000-index.sqlite3")
        with open(writing, "wb") as f:
            f.write(b"half a copy")
        for _ in range(4):
            s.rebuild()
        self.assertTrue(os.path.exists(writing))
        self.assertEqual(len([n for n in os.listdir(folder) if not n.startswith(".")]), 3)


class OldFormatUpgradeTest(TempMemory):
    """An index written by the format before 9 (a long line's units stored
    whole; version 8) is rebuilt on opening, and nothing is lost: the same
    chunks, text and units as a new index, the same hits, an embedding
    provider's vectors kept."""
    LONG = " ".join("word%d" % i for i in range(400)) + " kyoto temples at dawn"
    files = {"a.md": "# Trip\nshort line about osaka\n" + LONG + "\n", "b.md": "gamma delta\n"}

    def index_path(self):
        return os.path.join(self.dir, ".memory", "index.sqlite3")

    def stored(self, backend=None):
        s = ms.MemoryStore(self.dir, backend=backend)
        try:
            s.sync()
            chunks = [tuple(c)[1:] for p in ("a.md", "b.md") for c in s.backend.chunks_of(p)]  # keys differ
            return chunks, ids(memory_search.search(s, "kyoto temples"))
        finally:
            s.close()

    def write_version_8(self):
        """What version 8 wrote: each line's units whole, a vector beside."""
        from memsuite.index.blocks import pack_block, unpack_block
        from memsuite.text.tokenizer import text_units
        conn = sqlite3.connect(self.index_path())
        for key, blob in conn.execute("SELECT id, data FROM blocks").fetchall():
            lines, _ = unpack_block(blob)
            conn.execute("UPDATE blocks SET data=? WHERE id=?", (pack_block(lines, [text_units(l) for l in lines]), key))
        conn.execute("CREATE TABLE vectors(id INTEGER PRIMARY KEY, model TEXT NOT NULL, hash TEXT NOT NULL, "
                     "vec BLOB NOT NULL)")
        conn.execute("INSERT INTO vectors(model, hash, vec) VALUES('m', 'h', x'00000000')")
        conn.execute("UPDATE meta SET value='8' WHERE key='schema_version'")
        conn.commit()
        conn.close()

    def test_a_version_8_index_is_rebuilt_with_nothing_lost(self):
        fresh = self.stored()
        self.assertTrue(any(c[3] for c in fresh[0]), "the long line is cut into pieces")
        self.write_version_8()
        from memsuite.index.sqlite.index import SqliteBackend
        old = SqliteBackend(os.path.dirname(self.index_path()))
        old.conn = old.sqlite3.connect(self.index_path())  # not open(): the old blocks read as they are...
        misread = [tuple(c)[1:] for p in ("a.md", "b.md") for c in old.chunks_of(p)]
        old.close()
        self.assertNotEqual(misread, fresh[0])  # ...give a piece wrong units: a rebuild is needed
        warnings = []
        s = ms.MemoryStore(self.dir, warn=warnings.append)
        s.sync()
        s.close()
        self.assertEqual(warnings, ["rebuilding the index: its format is from another version of the suite"])
        self.assertEqual(self.stored(), fresh)
        conn = sqlite3.connect(self.index_path())
        self.addCleanup(conn.close)
        self.assertEqual(conn.execute("SELECT model, hash FROM vectors").fetchall(), [("m", "h")])

    def test_a_version_8_json_index_is_rebuilt_with_its_vectors_kept(self):
        import json
        fresh = self.stored("json")
        index = os.path.join(self.dir, ".memory", "index.json")
        with open(index, encoding="utf-8") as f:
            data = json.load(f)
        data["schema_version"] = 8
        with open(index, "w", encoding="utf-8") as f:
            json.dump(data, f)
        vectors = os.path.join(self.dir, ".memory", "vectors.json")
        with open(vectors, "w", encoding="utf-8") as f:
            f.write('{"m": {"h": "AAAAAA=="}}')
        warnings = []
        s = ms.MemoryStore(self.dir, backend="json", warn=warnings.append)
        s.sync()
        s.close()
        self.assertEqual(warnings, ["rebuilding the index: its format is from another version of the suite"])
        self.assertEqual(self.stored("json"), fresh)
        with open(vectors, encoding="utf-8") as f:
            self.assertEqual(json.load(f), {"m": {"h": "AAAAAA=="}})


class ReadOnlyFolderTest(TempMemory):
    files = {"a.md": "read only notes about kyoto\n"}

    def use_cache(self):
        cache = os.path.join(self.tmp, "cache")
        self.addCleanup(os.environ.__setitem__, "XDG_CACHE_HOME", os.environ["XDG_CACHE_HOME"])
        os.environ["XDG_CACHE_HOME"] = cache
        return cache

    def test_unusable_index_folder_falls_back_to_the_cache(self):
        with open(os.path.join(self.dir, ".memory"), "w") as f:
            f.write("a file where the index folder would go")
        cache = self.use_cache()
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        s.sync()
        self.assertTrue(s.index_dir.startswith(cache))
        self.assertTrue(s.status()["index_path"].startswith(cache))
        self.assertEqual(len(memory_search.search(s, "kyoto")), 1)

    @unittest.skipIf(os.name != "posix" or os.geteuid() == 0, "needs a non-root POSIX user")
    def test_read_only_folder_indexes_into_the_cache(self):
        os.chmod(self.dir, stat.S_IRUSR | stat.S_IXUSR)
        self.addCleanup(os.chmod, self.dir, stat.S_IRWXU)
        cache = self.use_cache()
        s = ms.MemoryStore(self.dir)
        self.addCleanup(s.close)
        s.sync()
        self.assertTrue(s.index_dir.startswith(cache))
        self.assertEqual(len(memory_search.search(s, "kyoto")), 1)


if __name__ == "__main__":
    unittest.main()
