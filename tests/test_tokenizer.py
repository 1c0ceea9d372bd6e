import unittest

from helpers import ROOT  # noqa: F401  (puts the suite on sys.path)
import memory_store as ms


class TokenizerTest(unittest.TestCase):
    def test_english_is_case_folded_stemmed_and_stopworded(self):
        self.assertEqual(ms.tokenize("The Configuration of OpenClaw"), ["configur", "openclaw"])
        self.assertEqual(ms.tokenize("configure"), ms.tokenize("configuration"))
        self.assertEqual(ms.tokenize("painted"), ms.tokenize("painting"))

    def test_codes_are_kept_whole_and_in_parts(self):
        self.assertEqual(ms.tokenize("KX-4471"), ["kx-4471", "kx", "4471"])
        self.assertEqual(ms.tokenize("138-0013-8000"), ["138-0013-8000", "138", "0013", "8000"])
        self.assertIn("2026-03-15", ms.tokenize("on 2026-03-15."))
        self.assertIn("config.toml", ms.tokenize("edit config.toml"))

    def test_chinese_runs_become_bigrams_and_unigrams(self):
        self.assertEqual(ms.tokenize("十三香"), ["十三", "三香", "十", "三", "香"])
        doc = set(ms.tokenize("十三香小龙虾做法"))
        self.assertTrue({"十三", "三香"} <= doc)
        self.assertEqual(ms.tokenize("的"), ["的"])

    def test_mixed_latin_and_chinese_split_at_script_boundary(self):
        terms = ms.tokenize("博客RSS配置优化")
        self.assertIn("rss", terms)
        self.assertIn("配置", terms)
        self.assertTrue(set(ms.tokenize("RSS配置")) <= set(terms))

    def test_full_width_forms_are_normalised(self):
        self.assertEqual(ms.tokenize("ＲＳＳ"), ["rss"])

    def test_punctuation_and_emoji_make_no_terms(self):
        self.assertEqual(ms.tokenize("!!! ... 🎉 -- ***"), [])
        self.assertEqual(ms.tokenize(""), [])


class StemmerTest(unittest.TestCase):
    CASES = {
        "caresses": "caress", "ponies": "poni", "cats": "cat", "agreed": "agre",
        "plastered": "plaster", "motoring": "motor", "hopping": "hop", "filing": "file",
        "happy": "happi", "relational": "relat", "conditional": "condit",
        "generalization": "gener", "hopeful": "hope", "goodness": "good",
        "revival": "reviv", "adjustment": "adjust", "adoption": "adopt",
        "controlling": "control", "roll": "roll", "probate": "probat",
    }

    def test_porter_reference_pairs(self):
        for word, stem in self.CASES.items():
            self.assertEqual(ms.stem(word), stem, word)

    def test_short_and_non_ascii_words_are_left_alone(self):
        self.assertEqual(ms.stem("is"), "is")
        self.assertEqual(ms.stem("café"), "café")
        self.assertEqual(ms.stem("x86"), "x86")


if __name__ == "__main__":
    unittest.main()
