"""Honest state and recovery that does not misfire (issue: the right folder ... 10-12)."""
import json
import os
import sqlite3
import subprocess
import sys
import unittest
from unittest import mock

from helpers import TempMemory, clean_env, run_script
import memory_search
import memory_store as ms


class WatcherSaysWhatItCheckedTest(TempMemory):
    def test_a_search_answered_by_a_watcher_says_when_every_file_was_checked(self):
        self.write("MEMORY.md", "# Memory\n\nThe blog runs on Hugo.\n")
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        self.addCleanup(sleeper.wait)
        self.addCleanup(sleeper.kill)
        import time
        with mock.patch("os.getpid", return_value=sleeper.pid):
            store.heartbeat.beat(5.0, every_file=time.time() - 250)  # recent files now, every file 250 s ago
        code, out, err = run_script("search.sh", "hugo", "--json", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertFalse(doc["stale"])
        self.assertEqual(doc["checked"]["by"], "watch")
        self.assertGreaterEqual(doc["checked"]["every_file_seconds_ago"], 249)
        self.assertLess(doc["checked"]["recent_files_seconds_ago"], 30)


class RecoveryTest(TempMemory):
    def store(self, **kw):
        s = ms.MemoryStore(self.dir, warn=self.warnings.append, **kw)
        self.addCleanup(s.close)
        return s

    def setUp(self):
        super().setUp()
        self.warnings = []
        self.write("MEMORY.md", "# Memory\n\n## Blog\nThe blog runs on Hugo with the PaperMod theme.\n")

    def test_a_stored_block_that_no_longer_unpacks_is_damage(self):
        s = self.store()
        s.sync()
        conn = sqlite3.connect(os.path.join(self.dir, ".memory", "index.sqlite3"))
        conn.execute("UPDATE blocks SET data = x'00112233445566'")
        conn.commit()
        conn.close()
        hits = memory_search.search(self.store(), "papermod", sync=True)
        self.assertEqual([h.path for h in hits], ["MEMORY.md"])
        self.assertTrue(any("damaged" in w for w in self.warnings), self.warnings)

    def test_a_healthy_index_another_process_rebuilt_is_not_moved_aside(self):
        s = self.store()
        s.sync()
        index = os.path.join(self.dir, ".memory", "index.sqlite3")
        other = ms.MemoryStore(self.dir, index_dir=os.path.join(self.tmp_other(), "x"))
        other.sync()
        other.close()
        os.replace(os.path.join(other.index_dir, "index.sqlite3"), index + ".new")
        os.replace(index + ".new", index)  # another process put a new, healthy index in place
        real = s.backend.keyword
        calls = []

        def damaged_once(*a, **k):
            if not calls:
                calls.append(1)
                raise s.backend.sqlite3.DatabaseError("database disk image is malformed")
            return real(*a, **k)
        s.backend.keyword = damaged_once
        self.assertEqual([h.path for h in memory_search.search(s, "papermod")], ["MEMORY.md"])
        self.assertFalse([n for n in os.listdir(os.path.dirname(index)) if ".damaged-" in n])

    def tmp_other(self):
        import tempfile
        import shutil
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_stored_vectors_survive_another_processs_rebuild(self):
        s = self.store()
        s.sync()
        s.embeddings.counts("test-hash:x")  # the vectors table exists, as this process knows
        code, _, err = run_script("reindex.sh", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        self.assertEqual(s.embeddings.counts("test-hash:x")[0], 0)  # no "no such table: vectors"

    def test_json_link_writers_never_lose_each_others_links(self):
        self.write("notes/a.md", "OpenClaw and Hugo\n")
        self.write("notes/b.md", "Feedly and RSS\n")
        a, b = self.store(backend="json"), self.store(backend="json")
        a.sync()
        b.refresh()
        la, lb = a.links("v1"), b.links("v1")  # both have read the (empty) link tables
        la.apply([("notes/a.md", "h1", [])])
        lb.apply([("notes/b.md", "h2", [])])
        fresh = self.store(backend="json").links("v1")
        self.assertEqual(sorted(fresh.known_files()), ["notes/a.md", "notes/b.md"])


class ManyMcpClientsTest(TempMemory):
    """8 MCP clients at once against one folder while add and sync run from the CLI."""
    CLIENTS, NOTES = 8, 8

    def test_no_error_and_no_lost_or_doubled_note(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from test_agents import McpClient
        import threading
        self.write("MEMORY.md", "# Memory\n\nThe blog runs on Hugo.\n")
        clients = [McpClient(self, self.dir) for _ in range(self.CLIENTS)]
        for c in clients:
            c.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "t", "version": "1"}})
        errors, stop, added = [], threading.Event(), {}

        def cli_writer():
            n = 0
            while not stop.is_set():
                for argv in (["add", "cli note %d zebra" % n], ["sync"]):
                    code, _, err = run_script("search.sh", *argv, "--dir", self.dir)
                    if code != 0:
                        errors.append(err)
                n += 1
        def client_work(i, client):
            for j in range(self.NOTES):
                for tool, args in (("memory_add", {"text": "client %d note %d okapi" % (i, j),
                                                   "request": "c%d-%d" % (i, j)}),
                                   ("memory_add", {"text": "client %d note %d okapi" % (i, j),
                                                   "request": "c%d-%d" % (i, j)}),  # a retry
                                   ("memory_search", {"query": "okapi"})):
                    result = client.call(tool, **args)
                    if result["isError"]:
                        errors.append(result["content"][0]["text"])
                    elif tool == "memory_add":
                        added[(i, j)] = result["structuredContent"]
        writer = threading.Thread(target=cli_writer)
        writer.start()
        threads = [threading.Thread(target=client_work, args=(i, c)) for i, c in enumerate(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=240)
        stop.set()
        writer.join(timeout=60)
        self.assertEqual(errors, [])
        text = ""
        for name in os.listdir(os.path.join(self.dir, "memory")):
            with open(os.path.join(self.dir, "memory", name), encoding="utf-8") as f:
                text += f.read()
        for i in range(self.CLIENTS):
            for j in range(self.NOTES):
                self.assertEqual(text.count("- client %d note %d okapi\n" % (i, j)), 1, (i, j))
        # the search finds the very note client 3 added as its note 5 (its cited lines, not a snippet
        # of "client 5 note 3", which reads alike)
        note = added[(3, 5)]
        found = clients[0].call("memory_search", query="client 3 note 5 okapi", limit=50)["structuredContent"]
        self.assertTrue(any(r["path"] == note["path"] and r["start_line"] <= note["start_line"] <= r["end_line"]
                            for r in found["results"]), (note["id"], [r["id"] for r in found["results"]]))


if __name__ == "__main__":
    unittest.main()
