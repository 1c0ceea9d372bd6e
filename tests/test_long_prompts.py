"""A long prompt (a whole chat turn) refers back to an earlier conversation
whose several chunks each hold part of it (issue 27).  tests/folders/sessions
holds that conversation (2026-01-05-001: starter, hydration, banneton
proofing and the Dutch oven, each in chunks of their own) and a café
inventory chat (2026-01-09-002) whose one line names more of the prompt's
words than any single chunk of the bread chat."""
import os
import unittest

from helpers import ROOT
import memory_store as ms
from memsuite.search.ranking import analyse_query, is_chat_turn, search, several_sentences, topic_evidence
from memsuite.search.explain import explain
from memsuite.search.recall import choose, gate_factor
from memsuite.search.recency import tells_something
from test_quality_rules import FolderCase

FOLDER = os.path.join(ROOT, "tests", "folders", "sessions")
BREAD, CAFE = "memory/2026-01-05-001.md", "memory/2026-01-09-002.md"
PROMPT = ("Hi again! I tried the sourdough starter you suggested, and the hydration and the banneton "
          "proofing worked great. What should I do next about the Dutch oven?")


def _read_folder(folder):
    """{relative path: text} of a committed test folder's notes."""
    out = {}
    for name in sorted(os.listdir(os.path.join(folder, "memory"))):
        with open(os.path.join(folder, "memory", name), encoding="utf-8") as f:
            out["memory/" + name] = f.read()
    return out


class SessionsFolder(FolderCase):
    files = _read_folder(FOLDER)  # written into each test's own folder, synced (FolderCase)

    def paths(self, query, **changes):
        return [h.path for h in self.hits(query, **changes)]

    def hits(self, query, **changes):
        params = ms.DEFAULT_PARAMS._replace(**changes)
        return search(self.store, query, limit=6, min_score=0.0, params=params)


class FileEvidenceTest(SessionsFolder):

    def test_a_chat_turn_finds_the_conversation_that_holds_its_parts(self):
        self.assertEqual(self.paths(PROMPT)[0], BREAD)
        self.assertEqual(self.paths(PROMPT, file_weight=0.0)[0], CAFE)  # by its best chunk alone

    def test_a_short_question_keeps_the_best_single_chunk(self):
        self.assertEqual(self.paths("sourdough starter hydration proofing")[0], CAFE)

    def test_the_top_score_keeps_its_scale(self):
        evidence, alone = self.hits(PROMPT), self.hits(PROMPT, file_weight=0.0, spread_share=1.0)
        self.assertNotEqual(evidence[0].path, alone[0].path)
        self.assertAlmostEqual(evidence[0].score, alone[0].score, places=3)
        scores = [h.score for h in evidence]
        self.assertEqual(scores, sorted(scores, reverse=True))


class SpreadFilesTest(SessionsFolder):

    def test_a_page_of_results_reaches_more_conversations(self):
        spread, packed = self.paths(PROMPT), self.paths(PROMPT, spread_share=1.0)
        self.assertLess(spread.index(CAFE), packed.index(CAFE))
        self.assertEqual(spread[0], packed[0])  # the best hit stays first


class TopicEvidenceTest(SessionsFolder):
    """A chat turn's scores are scaled by how many topic words it has
    (ranking.topic_evidence): the same factor for all its hits."""

    def factor(self, prompt):
        return topic_evidence(analyse_query(self.store, prompt, self.store.params))

    def test_the_order_stays_and_every_score_is_scaled_alike(self):
        on, off = self.hits(PROMPT), self.hits(PROMPT, topic_prior=0.0)
        self.assertEqual([h.id for h in on], [h.id for h in off])
        factor = self.factor(PROMPT)
        self.assertNotAlmostEqual(factor, 1.0, places=2)
        for a, b in zip(on, off):
            self.assertAlmostEqual(a.score, min(1.0, b.score * factor), places=3)

    def test_few_topic_words_lower_a_turn_many_raise_it(self):
        few = "Hi again! Thanks so much, that was really great help. Okay, ready to keep going: what should I do next about the oven now?"
        self.assertTrue(is_chat_turn(few))
        self.assertLess(self.factor(few), 1.0)
        self.assertGreater(self.factor(PROMPT), 1.0)  # starter, hydration, banneton, proofing, Dutch oven...

    def test_explain_says_by_how_much(self):
        hits = self.hits(PROMPT)
        explained, _ = explain(self.store, PROMPT, hits, 6, "hybrid", 0.0, None)
        top = explained[hits[0].id]
        self.assertAlmostEqual(top["chat_turn"], hits.evidence, places=3)
        plain = self.hits(PROMPT, topic_prior=0.0)  # its merge and bonuses are those of the unscaled score
        self.assertAlmostEqual(top["merged"] + top["rerank"], plain[0].score, places=3)

    def test_a_short_question_is_not_scaled(self):
        question = "sourdough starter hydration proofing"
        self.assertEqual([(h.id, h.score) for h in self.hits(question)],
                         [(h.id, h.score) for h in self.hits(question, topic_prior=0.0)])

    def test_a_short_turn_of_several_sentences_is_scaled_too(self):
        # a chat turn by its form, not its length: "Understood. 3 litres it is for today."
        short = "Great, thanks. The oven is hot now."
        self.assertFalse(is_chat_turn(short))
        self.assertTrue(several_sentences(short))
        factor = self.factor(short)
        self.assertLess(factor, 1.0)  # oven, hot: two topic words any kitchen chat has
        on, off = self.hits(short), self.hits(short, topic_prior=0.0)
        self.assertAlmostEqual(on.evidence, factor, places=6)
        self.assertAlmostEqual(on[0].score, off[0].score * factor, places=3)

    def test_a_question_with_an_initial_is_one_sentence(self):
        for question in ("What did Dr. Smith say about the oven?", "When did Caroline go to the support group?",
                         "Is the oven hot yet?!", "the Dutch oven", "rss\nconfig", "Note: the oven",
                         "'; DROP TABLE chunks; --"):
            self.assertFalse(several_sentences(question), question)
        for turn in ("Understood. 3 litres it is for today.", "Okay! What next?", "舅舅的单位叫什么？另外，型号呢？"):
            self.assertTrue(several_sentences(turn), turn)

    def test_the_prompt_hooks_gate_reads_the_unscaled_score(self):
        hits = self.hits(PROMPT)
        factor = gate_factor(PROMPT) / hits.evidence  # what choose() multiplies the top score by
        plain = self.hits(PROMPT, topic_prior=0.0)
        self.assertAlmostEqual(hits[0].score * factor, plain[0].score * gate_factor(PROMPT), places=3)
        cut = hits[0].score * gate_factor(PROMPT) * 0.99  # the scaled score would pass it
        self.assertEqual(bool(choose(hits, PROMPT, cut)), plain[0].score * gate_factor(PROMPT) >= cut)


