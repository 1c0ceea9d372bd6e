"""Nothing leaked: a secret written in a note never goes out on the suite's
own initiative (the SessionStart brief, prompt recall, entities, the page,
indexed transcripts), while search and get of the note show what the user
wrote and <private> blocks stay private as before."""
import contextlib
import io
import json
import os
import unittest

from helpers import TempMemory

import memory_linker
import memory_search

KEY = "sk-proj-Tq8ZkV3nR7wXy2LmP9aB4cD6eF"
PASSWORD = "Hunter2Redis!x"
DAY = "memory/2026-11-30.md"
NOTES = {
    "MEMORY.md": "# Long-term\n\n## Accounts\n- 新申请了 OpenAI key：%s\n"
                 "- Alice works on OpenClaw with Bob.\n<private>\n- bank PIN 4242 PRIVATE-MARK\n</private>\n" % KEY,
    DAY: "# 2026-11-30\n\n- 10:00 Redis 密码是 %s for the cache.\n- OpenAI key %s rotated with Alice.\n"
         "- OpenClaw deploy went fine with Bob.\n" % (PASSWORD, KEY),
}


def run(main, *argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


class SecretsStayHomeTest(TempMemory):
    files = NOTES

    def assert_clean(self, text, where):
        self.assertNotIn(KEY, text, where)
        self.assertNotIn(KEY[8:20].lower(), text.lower(), where)  # nor its tail, as an entity's key
        self.assertNotIn(PASSWORD, text, where)
        self.assertNotIn("PRIVATE-MARK", text, where)

    def test_brief_has_no_secret(self):
        from memsuite.app import brief
        text = brief.build(self.dir, 1500)[0]
        self.assertIn("OpenClaw", text)  # the brief still says what the notes say
        self.assertIn("[redacted]", text)
        self.assert_clean(text, "brief")

    def test_recall_has_no_secret(self):
        from memsuite.doors import hooks
        for prompt in ("what is my OpenAI key", "Redis 密码 for the cache", "OpenAI key rotated with Alice " + KEY):
            text = hooks.recall(self.dir, prompt, cut=0.0, floor=0.0)[0]
            self.assertTrue(text, prompt)
            self.assert_clean(text, prompt)

    def test_no_secret_is_an_entity(self):
        code, out, err = run(memory_linker.main, "--dir", self.dir, "entities", "--json")
        self.assertEqual(code, 0, err)
        names = [e["name"] for e in json.loads(out)["entities"]]
        self.assertIn("OpenClaw", names)
        self.assert_clean(json.dumps(names, ensure_ascii=False), "entities")
        self.assertFalse([n for n in names if "redacted" in n.lower()], names)

    def test_page_has_no_secret(self):
        path = os.path.join(self.tmp, "page.html")
        code, _, err = run(memory_linker.main, "--dir", self.dir, "graph", "--format", "html", "-o", path)
        self.assertEqual(code, 0, err)
        with open(path, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("OpenClaw", page)
        self.assert_clean(page, "page")

    def test_indexed_transcript_has_no_secret(self):
        sessions = os.path.join(self.tmp, "sessions")
        os.makedirs(sessions)
        with open(os.path.join(sessions, "s1.jsonl"), "w", encoding="utf-8") as f:
            for role, text in (("user", "Redis 密码是 %s and the db is mysql://root:%s@db:3306/app" % (PASSWORD, PASSWORD)),
                               ("assistant", "Noted the Redis settings.")):
                f.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")
        code, out, err = run(memory_search.main, "--dir", self.dir, "Redis 密码", "--sessions", sessions,
                             "--source", "sessions", "--json")
        self.assertEqual(code, 0, err)
        self.assertIn("sessions/s1.jsonl", out)
        self.assert_clean(out, "transcript")

    def test_search_and_get_show_what_the_user_wrote(self):
        code, out, err = run(memory_search.main, "--dir", self.dir, "OpenAI key", "--json")
        self.assertEqual(code, 0, err)
        self.assertIn(KEY, out)
        code, out, err = run(memory_search.main, "--dir", self.dir, "get", "MEMORY.md")
        self.assertEqual(code, 0, err)
        self.assertIn(KEY, out)
        self.assertNotIn("PRIVATE-MARK", out)  # <private> unchanged: never shown


if __name__ == "__main__":
    unittest.main()


MAX_QUERY_CHARS = 2000  # the documented maximum (memsuite.text.tokenizer.MAX_QUERY_CHARS)


class BoundedQueryTest(TempMemory):
    """Every per-query cost is bounded: a query longer than the documented
    maximum is refused in one line by the CLI and MCP alike, and up to it no
    word or number of words makes the work grow without bound (the timing is
    bench/long_query.py's)."""

    def setUp(self):
        super().setUp()
        self.copy_examples()

    def test_the_documented_maximum(self):
        from memsuite.text import tokenizer
        self.assertEqual(getattr(tokenizer, "MAX_QUERY_CHARS", None), MAX_QUERY_CHARS)

    def test_an_overlong_query_is_refused_in_one_line(self):
        code, out, err = run(memory_search.main, "--dir", self.dir, "a" * (MAX_QUERY_CHARS + 1))
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("query too long", err)
        self.assertNotIn("Traceback", err)
        code, out, err = run(memory_search.main, "--dir", self.dir, "OpenClaw " + "a" * (MAX_QUERY_CHARS - 9))
        self.assertEqual(code, 0, err)

    def test_a_query_in_another_encoding_is_refused_in_one_line(self):
        """Bytes that are not UTF-8 reach argv as lone surrogates: no note can
        match them, so saying "No memories match" would mislead."""
        code, out, err = run(memory_search.main, "--dir", self.dir, b"caf\xe9".decode("utf-8", "surrogateescape"))
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("not valid UTF-8", err)
        self.assertNotIn("No memories match", out)

    def test_mcp_refuses_it_the_same_way(self):
        from test_agents import McpClient
        client = McpClient(self, self.dir)
        client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "test", "version": "1"}})
        for tool in ("memory_search", "memory_context"):
            result = client.call(tool, query="a" * (MAX_QUERY_CHARS + 1))
            self.assertTrue(result["isError"], result)
            self.assertIn("query too long", result["content"][0]["text"])
        self.assertFalse(client.call("memory_search", query="a" * MAX_QUERY_CHARS)["isError"])

    def asked(self, query):
        """The terms analysing query asks the index for, and the analysed query."""
        import memory_store
        from memsuite.search.ranking import analyse_query
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.sync()
        asked = []
        real = store.doc_freqs
        store.doc_freqs = lambda terms: asked.extend(terms) or real(terms)
        return asked, analyse_query(store, query)

    def test_one_long_word_is_not_split_every_way(self):
        asked, _ = self.asked("a" * 2000)  # was: every split of it, 4,000 pieces of up to 2,000 letters
        self.assertLess(len(asked), 50, len(asked))
        self.assertLess(sum(map(len, asked)), 5000)

    def test_many_unknown_words_are_matched_by_resemblance_a_few_at_a_time(self):
        import random
        import string
        rand = random.Random(5)
        words = " ".join("".join(rand.choice(string.ascii_lowercase) for _ in range(4)) for _ in range(400))
        _, q = self.asked(words[:2000])
        self.assertLessEqual(len(q.unknown), 16)  # each is a pass over every candidate's words


