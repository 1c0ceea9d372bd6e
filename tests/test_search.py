import unittest

from helpers import ExamplesStore
import memory_search as search_mod
import memory_store as ms

HOSTILE = ['"', '""', '"unbalanced', "a AND b", "OR", "NOT x", "NEAR(a b)", "NEAR(", "*", "rss*",
           "-x", "-", "body:rss", "col:val", "(((", ")", "a) OR (b", "^", "🎉🎉", "emoji 🎉 rss",
           "x" * 10000, "的", "的" * 5000, "\x00\x01\x02", "'; DROP TABLE chunks; --",
           "\u202e\u200b", "%", "_", "{}[]", "\\", "rss\nconfig", "\t"]


class ExampleFolderSearchTest(ExamplesStore):
    """Real queries against the bundled example folder."""

    def top(self, query, **kw):
        return self.search(query, **kw)

    def assertTopIn(self, query, path, n=1, **kw):
        hits = self.top(query, **kw)
        self.assertTrue(hits, query)
        self.assertIn(path, [h.path for h in hits[:n]], "%s -> %s" % (query, [h.id for h in hits]))
        return hits

    def test_chinese_queries(self):
        self.assertTopIn("博客RSS配置", "memory/2026-02-20.md")
        hits = self.assertTopIn("十三香", "memory/2026-02-15.md")
        self.assertEqual(hits[0].heading, "2026-02-15 > 十三香小龙虾做法")
        self.assertTopIn("京都 机票", "memory/2026-02-19.md", n=2)
        self.assertTopIn("评论系统 Giscus", "memory/2026-03-02.md")

    def test_english_queries_meet_other_word_forms(self):
        self.assertTopIn("configure the RSS feed", "memory/2026-03-15.md", n=3)
        self.assertTopIn("restoring backups", "memory/2026-03-02.md")
        self.assertTopIn("duplicated items in Feedly", "memory/2026-03-22.md", n=2)

    def test_codes_and_numbers_are_found_whole_and_in_part(self):
        self.assertTopIn("KX-4471", "MEMORY.md", n=3)
        self.assertTopIn("4471", "memory/2026-03-08.md", n=3)
        self.assertTopIn("138-0013-8000", "MEMORY.md")

    def test_mixed_language_query(self):
        self.assertTopIn("PaperMod RSS 全文", "memory/2026-02-20.md")

    def test_typo_still_finds_the_note(self):
        self.assertTopIn("Feedley duplicate", "memory/2026-03-22.md", n=2)
        hits = self.top("Feedley")  # nothing but the typo
        self.assertTrue(hits)
        self.assertTrue(all("Feedly" in h.text for h in hits[:2]))

    def test_compound_word_finds_its_parts(self):
        self.write("trip.md", "# Trip\nWe planned a road trip to the coast.\n")
        self.store.sync()
        self.assertEqual(self.top("roadtrip")[0].path, "trip.md")
        self.assertEqual(self.top("roadtrip", mode="keyword")[0].path, "trip.md")

    def test_citations_point_at_lines_that_hold_the_match(self):
        hit = self.top("十三香")[0]
        lines = ms.read_memory_lines(self.dir, hit.path)
        cited = "\n".join(lines[hit.start_line - 1:hit.end_line])
        self.assertIn("十三香", cited)
        self.assertEqual(cited, hit.text)

    def test_scores_are_in_unit_range_and_sorted(self):
        for q in ("博客", "OpenClaw skills", "Kyoto trip", "的"):
            hits = self.top(q, limit=10)
            scores = [h.score for h in hits]
            self.assertEqual(scores, sorted(scores, reverse=True))
            for h in hits:
                for s in (h.score, h.keyword, h.vector):
                    self.assertGreaterEqual(s, 0.0)
                    self.assertLessEqual(s, 1.0)

    def test_limit_and_min_score(self):
        self.assertEqual(len(self.top("博客", limit=2)), 2)
        hits = self.top("博客", limit=10, min_score=0.45)
        self.assertTrue(hits)
        self.assertTrue(all(h.score >= 0.45 for h in hits))

    def test_modes_rank_with_their_own_channel(self):
        for mode in ("keyword", "vector"):
            hits = self.top("十三香小龙虾", mode=mode)
            self.assertEqual(hits[0].path, "memory/2026-02-15.md")
        kw = self.top("OpenClaw", mode="keyword")[0]
        self.assertEqual(kw.score, kw.keyword)
        vec = self.top("OpenClaw", mode="vector")[0]
        self.assertEqual(vec.score, vec.vector)

    def test_date_and_path_filters(self):
        hits = self.top("RSS", limit=10, filters=ms.Filters(since="2026-03-01"))
        self.assertTrue(hits)
        self.assertTrue(all(h.date is None or h.date >= "2026-03-01" for h in hits))
        self.assertIn("MEMORY.md", [h.path for h in self.top("RSS配置", limit=10,
                                                             filters=ms.Filters(since="2026-03-01"))])
        dated = self.top("RSS配置", limit=10, filters=ms.Filters(since="2026-03-01", dated_only=True))
        self.assertNotIn("MEMORY.md", [h.path for h in dated])
        until = self.top("RSS", limit=10, filters=ms.Filters(until="2026-02-20", dated_only=True))
        self.assertTrue(until)
        self.assertTrue(all(h.date <= "2026-02-20" for h in until))
        only = self.top("RSS", limit=10, filters=ms.Filters(path_glob="memory/2026-03-*"))
        self.assertTrue(only)
        self.assertTrue(all(h.path.startswith("memory/2026-03-") for h in only))
        folder = self.top("RSS", limit=10, filters=ms.Filters(path_glob="memory"))
        self.assertNotIn("MEMORY.md", [h.path for h in folder])

    def test_a_hit_does_not_depend_on_the_limit(self):
        for q in ("博客RSS配置", "OpenClaw skills", "Kyoto trip"):
            many = self.top(q, limit=10)
            for n in (1, 3):
                few = self.top(q, limit=n)
                self.assertEqual([(h.id, h.start_line, h.end_line, h.snippet) for h in few],
                                 [(h.id, h.start_line, h.end_line, h.snippet) for h in many[:n]], q)

    def test_results_never_share_lines_and_ids_are_their_citations(self):
        for q in ("configure the RSS feed", "what did I book on 19 February", "OpenClaw", "博客", "RSS"):
            hits = self.top(q, limit=10)
            for i, a in enumerate(hits):
                for b in hits[i + 1:]:
                    if a.path == b.path:
                        self.assertTrue(a.end_line < b.start_line or b.end_line < a.start_line, (q, a.id, b.id))
            for h in hits:
                self.assertEqual(ms.parse_reference(h.id), (h.path, h.start_line, h.end_line))
                first = [c for c in self.store.chunks_of(h.path) if c.start_line <= h.start_line <= c.end_line]
                self.assertIn(h.heading, [c.heading for c in first])

    def test_passages_stay_within_the_merge_bound(self):
        for q in ("OpenClaw", "RSS", "京都"):
            for h in self.top(q, limit=10):
                self.assertLessEqual(h.end_line - h.start_line + 1,
                                     max(ms.DEFAULT_PARAMS.merge_max_lines, ms.DEFAULT_PARAMS.chunk_lines))
                lines = ms.read_memory_lines(self.dir, h.path)
                self.assertEqual(h.text, "\n".join(lines[h.start_line - 1:h.end_line]))

    def test_no_near_duplicate_hits(self):
        hits = self.top("OpenClaw", limit=10)
        for i, a in enumerate(hits):
            for b in hits[i + 1:]:
                if a.path == b.path:
                    overlap = min(a.end_line, b.end_line) - max(a.start_line, b.start_line) + 1
                    self.assertLess(overlap * 2, b.end_line - b.start_line + 1)

    def test_hostile_queries_are_searched_as_text(self):
        """Operators, quotes and punctuation are not syntax: a hostile query finds
        exactly what its words alone find, and every hit holds one of them."""
        import re
        for q in HOSTILE:
            try:
                hits = self.top(q)
            except search_mod.UsageError:
                # only blank queries, and those over the documented maximum, are usage errors
                self.assertTrue(q.strip() == "" or len(q) > ms.MAX_QUERY_CHARS, repr(q[:80]))
                continue
            words = " ".join(re.findall(r"[^\W_]+", q))
            plain = self.top(words) if words.strip() else []
            self.assertEqual([(h.id, h.score) for h in hits], [(h.id, h.score) for h in plain], repr(q))
            for h in hits:
                shared = set(ms.tokenize(h.text + " " + h.heading)) & set(ms.tokenize(q))
                self.assertTrue(shared, (q, h.id))

    def test_unknown_words_give_no_hits(self):
        self.assertEqual(self.top("zxqvbnm"), [])

    def test_empty_query_is_a_usage_error(self):
        for q in ("", "   ", "\n"):
            with self.assertRaises(search_mod.UsageError):
                self.top(q)


class SnippetTest(unittest.TestCase):
    def test_snippet_prefers_matching_lines_and_skips_the_heading(self):
        text = "## 京都行程\n- 酒店在四条河原町附近\n- 订好了去京都的机票\n- 想去伏见稻荷"
        snippet = search_mod.make_snippet(text, set(ms.tokenize("机票")))
        self.assertTrue(snippet.startswith("- 订好了去京都的机票"))

    def test_highlight_marks_latin_and_chinese_terms(self):
        q = set(ms.tokenize("RSS 配置"))
        self.assertEqual(search_mod.highlight("博客RSS配置优化", q, colour=False), "博客«RSS»«配置»优化")
        self.assertEqual(search_mod.highlight("Configured RSS.", set(ms.tokenize("configure")), False),
                         "«Configured» RSS.")

    def test_long_lines_are_cut(self):
        text = "filler " * 200 + "needle here " + "filler " * 200
        snippet = search_mod.make_snippet(text, set(ms.tokenize("needle")))
        self.assertLessEqual(len(snippet), search_mod.SNIPPET_CHARS + 2)
        self.assertIn("needle", snippet)


if __name__ == "__main__":
    unittest.main()
