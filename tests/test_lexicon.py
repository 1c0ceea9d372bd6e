"""English that reaches Chinese, and back (issue 27, item 4): data/en-zh-lexicon.txt."""
import os
import unittest
from contextlib import nullcontext

from helpers import ROOT, SyncedMemory
import memory_search
from memsuite.base.compiled import SortedLines
from memsuite.search.lexicon import translations
from memsuite.text.lexicon_table import LEXICON, ZH_PER_SENSE, _table_bytes, english_to_chinese, read_lexicon
from memsuite.text.params import DEFAULT_PARAMS
from memsuite.text.tokenizer import text_units

CUT = 0.4


def translated(query, params=DEFAULT_PARAMS):
    return [w for w, _, _ in translations(text_units(query), params)]


class LexiconTableTest(unittest.TestCase):
    def test_the_issue_pairs_both_ways(self):
        for english, chinese in (("Tokyo", "东京"), ("dentist", "牙医"), ("keyboard", "键盘"), ("hike", "爬山"),
                                 ("health checkup", "体检")):
            self.assertIn(chinese, translated(english), english)
        self.assertIn("dentist", translated("牙医"))
        self.assertIn("health checkup", translated("体检"))

    def test_narrow(self):
        for word in ("keyboard", "meeting", "work", "time", "good"):
            self.assertLessEqual(len(translated(word)), ZH_PER_SENSE, word)
        self.assertEqual(translated("什么时候"), [])  # a question word is asked, not meant
        self.assertNotIn("健康", translated("health checkup"))  # the phrase, not its parts

    def test_off_when_its_weight_is_zero(self):
        self.assertEqual(translated("keyboard", DEFAULT_PARAMS._replace(lexicon_weight=0.0)), [])

    def test_a_translation_weighs_less_than_the_word(self):
        for query in ("keyboard", "牙医", "health checkup"):
            for word, weight, _ in translations(text_units(query)):
                self.assertLessEqual(weight, 1.0, (query, word))
                self.assertGreater(weight, 0.0, (query, word))

    def test_earlier_senses_first_then_commoner_words(self):
        rows = [("甲乙", ["cat", "dog"], []), ("丙丁", ["dog"], []), ("戊己", ["fish", "dog"], []), ("庚辛", ["dog"], []),
                ("壬癸", ["dog"], [])]
        self.assertEqual(english_to_chinese(rows)[("dog",)], ["丙丁", "庚辛", "壬癸"][:ZH_PER_SENSE])

    def test_the_table_carries_its_licence_and_source(self):
        with open(LEXICON, encoding="utf-8") as f:
            head = "".join(line for line in f if line.startswith("#"))
        for needed in ("CC-CEDICT", "Creative Commons Attribution-ShareAlike 4.0", "MDBG", "Denisowski",
                       "make-en-zh-lexicon.py"):
            self.assertIn(needed, head)
        self.assertGreater(len(read_lexicon(LEXICON)), 10000)
        self.assertTrue(os.path.exists(os.path.join(ROOT, "data", "make-en-zh-lexicon.py")))


class CrossLanguageSearchTest(SyncedMemory):
    files = {
        "memory/2026-10-01.md": "# 2026-10-01\n- 下个月去东京出差，住在新宿。\n",
        "memory/2026-10-02.md": "# 2026-10-02\n- 换了一把机械键盘，青轴，打字很响。\n",
        "memory/2026-10-03.md": "# 2026-10-03\n- 周末和朋友去爬山，走了四个小时。\n",
        "memory/2026-10-04.md": "# 2026-10-04\n- 公司安排年度体检，下周二早上空腹。\n",
        "memory/2026-10-05.md": "# 2026-10-05\n- Booked the dentist for a cleaning next month.\n"
                                "- Bought a new keyboard for the office.\n",
        "MEMORY.md": "# Long-term\n- Lives in Hangzhou; works on the payments team.\n",
    }

    def top(self, query, **kw):
        hits = memory_search.search(self.store, query, min_score=0, **kw)
        return hits[0].path if hits else None

    def test_english_finds_chinese_notes_and_back(self):
        for query, path in (("Tokyo", "memory/2026-10-01.md"), ("hike", "memory/2026-10-03.md"),
                            ("health checkup", "memory/2026-10-04.md"), ("牙医", "memory/2026-10-05.md")):
            self.assertEqual(self.top(query), path, query)
            self.assertIsNone(self.top(query, params=DEFAULT_PARAMS._replace(lexicon_weight=0.0)), query)

    def test_the_word_itself_ranks_above_its_translation(self):
        self.assertEqual(self.top("keyboard"), "memory/2026-10-05.md")
        self.assertEqual(self.top("键盘"), "memory/2026-10-02.md")

    def test_an_absent_topic_stays_silent(self):
        for query in ("quantum computing lecture", "bitcoin mining rig", "量子计算讲座"):
            hits = memory_search.search(self.store, query, min_score=0)
            self.assertFalse([h.id for h in hits if h.score >= CUT], query)


