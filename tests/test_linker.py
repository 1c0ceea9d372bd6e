import json
import os
import unittest

from helpers import TempMemory, run_script
import memory_linker as ml
import memory_store as ms


def extracted(text):
    return [(m.kind, m.spelling) for m in ml.extract_entities(text)]


class ExtractionTest(unittest.TestCase):
    """One table per language: what the extractor must find, and must not."""

    ENGLISH = [
        ("Set up OpenClaw with the PaperMod theme", [("name", "OpenClaw"), ("name", "PaperMod")]),
        ("ZanzibarProto and iPhone", [("name", "ZanzibarProto"), ("name", "iPhone")]),
        ("Submitted to GSC via the API", [("caps", "GSC"), ("caps", "API")]),
        ("OK, I think THE plan is fine. Chapter XIV.", []),
        ("Edit `config.toml` and run `hugo --minify`", [("code", "config.toml"), ("code", "hugo --minify")]),
        ("See https://blog.example.dev/posts/rss/, then.", [("url", "https://blog.example.dev/posts/rss/")]),
        ("Docs at www.example.org.", [("url", "www.example.org")]),
        ("Notes in ~/notes/2026.md and ./deploy.sh", [("path", "~/notes/2026.md"), ("path", "./deploy.sh")]),
        ("Tagged #blog and #SEO, thanks @alice", [("tag", "blog"), ("tag", "SEO"), ("mention", "alice")]),
        ("Linked [[OpenClaw]] and [[Kyoto Trip|the trip]]", [("link", "OpenClaw"), ("link", "Kyoto Trip")]),
        ("Booking KX-4471 confirmed", [("code", "KX-4471")]),
        ("Yep John, we hiked the Grand Canyon with Mel.", [("cap", "John"), ("cap", "Grand Canyon"), ("cap", "Mel")]),
        ("**Caroline** (D1:3): Hello there.", [("cap", "Caroline")]),
        ("**Dr. Lin**: two tablets a day.", [("cap", "Lin")]),  # the speaker's title is no part of the name
        ("Email me: bob@example.com", [("url", "example.com")]),
        ("Saw Dr. Lin today, then Mr. Wong and Dr. Yu.", [("cap", "Lin"), ("cap", "Wong"), ("cap", "Yu")]),  # a title's point ends no sentence
    ]
    CHINESE = [
        ("完成了博客RSS配置优化", [("term", "RSS配置")]),
        ("SEO优化和评论系统都上线了", [("term", "SEO优化"), ("term", "评论系统")]),
        ("标签 #博客 #旅行", [("tag", "博客"), ("tag", "旅行")]),
        ("晚上和张伟在外滩吃饭", [("zhname", "张伟"), ("place", "外滩")]),
        ("去杭州西湖边散步，住在海月花园", [("place", "杭州"), ("place", "西湖"), ("zhplace", "海月花园")]),
        ("工资卡是招商银行的", [("zhplace", "招商银行")]),
        ("迁到 Vue3，支持 5G", [("mixed", "Vue3"), ("mixed", "5G")]),
        ("用了 ＳＤＫ 和 ＡＰＩ", [("caps", "SDK"), ("caps", "API")]),  # full-width folded first
        ("在谷歌搜索控制台 Google Search Console (GSC) 提交", [("acronym", "GSC"), ("cap", "Google Search Console"),
                                                          ("expansion", "Google Search Console")]),
        ("开通了内容分发网络（CDN）", [("acronym", "CDN"), ("expansion", "内容分发网络")]),
        ("周末和王娟一起去", [("zhname", "王娟")]),  # 周末 is no name, 一起 is no part of one
    ]

    def check(self, table):
        for text, expected in table:
            found = [e for e in extracted(text) if e[0] not in ("phrase", "capstart")]  # candidates the graph weighs
            self.assertEqual(sorted(found), sorted(expected), text)

    def test_english_table(self):
        self.check(self.ENGLISH)

    def test_chinese_table(self):
        self.check(self.CHINESE)

    def test_chinese_phrases_are_cut_at_stop_characters(self):
        phrases = {s for k, s in extracted("订好了去京都的往返机票和酒店") if k == "phrase"}
        self.assertEqual(phrases, {"往返机票", "往返机", "返机票"})  # 京都 is a place; 2-character words are not
        self.assertFalse(any("的" in p or "了" in p for p in phrases))

    def test_traditional_names_and_places_are_found_as_written(self):
        found = [(m.kind, m.key, m.spelling) for m in ml.extract_entities("陳靜說她在臺北，下週回深圳")
                 if m.kind in ("zhname", "place")]
        self.assertIn(("zhname", "陈静", "陳靜"), found)
        self.assertIn(("place", "深圳", "深圳"), found)  # at the end of the run: nothing beyond it

    def test_a_name_that_continues_into_a_longer_one(self):
        binds = {"明轩", "娟娟"}.__contains__  # what the folder's frequencies would say

        def names(text):
            return [m.spelling for m in ml.extract_entities(text, binds) if m.kind == "zhname"]
        self.assertEqual(names("李明轩说了"), ["李明轩"])
        self.assertEqual(names("李明说了"), ["李明"])
        self.assertEqual(names("找王娟娟请假"), ["王娟娟"])
        self.assertEqual(names("王娟负责支付"), ["王娟"])

    def test_traditional_and_simplified_spellings_are_one_entity(self):
        self.assertEqual(ml.entity_key("zhname", "陳靜"), ml.entity_key("zhname", "陈静"))
        self.assertEqual(ml.entity_key("caps", "ＳＤＫ"), ml.entity_key("caps", "SDK"))

    def test_private_text_has_no_entities(self):
        self.assertEqual(extracted("<private>SecretProject API KEY-1234</private>"), [])

    def test_a_people_list_defines_names_of_two_to_four_cjk_characters(self):
        from memsuite.links.entities import defined_names
        text = ("- 张伟明：后端工程师\n* **李娜娜** (运维)\n1. 王芳（财务）\n- 张伟é：x\n- 欧阳明李娜：too long\n"
                "- 陈静 : 设计\n  司马光:\nnot 赵六：in a sentence\n- 钱七")
        self.assertEqual(defined_names([text]), {"张伟明", "李娜娜", "王芳", "陈静", "司马光"})

    def test_keys_ignore_case(self):
        self.assertEqual(ml.entity_key("name", "OpenClaw"), ml.entity_key("caps", "OPENCLAW"))
        self.assertEqual(ml.entity_key("tag", "#OpenClaw"), ml.entity_key("name", "OpenClaw"))
        self.assertEqual(ml.entity_key("tag", "Blog"), ml.entity_key("name", "blog"))
        self.assertEqual(ml.entity_key("code", "openclaw"), ml.entity_key("name", "OpenClaw"))


