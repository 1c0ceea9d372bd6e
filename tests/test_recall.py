"""Recall that fits an agent's budget: scores that can be cut on, whole hits,
ids that resolve, compact hits, timelines, context packs, sorting, watch."""
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from helpers import ROOT, ExamplesStore, TempMemory, clean_env, run_script
import memory_search as search_mod
import memory_store as ms

CUT = 0.4  # the cut-off the README and --help document


class ScoresTest(ExamplesStore):

    def test_queries_about_absent_topics_score_under_the_cut(self):
        for query in ("火星基地", "量子计算机芯片", "比特币挖矿收益", "quantum computing lecture",
                      "knee replacement surgery", "submarine tour in Hawaii", "离婚财产分割"):
            top = self.search(query, min_score=0)
            self.assertTrue(all(h.score < CUT for h in top), (query, [(h.id, h.score) for h in top]))

    def test_a_deleted_note_no_longer_answers(self):
        self.assertGreaterEqual(self.search("花生过敏")[0].score, CUT)
        for rel in ("MEMORY.md", "memory/2026-02-15.md"):  # the notes about the allergy go
            with open(os.path.join(self.dir, rel), encoding="utf-8") as f:
                text = f.read()
            self.write(rel, "\n".join(l for l in text.split("\n") if "花生" not in l) + "\n")
        self.store.sync()
        self.assertTrue(all(h.score < CUT for h in self.search("花生过敏", min_score=0)))

    def test_real_questions_score_over_the_cut(self):
        for query in ("博客RSS配置", "十三香小龙虾", "京都 机票", "configure the RSS feed", "KX-4471"):
            self.assertGreaterEqual(self.search(query)[0].score, CUT, query)

    def test_a_hit_sharing_only_single_characters_scores_low(self):
        self.write("chars.md", "# 杂记\n火锅很好吃，星期天去了基本款的地铁站。\n基地在城北。\n")
        self.store.sync()
        for h in self.search("火星基地", min_score=0):
            shares_a_word = any(b in h.text for b in ("火星", "星基", "基地"))
            if not shares_a_word:
                self.assertLess(h.score, 0.2, h)

    def test_default_floor_hides_noise_and_min_score_zero_shows_it(self):
        default = self.search("RSS feed hugo theme", limit=20)
        everything = self.search("RSS feed hugo theme", limit=20, min_score=0)
        self.assertLessEqual(len(default), len(everything))
        floor = max(ms.DEFAULT_PARAMS.score_floor, ms.DEFAULT_PARAMS.relative_floor * everything[0].score)
        self.assertEqual([h.id for h in default], [h.id for h in everything if h.score >= floor])
        self.assertTrue(all(h.score >= 0.05 for h in default))


class WholeHitsTest(TempMemory):
    files = {"memory/2026-03-09.md": "# 2026-03-09 搬家\n- 周六搬家，找了货拉拉。\n- 冰箱和洗衣机先送到新家。\n"
                                      "- 旧房子的钥匙周日还给房东。\n- 网络要重新办理宽带。\n- 水电燃气过户。\n"
                                      "- 搬家一共花了 1200 元。\n"}

    def test_a_sections_tail_is_not_a_separate_hit(self):
        """A 7-line section is chunked as lines 1-6 and 5-7; a hit on it is 1-7, never 1-6 plus 7-7."""
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        self.assertEqual([(c.start_line, c.end_line) for c in store.chunks_of("memory/2026-03-09.md")],
                         [(1, 6), (5, 7)])
        for query in ("搬家 货拉拉 冰箱", "搬家一共花了多少钱", "宽带 燃气 1200"):
            hits = search_mod.search(store, query, limit=5, min_score=0)
            self.assertEqual([(h.start_line, h.end_line) for h in hits], [(1, 7)], query)

    def test_every_hit_id_gets_exactly_its_lines(self):
        self.copy_examples()
        queries = ["博客RSS配置", "OpenClaw", "京都", "RSS", "hugo theme", "GSC", "Feedly duplicate", "的"]
        for q in queries:
            code, out, err = run_script("search.sh", "--dir", self.dir, q, "--json", "--limit", "10")
            for hit in json.loads(out)["results"]:
                code, got, err = run_script("search.sh", "--dir", self.dir, "get", hit["id"], "--json")
                got = json.loads(got)
                self.assertEqual((got["path"], got["start_line"], got["end_line"]),
                                 (hit["path"], hit["start_line"], hit["end_line"]), (q, hit["id"]))