class UntranslatedWordsTest(SyncedMemory):
    """A Chinese question asked of English notes: its words nothing
    translates (a bigram across two words, 们) are not held against a hit."""
    files = {
        "memory/2026-10-05.md": "# 2026-10-05\n- Booked the dentist for a cleaning next month.\n"
                                "- Bought a new keyboard for the office.\n",
        "memory/2026-10-06.md": "# 2026-10-06\n- Lunch with the payments team, then a long review.\n",
        "memory/2026-10-07.md": "# 2026-10-07\n- Walked along the lake after work; the evening was cool.\n",
    }
    QUESTION = "上次预约的牙医是哪天"

    def scores(self, query, count_every_word=False):
        from unittest import mock
        from memsuite.search import ranking
        with mock.patch.object(ranking, "untranslated", lambda *a: frozenset()) if count_every_word else nullcontext():
            return [(h.path, h.start_line, h.score) for h in memory_search.search(self.store, query, min_score=0)]

    def test_only_the_untranslated_words_are_set_aside(self):
        from memsuite.search.ranking import analyse_query
        q = analyse_query(self.store, self.QUESTION, self.store.params)
        self.assertTrue(q.foreign)
        self.assertNotIn("牙医", q.foreign)  # translated (dentist): asked, as a word the notes lack would be
        self.assertFalse(set(q.foreign) & set(q.weights))

    def test_the_score_rises_and_the_order_stays(self):
        counted, aside = self.scores(self.QUESTION, count_every_word=True), self.scores(self.QUESTION)
        self.assertEqual(aside[0][0], "memory/2026-10-05.md")
        self.assertEqual([h[:2] for h in aside], [h[:2] for h in counted])
        self.assertGreater(aside[0][2], counted[0][2])
        self.assertLessEqual(aside[0][2], 1.0)

    def test_an_absent_topic_stays_silent(self):
        for query in ("量子计算讲座是哪天", "花生过敏怎么急救"):  # translated words the notes lack count in full
            self.assertFalse([s for _, _, s in self.scores(query) if s >= CUT], query)

    def test_in_chinese_notes_a_word_no_note_holds_is_a_topic_they_lack(self):
        from memsuite.search.ranking import analyse_query
        self.write("memory/2026-10-08.md", "# 2026-10-08\n- 我们今天去湖边散步，没有下雨。\n")
        self.store.sync()
        self.assertEqual(analyse_query(self.store, self.QUESTION, self.store.params).foreign, frozenset())


class BilingualFolderTest(SyncedMemory):
    """An English question in a folder of English and Chinese notes is also
    searched as its Chinese words: the English lines its own words find
    do not keep the Chinese note out."""
    files = {
        "memory/2026-10-01.md": "# 2026-10-01\n- 周二下午去看牙医，洗牙要四十分钟。\n- 诊所的电话是 0571-8888。\n",
        "memory/2026-10-02.md": "# 2026-10-02\n- Read an article about marketing for a dentist office.\n",
    }

    def test_searched_again_as_its_translation(self):
        from memsuite.search.crosslingual import translated_query
        self.assertIn("牙医", translated_query(self.store, "When did I see the dentist?").split())
        paths = [h.path for h in memory_search.search(self.store, "When did I see the dentist?", min_score=0)]
        self.assertIn("memory/2026-10-01.md", paths)

    def test_a_name_nothing_translates_stays_in_the_translation(self):
        from memsuite.search.crosslingual import translated_query
        from memsuite.text.tokenizer import tokenize
        other = translated_query(self.store, "What is Melanie's phone number?")
        self.assertIn("melani", tokenize(other))  # as the index holds it: stemmed once, not twice
        for name in ("Louise", "Wes", "Denise"):  # whose stem stemmed again is another word
            self.assertIn(tokenize(name)[0], tokenize(translated_query(self.store, "%s's phone number" % name)))

    def test_english_notes_alone_are_not_searched_again(self):
        from memsuite.search.crosslingual import translated_query
        self.write("memory/2026-10-01.md", "# 2026-10-01\n- Booked the dentist for Tuesday.\n")
        self.store.sync()
        self.assertEqual(translated_query(self.store, "When did I see the dentist?"), "")


