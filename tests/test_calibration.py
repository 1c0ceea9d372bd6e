"""The score means "this answers it" in every folder (issue 27, items 4 and 6):
rarity in a folder of two notes, a line holding one word of four, a
translation standing in for its word rather than adding to it."""
import os
import sys
import unittest

from helpers import ROOT, ExamplesStore, SyncedMemory
from memsuite.index.records import Filters
from memsuite.search.features import proximity
from memsuite.search.ranking import ANSWER_CUT, Candidate
from memsuite.text.params import DEFAULT_PARAMS


class TwoNotesTest(SyncedMemory):
    """With two notes, a word in one of them is rare all the same: BM25's
    idf is 0 there, which made a translation (Tokyo -> 东京) count nothing."""
    files = {
        "memory/2026-03-01.md": "# 2026-03-01\n\n- 下个月去东京出差，住在新宿的酒店。\n",
        "memory/2026-03-02.md": "# 2026-03-02\n\n- 和小王讨论了季度预算，下周再对一次。\n",
    }

    def test_english_reaches_chinese_above_the_cut(self):
        path, score = self.top("Tokyo")
        self.assertEqual(path, "memory/2026-03-01.md")
        self.assertGreaterEqual(score, ANSWER_CUT)

    def test_a_whole_match_answers(self):
        path, score = self.top("季度预算")
        self.assertEqual(path, "memory/2026-03-02.md")
        self.assertGreaterEqual(score, ANSWER_CUT)

    def test_an_absent_topic_stays_under_the_cut(self):
        for query in ("量子计算机芯片", "quantum computing lecture", "火星基地建设"):
            self.assertLess(self.top(query)[1], ANSWER_CUT, query)

    def test_the_translated_question_does_not_hang_on_rarity(self):
        """An English question over Chinese notes is also searched as its
        Chinese words (search/crosslingual.py): 东京 as written, a whole
        match, answers with the idf of the two notes alone too."""
        params = DEFAULT_PARAMS._replace(rarity_docs=0)  # idf of the two notes alone
        self.assertGreaterEqual(self.top("Tokyo", params=params)[1], ANSWER_CUT)
        self.assertGreaterEqual(self.top("东京", params=params)[1], ANSWER_CUT)


class OneWordOfManyTest(SyncedMemory):
    """A query whose other words no note holds (共享单车押金退还 in a folder
    that mentions 自行车 once) is about an absent topic: holding its one
    known character, or a synonym of one word, is not holding the query."""
    files = {
        "memory/2024-04-02.md": "# 2024-04-02\n\n- 07:11 我的上司挺喜欢骑自行车的。\n- 17:26 我的上司老家是浙江杭州的。\n",
        "memory/2024-04-03.md": "# 2024-04-03\n\n- 08:10 我同事在上海工作。\n",
        "memory/2024-04-04.md": "# 2024-04-04\n\n- 09:00 周末去爬山，走了四个小时。\n",
        "memory/2024-04-05.md": "# 2024-04-05\n\n- 他在Chicago住了三年，repair shop就在楼下。\n",
    }

    def test_absent_topics_stay_under_the_cut(self):
        for query in ("共享单车押金退还", "broken water heater repair"):
            self.assertLess(self.top(query)[1], ANSWER_CUT, query)

    def test_proximity_is_a_share(self):
        """A line holding a word and its synonyms holds the word once."""
        candidate = Candidate(None, [["车", "自行", "行车", "骑"]], {}, {}, 1, "", 1.0)
        stand_ins = {"车": [("自行", 0.5), ("行车", 0.5)], "单车": [("自行", 0.5), ("行车", 0.5)]}
        self.assertEqual(proximity(candidate, {"车": 1.0}, stand_ins), 1.0)
        self.assertEqual(proximity(candidate, {"车": 1.0, "单车": 1.0}, stand_ins), 0.75)
        self.assertEqual(proximity(candidate, {"车": 1.0, "押金": 3.0}), 0.25)  # 押金: no note holds it


