"""MEMORY.md's lines against later daily notes (search/supersede.py): a line
is as of MEMORY.md's last change; a note dated after it that says other
numbers about the same thing ranks first and marks the line in the brief."""
import os
import time
import unittest

from helpers import TempMemory
import memory_search
import memory_store
from memsuite.app import brief
from memsuite.search.supersede import changed_later, long_term_date

LONG_TERM = "# Long-term\n\n## Work\n- The staging server listens on port 8443 behind the proxy.\n- Lunch is at noon.\n"
NOTE = "# 2026-04-09\n\n## Work\n- The staging server listens on port 9710 behind the proxy now.\n"


def set_day(path, day):
    stamp = time.mktime(time.strptime(day + " 12:00", "%Y-%m-%d %H:%M"))
    os.utime(path, (stamp, stamp))


class ChangedLaterTest(TempMemory):
    def folder(self, long_term_day):
        set_day(self.write("MEMORY.md", LONG_TERM), long_term_day)
        self.write("memory/2026-04-09.md", NOTE)

    def test_a_line_a_later_note_changed_is_marked_with_its_date(self):
        self.folder("2026-03-01")
        text = brief.build(self.dir, 1500)[0]
        self.assertIn("port 8443 behind the proxy. (changed by a later note, 2026-04-09: memory/2026-04-09.md:4)",
                      text)
        self.assertNotIn("noon. (changed", text)

    def test_a_note_dated_before_the_last_change_marks_nothing(self):
        self.folder("2026-04-10")  # MEMORY.md was edited after the note: it may hold the new port already
        self.assertNotIn("(changed by a later note", brief.build(self.dir, 1500)[0])

    def test_the_later_note_ranks_first_and_the_line_is_earlier(self):
        self.folder("2026-03-01")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        hits = memory_search.search(store, "staging server port", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-04-09.md")
        self.assertIn(next(h.id for h in hits if h.path == "MEMORY.md"), hits.earlier)


class MechanismTest(unittest.TestCase):
    def test_the_newest_of_several_later_notes_is_named(self):
        lines = ["- Badge number 55120 for the lab door."]
        notes = [("2026-05-02", "b.md", ["- Badge number 77310 for the lab door."]),
                 ("2026-04-01", "a.md", ["- Badge number 66001 for the lab door."])]
        self.assertEqual(changed_later(lines, notes), {0: ("2026-05-02", "b.md", 1)})

    def test_other_things_and_equal_numbers_mark_nothing(self):
        lines = ["- Badge number 55120 for the lab door."]
        self.assertEqual(changed_later(lines, [("2026-05-02", "b.md", ["- Ordered 300 screws for the shed."])]), {})
        self.assertEqual(changed_later(lines, [("2026-05-02", "b.md", ["- Badge number 55120 for the lab door."])]),
                         {})

    def test_no_memory_file_no_date(self):
        self.assertIsNone(long_term_date("/nonexistent-folder"))
