"""Answers you can trust (issue 27): the subject before the frame, the newest
statement of a fact first, one score cut.  Each case runs on a month of
bilingual notes committed under tests/trust/month: 张伟 in a dozen files (a
People line holds his number), 张伟明 in eight, 林志豪's number in one."""
import os
import re
import shutil
import unittest

from helpers import ROOT, TempMemory
import memory_store as ms
from memsuite.doors import hooks
from memsuite.search.ranking import ANSWER_CUT, search

MONTH = os.path.join(ROOT, "tests", "trust", "month")


class MonthOfNotes(TempMemory):
    """The month's notes, copied (the index is written beside them), synced."""

    def setUp(self):
        super().setUp()
        shutil.rmtree(self.dir)
        shutil.copytree(MONTH, self.dir)
        self.store = ms.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def hits(self, query):
        return search(self.store, query, limit=10, min_score=0.0)


class SubjectBeforeFrameTest(MonthOfNotes):

    def test_a_phone_question_about_someone_never_ranks_another_persons_number_first(self):
        hits = self.hits("张伟的手机号")
        self.assertEqual(hits[0].path, "MEMORY.md")  # the People line 张伟：直属领导… 手机 138-…
        self.assertGreaterEqual(hits[0].score, ANSWER_CUT)
        paths = [h.path for h in hits]
        if "memory/2026-11-20.md" in paths:  # 林志豪的手機號碼: below every hit naming 张伟, under the cut
            other = paths.index("memory/2026-11-20.md")
            self.assertLess(hits[other].score, ANSWER_CUT)
            self.assertFalse([h for h in hits[other + 1:] if "张伟" in h.text.replace("张伟明", "")])

    def test_the_prompt_hook_does_not_inject_another_persons_number(self):
        text = hooks.recall(self.dir, "张伟明的手机号是多少", store=self.store)[0]
        self.assertNotIn("0928", text)
        self.assertNotIn("林志豪的手", text)

    def test_a_when_question_prefers_the_note_that_says_when(self):
        hits = self.hits("妈妈什么时候来杭州")
        self.assertEqual(hits[0].path, "memory/2026-11-13.md")  # 12 月 6 日上午十点到杭州东站

    def test_a_frame_word_alone_does_not_carry_a_hit(self):
        hits = self.hits("How long did the hike take?")  # the hike is written 爬山; MEMORY.md says Long-term
        above = [h for h in hits if h.score >= ANSWER_CUT]
        self.assertTrue(all("爬山" in h.text for h in above), [(h.id, h.score) for h in hits])  # hike reaches 爬山
        self.assertTrue(all(h.score < ANSWER_CUT for h in hits if "Long-term" in h.text), [(h.id, h.score) for h in hits])

    def test_long_term_is_still_a_topic_when_not_asked_how_long(self):
        hits = self.hits("long-term notes")
        self.assertEqual(hits[0].path, "MEMORY.md")
        self.assertGreaterEqual(hits[0].score, ANSWER_CUT)


