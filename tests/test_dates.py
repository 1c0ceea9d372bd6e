"""Dates as people say them, in the question (issue 27, item 3).

tests/folders/dates holds notes around Tuesday 2026-12-01, the day the
questions are asked: two meetings on two Wednesdays (2026-11-18 says 周三,
开会 and 讨论 more often: a keyword trap; 2026-11-25 is 上周三), a cat's
vaccine on Friday 2026-11-27 that mentions 周三, and an older English note
that says "what happened" and "week".
"""
import datetime
import json
import os
import shutil
import unittest

from helpers import ROOT, TempMemory, clean_env, run_script
import memory_search
import memory_store
from memsuite.index.records import Filters
from memsuite.search.dates import asked_dates, relative_spans, today_of
from memsuite.base.records import UsageError

FOLDER = os.path.join(ROOT, "tests", "folders", "dates")
TODAY = "2026-12-01"  # a Tuesday
CUT = 0.4


def day(text):
    return datetime.date(*map(int, text.split("-")))


class ReadingTest(unittest.TestCase):
    """What a question's relative dates resolve to, against a fixed today."""

    def spans(self, query):
        return [(str(a), str(b)) for a, b in asked_dates(query, day(TODAY)).spans]

    def test_days_and_weeks_in_both_languages(self):
        cases = {
            "what did I do yesterday": [("2026-11-30", "2026-11-30")],
            "前天的会": [("2026-11-29", "2026-11-29")],
            "last Tuesday's dinner": [("2026-11-24", "2026-11-24")],
            "上周三开会讨论了什么": [("2026-11-25", "2026-11-25")],
            "上个星期天": [("2026-11-29", "2026-11-29")],
            "这周五": [("2026-12-04", "2026-12-04")],
            "what happened last week": [("2026-11-23", "2026-11-29")],
            "上周": [("2026-11-23", "2026-11-29")],
            "上个月的账单": [("2026-11-01", "2026-11-30")],
            "last month": [("2026-11-01", "2026-11-30")],
            "what did I eat this morning": [("2026-12-01", "2026-12-01")],
            "今天": [("2026-12-01", "2026-12-01")],
            "three days ago": [("2026-11-28", "2026-11-28")],
            "What did I do yesterday?": [("2026-11-30", "2026-11-30")],  # a question mark ends it
            "what broke three weeks ago?": [("2026-11-07", "2026-11-13")],
            "大前天的会": [("2026-11-28", "2026-11-28")],
            "大后天": [("2026-12-04", "2026-12-04")],
            "上上周五": [("2026-11-20", "2026-11-20")],  # the Friday of the week before last
            "下下周": [("2026-12-14", "2026-12-20")],
        }
        for query, spans in cases.items():
            self.assertEqual(self.spans(query), spans, query)

    def test_a_question_without_a_relative_date_reads_none(self):
        for query in ("张伟的手机号", "How long did the hike take?", "this is a test", "2026-11-25 standup"):
            self.assertEqual(self.spans(query), [], query)

    def test_only_a_date(self):
        for query, only in (("上周三", True), ("what happened last week", True), ("昨天干了什么", True),
                            ("上周三开会讨论了什么", False), ("dentist last week", False), ("2026-11-25", True),
                            ("开会", False)):
            self.assertEqual(asked_dates(query, day(TODAY)).only, only, query)

    def test_a_note_reads_last_wednesday_against_its_own_date(self):
        self.assertEqual(relative_spans("上周三交了报告", TODAY), [(day("2026-11-25"),) * 2])

    def test_today_comes_from_the_option_then_the_variable(self):
        old = os.environ.get("MEMORY_TODAY")
        self.addCleanup(lambda: os.environ.pop("MEMORY_TODAY", None) if old is None
                        else os.environ.__setitem__("MEMORY_TODAY", old))
        os.environ["MEMORY_TODAY"] = "2026-02-19"
        self.assertEqual(today_of(), day("2026-02-19"))
        self.assertEqual(today_of("2026-03-01"), day("2026-03-01"))
        os.environ["MEMORY_TODAY"] = "yesterday"
        with self.assertRaises(UsageError):
            today_of()


