import unittest

from helpers import ROOT  # noqa: F401  (puts the suite on sys.path)
import memory_store as ms


class TokenizerTest(unittest.TestCase):
    def test_english_is_case_folded_stemmed_and_stopworded(self):
        self.assertEqual(ms.tokenize("The Configuration of OpenClaw"), ["configur", "openclaw"])
        self.assertEqual(ms.tokenize("configure"), ms.tokenize("configuration"))
        self.assertEqual(ms.tokenize("painted"), ms.tokenize("painting"))

    def test_codes_are_kept_whole_and_in_parts(self):
        self.assertEqual(ms.tokenize("KX-4471"), ["kx-4471", "kx", "4471", "kx4471"])
        self.assertEqual(ms.tokenize("138-0013-8000")[:4], ["138-0013-8000", "138", "0013", "8000"])
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

    def test_traditional_and_simplified_fold_to_one_form(self):
        self.assertEqual(ms.tokenize("帳號"), ms.tokenize("账号"))
        self.assertEqual(ms.tokenize("陳靜"), ms.tokenize("陈静"))
        self.assertEqual(ms.tokenize("發佈"), ms.tokenize("发布"))
        self.assertEqual(ms.fold("資料庫"), "资料库")
        self.assertEqual(len(ms.fold("後來發佈的帳號")), len("後來發佈的帳號"))  # offsets stay valid
        self.assertEqual(ms.tokenize("什么"), ["什么", "什", "么"])  # a simplified form stays (么 is not 幺)

    def test_numbers_written_in_groups_meet_their_digits(self):
        digits = set(ms.tokenize("13800138000"))
        for written in ("138-0013-8000", "138 0013 8000", "+86 138 0013 8000", "138.0013.8000"):
            self.assertIn("13800138000", ms.tokenize(written), written)
        self.assertIn("8000", digits)  # the last four digits (尾号)
        self.assertIn("62345678", ms.tokenize("(021) 6234-5678"))  # without the area code
        self.assertIn("0912345678", ms.tokenize("+886 912 345 678"))  # national form
        self.assertNotIn("20260315", ms.tokenize("2026-03-15"))  # a date is not a phone number
        self.assertIn("ak202604220318", ms.tokenize("AK20260422-0318"))  # codes also without joins
        self.assertNotIn("hugotoml", ms.tokenize("hugo.toml"))

    def test_index_terms_keep_bigrams_and_each_runs_last_character(self):
        self.assertEqual(ms.index_terms("十三香"), ["十三", "三香", "香"])
        self.assertEqual(ms.index_terms("的"), ["的"])

    def test_function_words_are_marked(self):
        self.assertEqual(ms.function_spans("护照什么时候到期"),
                         [False, False, True, True, True, True, False, False])
        self.assertEqual(ms.function_spans("会计是谁"), [False, False, True, True])

    def test_written_cantonese_function_words_are_marked_too(self):
        from memsuite.text.chinese import fold
        self.assertEqual(ms.function_spans(fold("廚師長而家係邊個")),  # who is the head chef now
                         [False, False, False, True, True, False, True, True])
        self.assertEqual(ms.function_spans(fold("老周啲菜心")), [False, False, True, False, False])
        self.assertEqual(ms.function_spans("系统关系"), [False] * 4)  # 係 folds to 系, which stays a word's

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

    def test_y_is_a_vowel_after_a_consonant(self):
        # y counts as a vowel or a consonant by what comes before it (Porter's rule),
        # which the measure of a stem and "has a vowel" both depend on
        for word, stem in {"sky": "sky", "flying": "fly", "syzygy": "syzygi", "toyed": "toi", "yearly": "yearli",
                           "boyish": "boyish", "crying": "cry", "dyeing": "dye", "played": "plai",
                           "analyzed": "analyz", "fayed": "fai", "yay": "yai"}.items():
            self.assertEqual(ms.stem(word), stem, word)

    def test_an_irregular_form_meets_its_base_word(self):
        # a question asks "did ... go / buy", a note tells "went / bought"
        for form, base in (("went", "go"), ("gone", "going"), ("bought", "buys"), ("children", "child"),
                           ("wrote", "writing"), ("taught", "teaches")):
            self.assertEqual(ms.stem(form), ms.stem(base), form)
        for word in ("rose", "wound", "leaves"):  # as often another word: left as they are
            self.assertEqual(ms.stem(word), ms.stem(word + "s") if word == "rose" else ms.stem(word), word)
        self.assertNotEqual(ms.stem("rose"), ms.stem("rise"))

    def test_an_informal_or_british_form_meets_the_word(self):
        # a question asks about "children" and "colour", a chat says "kids" and "color"
        for form, word in (("kids", "children"), ("mom", "mother"), ("pics", "pictures"), ("colour", "color"),
                           ("favourite", "favorite"), ("organised", "organized"), ("centres", "centers"),
                           ("programmes", "programs")):
            self.assertEqual(ms.stem(form), ms.stem(word), form)
        self.assertEqual(ms.tokenize("my kids' favourite colour"), ms.tokenize("my child's favorite color"))

    def test_no_listed_form_leads_to_another_listed_form(self):
        # the table is read once, before Porter: a form that led to another form would stop half way
        from memsuite.text.irregular import BASE_FORM
        self.assertEqual([form for form, word in BASE_FORM.items() if word in BASE_FORM], [])
        self.assertTrue(all(len(form) > 2 for form in BASE_FORM))  # shorter words are never looked up

    def test_short_and_non_ascii_words_are_left_alone(self):
        self.assertEqual(ms.stem("is"), "is")
        self.assertEqual(ms.stem("café"), "café")
        self.assertEqual(ms.stem("x86"), "x86")


if __name__ == "__main__":
    unittest.main()
