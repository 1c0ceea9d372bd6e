import unittest

from helpers import ROOT  # noqa: F401
import memory_store as ms


def numbered(n, prefix="line"):
    return "\n".join("%s %d" % (prefix, i) for i in range(1, n + 1)) + "\n"


class ChunkLineRangesTest(unittest.TestCase):
    def check_ranges_match_text(self, text, chunks):
        lines = ms.split_lines(text)
        for c in chunks:
            expected = "\n".join(lines[c.start_line - 1:c.end_line])
            if c.start_line == c.end_line and len(lines[c.start_line - 1]) > ms.DEFAULT_PARAMS.chunk_chars:
                self.assertIn(c.text, lines[c.start_line - 1])
            else:
                self.assertEqual(c.text, expected, "chunk %d text != its line range" % c.ordinal)

    def test_heading_starts_a_chunk_and_ranges_are_exact(self):
        text = "# Day\n\n## A\nalpha\nbeta\n\n## B\ngamma\n"
        chunks = ms.chunk_markdown("d.md", text)
        self.assertEqual([(c.start_line, c.end_line) for c in chunks], [(1, 5), (7, 8)])
        self.assertEqual([c.heading for c in chunks], ["Day > A", "Day > B"])
        self.assertEqual([c.ordinal for c in chunks], [0, 1])
        self.check_ranges_match_text(text, chunks)

    def test_long_section_is_windowed_with_overlap(self):
        text = "## Long\n" + numbered(30)
        chunks = ms.chunk_markdown("l.md", text, ms.Params(chunk_lines=8, chunk_overlap=2))
        self.assertGreater(len(chunks), 3)
        for a, b in zip(chunks, chunks[1:]):
            self.assertEqual(b.start_line, a.end_line - 1, "2-line overlap")
            self.assertLessEqual(b.end_line - b.start_line + 1, 8)
        self.assertEqual(chunks[-1].end_line, 31)
        self.check_ranges_match_text(text, chunks)
        self.assertTrue(all(c.heading == "Long" for c in chunks))

    def test_chunk_respects_character_bound(self):
        text = numbered(8, "x" * 500)
        chunks = ms.chunk_markdown("c.md", text, ms.Params(chunk_chars=1200))
        self.assertTrue(all(len(c.text) <= 1200 for c in chunks))
        self.check_ranges_match_text(text, chunks)

    def test_single_huge_line_is_cut_into_pieces_with_the_same_line(self):
        text = "intro\n" + "y" * 5000 + "\nafter\n"
        chunks = ms.chunk_markdown("h.md", text)
        huge = [c for c in chunks if c.start_line == 2]
        self.assertGreaterEqual(len(huge), 4)
        self.assertEqual("".join(c.text for c in huge), "y" * 5000)
        self.assertEqual(chunks[-1].start_line, 3)

    def test_crlf_and_cr_line_endings_keep_line_numbers(self):
        for nl in ("\r\n", "\r"):
            text = nl.join(["# T", "one", "", "## U", "two", "three"]) + nl
            chunks = ms.chunk_markdown("e.md", text)
            self.assertEqual([(c.start_line, c.end_line) for c in chunks], [(1, 2), (4, 6)], repr(nl))

    def test_headings_inside_code_fences_do_not_split(self):
        text = "## Setup\n```bash\n# install\nmake\n```\nafter\n"
        chunks = ms.chunk_markdown("f.md", text)
        self.assertEqual(len(chunks), 1)
        self.assertEqual((chunks[0].start_line, chunks[0].end_line), (1, 6))

    def test_hash_tags_are_not_headings(self):
        chunks = ms.chunk_markdown("t.md", "note one\n#博客 #seo\nnote two\n")
        self.assertEqual(len(chunks), 1)

    def test_blank_lines_never_start_or_end_a_chunk(self):
        chunks = ms.chunk_markdown("b.md", "\n\n\nfirst\nsecond\n\n\n")
        self.assertEqual([(c.start_line, c.end_line) for c in chunks], [(4, 5)])

    def test_empty_file_has_no_chunks(self):
        self.assertEqual(ms.chunk_markdown("e.md", ""), [])
        self.assertEqual(ms.chunk_markdown("e.md", "\n \n"), [])

    def test_private_blocks_are_masked_but_lines_kept(self):
        text = "a\n<private>secret token\nmore secret</private> visible\nz\n"
        chunks = ms.chunk_markdown("p.md", text)
        joined = " ".join(c.text for c in chunks)
        self.assertNotIn("secret", joined)
        self.assertIn("visible", joined)
        self.assertEqual(chunks[-1].end_line, 4)

    def test_front_matter_is_not_indexed_but_lines_keep_their_numbers(self):
        text = "---\naliases: [Wang Fang]\ntags:\n  - friend\n- design\ndate: 2026-11-06\n---\n# 王芳\n\n- lives in Hangzhou\n"
        chunks = ms.chunk_markdown("p.md", text)
        self.assertEqual([(c.start_line, c.end_line, c.heading) for c in chunks], [(8, 10, "王芳")])
        self.assertNotIn("aliases", " ".join(c.text for c in chunks))
        for text in ("# Title\n---\nnot: front matter\n---\n", "---\nno end to it\n\n- a line\n",
                     "---\nA rule over a paragraph, then another rule\n---\n",
                     "---\nUpdate: moving day went fine.\n\nWang Fang moved to Hangzhou.\n\n---\n"):
            self.assertIn("---", " ".join(c.text for c in ms.chunk_markdown("p.md", text)), text)

    def test_citation_format(self):
        self.assertEqual(ms.cite("memory/2026-02-20.md", 5, 9), "memory/2026-02-20.md:5-9")
        self.assertEqual(ms.parse_reference("memory/2026-02-20.md:5-9"), ("memory/2026-02-20.md", 5, 9))


class FileDateTest(unittest.TestCase):
    def test_dates_come_from_the_file_name(self):
        self.assertEqual(ms.file_date("memory/2026-02-19.md"), "2026-02-19")
        self.assertEqual(ms.file_date("logs/2023-05-08-session-1.md"), "2023-05-08")
        self.assertIsNone(ms.file_date("MEMORY.md"))
        self.assertIsNone(ms.file_date("notes/2026-13-45.md"))


if __name__ == "__main__":
    unittest.main()