class AskedDaySearchTest(TempMemory):
    """Searches in the committed folder, read against 2026-12-01."""

    def setUp(self):
        super().setUp()
        shutil.rmtree(self.dir)
        shutil.copytree(FOLDER, self.dir, ignore=shutil.ignore_patterns(".memory"))
        self.store = memory_store.MemoryStore(self.dir)
        self.addCleanup(self.store.close)
        self.store.sync()

    def search(self, query, today=TODAY):
        return memory_search.search(self.store, query, filters=Filters(today=today))

    def test_the_meeting_of_that_wednesday_wins(self):
        hits = self.search("上周三开会讨论了什么")
        self.assertEqual(hits[0].path, "memory/2026-11-25.md", [h.id for h in hits])
        self.assertGreaterEqual(hits[0].score, CUT)
        other = [h for h in hits if h.path == "memory/2026-11-18.md"]
        self.assertTrue(not other or other[0].score < hits[0].score)

    def test_the_same_words_a_week_later_find_the_other_meeting(self):
        hits = self.search("上周三开会讨论了什么", today="2026-11-24")
        self.assertEqual(hits[0].path, "memory/2026-11-18.md", [h.id for h in hits])

    def test_a_bare_date_returns_that_day_and_nothing_else_above_the_cut(self):
        hits = memory_search.search(self.store, "上周三", min_score=0, filters=Filters(today=TODAY))
        self.assertEqual(hits[0].path, "memory/2026-11-25.md", [h.id for h in hits])
        self.assertGreaterEqual(hits[0].score, CUT)
        for h in hits[1:]:
            self.assertLess(h.score, CUT, h.id)  # the cat's vaccine mentions 周三 on another day

    def test_what_happened_last_week_injects_no_other_week(self):
        hits = memory_search.search(self.store, "what happened last week", min_score=0,
                                    filters=Filters(today=TODAY))
        above = {h.path for h in hits if h.score >= CUT}
        self.assertEqual(above, {"memory/2026-11-24.md", "memory/2026-11-25.md", "memory/2026-11-27.md"})

    def test_a_day_with_no_notes_keeps_the_topic_answers(self):
        plain = self.search("开会讨论了什么")
        hits = self.search("上周三开会讨论了什么", today="2027-06-01")  # no note of that Wednesday
        self.assertEqual([h.path for h in hits][:2], [h.path for h in plain][:2])
        self.assertGreaterEqual(hits[0].score, CUT)

    def test_the_day_named_is_searched_though_its_note_says_it_in_other_words(self):
        self.write("memory/2026-11-21.md", "# 2026-11-21\n\n## 陪妈看病\n- 医生说膝关节有点退化，不用手术\n")
        self.write("memory/2026-11-28.md", "# 2026-11-28\n\n## 家里\n- 妈问膝盖的片子要不要再拍一次\n")
        self.store.sync()
        hits = self.search("十天前我妈的膝盖检查结果怎么样")  # 2026-11-21; that note says 膝关节
        self.assertEqual(hits[0].path, "memory/2026-11-21.md", [h.id for h in hits])

    def test_a_day_named_in_words_no_note_holds_still_lists_that_days_notes(self):
        for query in ("昨天滑雪摔了吗", "How far did I ski yesterday?"):  # no note holds a word of them
            hits = memory_search.search(self.store, query, min_score=0, filters=Filters(today=TODAY))
            self.assertEqual([h.path for h in hits][:1], ["memory/2026-11-30.md"], query)
            self.assertLess(hits[0].score, CUT)  # the day alone is not an answer

    def test_a_bare_absolute_date_returns_that_day(self):
        hits = memory_search.search(self.store, "2026-11-27", min_score=0, filters=Filters(today=TODAY))
        self.assertEqual(hits[0].path, "memory/2026-11-27.md", [h.id for h in hits])
        self.assertGreaterEqual(hits[0].score, CUT)

    def test_a_day_with_no_notes_finds_nothing_above_the_cut(self):
        hits = memory_search.search(self.store, "前天", min_score=0, filters=Filters(today=TODAY))
        self.assertFalse([h.id for h in hits if h.score >= CUT])