class MeasuredAgainstWhatIsAskedTest(SyncedMemory):
    """A hit is measured against the words a question asks (模型艺术盛宴,
    主要内容), not against its function words or the pairs across their
    edges (宴的, 容是, 是什), which no note writes."""
    files = dict(("memory/2026-04-%02d.md" % day, "# 2026-04-%02d\n\n- %s\n" % (day, text)) for day, text in enumerate((
        "模型艺术盛宴的主要内容是展示精选模型作品，交流制作技巧。",
        "模型艺术盛宴的地点是北京。",
        "银行柜员招聘会的主要内容是分享职业经验。",
        "户外徒步活动的规模是三百人。",
        "我同事的老家是重庆的。",
    ), 1))

    def test_a_whole_answer_scores_above_the_cut(self):
        for query in ("模型艺术盛宴的主要内容是什么？", "模型艺术盛宴的主要内容是啥呀"):
            path, score = self.top(query)
            self.assertEqual(path, "memory/2026-04-01.md", query)
            self.assertGreaterEqual(score, 0.6, query)

    def test_function_words_and_their_edges_do_not_count_against(self):
        from memsuite.search.ranking import Query, topic_weights
        q = Query([], {"模型": 1.0, "宴的": 0.3, "的": 0.1}, {"模型", "宴的", "的"}, [], [], [], {}, 5, [],
                  {"是什": 0.3, "盛宴": 1.0})
        self.assertEqual(topic_weights(q), {"模型": 1.0, "盛宴": 1.0})
        q = q._replace(weights={"的": 0.1}, base={"的"}, missing={})
        self.assertEqual(topic_weights(q), {"的": 0.1})  # nothing else: all of it


class YesterdaysLunchTest(ExamplesStore):
    def test_yesterdays_lunch_answers(self):
        """昨天的午饭 in the examples: the day asked and 'Lunch' (午饭's
        translation) hold all it asks; 的午, which no note writes, held it
        under the cut."""
        hits = self.search("昨天的午饭", filters=Filters(today="2026-03-16"))
        self.assertEqual(hits[0].path, "memory/2026-03-15.md")
        self.assertGreaterEqual(hits[0].score, ANSWER_CUT)


class TranslationStandsInTest(SyncedMemory):
    """A note holding part of a query word and its translation (计算 and
    'Computational' of 计算机) holds that word once, not twice: 量子计算机芯片
    (quantum computer chip) is one word of three there."""
    files = {
        "memory/2026-05-01.md": "# 2026-05-01\n\n- 读了一篇计算神经科学（Computational neuroscience）的综述："
                                "跨神经科学、认知科学、电脑科学和数学。\n",
        "memory/2026-05-02.md": "# 2026-05-02\n\n- 和小王讨论了季度预算，下周再对一次。\n",
        "memory/2026-05-03.md": "# 2026-05-03\n\n- 周末去爬山，走了四个小时，膝盖有点疼。\n",
    }

    def test_one_word_of_three_stays_under_the_cut(self):
        path, score = self.top("量子计算机芯片")
        self.assertEqual(path, "memory/2026-05-01.md")
        self.assertLess(score, ANSWER_CUT)

    def test_the_translation_alone_still_answers(self):
        for query in ("computer", "计算神经科学"):
            path, score = self.top(query)
            self.assertEqual(path, "memory/2026-05-01.md", query)
            self.assertGreaterEqual(score, ANSWER_CUT, query)
            self.assertLessEqual(score, 1.0, query)


class CalibrationTableTest(unittest.TestCase):
    def test_right_answers_trusted_and_wrong_ones_over_the_cut(self):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import calibration
        answerable = [("tune", True, 0.5), ("tune", True, 0.3), ("tune", False, 0.6), ("tune", False, 0.1)]
        row = [line for line in calibration.table("x", answerable, [("tune", "absent topic", 0.2)], cut=0.4).split("\n")
               if line.startswith("| 0.40 (current) | tune")][0]
        self.assertEqual([cell.strip() for cell in row.split("|")[3:7]],
                         ["0.250 (4)", "0.500 (2)", "0.250 (4)", "1.000 (1)"])


if __name__ == "__main__":
    unittest.main()