@unittest.skipUnless(os.path.isdir(os.path.join(ROOT, "..", "shared", "eval-data", "locomo")),
                     "../shared/eval-data is not here")
class EvalDataIdsTest(unittest.TestCase):
    def test_every_hit_of_the_eval_data_resolves_to_its_lines(self):
        """Each id of each question's hits, as `get` reads it, names the hit's lines."""
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import quality
        import tempfile
        checked = 0
        for name in ("locomo", "zh"):
            questions = quality.load_questions(quality.DEFAULT_DATA, name)
            with tempfile.TemporaryDirectory() as tmp:
                for root, qs in quality.corpus_roots(quality.DEFAULT_DATA, name, questions).items():
                    copy = quality.copy_corpus(root, tmp)
                    store = ms.MemoryStore(copy, index_dir=os.path.join(copy, ".memory"))
                    store.sync()
                    for q in qs:
                        for h in search_mod.search(store, q["query"] or "x", limit=5):
                            path, first, last = ms.parse_reference(h.id)
                            lines = ms.read_memory_lines(copy, path)[first - 1:last]
                            self.assertEqual((path, first, last), (h.path, h.start_line, h.end_line))
                            self.assertEqual("\n".join(lines), h.text)
                            checked += 1
                    store.close()
        self.assertGreater(checked, 3000)


class CompactAndSortTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def test_compact_is_one_short_line_per_hit(self):
        code, out, _ = run_script("search.sh", "--dir", self.dir, "RSS 配置", "--compact")
        lines = out.strip().split("\n")
        code, full, _ = run_script("search.sh", "--dir", self.dir, "RSS 配置", "--json")
        hits = json.loads(full)["results"]
        self.assertEqual(len(lines), len(hits))
        for line, hit in zip(lines, hits):
            self.assertTrue(line.startswith(hit["id"] + " "), line)
            self.assertLessEqual(search_mod.estimate_tokens(line), 25 + search_mod.estimate_tokens(hit["id"]))
        code, out, _ = run_script("search.sh", "--dir", self.dir, "RSS 配置", "--compact", "--json")
        compact = json.loads(out)["results"]
        self.assertEqual([set(r) for r in compact], [{"id", "date", "score", "gist"}] * len(hits))
        self.assertLess(len(out), len(full) / 2)

    def test_sort_by_date_puts_the_newest_first(self):
        code, out, _ = run_script("search.sh", "--dir", self.dir, "RSS", "--sort", "date", "--json")
        hits = json.loads(out)["results"]
        dates = [h["id"] for h in hits]
        self.assertGreater(len(dates), 2)
        dated = [ms.file_date(h["path"]) for h in hits]
        known = [d for d in dated if d]
        self.assertEqual(known, sorted(known, reverse=True))
        self.assertEqual(dated, known + [None] * (len(dated) - len(known)))  # undated last


class TimelineTest(TempMemory):
    files = {
        "memory/2026-03-01.md": "# 2026-03-01\n## 早上\n买了机票。\n## 晚上\n订了酒店。\n",
        "memory/2026-03-02.md": "# 2026-03-02\n## 出发\n去机场，航班延误一小时。\n",
        "memory/2026-03-04.md": "# 2026-03-04\n## 到达\n入住酒店，很安静。\n## 晚饭\n吃了拉面。\n",
        "MEMORY.md": "# Facts\nundated facts\n",
    }

    def timeline(self, *args):
        code, out, err = run_script("search.sh", "--dir", self.dir, "timeline", *args, "--json")
        self.assertEqual(code, 0, err)
        return json.loads(out)["entries"]

    def test_the_memories_around_a_citation_oldest_first(self):
        entries = self.timeline("memory/2026-03-02.md:2-3", "--before", "1", "--after", "1")
        self.assertEqual([e["id"] for e in entries],
                         ["memory/2026-03-01.md:4-5", "memory/2026-03-02.md:1-3", "memory/2026-03-04.md:1-3"])
        self.assertEqual([e["anchor"] for e in entries], [False, True, False])
        for e in entries:
            lines = ms.read_memory_lines(self.dir, e["path"])
            self.assertTrue(e["gist"])
            self.assertEqual(ms.parse_reference(e["id"]), (e["path"], e["start_line"], e["end_line"]))
            self.assertLessEqual(e["end_line"], len(lines))

    def test_a_date_anchors_its_day_or_the_days_around_it(self):
        day = self.timeline("2026-03-01", "--before", "0", "--after", "0")
        self.assertEqual({e["path"] for e in day}, {"memory/2026-03-01.md"})
        self.assertTrue(all(e["anchor"] for e in day))
        gap = self.timeline("2026-03-03", "--before", "1", "--after", "1")
        self.assertEqual([e["path"] for e in gap], ["memory/2026-03-02.md", "memory/2026-03-04.md"])

    def test_bad_anchors_are_one_line_errors(self):
        for bad, code in (("MEMORY.md:1-2", 1), ("memory/2026-03-01.md", 2), ("2026-13-01", 2),
                          ("../x.md:1", 1)):
            got, out, err = run_script("search.sh", "--dir", self.dir, "timeline", bad)
            self.assertEqual(got, code, (bad, err))
            self.assertEqual(len(err.strip().split("\n")), 1, err)


class ContextPackTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def test_the_pack_fits_its_budget_in_whole_lines(self):
        for budget in (60, 200, 1500):
            code, text, err = run_script("search.sh", "--dir", self.dir, "context", "RSS feed 配置", "--budget",
                                         str(budget))
            self.assertEqual(code, 0, err)
            self.assertLessEqual(search_mod.estimate_tokens(text), budget)
            code, out, err = run_script("search.sh", "--dir", self.dir, "context", "RSS feed 配置", "--budget",
                                        str(budget), "--json")
            doc = json.loads(out)
            for e in doc["entries"]:
                lines = ms.read_memory_lines(self.dir, e["path"])
                self.assertEqual(e["text"], "\n".join(lines[e["start_line"] - 1:e["end_line"]]))
                self.assertIn("[%s]" % e["id"], text)
            ids = [e["id"] for e in doc["entries"]]
            self.assertEqual(len(ids), len(set(ids)))
        self.assertGreater(len(doc["entries"]), 1)

    def test_tokens_are_counted_cjk_aware(self):
        self.assertEqual(search_mod.estimate_tokens("十三香小龙虾"), 6)
        self.assertEqual(search_mod.estimate_tokens("abcdefgh"), 2)
        self.assertEqual(search_mod.estimate_tokens("RSS配置"), 3)


class PackCutTest(TempMemory):
    files = {"memory/2026-11-03.md": "# 2026-11-03\n\n## Office\n- The Hangzhou office lease is signed for two years.\n",
             "memory/2026-11-04.md": "# 2026-11-04\n\n## Work\n- Budget for the Hangzhou office fit-out approved after "
                                     "a long review of the three quotes the contractors sent in October.\n"}

    def test_no_passage_is_cut_to_its_headings(self):
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        for budget in range(20, 120):
            for e in search_mod.context_pack(store, "Hangzhou office", budget=budget)[1]:
                last = e.text.split("\n")[-1]
                self.assertTrue(last.strip() and not last.startswith("#"), (budget, e.id, e.text))