class SubcommandAfterOptionsTest(TempMemory):
    """A subcommand is found wherever the global options put it, for every
    wrapper: `search.sh --dir DIR hook prompt` runs the hook, not a search
    for the word "hook"."""

    def setUp(self):
        super().setUp()
        self.copy_examples()

    def wrapper(self, script, *argv, stdin=b""):
        import subprocess
        from helpers import ROOT, clean_env
        return subprocess.run([os.path.join(ROOT, script)] + list(argv), input=stdin, capture_output=True,
                              env=clean_env(), cwd=self.tmp, timeout=120)

    def test_hook_after_dir(self):
        event = json.dumps({"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": self.tmp,
                            "prompt": "How is the blog's RSS feed configured?"}).encode()
        first = self.wrapper("search.sh", "hook", "--dir", self.dir, stdin=event)
        for n, argv in enumerate((("--dir", self.dir, "hook"), ("--dir=" + self.dir, "hook", "prompt"),
                                  ("--dir", self.dir, "hook", "prompt"))):
            p = self.wrapper("search.sh", *argv, stdin=event.replace(b'"s1"', b'"s%d"' % (n + 2)))
            self.assertEqual(p.returncode, 0, p.stderr)
            out = json.loads(p.stdout.decode())
            self.assertEqual(out["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit", argv)
            self.assertEqual(out, json.loads(first.stdout.decode()), argv)

    def test_every_wrapper_finds_its_subcommand_after_options(self):
        cases = [("search.sh", ("--dir", self.dir, "--json", "status"), '"chunks"'),
                 ("search.sh", ("--dir", self.dir, "get", "MEMORY.md", "--json"), '"total_lines"'),
                 ("search.sh", ("--json", "--dir", self.dir, "context", "OpenClaw"), '"budget"'),
                 ("link.sh", ("--dir", self.dir, "--json", "entities"), '"entities"'),
                 ("link.sh", ("--json", "--dir", self.dir, "entity", "OpenClaw"), '"name"'),
                 ("reindex.sh", ("--dir", self.dir, "--json", "--check"), '"stale"')]
        for script, argv, expect in cases:
            p = self.wrapper(script, *argv)
            self.assertEqual(p.returncode, 0, (script, argv, p.stderr))
            self.assertIn(expect, p.stdout.decode(), (script, argv))

    def test_a_word_after_double_dash_is_still_a_query(self):
        p = self.wrapper("search.sh", "--dir", self.dir, "--json", "--", "hook")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout.decode())["query"], "hook")


