"""A prompt of several sentences asks each question in it (issue 27, item 6):
a hit that holds all of one question scores as an answer, though the
prompt's chatter, or its other question, is in no note; an absent topic asked
inside chatter stays under the cut."""
import unittest

from test_quality_rules import FolderCase  # (its helpers put the suite on sys.path)
import memory_store as ms
from memsuite.search.questions import question_sentences
from memsuite.search.ranking import ANSWER_CUT, search

CHATTER = ("我最近真是忙疯了，各种各样的活动都挤在一起了。记得有个活动特别长，得好几个月呢，"
           "也不知道我能不能坚持下来。不好意思，我真正想问的是：")


class QuestionSentencesTest(unittest.TestCase):

    def test_a_single_question_is_the_whole_prompt(self):
        self.assertEqual(question_sentences("阅读跑者盛宴的规模是什么？"), [])
        self.assertEqual(question_sentences("What did Caroline research?"), [])

    def test_the_question_after_chatter_and_a_colon(self):
        self.assertEqual(question_sentences(CHATTER + "那个持续时间是七个周的活动是什么？"),
                         ["那个持续时间是七个周的活动是什么？"])

    def test_two_joined_questions_are_both_asked(self):
        self.assertEqual(question_sentences("舅舅的单位叫什么？另外，我用的手机是啥型号？"),
                         ["舅舅的单位叫什么？", "另外，我用的手机是啥型号？"])

    def test_abbreviations_do_not_end_a_sentence(self):
        self.assertEqual(question_sentences("Would Caroline have Dr. Seuss books? Has John been to the U.S. yet?"),
                         ["Would Caroline have Dr. Seuss books?", "Has John been to the U.S. yet?"])
        self.assertEqual(question_sentences("Would Tim enjoy books by C. S. Lewis?"), [])

    def test_the_part_of_a_question_after_saying_it_asks(self):
        self.assertEqual(question_sentences(CHATTER[:-1] + "，那个职业是农民的人，单位名称是什么？"),
                         ["那个职业是农民的人，单位名称是什么？"])
        self.assertEqual(question_sentences("哦豁，我其实是想搞清楚，我使用的家电怎么样？"), ["我使用的家电怎么样？"])
        self.assertEqual(question_sentences("Sorry, what I wanted to ask is: where did Tim buy the books?"),
                         ["where did Tim buy the books?"])

    def test_a_quotation_does_not_end_the_question(self):
        prompt = '我真正想问的问题是：那个主要内容是"阅读马拉松：边跑步边听有声书。"的活动，持续时间是什么？'
        self.assertEqual(question_sentences(prompt),
                         ['那个主要内容是"阅读马拉松：边跑步边听有声书。"的活动，持续时间是什么？'])

    def test_a_question_closing_a_chat_turn_stays_with_the_turn(self):
        turn = "Hello. I tried the wines from FamilyMart this weekend. What should I do next for my studies?"
        self.assertEqual(question_sentences(turn), [])  # "next for my studies" is about the wines
        self.assertEqual(question_sentences("Hello. My real question is: what should I do next for my studies?"),
                         ["what should I do next for my studies?"])

    def test_statements_are_not_questions(self):
        self.assertEqual(question_sentences("Hello. I tried the wines this weekend. It was an experience."), [])


class QuestionScoresTest(FolderCase):
    files = {
        "memory/2024-04-01.md": "# 2024-04-01 周一\n\n- 08:49 [上海] 我将要参加阅读跑者盛宴。\n",
        "memory/2024-04-02.md": "# 2024-04-02 周二\n\n- 15:17 [上海] 阅读跑者盛宴的持续时间是七个周。\n",
        "memory/2024-04-03.md": "# 2024-04-03 周三\n\n- 07:27 [上海] 我舅舅他们单位叫上海华银金融。\n",
        "memory/2024-04-04.md": "# 2024-04-04 周四\n\n- 07:07 [上海] 我将要参加趣跑购物节。\n",
    }

    def top(self, query, **changes):
        params = ms.DEFAULT_PARAMS._replace(**changes)
        hits = search(self.store, query, limit=3, min_score=0.0, params=params)
        return hits[0] if hits else None

    def test_a_question_inside_chatter_is_answered_above_the_cut(self):
        prompt = CHATTER + "那个持续时间是七个周的活动，我要参加的活动是什么？"
        hit = self.top(prompt)
        self.assertEqual(hit.path, "memory/2024-04-02.md")
        self.assertGreaterEqual(hit.score, ANSWER_CUT)
        self.assertLess(self.top(prompt, question_scores=0, topic_prior=0.0).score, ANSWER_CUT)  # the chatter held it down

    def test_one_of_two_questions_answered_in_full_is_an_answer(self):
        prompt = "舅舅的单位叫什么名字来着？另外，我用的美妆产品是啥呀？"
        hit = self.top(prompt)
        self.assertEqual(hit.path, "memory/2024-04-03.md")
        self.assertGreaterEqual(hit.score, ANSWER_CUT)
        self.assertLess(self.top(prompt, question_scores=0).score, ANSWER_CUT)

    def test_a_question_after_a_clause_saying_it_asks_is_answered_above_the_cut(self):
        prompt = CHATTER[:-1] + "，那个持续时间是七个周的活动，我要参加的活动是什么？"
        hit = self.top(prompt)
        self.assertEqual(hit.path, "memory/2024-04-02.md")
        self.assertGreaterEqual(hit.score, ANSWER_CUT)
        self.assertLess(self.top(prompt, question_scores=0, topic_prior=0.0).score, ANSWER_CUT)

    def test_an_absent_topic_asked_inside_chatter_stays_under_the_cut(self):
        hit = self.top(CHATTER + "我的量子计算机芯片是哪一家公司生产的？")
        self.assertTrue(hit is None or hit.score < ANSWER_CUT, hit)

    def test_a_question_of_chat_words_alone_is_not_measured_alone(self):
        hit = self.top("我最近参加了好多活动，真是忙疯了。你觉得怎么样？")
        self.assertTrue(hit is None or hit.score < ANSWER_CUT, hit)


if __name__ == "__main__":
    unittest.main()