class GraphTest(TempMemory):
    files = {
        "MEMORY.md": "# Memory\n\nOpenClaw runs the memory skill. Uses the API.\n",
        "memory/2026-02-20.md": "# 2026-02-20\n\n## RSS\n`openclaw` now reads RSS配置 from the API.\n\n"
                                "## SEO\nSEO优化 and RSS配置 shipped together.\n",
        "memory/2026-02-21.md": "Kyoto trip planning with OPENCLAW.\n",
    }
    backend = None

    def graph(self):
        store = ms.MemoryStore(self.dir, backend=self.backend)
        self.addCleanup(store.close)
        store.sync()
        g = ml.LinkGraph(store)
        g.sync()
        return store, g

    def test_lookup_is_case_insensitive_and_counts_chunks(self):
        _, g = self.graph()
        for name in ("openclaw", "OpenClaw", "OPENCLAW"):
            e = g.find(name)
            self.assertEqual((e.name, e.kind, e.chunks, e.files), ("OpenClaw", "name", 3, 3), name)

    def test_unknown_name_suggests_the_closest(self):
        _, g = self.graph()
        with self.assertRaises(ms.StoreError) as ctx:
            g.find("OpenClow")
        self.assertIn("did you mean OpenClaw", str(ctx.exception))

    def test_counts_follow_add_edit_delete(self):
        store, g = self.graph()
        self.assertEqual(g.find("API").chunks, 2)
        self.write("memory/2026-02-22.md", "The API again, and OpenClaw.\n")
        store.sync()
        g.sync()
        self.assertEqual(g.find("API").chunks, 3)
        self.assertEqual(g.find("openclaw").files, 4)
        self.write("memory/2026-02-22.md", "Nothing to see.\n")
        store.sync()
        g.sync()
        self.assertEqual(g.find("API").chunks, 2)
        os.unlink(os.path.join(self.dir, "MEMORY.md"))
        store.sync()
        g.sync()
        self.assertEqual(g.find("OpenClaw").files, 2)
        with self.assertRaises(ms.StoreError):
            g.find("API")  # an acronym must recur in two files

    def test_neighbours_and_links(self):
        _, g = self.graph()
        names = [e.name for e, _ in g.neighbours(g.find("RSS配置"))]
        self.assertIn("SEO优化", names)
        self.assertIn("OpenClaw", names)
        links = {(a.name, b.name): w for a, b, w in g.strongest_links(20)}
        self.assertEqual(links.get(("API", "OpenClaw")) or links.get(("OpenClaw", "API")), 2)

    def test_related_chunks_share_entities(self):
        _, g = self.graph()
        related = g.related("memory/2026-02-20.md#1")
        self.assertEqual(related[0].id, "memory/2026-02-20.md:1-4")  # the chunk before, cited by its lines
        self.assertIn("RSS配置", related[0].shared)
        target = [c for c in g.store.chunks_of("memory/2026-02-20.md") if c.ordinal == 1][0]
        self.assertTrue(all(r.id != ms.cite(target.path, target.start_line, target.end_line) for r in related))
        by_file = g.related("memory/2026-02-20.md")
        self.assertTrue(by_file)
        self.assertTrue(all(r.path != "memory/2026-02-20.md" for r in by_file))

    def test_related_refuses_paths_outside(self):
        _, g = self.graph()
        for bad in ("../x.md", "/etc/passwd", "nope.md", "memory/2026-02-20.md#9"):
            with self.assertRaises(ms.StoreError):
                g.related(bad)

    def test_subgraph_is_small_and_connected_to_the_centre(self):
        _, g = self.graph()
        nodes, edges = g.subgraph(g.find("OpenClaw"), depth=1, top=5)
        self.assertLessEqual(len(nodes), 6)
        self.assertEqual(nodes[0].name, "OpenClaw")
        linked_to_centre = {b.key if a.key == "openclaw" else a.key for a, b, _ in edges
                            if "openclaw" in (a.key, b.key)}
        self.assertEqual(linked_to_centre, {n.key for n in nodes[1:]})  # depth 1: all are neighbours
        dot = ml.graph_dot(nodes, edges)
        self.assertTrue(dot.startswith("graph memory {") and dot.rstrip().endswith("}"))
        self.assertIn('"openclaw"', dot)
        mermaid = ml.graph_mermaid(nodes, edges)
        self.assertTrue(mermaid.startswith("graph LR"))
        self.assertEqual(len([l for l in mermaid.splitlines() if "---|" in l]), len(edges))