class WatchFreshnessTest(TempMemory):
    """With watch running, a note another program wrote a moment ago is found
    by the next search: the search looks at the watcher's recent files and
    the folders' times itself.  The watcher looks only every 30 s here, so
    only the search's own look can find it."""
    files = {"memory/2026-11-29.md": "# 2026-11-29\n- 09:00 bought bread\n", "MEMORY.md": "# Facts\nhello\n"}

    def start_watch(self):
        import subprocess
        import time
        from helpers import ROOT, clean_env
        proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", self.dir, "watch", "--quiet",
                                 "--interval", "30"], env=clean_env(), stderr=subprocess.PIPE,
                                stdout=subprocess.DEVNULL)
        self.addCleanup(lambda: proc.poll() is not None or (proc.kill(), proc.wait()))
        beat = os.path.join(self.dir, ".memory", "watch.heartbeat")
        deadline = time.time() + 30
        while not os.path.exists(beat) and time.time() < deadline:
            time.sleep(0.05)
        self.assertTrue(os.path.exists(beat))

    def find(self, word):
        code, out, err = run(memory_search.main, "--dir", self.dir, word, "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["checked"]["by"], "watch")
        self.assertEqual(doc["checked"]["recent_files_seconds_ago"], 0.0)
        return [h["path"] for h in doc["results"]]

    def test_a_note_appended_to_a_recent_file_is_found_at_once(self):
        self.start_watch()
        with open(os.path.join(self.dir, "memory", "2026-11-29.md"), "a", encoding="utf-8") as f:
            f.write("- 10:00 湘湖骑行 with Anna\n")
        self.assertEqual(self.find("湘湖骑行"), ["memory/2026-11-29.md"])

    def test_a_new_file_is_found_at_once(self):
        self.start_watch()
        with open(os.path.join(self.dir, "memory", "2026-11-30.md"), "w", encoding="utf-8") as f:
            f.write("# 2026-11-30\n- cycling round Xianghu lake\n")
        self.assertEqual(self.find("Xianghu"), ["memory/2026-11-30.md"])


class AddPlacementTest(TempMemory):
    """A note without --heading goes where a reader of the file expects it,
    and --json says which heading it landed under."""
    DAY = "memory/2026-11-30.md"

    def add(self, *argv, stdin=None):
        import sys
        if stdin is not None:
            real, sys.stdin = sys.stdin, io.StringIO(stdin)
            self.addCleanup(setattr, sys, "stdin", real)
        code, out, err = run(memory_search.main, "--dir", self.dir, "add", "--json", *argv)
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def lines(self, rel):
        with open(os.path.join(self.dir, *rel.split("/")), encoding="utf-8") as f:
            return f.read().split("\n")

    def under(self, rel, line):
        """The last heading above a 1-based line."""
        return next(l for l in reversed(self.lines(rel)[:line]) if l.startswith("#"))

    def test_a_plain_note_after_a_named_section_of_a_days_log_is_not_in_it(self):
        import re
        self.write(self.DAY, "# 2026-11-30\n\n- 09:00 breakfast\n")
        doc = self.add("妈妈生日 12月3日", "--heading", "家人", "--file", self.DAY)
        self.assertEqual(doc["heading"], "家人")
        for argv, stdin in ((("-", "--file", self.DAY), "从标准输入来的一条\n"), (("retry me", "--file", self.DAY), None)):
            doc = self.add(*argv, stdin=stdin)
            self.assertRegex(doc["heading"], r"^\d\d:\d\d$")
            self.assertNotEqual(self.under(self.DAY, doc["start_line"]), "## 家人")
            self.assertTrue(re.match(r"^## \d\d:\d\d$", self.under(self.DAY, doc["start_line"])))
        text = "\n".join(self.lines(self.DAY))
        self.assertEqual(text.count("## 家人"), 1)
        self.assertIn("## 家人\n- 妈妈生日 12月3日\n", text)
        self.assertEqual(len(re.findall(r"^## \d\d:\d\d$", text, re.M)), 1)  # the second note joins the first

    def test_a_plain_note_in_a_days_log_with_no_section_goes_at_the_end(self):
        self.write(self.DAY, "# 2026-11-30\n\n- 09:00 breakfast\n")
        doc = self.add("lunch with Anna", "--file", self.DAY)
        self.assertEqual(doc["heading"], "2026-11-30")
        self.assertEqual(self.lines(self.DAY), ["# 2026-11-30", "", "- 09:00 breakfast", "- lunch with Anna", ""])

    def test_memory_md_never_puts_a_note_in_or_after_a_private_section(self):
        before = "# Long-term\n\n## Travel\n- window seat on trains\n\n## Accounts\n<private>\n- PIN 4242\n</private>\n"
        self.write("MEMORY.md", before)
        doc = self.add("Prefers aisle seats", "--file", "MEMORY.md")
        self.assertEqual(doc["heading"], "Notes")
        lines = self.lines("MEMORY.md")
        self.assertEqual("\n".join(lines[:9]) + "\n", before)  # every earlier line as it was
        self.assertEqual(lines[9:], ["", "## Notes", "- Prefers aisle seats", ""])
        doc = self.add("Allergic to peanuts", "--file", "MEMORY.md")
        self.assertEqual((doc["heading"], doc["start_line"]), ("Notes", 13))  # the same section, its end

    def test_a_note_after_a_closed_private_block_under_no_section(self):
        self.write("MEMORY.md", "# Long-term\n- likes tea\n<private>\n- PIN 4242\n</private>\n")
        doc = self.add("Prefers aisle seats", "--file", "MEMORY.md")
        self.assertEqual(doc["heading"], "Notes")
        self.assertEqual(self.lines("MEMORY.md")[5:], ["", "## Notes", "- Prefers aisle seats", ""])

    def test_a_new_daily_log_says_its_date(self):
        doc = self.add("first note of the day")
        self.assertEqual(doc["heading"], __import__("time").strftime("%Y-%m-%d"))


class SmallItemsTest(TempMemory):
    """Issue 28 item 7, one test each."""

    def search(self, *argv, env=None):
        return run(memory_search.main, "--dir", self.dir, *argv)

    def test_a_gbk_note_is_named_with_the_command_that_converts_it(self):
        import subprocess
        self.write("memory/2026-11-01.md", "# 2026-11-01\n- 湘湖骑行 with Anna\n")
        gbk = self.write("memory/2026-11-02.md", "# 2026-11-02\n- 今天去西湖边散步，买了龙井茶叶。\n".encode("gbk"))
        code, out, err = self.search("status", "--json")
        self.assertEqual(code, 0, err)
        problem = {p["path"]: p for p in json.loads(out)["problem_files"]}["memory/2026-11-02.md"]
        self.assertEqual(problem["issue"], "gbk")
        self.assertIn("GBK", problem["fix"])
        code, out, err = self.search("龙井")
        self.assertIn("memory/2026-11-02.md (gbk)", err)  # the search says a file was skipped
        self.assertIn("skipped", err)
        code, out, err = self.search("湘湖", "--json")
        self.assertEqual(json.loads(out)["skipped"], [{"path": "memory/2026-11-02.md", "issue": "gbk"}])
        command = problem["fix"].split("convert it: ", 1)[1]
        subprocess.run(command, shell=True, check=True, cwd=self.tmp)  # the command given converts it
        with open(gbk, encoding="utf-8") as f:
            self.assertEqual(f.read(), "# 2026-11-02\n- 今天去西湖边散步，买了龙井茶叶。\n")
        code, out, err = self.search("龙井", "--json")
        self.assertEqual([h["path"] for h in json.loads(out)["results"]], ["memory/2026-11-02.md"])
        self.assertNotIn("skipped", err)

    def test_a_latin1_note_is_still_read_not_taken_for_gbk(self):
        self.write("memory/2026-11-03.md", "# 2026-11-03\n- naïve résumé at the café, über straße\n".encode("latin-1"))
        code, out, err = self.search("status", "--json")
        issues = {p["path"]: p["issue"] for p in json.loads(out)["problem_files"]}
        self.assertEqual(issues["memory/2026-11-03.md"], "invalid-utf8")  # read with replacement characters
        code, out, err = self.search("straße", "--json")
        self.assertNotIn("skipped", out)

    def test_get_of_a_file_ending_inside_an_unclosed_private_block(self):
        self.write("MEMORY.md", "# Facts\n- a\n<private>\n- secret\n")
        code, out, err = self.search("get", "MEMORY.md", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual((doc["total_lines"], doc["end_line"], len(doc["lines"])), (4, 4, 4))
        self.assertNotIn("secret", out)

    def test_status_times_what_the_wrappers_run(self):
        import stat
        import subprocess
        import sys
        from helpers import ROOT, clean_env
        shim = os.path.join(self.tmp, "python3-shim")
        with open(shim, "w") as f:
            f.write("#!/bin/sh\nsleep 0.4\nexec %s \"$@\"\n" % sys.executable)
        os.chmod(shim, os.stat(shim).st_mode | stat.S_IEXEC)
        p = subprocess.run([os.path.join(ROOT, "search.sh"), "--dir", self.dir, "status", "--json"],
                           capture_output=True, env=clean_env(MEMORY_PYTHON=shim), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        python = json.loads(p.stdout)["python"]
        self.assertGreaterEqual(python["startup_ms"], 400)  # the shim's delay, which every call pays
        self.assertEqual(python["timed"], shim)

    def test_embed_auto_says_when_it_falls_back(self):
        from unittest import mock
        self.write("MEMORY.md", "# Facts\n- hello world\n")
        report = {"requested": "auto", "provider": None, "model": None, "dim": None,
                  "skipped": {"sentence-transformers": "not importable", "ollama": "connection refused"}}
        with mock.patch("memsuite.search.embeddings.make_embedder", return_value=(None, report)):
            code, out, err = self.search("hello", "--embed", "auto")
        self.assertEqual(code, 0, err)
        self.assertIn("embeddings off", err)
        self.assertIn("ollama: connection refused", err)

    def test_embed_choices_hide_test_hash_which_still_works(self):
        code, out, err = self.search("--help")
        line = next(l for l in out.splitlines() if "--embed" in l)
        self.assertNotIn("test-hash", out)
        self.assertIn("auto", line)
        code, out, err = self.search("hello", "--embed", "nonsense")
        self.assertEqual(code, 2)
        self.assertNotIn("test-hash", err)
        self.write("MEMORY.md", "# Facts\n- hello world\n")
        code, out, err = self.search("hello", "--embed", "test-hash", "--json")
        self.assertEqual(code, 0, err)
        self.assertIn("semantic", json.loads(out)["channels"])

    def test_short_option_with_its_value_attached(self):
        self.copy_examples()
        code, out, err = self.search("RSS", "-n1", "--json")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(json.loads(out)["results"]), 1)
        code, out, err = run(memory_linker.main, "--dir", self.dir, "related", "memory/2026-02-20.md#0", "-n2",
                             "--json")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(json.loads(out)["results"]), 2)

    def test_context_with_a_tiny_budget_says_why(self):
        self.write("MEMORY.md", "# Facts\n\n## Trips\n- " + "Kyoto trip with the whole family in spring " * 12 + "\n")
        code, out, err = self.search("context", "Kyoto", "--budget", "10")
        self.assertEqual(code, 2)
        self.assertIn("at least 50", err)
        self.assertEqual(len(err.strip().splitlines()), 1)
        code, out, err = self.search("context", "Kyoto", "--budget", "50", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertNotIn("Kyoto trip", doc["text"])  # no line of the passage fits: only headings
        self.assertRegex(doc["note"], r"try --budget \d+")
        need = int(doc["note"].rsplit(" ", 1)[1])
        code, out, err = self.search("context", "Kyoto", "--budget", str(need), "--json")
        self.assertIn("Kyoto trip", json.loads(out)["text"])  # the budget it names holds the passage's line

    def test_source_sessions_without_a_sessions_folder_says_so(self):
        self.copy_examples()
        code, out, err = self.search("RSS", "--source", "sessions", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["results"], [])
        self.assertIn("--sessions", doc["note"])
        self.assertIn("no sessions folder", err)

    def test_related_lists_one_window_of_a_section(self):
        self.copy_examples()
        for target in ("memory/2026-02-19.md#0", "memory/2026-02-20.md#0", "MEMORY.md#1"):
            code, out, err = run(memory_linker.main, "--dir", self.dir, "related", target, "--json", "-n", "10")
            self.assertEqual(code, 0, err)
            found = [(r["path"], r["start_line"], r["end_line"]) for r in json.loads(out)["results"]]
            for i, (p, a, b) in enumerate(found):
                for q, c, d in found[i + 1:]:
                    self.assertFalse(p == q and a <= d and c <= b, (target, found))


class EntityFragmentTest(TempMemory):
    """Pieces of words are no entities (线上变 of 线上变更, 类小工具, 二周,
    上线前, `1MB`, `memory/`), in a folder where each recurs."""
    DAYS = [
        "- 10:00 线上变更评审，张伟明负责数据库迁移。\n- 写了几个类小工具来处理日志。\n- 上线前要检查 Redis 配置，缓存上限设成 `1MB`。",
        "- 线上变更之前先在预发环境验证，张伟明确认了回滚方案。\n- 每二周和李娜开一次周会。\n- 笔记都放在 `memory/` 目录下。",
        "- 线上变更窗口改到周四晚上。\n- 上线前跑一遍回归测试，张伟明说没问题。\n- 做了一个类小工具统计接口耗时。",
        "- 张伟明和李娜娜讨论了线上变更的审批流程。\n- 上线前的检查清单更新了。\n- 每二周做一次备份演练，文件上限 `1MB`。",
        "- 和张伟明对齐了下周的线上变更计划。\n- `memory/` 里的笔记整理了一遍。\n- 李娜提醒上线前通知客服。",
        "- 张伟明请假，线上变更延期。\n- 上线前又发现一个配置问题。",
        "- 张伟明回来了，完成线上变更。\n- 这类小工具以后统一放到 tools 仓库。",
    ]

    def test_fragments_are_no_entities(self):
        for i, text in enumerate(self.DAYS):
            self.write("memory/2026-11-%02d.md" % (10 + i), "# 2026-11-%02d\n\n%s\n" % (10 + i, text))
        code, out, err = run(memory_linker.main, "--dir", self.dir, "entities", "--top", "200", "--json")
        self.assertEqual(code, 0, err)
        names = {e["name"] for e in json.loads(out)["entities"]}
        self.assertIn("张伟明", names)  # real entities stay
        self.assertIn("小工具", names)
        for fragment in ("线上变", "类小工具", "二周", "上线前", "1MB", "memory/"):
            self.assertNotIn(fragment, names)


class DefinedNamesTest(TempMemory):
    """Issue 27: a People list names 张伟 and 张伟明 with their roles, 张伟
    appears in a dozen daily logs and 张伟明 alone in many more: the linker
    keeps them apart (李娜 and 李娜娜 too), and link.sh entity 张伟明 works."""

    def setUp(self):
        super().setUp()
        import random
        rand = random.Random(3)
        zw = ["张伟让我周五前交季度报告。", "和张伟过了一遍预算。", "张伟说下周出差去上海。", "张伟批准了请假申请。",
              "跟张伟汇报了项目进度。", "张伟在周会上表扬了团队。"]
        zwm = ["张伟明修好了支付接口的超时问题。", "和张伟明一起排查数据库慢查询。", "张伟明负责这次线上发布。",
               "张伟明提交了缓存改造的代码。", "张伟明说回滚脚本已经准备好。", "找张伟明确认接口文档。"]
        later = ["继续写文档", "要早起", "开评审会", "去医院复查", "说明一下需求"]
        for d in range(1, 25):
            lines = [rand.choice(zw)] if d <= 12 else []
            if d % 2 == 0 or d > 12:
                lines.append(rand.choice(zwm))
            if d % 5 == 0:
                lines.append(["李娜安排了测试计划。", "李娜娜排了下周的值班表。"][d % 2])
            lines += ["午饭吃了牛肉面。", "明天%s。" % later[d % 5]]
            self.write("memory/2026-10-%02d.md" % d, "# 2026-10-%02d\n\n" % d + "".join("- %s\n" % l for l in lines))
        self.write("MEMORY.md", "# 长期记忆\n\n## People\n- 张伟：直属领导，技术总监，手机 138-0013-8000\n"
                                "- 张伟明：后端工程师，负责支付和数据库\n- 李娜：测试负责人\n- 李娜娜：运维，排值班表\n")

    def entity(self, name):
        code, out, err = run(memory_linker.main, "--dir", self.dir, "entity", name, "--json", "-n", "50")
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def test_zhang_weiming_is_not_zhang_wei(self):
        longer, shorter = self.entity("张伟明"), self.entity("张伟")
        self.assertEqual(longer["name"], "张伟明")
        self.assertGreaterEqual(longer["files"], 15)
        self.assertLessEqual(shorter["files"], 13)  # the People list and the dozen logs that name 张伟
        for a in shorter["appears"]:
            with open(os.path.join(self.dir, *a["path"].split("/")), encoding="utf-8") as f:
                text = f.read().replace("张伟明", "")
            self.assertIn("张伟", text, a["path"])  # every file it lists names 张伟 himself

    def test_li_na_and_li_nana_stay_apart(self):
        self.assertEqual(self.entity("李娜娜")["name"], "李娜娜")
        self.assertEqual(self.entity("李娜")["name"], "李娜")
        code, out, err = run(memory_linker.main, "--dir", self.dir, "entities", "--top", "200", "--json")
        names = {e["name"] for e in json.loads(out)["entities"]}
        self.assertFalse({"李娜安", "张伟批", "张伟汇"} & names, names)