class NewestFactFirstTest(MonthOfNotes):

    def check_newest_first(self, query, newer, older):
        hits = self.hits(query)
        paths = [h.path for h in hits]
        self.assertLess(paths.index(newer), paths.index(older), [(h.id, h.score) for h in hits])
        old = hits[paths.index(older)]
        self.assertEqual(hits.earlier.get(old.id), hits[paths.index(newer)].id)

    def test_a_moved_lesson_shows_the_new_time_first(self):
        # 周六上午九点 (11-05), then 改到周三下午四点 (11-19): equal scores, the later first
        self.check_newest_first("女儿的钢琴课是什么时候", "memory/2026-11-19.md", "memory/2026-11-05.md")
        self.check_newest_first("钢琴课", "memory/2026-11-19.md", "memory/2026-11-05.md")

    def test_a_replaced_number_shows_the_new_number_first(self):
        self.check_newest_first("工牌号是多少", "memory/2026-11-23.md", "memory/2026-11-12.md")

    def test_notes_that_agree_are_not_reordered_by_date(self):
        hits = self.hits("张伟明 支付接口")  # many notes, no change said: no earlier/newer pairs
        self.assertFalse(hits.earlier)

    def test_the_cli_marks_the_earlier_statement_with_its_date(self):
        from helpers import run_script
        code, out, err = run_script("search.sh", "钢琴课", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("earlier, 2026-11-05", out)


class SameThingTest(TempMemory):
    """A later note is about the same thing only when one of its lines holds
    the query's words the earlier line holds, not when they are spread over
    lines about other things (a log's entries each have a clock time)."""
    files = {"memory/2024-04-01.md": "# 2024-04-01\n\n- 17:49 新兴产业峰会的规模是八千人。\n",
             "memory/2024-04-02.md": "# 2024-04-02\n\n- 09:04 新兴产业峰会的地点是山西太原。\n"
                                     "- 20:05 创新法治研讨会的规模是四百人。\n"}

    def test_words_spread_over_other_lines_do_not_make_a_newer_statement(self):
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        loose = store.params._replace(supersede_share=0.5)  # so only what the lines say decides
        hits = search(store, "新兴产业峰会的规模是什么？", min_score=0.0, params=loose)
        self.assertEqual(hits[0].path, "memory/2024-04-01.md", [(h.id, h.score) for h in hits])
        self.assertFalse(hits.earlier)


class OneCutTest(unittest.TestCase):
    """SKILL.md, the hooks and bench/calibration.py read one cut."""

    def test_the_hook_cut_is_the_answer_cut(self):
        self.assertEqual(hooks.RECALL_CUT, ANSWER_CUT)

    def test_skill_md_tells_agents_the_same_cut(self):
        with open(os.path.join(ROOT, "SKILL.md"), encoding="utf-8") as f:
            said = re.findall(r"[Ss]cores of ([0-9.]+) and up", f.read())
        self.assertTrue(said)
        self.assertEqual({float(s) for s in said}, {ANSWER_CUT})

    def test_the_mcp_tool_tells_agents_the_same_cut(self):
        from memsuite.doors.mcp import MCP_TOOLS
        said = re.findall(r"scores of ([0-9.]+) and more", MCP_TOOLS[0]["description"])
        self.assertEqual([float(s) for s in said], [ANSWER_CUT])

    def test_calibration_marks_the_answer_cut_as_current(self):
        import sys
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import calibration
        self.assertEqual(calibration.current_cut(), ANSWER_CUT)


if __name__ == "__main__":
    unittest.main()


class LongPromptTest(TempMemory):
    """A whole chat turn is about its topic words, not its greetings and filler."""

    files = {
        "memory/2026-01-05.md": "# 2026-01-05\n\n- Ready for the next step? Let's get started, sounds good, mate.\n"
                                "- Great, thanks, I'm ready to move forward now.\n",
        "memory/2026-01-06.md": "# 2026-01-06\n\n- Remittance fees to Lagos: the bank charges 4%, the app 1.5%.\n",
        "memory/2026-01-07.md": "# 2026-01-07\n\n- Customer rush at the shop after the holiday sale.\n",
    }
    prompt = ("Hey mate! That customer rush was something else, honestly. I'm ready to get back into the "
              "remittance stuff now. What's the next step? Thanks!")

    def setUp(self):
        super().setUp()
        self.store = ms.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def test_a_long_prompt_is_answered_by_its_topic_not_its_filler(self):
        hits = search(self.store, self.prompt, limit=3, min_score=0.0)
        self.assertNotEqual(hits[0].path, "memory/2026-01-05.md", [(h.id, h.score) for h in hits])

    def test_topic_terms_leave_out_greetings_and_filler(self):
        from memsuite.search.ranking import topic_terms
        terms = topic_terms(self.store, self.prompt)
        self.assertIn("remitt", terms[:3] + [t for t in terms if t.startswith("remit")])
        for filler in ("hei", "hey", "mate", "readi", "next", "step", "thank", "honestli"):
            self.assertNotIn(filler, terms)

    def test_a_short_question_keeps_every_word(self):
        from memsuite.search.ranking import topic_terms
        self.assertIn("next", topic_terms(self.store, "next step"))
