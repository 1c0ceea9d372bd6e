"""What kind of answer a question asks for (search/answers.py): a hit that
holds an amount answers "how much" better than one that only shares the
question's words."""
import unittest

from helpers import SyncedMemory
import memory_search
from memsuite.search.answers import answer_test, asks_amount, asks_code, asks_who, holds_amount, holds_code, says_who
from memsuite.search.dates import holds_time


class AskedTest(unittest.TestCase):
    def test_how_much_questions_in_both_languages(self):
        for query in ("OCR 的单价多少？", "看牙花了多少钱", "How much was the bike repair?", "what did the ticket cost"):
            self.assertTrue(asks_amount(query), query)
        for query in ("多少人来了", "how many people came", "costume party", "费城的天气"):
            self.assertFalse(asks_amount(query), query)

    def test_amounts_with_their_currency_or_unit(self):
        for text in ("- 房租 4500 元", "- paid ¥120 at the clinic", "- 0.35/次，先签一年", "- 95 EUR a night"):
            self.assertTrue(holds_amount(text), text)
        for text in ("- 约了 3 点见面", "# 2026-05-04 ¥\n- 修好了", "- order 88412 shipped"):
            self.assertFalse(holds_amount(text), text)

    def test_a_when_question_wants_a_time_and_others_nothing(self):
        self.assertIs(answer_test("什么时候交房租"), holds_time)
        self.assertIs(answer_test("房租多少钱"), holds_amount)
        self.assertIsNone(answer_test("who fixed the bike"))


class CodeTest(unittest.TestCase):
    def test_a_phone_or_tracking_number_is_seven_digits_however_spaced(self):
        for query in ("小周的电话是多少", "What was the vet's number?", "DHL tracking number", "快递单号"):
            self.assertTrue(asks_code(query), query)
        for query in ("what did the vet say", "Which headphones did I buy?", "my cello lesson",
                      "time tracking app", "the number of guests", "我的手机是什么型号"):
            self.assertFalse(asks_code(query), query)
        for text in ("- Xiao Zhou: +86 138 1762 4490", "- Tanglin Pet Clinic, 6734 9902", "- AWB 4829 1056 37"):
            self.assertTrue(holds_code(text), text)
        for text in ("- Paid 1,520 on 3 Sep", "# 2026-08-06 1234567", "- room 1203",
                     "- decided on 2026-11-20 to keep it", "- 2026/11/20 到 2026.12.01", "- 截止2026-11-20",
                     "- 20.11.2026", "- worked there 2019-2023", "- 09.00 - 17.00", "- 2026-11-20T10:30",
                     "- 1 000 000 steps", "- pi is 3.14159265"):
            self.assertFalse(holds_code(text), text)
        self.assertIs(answer_test("王磊的手机号"), holds_code)


class WhoTest(unittest.TestCase):
    def test_who_is_questions_name_whom_they_ask_about(self):
        for query, name in (("Who is Kenji?", "Kenji"), ("What does Grace do?", "Grace"), ("小周是谁？", "小周"),
                            ("谁是王磊", "王磊"), ("who's Nadia", "Nadia"), ("Who is Kenji？", "Kenji"),
                            ("谁是小周啊", "小周")):
            self.assertEqual(asks_who(query), name, query)
        for query in ("Who supports Caroline when she is sad?", "What did Grace do yesterday?", "小周的电话",
                      "Who was at the meeting?", "what does it do?"):
            self.assertIsNone(asks_who(query), query)

    def test_a_line_says_who_someone_is(self):
        kenji = says_who("Kenji")
        for line in ("- Kenji Watanabe (SRE on my team)", "- Kenji: our Terraform person", "- Kenji is new here"):
            self.assertTrue(kenji(line), line)
        for line in ("- Kenji posted the graph", "- Assigned to Kenji, low priority", "# Kenji (notes)"):
            self.assertFalse(kenji(line), line)
        self.assertTrue(says_who("小周")("- 小周（王磊的表弟）在上海做中介"))


class WhoRanksFirstTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- Kenji Watanabe (SRE on my team, ex-Rakuten) pairs with me on "
                                     "the node groups this week\n",
             "memory/2026-05-03.md": "# 2026-05-03\n\n- Kenji posted the graph\n",
             "memory/2026-05-04.md": "# 2026-05-04\n\n- Lunch with Kenji\n"}

    def test_the_line_saying_who_someone_is_answers_who_is(self):
        hits = memory_search.search(self.store, "Who is Kenji?", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-05-02.md", [h.id for h in hits])


class AmountRanksFirstTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- 补胎去了小区门口的修车铺\n",
             "memory/2026-05-03.md": "# 2026-05-03\n\n- 周六补胎 15 元，老板顺便打了气，还上了油\n"}  # (longer: less by its words)

    def test_the_line_with_the_price_answers_how_much(self):
        hits = memory_search.search(self.store, "补胎多少钱", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-05-03.md")


class NumberRanksFirstTest(SyncedMemory):
    files = {"memory/2026-05-02.md": "# 2026-05-02\n\n- The plumber fixed the sink\n",
             "memory/2026-05-03.md": "# 2026-05-03\n\n- Saturday: the plumber came back for the tap, "
                                     "139 0017 5526, weekends too\n",  # (longer: less by its words)
             "memory/2026-05-04.md": "# 2026-05-04\n\n- Booked the plumber for 2026-05-09 14:30\n"}

    def test_the_line_with_a_number_to_call_answers_the_phone_question(self):
        hits = memory_search.search(self.store, "plumber's phone?", min_score=0)
        self.assertEqual(hits[0].path, "memory/2026-05-03.md", [h.id for h in hits])


if __name__ == "__main__":
    unittest.main()
