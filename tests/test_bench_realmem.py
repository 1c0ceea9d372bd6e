"""The RealMem benchmarks' shared rules (bench/realmem.py): a prompt sees only
the sessions before its own, citations are read from a hook's text, and the
absent-topic prompts are the next persona's."""
import os
import sys
import tempfile
import unittest

from helpers import ROOT

sys.path.insert(0, os.path.join(ROOT, "bench"))
import realmem  # noqa: E402


def prompt(before, n):
    return {"id": "P:%d" % n, "corpus": "P", "before": before, "query": "q%d" % n}


class ReplayTest(unittest.TestCase):
    def test_each_session_sees_only_the_sessions_before_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            root, folder = os.path.join(tmp, "P"), os.path.join(tmp, "grown")
            os.makedirs(os.path.join(root, "memory"))
            names = ["2025-01-01-000.md", "2025-01-02-001.md", "2025-01-02-002.md", "2025-01-05-003.md"]
            for name in names:
                with open(os.path.join(root, "memory", name), "w", encoding="utf-8") as f:
                    f.write("# %s\n" % name)
            prompts = [prompt("memory/2025-01-05-003.md", 1), prompt("memory/2025-01-02-001.md", 2),
                       prompt("memory/2025-01-02-001.md", 3)]
            seen = [(session, [q["id"] for q in step], sorted(os.listdir(os.path.join(folder, "memory"))))
                    for session, step in realmem.replay(root, folder, prompts)]
        self.assertEqual(seen, [("memory/2025-01-02-001.md", ["P:2", "P:3"], names[:1]),
                                ("memory/2025-01-05-003.md", ["P:1"], names[:3])])

    def test_the_before_rule_drops_the_own_session_and_later(self):
        before = "memory/2025-01-02-001.md"
        self.assertTrue(realmem.visible("memory/2025-01-01-000.md", before))
        self.assertFalse(realmem.visible(before, before))
        self.assertFalse(realmem.visible("memory/2025-01-05-003.md", before))


class CitationsTest(unittest.TestCase):
    def test_a_hooks_text_cites_ranges_and_single_lines(self):
        text = ("## Memories for: [not.md] a prompt\n\n[memory/2025-01-02-001.md:6-8] Session\n"
                "**User**: ...\n[MEMORY.md:3] Long-term\n")
        self.assertEqual(realmem.citations(text), [("memory/2025-01-02-001.md", 6, 8), ("MEMORY.md", 3, 3)])

    def test_a_range_holds_gold_only_when_a_gold_line_is_inside_it(self):
        q = {"gold": [{"path": "memory/a.md", "line": 9}], "gold_session": [{"path": "memory/a.md", "line": 4}]}
        ranges = [("memory/a.md", 3, 8), ("memory/b.md", 9, 9)]
        self.assertTrue(realmem.holds(ranges, realmem.gold_lines(q, "gold_session")))
        self.assertFalse(realmem.holds(ranges, realmem.gold_lines(q)))


class PersonasTest(unittest.TestCase):
    def test_the_next_persona_in_name_order_wraps_around(self):
        names = ["Sarah_Miller", "Adeleke_Okonjo", "Kenta_Tanaka"]
        self.assertEqual(realmem.next_persona("Adeleke_Okonjo", names), "Kenta_Tanaka")
        self.assertEqual(realmem.next_persona("Sarah_Miller", names), "Adeleke_Okonjo")

    def test_the_other_personas_prompt_cycles_when_it_has_fewer(self):
        others = ["a", "b"]
        self.assertEqual([realmem.foreign_prompt(others, k) for k in range(3)], ["a", "b", "a"])

    def test_tuning_personas_and_the_rest_held_out(self):
        self.assertEqual([realmem.split_of(p) for p in ("Kenta_Tanaka", "Oliver_Smith", "Unknown")],
                         ["tune", "held", "held"])


if __name__ == "__main__":
    unittest.main()
