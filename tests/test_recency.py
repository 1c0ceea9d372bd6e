"""search --recent: an opt-in preference for newer notes (issue 19 §4)."""
import datetime
import json
import unittest

from helpers import TempMemory, run_script
import memory_search
import memory_store
from memsuite.text.params import DEFAULT_HALF_LIFE
from memsuite.search.recency import recency_factor, reference_day

RECENT = memory_store.DEFAULT_PARAMS._replace(recent_half_life=DEFAULT_HALF_LIFE)


class RecencyFactorTest(unittest.TestCase):
    def test_a_share_of_the_score_halves_each_half_life(self):
        ref = datetime.date(2026, 3, 1)
        self.assertEqual(recency_factor("2026-03-01", ref, RECENT), 1.0)
        self.assertAlmostEqual(recency_factor("2026-01-30", ref, RECENT), 0.85)  # 30 days: half of 0.3 left
        self.assertAlmostEqual(recency_factor("2016-03-01", ref, RECENT), 0.7, places=6)  # never under 0.7
        self.assertEqual(recency_factor("2026-04-01", ref, RECENT), 1.0)  # after the reference: current
        self.assertEqual(recency_factor(None, ref, RECENT), 1.0)  # undated (MEMORY.md): current
        self.assertEqual(recency_factor("2016-03-01", ref, memory_store.DEFAULT_PARAMS), 1.0)  # off

    def test_ages_count_from_the_newest_note_not_after_today(self):
        today = datetime.date(2026, 3, 1)
        dates = {"MEMORY.md": None, "memory/2025-06-01.md": "2025-06-01", "memory/2025-07-04.md": "2025-07-04"}
        self.assertEqual(reference_day(dates, today), datetime.date(2025, 7, 4))
        dates["memory/2027-01-01.md"] = "2027-01-01"  # a plan for next year is not "now"
        self.assertEqual(reference_day(dates, today), datetime.date(2025, 7, 4))
        self.assertEqual(reference_day({"MEMORY.md": None}, today), today)


class FactThatChangedTest(TempMemory):
    """Anna moved to Berlin (old note), then to Lisbon (new note)."""
    files = {
        "memory/2025-03-02.md": "# 2025-03-02\n\n## Anna\n- Anna moved to Berlin for the new job at the studio.\n",
        "memory/2026-11-20.md": "# 2026-11-20\n\n## Anna\n- Anna moved to Lisbon last week; she sold the flat.\n",
        "MEMORY.md": "# MEMORY\n\n- Anna: old friend from university, likes climbing.\n",
    }

    def setUp(self):
        super().setUp()
        self.store = memory_store.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def paths(self, hits):
        return [h.path for h in hits]

    def test_default_keeps_both_and_recent_puts_the_new_one_first(self):
        plain = memory_search.search(self.store, "where did Anna move")
        self.assertEqual(self.paths(plain)[0], "memory/2025-03-02.md")  # the old note words it a little better
        self.assertIn("memory/2026-11-20.md", self.paths(plain))
        recent = memory_search.search(self.store, "where did Anna move", params=RECENT)
        self.assertEqual(self.paths(recent)[0], "memory/2026-11-20.md")
        self.assertIn("memory/2025-03-02.md", self.paths(recent))  # still found
        self.assertTrue(all(0 <= h.score <= 1 for h in recent))

    def test_an_old_note_that_alone_answers_stays_first_and_undated_keeps_its_score(self):
        plain = {h.path: h.score for h in memory_search.search(self.store, "Berlin studio job")}
        recent = {h.path: h.score for h in memory_search.search(self.store, "Berlin studio job", params=RECENT)}
        self.assertEqual(list(recent)[0], "memory/2025-03-02.md")
        self.assertGreaterEqual(recent["memory/2025-03-02.md"], 0.7 * plain["memory/2025-03-02.md"] - 1e-3)
        climbing = memory_search.search(self.store, "climbing", params=RECENT)
        self.assertEqual(climbing[0].score, memory_search.search(self.store, "climbing")[0].score)

    def test_cli_mcp_and_explain(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "where did Anna move", "--recent", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["results"][0]["path"], "memory/2026-11-20.md")
        self.assertEqual(doc["recent"], {"half_life_days": DEFAULT_HALF_LIFE})
        code, out, err = run_script("search.sh", "--dir", self.dir, "where did Anna move", "--json")
        self.assertEqual(json.loads(out)["results"][0]["path"], "memory/2025-03-02.md")  # never on by default
        code, out, err = run_script("search.sh", "--dir", self.dir, "Anna move", "--half-life", "3000", "--explain")
        self.assertEqual(code, 0, err)
        self.assertIn("recency x1.00", out)
        self.assertRegex(out, r"recency x0\.9\d")  # 20 months old at a half-life of 3000 days
        code, out, _ = run_script("search.sh", "--dir", self.dir, "Anna move", "--explain")
        self.assertNotIn("recency", out)

        from memsuite.doors.mcp import McpServer
        server = McpServer(self.store)

        def call(**arguments):
            message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "memory_search", "arguments": arguments}}
            return server.handle(message)["result"]
        found = call(query="where did Anna move", recent=True, explain=True)["structuredContent"]
        self.assertEqual(found["results"][0]["path"], "memory/2026-11-20.md")
        self.assertIn("recency", found["results"][0]["explain"])
        self.assertEqual(call(query="Anna move", half_life=7)["structuredContent"]["recent"], {"half_life_days": 7})
        self.assertTrue(call(query="Anna move", half_life=0)["isError"])
        self.assertTrue(call(query="Anna move", recent="yes")["isError"])

    def test_bad_half_life_is_one_line_and_exit_2(self):
        for bad in ("0", "-3", "abc", "nan", "1e9"):
            code, out, err = run_script("search.sh", "--dir", self.dir, "Anna", "--half-life", bad)
            self.assertEqual(code, 2, (bad, err))
            self.assertEqual(len(err.strip().splitlines()), 1, err)
            self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
