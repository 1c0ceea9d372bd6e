"""Near-duplicate suppression (memsuite/search/results.py): copies of a line do not fill the budget."""
import json
import random
import unittest

from helpers import TempMemory, run_script
import memory_search
import memory_store
from memsuite.search.results import _LineIndex, _signature

ON = memory_store.DEFAULT_PARAMS
OFF = memory_store.DEFAULT_PARAMS._replace(duplicate_share=1.0)


class LineIndexTest(unittest.TestCase):
    def test_the_prefix_filter_finds_every_similar_pair(self):
        rng = random.Random(4)
        words = ["w%d" % i for i in range(14)]
        for _ in range(300):
            index, shown = _LineIndex(0.8), []
            for n in range(6):
                sig = tuple(sorted(rng.sample(words, rng.randrange(1, 9))))
                index.add(sig, ("a.md", n))
                shown.append(set(sig))
            probe = tuple(sorted(rng.sample(words, rng.randrange(1, 9))))
            brute = any(len(set(probe) & s) >= 0.8 * len(set(probe) | s) for s in shown)
            self.assertEqual(index.repeats(probe, ("b.md", 0)), brute, probe)

    def test_numbers_do_not_count_and_only_other_files_repeat(self):
        self.assertEqual(_signature(["09:30", "09", "30", "2026-01-05", "standup", "green"]), {"green", "standup"})
        self.assertEqual(_signature(["order", "4471"]), {"4471", "order"})  # an order number is not a time
        self.assertEqual(_signature(["3", "月", "14", "日", "站会"]), {"月", "日", "站会"})  # 3月14日
        self.assertEqual(_signature(["januari", "5", "3pm", "standup"]), {"januari", "standup"})
        self.assertEqual(_signature(["budget", "30", "euro"]), {"30", "budget", "euro"})  # a price is no time
        index = _LineIndex(0.8)
        index.add(("green", "standup"), ("a.md", 3))
        self.assertFalse(index.repeats(("green", "standup"), ("a.md", 3)))  # the same line, in an overlapping chunk
        self.assertFalse(index.repeats(("green", "standup"), ("a.md", 9)))  # a list in one file
        self.assertTrue(index.repeats(("green", "standup"), ("b.md", 3)))


class ChangedNumberTest(TempMemory):
    """A line that changed only in a number (a budget of 30, later 45) states
    another fact: it is no copy of the first."""
    files = {"memory/2026-01-01.md": "# 2026-01-01\n\n- The team lunch budget is 30 euros per person per day.\n",
             "memory/2026-02-01.md": "# 2026-02-01\n\n- The team lunch budget is 45 euros per person per day.\n",
             "memory/2026-03-01.md": "# 2026-03-01\n\n- The team went hiking.\n"}

    def test_the_changed_fact_keeps_its_score(self):
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        on = {h.path: h.score for h in memory_search.search(store, "team lunch budget", params=ON)}
        off = {h.path: h.score for h in memory_search.search(store, "team lunch budget", params=OFF)}
        self.assertEqual(on, off)


ROUTINE = "- %s standup: Atlas deploy pipeline %s; Anna reviews the Atlas release notes today.\n"
FILLER = "- Reviewed pull requests.\n- Lunch with the team.\n- Answered support tickets.\n"
FACT = "- Anna wants the Atlas release notes grouped by customer from now on.\n"


class RepeatedLogsTest(TempMemory):
    """Nine daily logs repeat a standup line; one note adds a fact."""

    def setUp(self):
        super().setUp()
        for day in range(1, 10):
            text = "# 2026-01-0%d\n\n## Atlas\n" % day + ROUTINE % ("09:%02d" % (day * 5), ["green", "still green"][day % 2])
            text += FILLER + "\n## Dune\n- Dune sync with Dara: mobile app green.\n" + FILLER
            if day == 6:
                text += "\n## Notes\n- Lunch with the team.\n" + FACT
            self.write("memory/2026-01-0%d.md" % day, text)
        self.store = memory_store.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def hits(self, query, params=None):
        return memory_search.search(self.store, query, limit=20, min_score=0, params=params)

    def test_copies_give_way_to_the_note_that_adds_something(self):
        query = "Anna Atlas release notes today"  # the standup line words it best
        rank = lambda hits: [i for i, h in enumerate(hits) if "grouped by customer" in h.text][0]
        def strong_copies(hits):  # copies of the standup line scoring near the best hit
            return sum("grouped by customer" not in h.text and h.score >= 0.8 * hits[0].score for h in hits[:5])
        # off, the copies of one wording fill the top five as high as the fact
        self.assertGreaterEqual(strong_copies(self.hits(query, OFF)), 4)
        self.assertLessEqual(rank(self.hits(query, ON)), 1)  # behind one copy at most
        self.assertLessEqual(strong_copies(self.hits(query, ON)), 1)  # the other copies give way

    def test_on_by_default_and_explained(self):
        self.assertEqual(memory_store.DEFAULT_PARAMS.duplicate_share, 0.5)
        code, out, err = run_script("search.sh", "--dir", self.dir, "Atlas standup", "--explain", "--json")
        self.assertEqual(code, 0, err)
        results = json.loads(out)["results"]
        self.assertNotIn("repeat", results[0]["explain"])
        self.assertEqual([r["explain"].get("repeat") for r in results[1:]], [0.5] * 4)  # "still green" too
        for r in results:
            e = r["explain"]
            self.assertAlmostEqual((e["merged"] + e["rerank"]) * e.get("repeat", 1.0), r["score"], places=3)

    def test_the_first_copy_keeps_its_score_and_the_others_stay_findable(self):
        plain, on = self.hits("Atlas standup", OFF), self.hits("Atlas standup", ON)
        self.assertEqual((on[0].id, on[0].score), (plain[0].id, plain[0].score))
        self.assertEqual({h.id for h in on}, {h.id for h in plain})
        copies = [h for h in on if "standup" in h.text]
        self.assertEqual(len(copies), 9)
        self.assertTrue(all(h.score <= 0.5 * plain[0].score + 1e-3 for h in copies[1:]), copies)


class NoRepeatsTest(TempMemory):
    files = {"memory/2026-02-01.md": "# 2026-02-01\n\n" + "".join(
        "- line %d about the blog RSS feed and item %s\n" % (i, w) for i, w in enumerate("abcdefghijklmnop"))}

    def test_overlapping_chunks_of_one_file_are_not_duplicates(self):
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        plain = memory_search.search(store, "blog RSS feed", limit=10, min_score=0, params=OFF)
        on = memory_search.search(store, "blog RSS feed", limit=10, min_score=0, params=ON)
        self.assertEqual([(h.id, h.score) for h in on], [(h.id, h.score) for h in plain])


if __name__ == "__main__":
    unittest.main()