class ChatTurnTest(unittest.TestCase):

    def test_a_chat_turn_is_counted_in_words(self):
        self.assertTrue(is_chat_turn(PROMPT))
        self.assertFalse(is_chat_turn("what did Caroline bake for the party last weekend at the beach"))
        # a Chinese question of 24 characters holds 23 character pairs but fewer than ten words
        self.assertFalse(is_chat_turn("张伟上个月在杭州参加的那个会议是关于什么主题的"))
        self.assertTrue(is_chat_turn("你好！我按你推荐的方法开始听葡萄酒播客了，通勤的时候听，挺有帮助的。学习计划的下一步是什么？"))


class TurnPoolTest(FolderCase):
    files = {"memory/2026-02-%02d-%03d.md" % (1 + i % 28, i): "# Day %d\n- Baked sourdough with recipe %d.\n" % (i, i)
             for i in range(120)}

    def test_a_chat_turn_scores_more_candidates(self):
        question = self.hits("sourdough", limit=200, min_score=0.0)
        turn = self.hits("Hello! The sourdough you suggested came out well; which recipe should I bake "
                         "next weekend for my sister's birthday party?", limit=200, min_score=0.0)
        self.assertLessEqual(len(question), ms.DEFAULT_PARAMS.candidate_pool)
        self.assertGreater(len(turn), ms.DEFAULT_PARAMS.candidate_pool)


class RecentTurnsTest(FolderCase):
    """Two conversations about the same plan, the older one two months before
    the other and holding two more of the turn's words, and an unrelated note
    a day newer: a chat turn continues the newer conversation."""
    files = {
        "memory/2026-01-10-001.md": "# Session\n\n**User**: Let's plan the marathon training for next week: "
                                    "long runs on Sunday, intervals on Tuesday.\n",
        "memory/2026-03-10-002.md": "# Session\n\n**User**: My plan for the spring marathon: long runs every "
                                    "Sunday and intervals each Tuesday, the training easy.\n",
        "memory/2026-03-11-003.md": "# Session\n\n**User**: I bought groceries and paid the phone bill.\n",
    }
    TURN = ("Hi! I did the long runs on Sunday and the intervals on Tuesday like we said for the marathon "
            "training. What should the plan for next week look like?")
    OLD, NEW = "memory/2026-01-10-001.md", "memory/2026-03-10-002.md"

    def ranked(self, query, **changes):
        params = ms.DEFAULT_PARAMS._replace(**changes)
        return self.hits(query, limit=5, min_score=0.0, params=params)

    def test_a_chat_turn_prefers_the_newer_conversation(self):
        self.assertEqual([h.path for h in self.ranked(self.TURN)][:2], [self.NEW, self.OLD])
        # without the preference the older one's two more words win
        self.assertEqual([h.path for h in self.ranked(self.TURN, turn_half_life=0.0)][:2], [self.OLD, self.NEW])

    def test_scores_keep_their_values(self):
        on, off = self.ranked(self.TURN), self.ranked(self.TURN, turn_half_life=0.0)
        self.assertEqual([round(h.score, 6) for h in on], [round(h.score, 6) for h in off])

    def test_a_turn_of_questions_only_is_not_reordered(self):
        asks = "Which long runs on Sunday and intervals on Tuesday did the marathon training plan give next week?"
        self.assertEqual(self.ranked(asks)[0].path, self.OLD)
        self.assertEqual(self.ranked("I did them all. " + asks)[0].path, self.NEW)
        self.assertFalse(tells_something("那个喜欢跑步的人是哪里人啊？另外，那个规模是三千人的活动，持续时间是什么？"))
        self.assertTrue(tells_something("Hi! The starter worked. What next?"))
        self.assertTrue(tells_something("what about the plan"))  # no question mark: not only a question

    def test_a_short_question_is_not_reordered(self):
        question = "long runs Sunday, intervals Tuesday: marathon training next week"  # nine words
        self.assertEqual(self.ranked(question)[0].path, self.OLD)
        self.assertEqual(self.ranked(question, long_prompt_terms=5)[0].path, self.NEW)  # read as a chat turn


if __name__ == "__main__":
    unittest.main()