class JsonGraphTest(GraphTest):
    backend = "json"

    def test_links_file_is_written(self):
        self.graph()
        self.assertTrue(os.path.exists(os.path.join(self.dir, ".memory", "links.json")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".memory", "index.sqlite3")))


class TwoScriptsTest(TempMemory):
    """A place or a person written in characters in one note and in Latin letters in
    another is one entity (links/same.py): the lexicon's place, the name's pinyin."""
    files = {
        "MEMORY.md": "# Memory\n\n## People\n- 陈静: 大学室友，在成都工作\n",
        "memory/2026-03-01.md": "# 2026-03-01\n\n## 出差\n- 去成都见陈静，吃了火锅\n",
        "memory/2026-03-02.md": "# 2026-03-02\n\n## Trip\n- Day two in Chengdu: Chen Jing showed me the panda base\n",
        "memory/2026-03-03.md": "# 2026-03-03\n\n## Trip\n- Flew back from Chengdu; Chen Jing sent the photos\n",
        "memory/2026-03-04.md": "# 2026-03-04\n\n## Lunch\n- Lunch with Mia at the noodle bar\n",
    }

    def graph(self, backend=None):
        store = ms.MemoryStore(self.dir, backend=backend)
        self.addCleanup(store.close)
        store.sync()
        g = ml.LinkGraph(store)
        g.sync()
        return g

    def test_both_spellings_are_one_entity(self):
        for backend in (None, "json"):
            g = self.graph(backend)
            for place, name in (("Chengdu", "成都"), ("Chen Jing", "陈静")):
                self.assertEqual(g.find(place).key, g.find(name).key, (backend, place))
                self.assertEqual(len(g.appearances(g.find(place))), 4, place)
            keys = {e.key for e in g.table()}
            self.assertFalse({"chengdu", "chen jing"} & keys and {"成都", "陈静"} & keys, keys)

    def test_related_memories_cross_the_scripts(self):
        shared = {r.path: r.shared for r in self.graph().related("memory/2026-03-01.md#0", limit=5)}
        self.assertIn("memory/2026-03-02.md", shared)
        self.assertNotIn("memory/2026-03-04.md", shared)

    def test_a_name_seen_once_says_why_it_is_no_entity(self):
        with self.assertRaises(ms.StoreError) as ctx:
            self.graph().find("Mia")
        self.assertIn("is in 1 chunk of 1 file only", str(ctx.exception))

    def test_a_name_only_one_script_has_stays_its_own(self):
        g = self.graph()
        self.assertNotEqual(g.find("Chengdu").key, g.find("Chen Jing").key)


class LinkCliTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def link(self, *args):
        return run_script("link.sh", *args[:1], "--dir", self.dir, *args[1:])

    def test_build_summary_json(self):
        code, out, err = self.link("build", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["files"], 14)
        self.assertGreater(doc["entities"], 20)
        self.assertIn("OpenClaw", [e["name"] for e in doc["top_entities"][:3]])
        for kind in ("name", "code", "term", "path"):
            self.assertIn(kind, doc["by_kind"])

    def test_entity_lists_places_newest_first(self):
        code, out, err = self.link("entity", "openclaw", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["name"], "OpenClaw")
        dates = [a["date"] for a in doc["appears"] if a["date"]]
        self.assertEqual(dates, sorted(dates, reverse=True))
        self.assertEqual(doc["appears"][-1]["path"], "MEMORY.md")  # undated last
        code, out, _ = self.link("entity", "OpenClaw")
        self.assertIn("memory/2026-03-08.md:9-10", out)

    def test_unknown_entity_exits_1_with_suggestion(self):
        code, out, err = self.link("entity", "OpenClow")
        self.assertEqual(code, 1)
        self.assertIn("did you mean OpenClaw", err)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_related_by_id_and_by_file(self):
        code, out, err = self.link("related", "memory/2026-02-20.md#0", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertTrue(doc["results"])
        self.assertTrue(all(r["shared"] for r in doc["results"]))
        code, out, err = self.link("related", "../../etc/passwd")
        self.assertEqual(code, 1)

    def test_entities_and_graph_formats(self):
        code, out, _ = self.link("entities", "--kind", "term", "--json")
        terms = [e["name"] for e in json.loads(out)["entities"]]
        self.assertIn("RSS配置", terms)
        self.assertTrue(all(e["kind"] == "term" for e in json.loads(out)["entities"]))
        for fmt, start in (("dot", "graph memory {"), ("mermaid", "graph LR")):
            code, out, err = self.link("graph", "--entity", "OpenClaw", "--format", fmt)
            self.assertEqual(code, 0, err)
            self.assertTrue(out.startswith(start))
        code, out, _ = self.link("graph", "--format", "json")
        doc = json.loads(out)
        self.assertTrue(doc["nodes"] and doc["edges"])

    def test_related_accepts_the_citation_form(self):
        code, out, err = self.link("related", "memory/2026-02-20.md:9-13", "--json")
        self.assertEqual(code, 0, err)
        by_citation = json.loads(out)["results"]
        code, out, _ = self.link("related", "memory/2026-02-20.md#2", "--json")
        self.assertEqual(by_citation, json.loads(out)["results"])
        code, out, err = self.link("related", "memory/2026-02-20.md:9-3")
        self.assertEqual(code, 2)

    def test_graph_top_counts_the_centre(self):
        code, out, _ = self.link("graph", "--entity", "OpenClaw", "--top", "4", "--format", "json")
        self.assertEqual(len(json.loads(out)["nodes"]), 4)

    def test_usage_errors(self):
        code, out, err = run_script("link.sh", "--dir", self.dir, "bulid")
        self.assertEqual(code, 2)
        self.assertIn("unknown command 'bulid'", err)
        code, out, err = run_script("link.sh")
        self.assertEqual(code, 2)
        self.assertIn("a command is needed", err)
        for args in (["frobnicate"], ["entity"], ["entity", ""], ["entities", "--kind", "planet"],
                     ["graph", "--depth", "0"], ["related"]):
            code, out, err = run_script("link.sh", *args, "--dir", self.dir)
            self.assertEqual(code, 2, args)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_search_related_adds_linked_memories(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "RSS配置", "--related", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertIn("related", doc)
        hit_ids = {r["id"] for r in doc["results"]}
        for r in doc["related"]:
            self.assertNotIn(r["id"], hit_ids)
            self.assertIn(r["related_to"], hit_ids)
            self.assertTrue(r["shared"])


if __name__ == "__main__":
    unittest.main()
