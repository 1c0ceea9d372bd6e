"""MEMORY.md's lines against the daily notes (search/supersede.py): its
lines have no date (the file's mtime is any line's last change, or a
copy's), so a dated note that says other numbers about the same thing is
the later statement: it ranks first and marks the line in the brief, unless
a newer note agrees with the line (MEMORY.md was updated)."""
import os
import time
import unittest

from helpers import TempMemory, run_script
import memory_search
import memory_store
from memsuite.app import brief
from memsuite.search.answers import asks_now
from memsuite.search.supersede import changed_later

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

    def test_the_files_last_change_does_not_date_its_lines(self):
        self.folder("2026-04-20")  # an agent appended a line after the note, or the folder was copied
        self.assertIn("(changed by a later note, 2026-04-09", brief.build(self.dir, 1500)[0])

    def test_a_line_the_newest_note_agrees_with_is_current(self):
        self.folder("2026-04-20")
        self.write("memory/2026-04-02.md", NOTE.replace("9710", "8443").replace("04-09", "04-02"))
        self.write("memory/2026-04-15.md", NOTE.replace("9710", "8443").replace("04-09", "04-15"))
        self.assertNotIn("(changed by a later note", brief.build(self.dir, 1500)[0])

    def test_the_later_note_ranks_first_and_the_line_is_earlier(self):
        self.folder("2026-04-20")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        hits = memory_search.search(store, "staging server port", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-04-09.md")
        self.assertIn(next(h.id for h in hits if h.path == "MEMORY.md"), hits.earlier)


    def test_the_context_pack_and_the_prompt_hook_mark_the_earlier_line(self):
        """What an agent is sent says which line a later note changed, as
        search does, so it is not read as current."""
        from memsuite.doors.hooks import recall
        self.folder("2026-04-20")
        mark = "(earlier, undated; newer: memory/2026-04-09.md:"
        code, out, err = run_script("search.sh", "--dir", self.dir, "context", "staging server port")
        self.assertEqual(code, 0, err)
        self.assertIn("[MEMORY.md:1-5] Long-term > Work " + mark, out)
        text = recall(self.dir, "Which port does the staging server listen on?")[0]
        self.assertIn(mark, text)
        self.assertEqual(text.count("(earlier"), 1, text)  # the later note itself is not marked


class DateFormsTest(unittest.TestCase):
    """A date is its month and day however written: a later note giving
    the same day another way changes nothing; another day does."""

    def marks(self, line, note):
        return changed_later([line], [("2026-11-01", "memory/2026-11-01.md", [note])])

    def test_the_same_day_written_another_way_is_no_change(self):
        line = "- Work: new job at Northwind Robotics from 2026-11-16, backend team."
        for note in ("- Northwind Robotics offer: backend team, start date Nov 16.",
                     "- Northwind Robotics 的 backend team，11 月 16 日入职。"):
            self.assertEqual(self.marks(line, note), {}, note)

    def test_another_day_is_a_change(self):
        line = "- Work: new job at Northwind Robotics from 2026-11-16, backend team."
        self.assertIn(0, self.marks(line, "- Northwind Robotics moved the backend team start date to Nov 23."))


class AskedNowTest(TempMemory):
    """A question asking how things stand now (now, still, 现在, 而家) lets a
    later note saying otherwise rank first from further below
    (supersede_sure_share); another question only from a near tie."""

    def test_now_questions_in_both_languages_and_cantonese(self):
        for query in ("Who's my manager now?", "Do I still have my afternoon latte?", "我现在每个月房租多少？",
                      "一店廚師長而家係邊個？", "What is my current rent?"):
            self.assertTrue(asks_now(query), query)
        for query in ("Who was my manager in May?", "上次房租多少", "snowboard rental", "knowledge base"):
            self.assertFalse(asks_now(query), query)

    def test_the_later_note_rises_from_further_below_when_asked_about_now(self):
        self.write("MEMORY.md", "# Long-term\n\n## Work\n- Staging server: port 8443 behind the proxy, the staging "
                   "server's config in ops/staging.toml.\n")
        self.write("memory/2026-04-09.md", "# 2026-04-09\n\n## Work\n- Moved staging to port 9710 today; the "
                   "proxy forwards it, the server list in the wiki.\n")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        params = store.params._replace(supersede_share=0.99, supersede_sure_share=0.3)
        then = memory_search.search(store, "staging server port", min_score=0, params=params)
        self.assertEqual(then[0].path, "MEMORY.md", [(h.path, h.score) for h in then])  # not a near tie
        now = memory_search.search(store, "staging server port now", min_score=0, params=params)
        self.assertEqual(now[0].path, "memory/2026-04-09.md", [(h.path, h.score) for h in now])
        self.assertIn(next(h.id for h in now if h.path == "MEMORY.md"), now.earlier)


class RestatedTest(TempMemory):
    """A later note naming the earlier value beside its new one ("port 8443
    is gone, use 9710") says the thing changed: it ranks first from within
    supersede_sure_share, as a now-question's later note does; one giving
    only the new value needs a near tie (supersede_share)."""

    def ranked(self, note, long_term="Staging server: port 8443 behind the proxy, the staging server's config "
                                     "in ops/staging.toml."):
        self.write("MEMORY.md", "# Long-term\n\n## Work\n- " + long_term + "\n")
        self.write("memory/2026-04-09.md", "# 2026-04-09\n\n## Work\n- " + note + "\n")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        params = store.params._replace(supersede_share=0.99, supersede_sure_share=0.3)
        return memory_search.search(store, "staging server port", min_score=0, params=params)

    def test_a_later_note_naming_the_old_value_ranks_first(self):
        for note in ("The staging server moved off port 8443 to 9710 today; the proxy forwards it.",
                     "The staging server moved again, from port 8443 to 9710; the proxy forwards it."):
            hits = self.ranked(note)
            self.assertEqual(hits[0].path, "memory/2026-04-09.md", [(h.path, h.score) for h in hits])
            self.assertIn(next(h.id for h in hits if h.path == "MEMORY.md"), hits.earlier)

    def test_one_giving_only_the_new_value_needs_a_near_tie(self):
        hits = self.ranked("The staging server moved to port 9710 today; the proxy forwards it.")
        self.assertEqual(hits[0].path, "MEMORY.md", [(h.path, h.score) for h in hits])

    def test_one_confirming_the_old_value_beside_another_changes_nothing(self):
        hits = self.ranked("The staging server still listens on port 8443; the admin console moved to port 9443.")
        self.assertEqual(hits[0].path, "MEMORY.md", [(h.path, h.score) for h in hits])
        self.assertFalse(hits.earlier)

    def test_a_clock_time_named_again_is_no_restatement(self):
        """A log's lines open with their times: another event at the same
        time beside a new one does not say the thing changed."""
        hits = self.ranked("The staging server port reboot moved from 08:30 to 09:10 today; the proxy forwards it.",
                           "Staging server: port reboot at 08:30 behind the proxy, the staging server's config in "
                           "ops/staging.toml.")
        self.assertEqual(hits[0].path, "MEMORY.md", [(h.path, h.score) for h in hits])


class FrameWordTest(TempMemory):
    def test_a_frame_word_alone_in_common_marks_nothing(self):
        """Anna's phone and Ben's new phone share "phone", a word of the question's
        frame, not the person it asks about: Anna's line is not an earlier statement."""
        self.write("MEMORY.md", "# Me\n\n## People\n- Anna Keller's phone number is 6734 9902 (dentist)\n")
        self.write("memory/2026-04-09.md", "# 2026-04-09\n\n## People\n- Ben Ortiz's new phone number is 8123 4567\n")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        hits = memory_search.search(store, "Ben Ortiz phone", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-04-09.md")
        self.assertFalse(hits.earlier, hits.earlier)


class HeadingAndPluralTest(TempMemory):
    def test_a_note_under_its_heading_saying_another_weekday_is_the_later_statement(self):
        self.write("MEMORY.md", "# Me\n\n## Work\n- SRE at Paylane, payments platform team.\n"
                   "- Primary on-call every Wednesday, secondary on Sundays.\n- Clusters: sg-prod-a, sg-prod-b.\n"
                   "- Manager: Daniel, 1:1 on Mondays.\n")
        self.write("memory/2026-08-19.md", "# 2026-08-19\n\n## On-call\n- Quiet night.\n"
                   "- From 3 Sep I'm primary on Thursdays, Kenji moves to Wednesdays.\n")
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        hits = memory_search.search(store, "which day am I primary on-call", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-08-19.md", [h.id for h in hits])
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

    def test_a_phone_number_and_an_amount_are_not_the_same_kind_of_value(self):
        lines = ["- Landlord Mr Huang, phone 137 6105 3382, pays the building fee himself"]
        notes = [("2026-05-02", "b.md", ["- Mr Huang the landlord came by: new lease signed, 7,500 a month"])]
        self.assertEqual(changed_later(lines, notes), {})
        rent = ["- Rent 7,800 a month to the landlord Mr Huang, due on the 5th"]
        self.assertEqual(changed_later(rent, notes), {0: ("2026-05-02", "b.md", 1)})

    def test_two_words_in_common_are_not_the_same_thing(self):
        lines = ["- MacBook bought on the credit card in 12 instalments of 1,249"]
        notes = [("2026-05-02", "b.md", ["- Credit card bill for May: 6,432, paid early"])]
        self.assertEqual(changed_later(lines, notes), {})

    def test_a_later_line_naming_the_old_value_beside_a_new_one_says_otherwise(self):
        lines = ["- On-call: primary every Wednesday, secondary on Sundays."]
        notes = [("2026-08-19", "b.md", ["- Rota: from now on-call primary on Thursdays, Kenji moves to Wednesdays."])]
        self.assertEqual(changed_later(lines, notes), {0: ("2026-08-19", "b.md", 1)})
        same = [("2026-08-19", "b.md", ["- On-call primary this Wednesday again, secondary Sunday."])]
        self.assertEqual(changed_later(lines, same), {})

    def test_a_date_is_no_phone_number_and_sunday_is_sunday(self):
        lines = ["- Dentist Dr Lim, clinic phone 6734 9902, cleaning every six months"]
        notes = [("2026-05-02", "b.md", ["- Dentist Dr Lim: cleaning done 2026-05-02, next one in six months"])]
        self.assertEqual(changed_later(lines, notes), {})
        lines = ["- 女儿钢琴课 每周日上午 10 点 在少年宫"]
        for said in ("还是星期天上午 10 点，钢琴课", "钢琴课照旧礼拜日上午 10 点"):
            self.assertEqual(changed_later(lines, [("2026-05-02", "b.md", [said])]), {}, said)
        self.assertTrue(changed_later(lines, [("2026-05-02", "b.md", ["钢琴课改到星期六上午 10 点"])]))

    def test_a_currency_in_common_is_not_the_same_thing(self):
        lines = ["- Budget for the Chengdu office approved with Mia: 850,000 RMB"]
        notes = [("2026-05-02", "b.md", ["- Train ticket 73 RMB, hotel 480 RMB in Chengdu, booked by Mia"])]
        self.assertEqual(changed_later(lines, notes), {})

    def test_an_older_note_another_newer_one_contradicts_marks_nothing(self):
        lines = ["- Badge number 55120 for the lab door."]
        notes = [("2026-04-01", "a.md", ["- Badge number 66001 for the lab door."]),
                 ("2026-05-02", "b.md", ["- Badge number 55120 for the lab door, again."])]
        self.assertEqual(changed_later(lines, notes), {})


if __name__ == "__main__":
    unittest.main()
