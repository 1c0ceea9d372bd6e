import json
import os
import unittest

from helpers import TempMemory, clean_env, run_script


class CliTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def search(self, *args, **kw):
        return run_script("search.sh", "--dir", self.dir, *args, **kw)

    def assertOneLineError(self, code, out, err, expected_code):
        self.assertEqual(code, expected_code, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)

    def test_ctrl_c_is_said_in_one_line(self):
        """Interrupted (a long reindex stopped with Ctrl-C), a command says so
        and exits 130, as a shell expects, with no traceback."""
        import contextlib
        import io
        from memsuite.base.options import Command, run_cli

        def stopped(args):
            raise KeyboardInterrupt
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = run_cli(["reindex"], {"reindex": Command([], "reindex", "", stopped, False)}, "search")
        self.assertOneLineError(code, "", err.getvalue(), 130)
        self.assertIn("interrupted", err.getvalue())

    def test_json_contract(self):
        code, out, err = self.search("博客RSS配置", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(set(doc), {"query", "backend", "stale", "channels", "results"})
        self.assertEqual(doc["channels"], ["keyword", "vector"])  # no embedding provider by default
        self.assertEqual(doc["query"], "博客RSS配置")
        self.assertEqual(doc["backend"], "sqlite-fts5")
        self.assertIs(doc["stale"], False)
        self.assertTrue(doc["results"])
        for r in doc["results"]:
            self.assertEqual(set(r), {"id", "path", "start_line", "end_line", "heading", "score",
                                      "snippet", "scores", "source"})
            self.assertEqual(r["source"], "memory")
            self.assertEqual(set(r["scores"]), {"keyword", "vector"})
            self.assertEqual(r["id"], "%s:%d-%d" % (r["path"], r["start_line"], r["end_line"]))
            self.assertLessEqual(r["start_line"], r["end_line"])
            self.assertTrue(0 <= r["score"] <= 1)
            self.assertNotIn("\\", r["path"])
        self.assertEqual(doc["results"][0]["path"], "memory/2026-02-20.md")

    def test_no_hits_is_success_with_empty_results(self):
        code, out, err = self.search("zxqvbnm", "--json")
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out)["results"], [])
        code, out, _ = self.search("zxqvbnm")
        self.assertEqual(code, 0)
        self.assertIn("No memories match", out)

    def test_readable_output_has_citations_and_marks(self):
        code, out, err = self.search("十三香")
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"memory/2026-02-15\.md:1-\d+  2026-02-15 > 十三香小龙虾做法")
        self.assertIn("«十三香»", out)
        self.assertNotIn("\033[", out)  # no colour when not a terminal

    def test_words_are_joined_and_quotes_spaces_and_shell_syntax_pass_through(self):
        code, out, _ = self.search("京都", "机票", "--json")
        self.assertEqual(json.loads(out)["query"], "京都 机票")
        for q in ('say "hi" $(touch pwned) `id`; ls', "it's a 'test'", "a  b", "$HOME"):
            code, out, err = self.search(q, "--json")
            self.assertEqual(code, 0, err)
            self.assertEqual(json.loads(out)["query"], " ".join([q]))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "pwned")))

    def test_wrapper_works_from_any_directory_and_through_a_symlink(self):
        link = os.path.join(self.tmp, "s.sh")
        os.symlink(os.path.join(os.path.dirname(os.path.dirname(__file__)), "search.sh"), link)
        import subprocess
        proc = subprocess.run([link, "--dir", self.dir, "OpenClaw", "--json"], cwd="/",
                              env=clean_env(), capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(json.loads(proc.stdout)["results"])

    def test_memory_dir_environment_variable(self):
        code, out, err = run_script("search.sh", "十三香", "--json", env=clean_env(MEMORY_DIR=self.dir))
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["results"][0]["path"], "memory/2026-02-15.md")

    def test_usage_errors_exit_2_with_one_line(self):
        for args in (["--bogus", "x"], ["--limit", "0", "x"], ["--limit", "abc", "x"],
                     ["--min-score", "2", "x"], ["--since", "2026-02-30", "x"],
                     ["--until", "yesterday", "x"], ["--since", "2026-1-011", "x"], ["--dir", "", "x"],
                     ["--mode", "magic", "x"], [""], ["   "],
                     ["--since", "2026-03-01", "--until", "2026-02-01", "x"]):
            code, out, err = self.search(*args)
            self.assertOneLineError(code, out, err, 2)

    def test_json_errors_also_print_an_error_object(self):
        code, out, err = self.search("--limit", "x", "q", "--json")
        self.assertEqual(code, 2)
        self.assertIn("error", json.loads(out))

    def test_missing_folder_is_a_runtime_error(self):
        code, out, err = run_script("search.sh", "--dir", os.path.join(self.tmp, "nope"), "x", "--json")
        self.assertOneLineError(code, out, err, 1)
        self.assertIn("not found", json.loads(out)["error"])

    def test_subcommand_names_can_be_searched_after_double_dash(self):
        self.write("memory/2026-04-01.md", "Project status: the blog is live.\n")
        code, out, err = self.search("--json", "--", "status")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual(doc["query"], "status")
        self.assertEqual(doc["results"][0]["path"], "memory/2026-04-01.md")
        code, out, err = self.search("--", "status")
        self.assertIn("memory/2026-04-01.md:1-1", out)

    def test_status_and_sync(self):
        code, out, err = self.search("status", "--json")
        self.assertEqual(code, 0, err)
        info = json.loads(out)
        self.assertEqual(info["files"], 14)
        self.assertEqual(info["backend"], "sqlite-fts5")
        self.assertTrue(info["fts5"])
        self.assertEqual(info["stale_files"], [])
        code, out, _ = self.search("status")
        self.assertIn("chunks:", out)
        self.write("memory/2026-04-02.md", "new note\n")
        code, out, _ = run_script("search.sh", "sync", "--dir", self.dir, "--json")
        self.assertEqual(json.loads(out)["added"], ["memory/2026-04-02.md"])

    def test_get_prints_lines_and_accepts_citations(self):
        code, out, err = self.search("get", "memory/2026-02-15.md", "--from", "4", "--lines", "2")
        self.assertEqual(code, 0, err)
        self.assertEqual(out.splitlines(), ["     4  周末做了十三香小龙虾，记下步骤，下次照着做：",
                                            "     5  1. 小龙虾刷洗干净，剪掉虾枪，去虾线。"])
        code, out, _ = self.search("get", "memory/2026-02-15.md:4-5", "--plain")
        self.assertEqual(out.splitlines()[0], "周末做了十三香小龙虾，记下步骤，下次照着做：")
        code, out, _ = self.search("get", "memory/2026-02-15.md#0", "--json")
        doc = json.loads(out)
        self.assertEqual((doc["start_line"], doc["end_line"]), (1, 6))

    def test_a_daily_note_may_be_named_without_its_folder(self):
        """get, timeline and link.sh related read 2026-02-15.md as memory/2026-02-15.md;
        a file of that name at the folder's top is the one it names."""
        whole = self.search("get", "memory/2026-02-15.md:4-5")[1]
        self.assertEqual(self.search("get", "2026-02-15.md:4-5")[1], whole)
        code, out, err = self.search("timeline", "2026-02-15.md:4")
        self.assertEqual(code, 0, err)
        self.assertIn("memory/2026-02-15.md", out)
        code, out, err = run_script("link.sh", "--dir", self.dir, "related", "2026-02-20.md#1")
        self.assertEqual(code, 0, err)
        with open(os.path.join(self.dir, "2026-02-15.md"), "w", encoding="utf-8") as f:
            f.write("# top\n\nthe folder's own\n")
        self.assertEqual(self.search("get", "2026-02-15.md:3", "--plain")[1], "the folder's own\n")

    def test_get_of_an_empty_file_gives_no_line(self):
        self.write("memory/2026-01-01.md", "")
        code, out, err = self.search("get", "memory/2026-01-01.md", "--json")
        self.assertEqual(code, 0, err)
        doc = json.loads(out)
        self.assertEqual((doc["total_lines"], doc["lines"]), (0, []))
        code, out, err = self.search("get", "memory/2026-01-01.md")
        self.assertEqual((code, out), (0, ""))
        self.assertIn("is empty", err)

    def test_get_rejects_malformed_ranges_as_usage_errors(self):
        for bad in ("memory/2026-02-19.md:5-3", "memory/2026-02-19.md:abc", "MEMORY.md:3-",
                    "MEMORY.md:0-2", "MEMORY.md#x"):
            code, out, err = self.search("get", bad)
            self.assertOneLineError(code, out, err, 2)

    def test_empty_folder_says_what_to_do(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        code, out, err = run_script("search.sh", "--dir", empty, "anything")
        self.assertEqual(code, 0)
        self.assertIn("nothing is indexed", err)
        code, out, err = run_script("search.sh", "--dir", os.path.join(self.dir, "MEMORY.md"), "x")
        self.assertOneLineError(code, out, err, 1)
        self.assertIn("not a folder", err)

    def test_bad_backend_in_the_environment_is_a_usage_error(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "x", env=clean_env(MEMORY_BACKEND="foo"))
        self.assertOneLineError(code, out, err, 2)

    def test_option_errors_name_the_option(self):
        code, out, err = self.search("get", "MEMORY.md", "--lines", "0")
        self.assertOneLineError(code, out, err, 2)
        self.assertIn("--lines", err)
        self.assertNotIn("put -- before", err)
        code, out, err = run_script("reindex.sh", "--dir", self.dir, "--chek")
        self.assertTrue(err.startswith("reindex: error:"), err)

    def test_get_refuses_paths_outside_the_folder(self):
        secret = os.path.join(self.tmp, "secret.md")
        with open(secret, "w") as f:
            f.write("top secret\n")
        os.symlink(secret, os.path.join(self.dir, "escape.md"))
        for bad in ("../secret.md", secret, "memory/../../secret.md", "escape.md", "/etc/passwd",
                    "memory/../../../etc/passwd", "..\\secret.md", "nope.md"):
            code, out, err = self.search("get", bad)
            self.assertOneLineError(code, out, err, 1)
            self.assertNotIn("top secret", out)

    def test_reindex_and_check(self):
        code, out, err = run_script("reindex.sh", "--dir", self.dir)
        self.assertEqual(code, 0, err)
        self.assertIn("rebuilt: 14 files", out)
        code, out, _ = run_script("reindex.sh", "--dir", self.dir, "--check")
        self.assertIn("up to date", out)
        self.write("memory/2026-04-03.md", "stale note\n")
        code, out, _ = run_script("reindex.sh", "--dir", self.dir, "--check", "--json")
        self.assertEqual(json.loads(out)["changed"], ["memory/2026-04-03.md"])

    def test_json_backend_from_the_environment(self):
        code, out, err = run_script("search.sh", "--dir", self.dir, "十三香", "--json",
                                    env=clean_env(MEMORY_BACKEND="json"))
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["backend"], "json")
        self.assertFalse(os.path.exists(os.path.join(self.dir, ".memory", "index.sqlite3")))

    def test_help_exits_zero(self):
        for args in (["--help"], ["get", "--help"], ["status", "--help"]):
            code, out, _ = self.search(*args)
            self.assertEqual(code, 0)
            self.assertIn("usage:", out)


if __name__ == "__main__":
    unittest.main()
