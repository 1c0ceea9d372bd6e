"""A question in the other language searched again as its translation
(search/crosslingual.py), and the lexicon's place names and everyday English
(data/make-en-zh-lexicon.py)."""
import csv
import importlib.util
import os
import tempfile
import unittest

from helpers import SyncedMemory
from memsuite.search.crosslingual import merge_passes, own_script, translated_query
from memsuite.search.lexicon import translations
from memsuite.text.lexicon_table import lexicon_table
from memsuite.search.results import Hit, Hits
from memsuite.text.tokenizer import text_units

HERE = os.path.dirname(os.path.abspath(__file__))


def _maker():
    spec = importlib.util.spec_from_file_location("make_lexicon", os.path.join(HERE, "..", "data", "make-en-zh-lexicon.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class ChineseFolderTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- 周末去公园散步，遇到了老同学。\n- 新的键盘到了。\n"}

    def test_an_english_question_is_searched_as_its_chinese_words(self):
        other = translated_query(self.store, "Which keyboard arrived?")
        self.assertIn("键盘", other.split())
        self.assertNotIn("which", other.lower().split())  # the question's own words are left out

    def test_the_other_scripts_words_and_numbers_are_kept_as_written(self):
        other = translated_query(self.store, "When did 王小明 buy the keyboard for 300?")
        self.assertEqual(other.split()[:2], ["王小明", "300"])

    def test_a_chinese_question_is_not_searched_again(self):
        self.assertEqual(own_script(text_units("新的键盘是什么时候到的？")), "zh")
        self.assertEqual(translated_query(self.store, "新的键盘是什么时候到的？"), "")


class EnglishFolderTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- The new keyboard arrived on Friday.\n"}

    def test_no_second_search_when_the_notes_hold_the_question_as_written(self):
        self.assertEqual(translated_query(self.store, "Which keyboard arrived?"), "")


class TranslationsOfOneWordTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- We attend and join the club.\n",
             "memory/2026-05-03.md": "# 2026-05-03\n\n- We attend the club today.\n",
             "memory/2026-05-04.md": "# 2026-05-04\n\n- Ask them to join us for dinner.\n"}  # (join as rare as attend)

    def test_two_translations_of_one_word_count_as_one(self):
        import memory_search
        self.assertTrue({"attend", "to join"} <= {w for w, _, _ in translations(text_units("参加"))})
        hits = memory_search.search(self.store, "参加俱乐部", mode="keyword", min_score=0)
        scores = {h.path: h.keyword for h in hits}
        self.assertGreaterEqual(len(scores), 2)
        self.assertAlmostEqual(scores["memory/2026-05-02.md"], scores["memory/2026-05-03.md"], places=3)


class MergeTest(unittest.TestCase):
    def hit(self, path, start, end, score):
        return Hit("%s:%d-%d" % (path, start, end), path, start, end, "", None, score, score, 0.0, "", "")

    def test_the_better_of_two_overlapping_passages_is_kept_best_first(self):
        first = Hits([self.hit("a.md", 1, 4, 0.5), self.hit("b.md", 1, 2, 0.3)], ["keyword"])
        second = Hits([self.hit("a.md", 3, 6, 0.7), self.hit("c.md", 1, 1, 0.4)], ["keyword"])
        merged = merge_passes(first, second, 3)
        self.assertEqual([(h.path, h.start_line, h.score) for h in merged], [("a.md", 3, 0.7), ("c.md", 1, 0.4),
                                                                             ("b.md", 1, 0.3)])
        self.assertEqual(merged.channels, ["keyword"])


class PlaceNamesTest(unittest.TestCase):
    def test_a_place_gloss_keeps_the_name_before_what_the_place_is(self):
        short = _maker().short_sense
        self.assertEqual(short("Qingdao subprovincial city in Shandong"), "qingdao")
        self.assertEqual(short("Yunnan province in southwest China"), "yunnan")
        self.assertEqual(short("Tokyo, capital of Japan"), "tokyo")
        self.assertIsNone(short("Chinese cabbage grown in the north of the country"))  # no place word after it

    def test_the_table_holds_places_both_ways(self):
        table = lexicon_table()
        self.assertIn("hangzhou", table.get("杭州")[0].split("; "))
        self.assertTrue(table.get("~hangzhou"))

    def test_a_five_character_word_is_read_whole(self):
        # 加利福尼亚 and 笔记本电脑 are one word each: no part of them means California or laptop
        for word, english in (("加利福尼亚", "california"), ("笔记本电脑", "laptop")):
            found = translations(text_units("去" + word))
            self.assertIn((english, word), [(w, source) for w, _, source in found], word)

    def test_an_erhua_question_word_leaves_no_character_to_translate(self):
        for query in ("上周去哪儿了", "钥匙放在哪儿", "等一会儿", "去这儿还是那儿"):  # (儿 alone would be a son)
            self.assertNotIn("儿", [source for _, _, source in translations(text_units(query))], query)


class EverydayEnglishTest(unittest.TestCase):
    """The builder's everyday senses (data/make-en-zh-lexicon.py, from ECDICT)."""

    def test_the_first_chinese_word_of_the_first_part_of_speech(self):
        first = _maker().first_translation
        self.assertEqual(first("n. 活动（总称）, 行动\\n[计] 活动"), "活动")
        self.assertEqual(first("prep. 在\\nn. 旅馆"), "旅馆")  # a function word's line is passed over
        self.assertIsNone(first("[网络] 胡德"))  # no part of speech: no translation

    def test_the_commonest_words_are_read_from_the_csv(self):
        rows = [("word", "translation", "bnc", "frq"), ("mom", "n. 妈妈", "13335", "1609"),
                ("activity", "n. 活动, 行动", "412", "0"), ("moth", "n. 蛾", "30000", "20000"),
                ("A-team", "n. 精英队", "0", "100"), ("uh", "[网络] 嗯", "5", "5")]
        with tempfile.NamedTemporaryFile("w", suffix=".csv", encoding="utf-8", delete=False) as f:
            csv.writer(f).writerows(rows)
        try:  # COCA's rank, else BNC's; a single lower-case word; within the top; one with a translation
            self.assertEqual(_maker().read_everyday(f.name, top=15000), [("activity", "活动"), ("mom", "妈妈")])
        finally:
            os.unlink(f.name)

    def test_a_word_takes_what_it_lacks_at_most_max_everyday(self):
        maker = _maker()
        glosses = {"甲乙": ["to gallop"], "丙丁": ["horse"]}
        freq = {"甲乙": (100, "v"), "丙丁": (100, "n")}
        everyday = [("gallop", "甲乙"), ("race", "甲乙"), ("horse", "丙丁"), ("run", "甲乙"), ("dash", "甲乙"),
                    ("pony", "戊己")]
        rows = {word: (own, added) for word, own, added in maker.lexicon(glosses, freq, everyday)}
        # its own senses ("to gallop" is gallop) are not repeated, at most two, a word not in the table takes none
        self.assertEqual(maker.MAX_EVERYDAY, 2)
        self.assertEqual(rows, {"甲乙": (["to gallop"], ["race", "run"]), "丙丁": (["horse"], [])})

