"""Hits that explain themselves: search.sh --explain and memory_search's explain."""
import json
import os
import sys
import unittest

from helpers import ROOT, TempMemory, run_script


class ExplainTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.write("MEMORY.md", "# Memory\n\n## Blog\nThe blog runs on Hugo with the PaperMod theme.\n")
        self.write("memory/2026-02-20.md", "# 2026-02-20\n\n## 博客RSS配置\n- 电脑上改了 RSS 输出全文。\n")
        self.write("memory/2026-02-21.md", "# 2026-02-21\n\n- A note about Hugo builds.\n")

    def test_each_hit_says_what_it_matched_and_scored(self):
        code, out, err = run_script("search.sh", "hugo papermod", "--json", "--explain", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        top = doc["results"][0]
        self.assertEqual(top["path"], "MEMORY.md")
        self.assertEqual([m["term"] for m in top["explain"]["matched"]], ["hugo", "papermod"])
        self.assertEqual(top["explain"]["channels"], top["scores"])
        self.assertAlmostEqual(top["explain"]["merged"] + top["explain"]["rerank"], top["score"], places=3)
        second = [r for r in doc["results"] if r["path"] == "memory/2026-02-21.md"] or doc["cut"]
        self.assertTrue(second)

    def test_expansions_are_named_and_cut_hits_say_why(self):
        code, out, err = run_script("search.sh", "计算机 RSS hugo", "--json", "--explain", "--limit", "1", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        matched = doc["results"][0]["explain"]["matched"]
        self.assertIn("expansion", {m["from"] for m in matched})  # 电脑 stands for 计算机
        self.assertTrue(all(c["why"] for c in doc["cut"]))
        self.assertTrue(any("--limit" in c["why"] for c in doc["cut"]))

    def test_text_explanation_and_the_mcp_option(self):
        code, out, err = run_script("search.sh", "hugo", "--explain", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("why these hits:", out)
        self.assertIn("matched: hugo", out)
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from test_agents import McpClient
        client = McpClient(self, self.dir)
        mcp = client.call("memory_search", query="hugo papermod", explain=True)["structuredContent"]
        code, out, _ = run_script("search.sh", "hugo papermod", "--json", "--explain", "--dir", self.dir)
        self.assertEqual(mcp, json.loads(out))


if __name__ == "__main__":
    unittest.main()
