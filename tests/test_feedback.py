"""Pseudo-relevance feedback (search/feedback.py): a question is searched again
with the words its best hits share, which reorders the hits and can find a
note written in those words only; the scores stay the first search's, so an
agent's cut means what it meant."""
import unittest

from helpers import TempMemory
import memory_search
import memory_store as ms


class FeedbackTest(TempMemory):
    files = {
        "memory/2026-05-02.md": "# 2026-05-02\n\n- Pottery workshop with the kids: clay bowls, glazed blue, fired on Sunday\n",
        "memory/2026-05-09.md": "# 2026-05-09\n\n- Picked up the clay bowls from the kiln, the blue glaze came out well\n",
        "memory/2026-05-11.md": "# 2026-05-11\n\n- Lunch at the noodle bar, two bowls of ramen\n",
        "memory/2026-05-12.md": "# 2026-05-12\n\n- Dentist at nine, then groceries\n",
    }
    files.update(("notes/%02d.md" % i, "# Errand %d\n\n- %s\n" % (i, errand)) for i, errand in enumerate((
        "paid the electricity bill", "renewed the library card", "fixed the bike chain", "called the landlord",
        "booked the train to Leeds", "sent the tax form", "watered the tomatoes", "backed up the laptop")))

    def search(self, query, docs, **kw):
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        return memory_search.search(store, query, params=store.params._replace(feedback_docs=docs), **kw)

    def test_a_note_in_the_best_hits_words_is_found(self):
        without = [h.path for h in self.search("the pottery we made", 0)]
        with_feedback = [h.path for h in self.search("the pottery we made", 3)]
        self.assertEqual(without, ["memory/2026-05-02.md"])
        self.assertEqual(with_feedback[:2], ["memory/2026-05-02.md", "memory/2026-05-09.md"])
        self.assertNotIn("memory/2026-05-12.md", with_feedback)

    def test_a_question_its_first_search_answers_is_not_searched_again(self):
        answered = self.search("pottery", 3, min_score=0)
        self.assertGreaterEqual(answered[0].score, 0.4)
        self.assertEqual([h.path for h in answered], [h.path for h in self.search("pottery", 0, min_score=0)])

    def test_the_scores_are_the_first_searchs(self):
        without = self.search("the pottery we made", 0)
        with_feedback = self.search("the pottery we made", 3)
        self.assertGreater(len(with_feedback), len(without))
        self.assertEqual([h.score for h in with_feedback][:len(without)], [h.score for h in without])
        self.assertLessEqual(max(h.score for h in with_feedback), without[0].score)

    def test_a_callers_cut_is_on_each_hits_own_score(self):
        """With --min-score the question is searched once: a cut on scores
        taken by rank would keep a hit under it and drop one over it."""
        self.assertEqual([h.path for h in self.search("the pottery we made", 3, min_score=0.05)],
                         [h.path for h in self.search("the pottery we made", 0, min_score=0.05)])


if __name__ == "__main__":
    unittest.main()