class WatchTest(TempMemory):
    files = {"memory/2026-01-01.md": "# 2026-01-01\nold note about kyoto\n", "MEMORY.md": "# Facts\nhello\n"}

    def start_watch(self, interval="0.3"):
        env = clean_env()
        proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", self.dir, "watch", "--interval", interval],
                                env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.addCleanup(lambda: proc.poll() is not None or proc.kill())
        beat = os.path.join(self.dir, ".memory", "watch.heartbeat")
        deadline = time.time() + 20
        while not os.path.exists(beat) and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(beat))
        return proc, beat

    def find(self, word):
        code, out, err = run_script("search.sh", "--dir", self.dir, word, "--json")
        return [h["path"] for h in json.loads(out)["results"]]

    def test_a_new_note_is_found_and_the_watcher_stops_cleanly(self):
        proc, beat = self.start_watch()
        self.write("memory/2026-01-02.md", "# 2026-01-02\nnew note about osaka\n")
        deadline = time.time() + 10
        while not self.find("osaka") and time.time() < deadline:
            time.sleep(0.2)
        self.assertEqual(self.find("osaka"), ["memory/2026-01-02.md"])
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
        self.assertEqual(proc.returncode, 0, err)
        self.assertIn("watching", err)  # the search itself may have indexed the note before the watcher looked
        self.assertFalse(os.path.exists(beat))
        conn = __import__("sqlite3").connect(os.path.join(self.dir, ".memory", "index.sqlite3"))
        self.assertEqual(conn.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        conn.close()

    def test_searches_trust_a_live_watcher_and_scan_when_it_is_gone(self):
        old = os.path.join(self.dir, "memory", "2026-01-01.md")
        os.utime(old, ns=(0, 10 ** 18 // 1000))  # dated long ago, so not a recent file
        proc, beat = self.start_watch(interval="1")
        # an old file (not among the ones checked every second) changes behind the watcher's back
        path = self.write("memory/2026-01-01.md", "# 2026-01-01\nold note about nagoya\n")
        os.utime(path, ns=(0, 10 ** 18 // 1000 + 5))
        self.assertEqual(self.find("nagoya"), [])  # the search trusted the watcher: no scan of its own
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
        self.assertEqual(self.find("nagoya"), ["memory/2026-01-01.md"])  # no watcher: the search scans

    def test_files_checked_every_second_are_few_when_the_whole_folder_is_new(self):
        now = time.time_ns()
        found = [ms.SourceFile("note%03d.md" % i, "", 1, 0) for i in range(300)]  # old top-level notes
        found += [ms.SourceFile("memory/%05d.md" % i, "", 1, now - i) for i in range(1000)]
        found.append(ms.SourceFile("MEMORY.md", "", 1, 0))  # old, but edited at any time: always checked
        hot = search_mod._hot_files(found)
        self.assertEqual(len(hot), search_mod.HOT_LIMIT + 1)
        self.assertEqual(hot[:2] + hot[-1:], ["memory/00000.md", "memory/00001.md", "MEMORY.md"])
        self.assertEqual(search_mod._hot_files(found[:300]), [])

    def test_quiet_prints_nothing_per_sync(self):
        env = clean_env()
        proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", self.dir, "watch", "--quiet",
                                 "--interval", "0.2"], env=env, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: proc.poll() is not None or proc.kill())
        beat = os.path.join(self.dir, ".memory", "watch.heartbeat")
        deadline = time.time() + 30
        while not os.path.exists(beat) and time.time() < deadline:
            time.sleep(0.05)
        self.write("MEMORY.md", "# Facts\nchanged, and longer\n")
        store = ms.MemoryStore(self.dir)  # reads the index as the watcher left it: no sync of its own
        self.addCleanup(store.close)
        size = os.path.getsize(os.path.join(self.dir, "MEMORY.md"))
        deadline = time.time() + 30
        while store.known_files().get("MEMORY.md", (None,))[0] != size and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(store.known_files()["MEMORY.md"][0], size, "the watcher never synced the change")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        self.assertEqual((proc.returncode, err), (0, ""))


class MessagesForNewUsersTest(TempMemory):
    def test_a_path_filter_matching_no_file_says_so(self):
        self.copy_examples()
        code, out, err = run_script("search.sh", "--dir", self.dir, "RSS", "--path", "notes/*")
        self.assertEqual(code, 0)
        self.assertIn("no memory file matches --path 'notes/*'", err)

    def test_help_texts(self):
        _, out, _ = run_script("search.sh", "--help")
        for needed in ("MEMORY_PYTHON", "--plain", "timeline", "context", "watch", "0.4"):
            self.assertIn(needed, out)
        _, out, _ = run_script("search.sh", "get", "--help")
        self.assertIn("--plain", out)
        self.assertIn("--json", out)
        _, out, _ = run_script("link.sh", "related", "--help")
        self.assertIn("file.md:9-13", out)
        _, out, _ = run_script("reindex.sh", "--help")
        self.assertIn("examples:", out)
        self.assertLessEqual(max(len(l) for l in out.split("\n")), 100)

    def test_singular_and_plural(self):
        self.write("one.md", "# One\nsingle note\n")
        _, out, _ = run_script("link.sh", "--dir", self.dir, "build")
        self.assertIn("Linked 1 file, 1 chunk:", out)
        _, out, _ = run_script("search.sh", "--dir", self.dir, "sync")
        self.assertIn("1 chunk\n", out)

    def test_link_build_on_an_empty_folder_gives_a_hint(self):
        _, out, _ = run_script("link.sh", "--dir", self.dir, "build")
        self.assertIn("point --dir or MEMORY_DIR", out)


if __name__ == "__main__":
    unittest.main()