class LatinNameTest(SyncedMemory):
    """A Chinese question naming someone in Latin letters: a note without
    the name is about someone else, however well it holds the topic."""
    files = {
        "memory/2026-10-01.md": "# 2026-10-01\n- 公司这周组织了瑜伽体验课，我们很多同事都报名了。\n",
        "memory/2026-10-02.md": "# 2026-10-02\n- Maria has been doing yoga twice a week since May.\n",
        "memory/2026-10-03.md": "# 2026-10-03\n- Maria moved her desk next to the window.\n",
    }
    QUESTION = "Maria练过瑜伽吗"

    def paths(self, **params):
        hits = memory_search.search(self.store, self.QUESTION, min_score=0,
                                    params=self.store.params._replace(**params))
        return [h.path for h in hits]

    def test_the_named_note_first(self):
        self.assertEqual(self.paths()[0], "memory/2026-10-02.md")
        self.assertNotEqual(self.paths(name_share=1.0)[0], "memory/2026-10-02.md")  # what the rule changes

    def test_only_a_chinese_question_and_a_name_the_notes_hold(self):
        from memsuite.search.ranking import analyse_query, latin_names
        for query, names in ((self.QUESTION, ("maria",)), ("Maria did yoga", ()), ("Zoe练过瑜伽吗", ()),
                             ("公司的瑜伽课是哪天？ Also, where did Maria move her desk?", ())):  # a clause
            self.assertEqual(latin_names(query, analyse_query(self.store, query, self.store.params)), names, query)


class EverydaySenseTest(unittest.TestCase):
    def test_read_from_chinese_to_english_only(self):
        rows = [("甲乙", ["cat"], ["dog"]), ("丙丁", ["dog"], [])]
        self.assertEqual(english_to_chinese(rows)[("dog",)], ["丙丁"])  # dog does not reach 甲乙
        self.assertEqual(SortedLines(_table_bytes(rows)).get("甲乙")[0], "cat; dog")  # 甲乙 reaches dog

    def test_the_shipped_table_has_them_and_credits_their_source(self):
        self.assertGreater(sum(1 for _, _, everyday in read_lexicon(LEXICON) if everyday), 1000)
        with open(LEXICON, encoding="utf-8") as f:
            head = " ".join(line[1:].strip() for line in f if line.startswith("#"))
        for needed in ("ECDICT", "Copyright (c) 2025 Linwei", "Copyright (c) 2022 Yan", "MIT License",
                       "The above copyright notice and this permission notice shall be included",
                       "IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE"):
            self.assertIn(needed, head)


if __name__ == "__main__":
    unittest.main()


class HeadWordTest(unittest.TestCase):
    def test_a_two_word_sense_reaches_its_last_word_when_no_sense_has_it_alone(self):
        rows = [("甲乙", ["shopping plaza"], []), ("丙丁", ["plaza"], []), ("戊己", ["fruit basket"], [])]
        table = english_to_chinese(rows)
        self.assertEqual(table[("basket",)], ["戊己"])  # basket alone: the phrase's last word
        self.assertEqual(table[("plaza",)], ["丙丁"])  # a word with a sense of its own keeps it
        self.assertNotIn(("fruit",), table)  # the first word of a phrase is no head

    def test_a_noun_has_a_place_among_verbs(self):
        rows = [("甲乙", ["to ring"], []), ("丙丁", ["to ring"], []), ("戊己", ["to ring"], []), ("庚辛", ["to ring"], []),
                ("壬癸", ["ring"], [])]
        found = english_to_chinese(rows)[("ring",)]
        self.assertEqual(len(found), ZH_PER_SENSE)
        self.assertEqual(found[:-1], [w for w, _, _ in rows][:ZH_PER_SENSE - 1])  # the commonest verbs first...
        self.assertEqual(found[-1], "壬癸")  # ...then the noun, before a rarer verb
