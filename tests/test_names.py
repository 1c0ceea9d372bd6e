"""Chinese names in Latin letters and back (search/names.py): 王磊 is Wang Lei,
小周 Xiao Zhou, in a question and in notes of the other script."""
import unittest

from helpers import SyncedMemory
import memory_search
from memsuite.search.ranking import ANSWER_CUT
from memsuite.search.names import latin_words, readings_in
from memsuite.text.pinyin import reading
from memsuite.text.tokenizer import text_units


class ReadingTest(unittest.TestCase):
    def test_a_chinese_name_is_read_in_latin_letters(self):
        self.assertEqual(reading("王磊"), "wang lei")
        self.assertEqual(reading("曾"), "zeng")  # a surname's reading first, not ceng

    def test_names_of_a_question_from_a_surname_or_a_prefix(self):
        found = {word: latin for latin, _, word in readings_in(text_units("小周和王磊的电话"))}
        self.assertEqual(found.get("小周"), "xiao zhou")
        self.assertEqual(found.get("王磊"), "wang lei")
        self.assertNotIn("王磊和", found)  # 和 is no name's
        self.assertEqual(readings_in(text_units("电话是多少")), [])

    def test_a_word_the_lexicon_translates_is_no_name(self):
        found = {word for _, _, word in readings_in(text_units("周末坐高铁去武汉"))}
        self.assertFalse(found & {"周末", "高铁", "武汉"}, found)

    def test_each_name_once(self):
        self.assertEqual(len(readings_in(text_units("老王 老王 老王"))), 1)

    def test_latin_words_are_read_as_written(self):
        self.assertEqual(latin_words("Wang Xiaoling's phone?"), ["wang", "xiaoling", "s", "phone"])


class EnglishNotesTest(SyncedMemory):
    files = {"memory/2026-08-21.md": "# 2026-08-21\n\n- Rental agent Xiao Zhou: +86 138 1762 4490, prefers voice.\n",
             "memory/2026-08-22.md": "# 2026-08-22\n\n- Dinner with Jess and Marco, then a long call with Mum.\n"}

    def test_a_chinese_name_finds_its_latin_spelling(self):
        hits = memory_search.search(self.store, "小周的电话是多少")
        self.assertEqual(hits[0].path, "memory/2026-08-21.md", [h.id for h in hits])

    def test_a_chinese_word_that_starts_like_a_name_finds_no_one(self):
        hits = memory_search.search(self.store, "周末")  # (周 is Zhou's surname: 周末 is a weekend)
        self.assertFalse([h for h in hits if h.score >= ANSWER_CUT], [(h.id, h.score) for h in hits])


class ChineseNotesTest(SyncedMemory):
    files = {"memory/2026-08-21.md": "# 2026-08-21\n\n- 王磊生日是 3 月 14 号，记得订蛋糕。\n",
             "memory/2026-08-22.md": "# 2026-08-22\n\n- 王芳的生日会改到周六，在她家。\n"}

    def test_a_latin_name_finds_its_chinese_characters(self):
        hits = memory_search.search(self.store, "When is Wang Lei's birthday?")
        self.assertEqual(hits[0].path, "memory/2026-08-21.md", [h.id for h in hits])


class BuilderTest(unittest.TestCase):
    """data/make-zh-pinyin.py on a few lines of CC-CEDICT and jieba."""

    def test_a_surname_reading_first_tones_off_the_commonest_first(self):
        import importlib.util
        import io
        import os
        import tempfile
        from contextlib import redirect_stdout
        here = os.path.dirname(os.path.abspath(__file__))
        spec = importlib.util.spec_from_file_location("make_pinyin", os.path.join(here, "..", "data", "make-zh-pinyin.py"))
        maker = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(maker)
        with tempfile.TemporaryDirectory() as tmp:
            cedict, jieba = os.path.join(tmp, "cedict.u8"), os.path.join(tmp, "dict.txt")
            with open(cedict, "w", encoding="utf-8") as f:
                f.write("曾 曾 [Zeng1] /surname Zeng/\n曾 曾 [ceng2] /once/\n呂 吕 [Lu:3] /surname Lu/\n"
                        "磊 磊 [lei3] /rock pile/\n罕 罕 [han3] /rare/\n")
            with open(jieba, "w", encoding="utf-8") as f:
                f.write("曾 500 d\n吕 80 nr\n磊 20 ng\n罕 3 a\n")
            out = io.StringIO()
            with redirect_stdout(out):
                maker.main(["make", cedict, jieba])
        rows = [line for line in out.getvalue().splitlines() if not line.startswith("#")]
        self.assertEqual(rows, ["曾\tzeng ceng", "吕\tlu", "磊\tlei"])  # 罕 is too rare


if __name__ == "__main__":
    unittest.main()