class TimePatternsTest(unittest.TestCase):
    """asks_when, holds_time and times_in try _WHEN and _TIME one cheap piece
    at a time (a cold query need not compile the whole): they must still say
    what the whole patterns say."""
    PIECES = ["12", "3", "2026-02-18", "9:30", "10:30am", "3pm", " ", "\n", "-", ":", "年", "月", "日", "号", "点",
              "周三", "星期天", "礼拜一", "上午", "下午", "早上", "凌晨", "两点", "十点", "三", "monday", "sundays",
              "day", "jan", "may 5", "march 3", "dec.", "when", "what time", "what day", "whatever", "somewhen",
              "什么时候", "哪天", "几号", "a", "我", "am", "pm", "88412", "1,000", "時", "ＷＨＥＮ", "١٢"]

    def test_the_pieces_say_what_the_whole_patterns_say(self):
        import random
        import re
        from memsuite.search import dates
        from memsuite.text.chinese import fold
        rnd = random.Random(27)
        for _ in range(20000):
            text = "".join(rnd.choice(self.PIECES) for _ in range(rnd.randint(0, 7)))
            folded = fold(text)
            self.assertEqual(dates.asks_when(text), bool(re.search(dates._WHEN, folded)), text)
            self.assertEqual(dates.holds_time(text), bool(re.search(dates._TIME, folded)), text)
            whole = set(re.findall(dates._TIME, folded)) | set(re.findall(r"\d{3,}", folded))
            self.assertEqual(dates.times_in(text), whole, text)
            self.assertEqual(dates.says_time_or_number(text), bool(whole), text)


class TodayOptionTest(TempMemory):
    def setUp(self):
        super().setUp()
        shutil.rmtree(self.dir)
        shutil.copytree(FOLDER, self.dir, ignore=shutil.ignore_patterns(".memory"))

    def test_option_variable_and_explain(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "上周三", "--today", TODAY, "--explain")
        self.assertEqual(code, 0, err)
        self.assertTrue(out.startswith("1. ") and "memory/2026-11-25.md" in out.splitlines()[0], out)
        self.assertIn("dates read: 2026-11-25", out)
        code, out, err = run_script("search.sh", "--dir", self.dir, "上周三开会讨论了什么", "--today", TODAY, "--explain")
        self.assertIn("2026-11-25.md:1-5  keyword", out)
        self.assertRegex(out, r"2026-11-25\.md.*of the day asked")
        self.assertRegex(out, r"2026-11-18\.md.*of another day")
        code, out, err = run_script("search.sh", "--dir", self.dir, "上周三", "--json", "--explain",
                                    env=clean_env(MEMORY_TODAY="2026-11-24"))
        doc = json.loads(out)
        self.assertEqual(doc["dates"], ["2026-11-18"])
        self.assertEqual(doc["results"][0]["path"], "memory/2026-11-18.md")

    def test_a_bad_date_is_a_one_line_usage_error(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "昨天", "--today", "2026-13-01")
        self.assertEqual(code, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        code, out, err = run_script("search.sh", "--dir", self.dir, "昨天", env=clean_env(MEMORY_TODAY="soon"))
        self.assertEqual(code, 2)
        self.assertNotIn("Traceback", err)

    def test_mcp_search_takes_today(self):
        from test_agents import McpClient
        client = McpClient(self, self.dir)
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "test", "version": "1"}})
        found = client.call("memory_search", query="上周三开会讨论了什么", today=TODAY)
        self.assertEqual(found["structuredContent"]["results"][0]["path"], "memory/2026-11-25.md")
        bad = client.call("memory_search", query="上周三", today="Wednesday")
        self.assertTrue(bad["isError"])


if __name__ == "__main__":
    unittest.main()
