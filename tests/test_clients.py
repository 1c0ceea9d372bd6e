"""Reading the agent clients' install state (memsuite/app/clients.py) from
made-up client files: Codex's hooks.json and config.toml (trust), Claude
Code's installed plugins and marketplaces; and what `search.sh status` and
`doctor` say of them."""
import json
import os
import stat
import subprocess
import sys
import time
import unittest

from helpers import PYTHON, ROOT, TempMemory, clean_env

from memsuite.app import clients

SEARCH = os.path.join(ROOT, "search.sh")
EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "Stop", "SessionEnd")


class HookTrustReaderTest(unittest.TestCase):
    def test_tables_inline_tables_and_both_string_kinds(self):
        text = ('model = "x"\n[hooks.state]\n\n'
                '[hooks.state."/h/.codex/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:aa"  # a comment\n\n'
                "[ hooks.state.'/h/a \"b\"/hooks.json:session_end:0:1' ]\ntrusted_hash='sha256:bb'\n"
                '[other]\ntrusted_hash = "sha256:not-a-hook"\n'
                '[hooks.state]\n"C:\\\\h\\\\hooks.json:pre_compact:1:0" = { enabled = true, trusted_hash = "sha256:cc" }\n')
        self.assertEqual(clients.hook_trust(text), {"/h/.codex/hooks.json:stop:0:0": "sha256:aa",
                                                    '/h/a "b"/hooks.json:session_end:0:1': "sha256:bb",
                                                    "C:\\h\\hooks.json:pre_compact:1:0": "sha256:cc"})

    def test_malformed_text_is_read_as_far_as_it_goes(self):
        for text in ('[hooks.state."unterminated]\ntrusted_hash = "x"\n', "\x00\xff[[[\n= = =\n",
                     '[hooks.state."k"]\ntrusted_hash = \n', '[hooks.state."k"]\ntrusted_hash = "bad \\q escape"\n'):
            trust = clients.hook_trust(text)
            self.assertIsInstance(trust, dict)
        self.assertEqual(clients.hook_trust('[hooks.state."k"]\ntrusted_hash = \n'), {})

    def test_event_names_as_codex_keys_them(self):
        self.assertEqual([clients.snake_case(e) for e in EVENTS],
                         ["session_start", "user_prompt_submit", "pre_compact", "stop", "session_end"])


class ClientFiles(TempMemory):
    """A HOME of its own, with the client files a test writes."""

    def setUp(self):
        super().setUp()
        self.home = os.path.join(self.tmp, "home")
        self.codex_dir = os.path.join(self.home, ".codex")
        os.makedirs(self.codex_dir)
        self.write("MEMORY.md", "# Memory\n- The deploy key lives in the vault.\n")
        self.path = os.environ.get("PATH", "")

    def run_suite(self, *args):
        p = subprocess.run([SEARCH] + list(args) + ["--dir", self.dir], capture_output=True, cwd=self.tmp,
                           env=clean_env(HOME=self.home, XDG_CACHE_HOME=os.path.join(self.tmp, "cache"),
                                         PATH=self.path), timeout=120)
        self.assertNotIn(b"Traceback", p.stderr)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def problems(self, ask_codex=False, cwd=None):
        """install_problems() in this process, with this test's HOME, PATH and folder."""
        from unittest import mock
        here = os.getcwd()
        env = {k: v for k, v in os.environ.items() if k not in ("CODEX_HOME", "CLAUDE_CONFIG_DIR")}
        env.update(HOME=self.home, PATH=self.path)
        with mock.patch.dict(os.environ, env, clear=True):
            os.chdir(cwd or self.tmp)
            try:
                return clients.install_problems(ask_codex)
            finally:
                os.chdir(here)

    def install_codex_hooks(self):
        with open(os.path.join(ROOT, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            text = f.read().replace("/path/to/memory-suite", ROOT).replace("/path/to/memory", self.dir)
        self.hooks_file = os.path.join(self.codex_dir, "hooks.json")
        with open(self.hooks_file, "w", encoding="utf-8") as f:
            f.write(text)
        hooks = json.loads(text)["hooks"]
        self.shipped = sum(len(g["hooks"]) for groups in hooks.values() for g in groups)  # hooks Codex counts
        return hooks

    def write_config(self, text):
        with open(os.path.join(self.codex_dir, "config.toml"), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write('model = "stub-model"\n\n' + text)

    def trust_all(self, hooks):
        self.write_config("".join('[hooks.state."%s:%s:0:0"]\ntrusted_hash = "sha256:%02d"\n\n'
                                  % (self.hooks_file, clients.snake_case(e), n) for n, e in enumerate(hooks)))


class CodexTrustTest(ClientFiles):
    def test_installed_but_never_trusted(self):
        self.install_codex_hooks()
        self.write_config("[model_providers.stub]\nname = \"x\"\n")
        code, out, _ = self.run_suite("status")
        self.assertEqual(code, 0)
        [line] = [l for l in out.splitlines() if "Codex" in l]
        self.assertIn("not trusted (%d of %d in %s)" % (self.shipped, self.shipped, self.hooks_file), line)
        self.assertIn("/hooks, then t", line)
        code, out, _ = self.run_suite("doctor")
        self.assertEqual(code, 1)
        self.assertIn("Codex hooks for this suite are not trusted", out)
        code, out, _ = self.run_suite("doctor", "--json")
        self.assertEqual(len(json.loads(out)["problems"]), 1)

    def test_trusted_hooks_say_nothing(self):
        self.trust_all(self.install_codex_hooks())
        code, out, _ = self.run_suite("doctor")
        self.assertEqual((code, out), (0, "no problems found\n"))

    def test_one_hook_left_untrusted_is_counted(self):
        hooks = self.install_codex_hooks()
        self.trust_all([e for e in hooks if e != "Stop"])
        [line] = self.problems()
        self.assertIn("not trusted (1 of %d" % self.shipped, line)

    def test_a_malformed_config_toml_is_no_traceback(self):
        self.install_codex_hooks()
        for text in ('[hooks.state."unterminated\ntrusted_hash = \n[[[\n', "\udcff\udcfe = \x00 [hooks"):
            self.write_config(text)
            [line] = self.problems()
            self.assertIn("Codex hooks for this suite are not trusted", line)
        code, out, _ = self.run_suite("status")  # run_suite checks stderr holds no traceback
        self.assertEqual(code, 0)
        self.assertIn("chunks:", out)
        self.assertIn("warning: Codex hooks for this suite are not trusted", out)

    def test_hooks_of_others_only_and_no_hooks_file(self):
        self.assertEqual(self.problems(), [])
        with open(os.path.join(self.codex_dir, "hooks.json"), "w") as f:
            json.dump({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}, f)
        self.assertEqual(self.problems(), [])

    def test_a_project_s_hooks_file_from_a_folder_inside_it(self):
        repo = os.path.join(self.tmp, "repo")
        os.makedirs(os.path.join(repo, ".git"))
        os.makedirs(os.path.join(repo, ".codex"))
        os.makedirs(os.path.join(repo, "src", "deep"))
        self.codex_dir = os.path.join(repo, ".codex")
        self.install_codex_hooks()
        [line] = self.problems(cwd=os.path.join(repo, "src", "deep"))
        self.assertIn("not trusted (%d of %d in %s)" % (self.shipped, self.shipped, self.hooks_file), line)

    def test_a_broken_hooks_json_holding_ours(self):
        self.install_codex_hooks()
        with open(self.hooks_file, "a") as f:
            f.write("}")
        [line] = self.problems()
        self.assertIn("Codex cannot read %s (not valid JSON)" % self.hooks_file, line)

    def fake_codex(self, answer):
        """A `codex` on the PATH whose app server gives `answer` to hooks/list."""
        folder = os.path.join(self.tmp, "bin")
        os.makedirs(folder)
        script = os.path.join(folder, "codex")
        with open(script, "w") as f:
            f.write("#!%s\nimport json, sys, time\nfor line in sys.stdin:\n    m = json.loads(line)\n"
                    "    if m.get('method') == 'hooks/list':\n        answer = %r\n"
                    "        if answer == 'hang':\n            time.sleep(60)\n"
                    "        print(json.dumps({'id': m['id'], 'result': {'data': [{'hooks': answer}]}}), flush=True)\n"
                    % (PYTHON, answer))
        os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
        self.path = folder + os.pathsep + self.path
        return folder

    def test_doctor_asks_codex_which_hooks_changed_since_trusted(self):
        hooks = self.install_codex_hooks()
        self.trust_all(hooks)
        self.fake_codex([{"key": "%s:%s:0:0" % (self.hooks_file, clients.snake_case(e)),
                          "trustStatus": "modified" if e == "Stop" else "trusted"} for e in hooks])
        os.utime(self.hooks_file, (1, 1))  # trusted after it was written: status does not ask
        self.assertEqual(self.problems(), [])
        code, out, _ = self.run_suite("doctor")  # doctor always asks
        self.assertEqual(code, 1)
        self.assertIn("changed since you trusted them (1 of %d" % self.shipped, out)
        os.utime(self.hooks_file, None)  # written after config.toml: status asks too
        os.utime(os.path.join(self.codex_dir, "config.toml"), (2, 2))
        [line] = self.problems()
        self.assertIn("Codex hooks for this suite changed since you trusted them (1 of %d" % self.shipped, line)

    def test_a_hung_codex_is_not_waited_for(self):
        folder = self.fake_codex("hang")
        old = os.environ["PATH"]
        os.environ["PATH"] = folder + os.pathsep + old
        self.addCleanup(os.environ.__setitem__, "PATH", old)
        started = time.time()
        self.assertIsNone(clients.ask_codex_trust(timeout=1))
        self.assertLess(time.time() - started, 30)


class ClaudeMarketplaceTest(ClientFiles):
    def install_plugin(self, market_path):
        folder = os.path.join(self.home, ".claude", "plugins")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "known_marketplaces.json"), "w") as f:
            json.dump({"memory-suite": {"source": {"source": "directory", "path": market_path},
                                        "installLocation": market_path}}, f)
        with open(os.path.join(folder, "installed_plugins.json"), "w") as f:
            json.dump({"version": 2, "plugins": {"memory-suite@memory-suite": [
                {"scope": "user", "installPath": os.path.join(folder, "cache", "memory-suite", "memory-suite", "1"),
                 "version": "1"}]}}, f)
        return folder

    def test_a_moved_checkout_names_the_command_that_fixes_it(self):
        gone = os.path.join(self.tmp, "old-checkout")
        self.install_plugin(gone)
        code, out, _ = self.run_suite("doctor")
        self.assertEqual(code, 1)
        [line] = out.splitlines()
        self.assertIn("Claude Code cannot load the plugin memory-suite@memory-suite", line)
        self.assertIn(gone, line)
        self.assertIn("`claude plugin marketplace add %s`" % ROOT, line)  # this checkout, where it is now

    def test_run_from_the_plugin_cache_the_fix_names_no_folder_of_it(self):
        import shutil
        folder = self.install_plugin(os.path.join(self.tmp, "gone"))
        cached = os.path.join(folder, "cache", "memory-suite", "memory-suite", "1")
        for name in ("search.sh", "memory_search.py", "memory_store.py", "memory_linker.py"):
            os.makedirs(cached, exist_ok=True)
            shutil.copy(os.path.join(ROOT, name), cached)
        for name in ("memsuite", ".claude-plugin"):
            shutil.copytree(os.path.join(ROOT, name), os.path.join(cached, name),
                            ignore=shutil.ignore_patterns("__pycache__"))
        p = subprocess.run([os.path.join(cached, "search.sh"), "doctor", "--dir", self.dir], capture_output=True,
                           env=clean_env(HOME=self.home, XDG_CACHE_HOME=os.path.join(self.tmp, "cache")), timeout=120)
        self.assertIn(b"run `claude plugin marketplace add /path/to/memory-suite`", p.stdout)

    def test_a_checkout_in_place_says_nothing(self):
        self.install_plugin(ROOT)
        self.assertEqual(self.run_suite("doctor")[:2], (0, "no problems found\n"))

    def test_malformed_client_files(self):
        folder = self.install_plugin(os.path.join(self.tmp, "gone"))
        for name, text in (("known_marketplaces.json", "[1, 2"), ("installed_plugins.json", '{"plugins": [1]}')):
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
            self.assertEqual(self.problems(), [])
        self.assertEqual(self.run_suite("doctor")[0], 0)



class DoctorTest(ClientFiles):
    def test_the_folder_s_problems_too_each_with_its_fix(self):
        self.write("memory/2026-05-01.md", "# Day\n<private>\nthe door code\n")
        self.write("memory/gbk.md", "测试中文内容，这是一个测试文件\n".encode("gb18030"))
        code, out, _ = self.run_suite("doctor")
        self.assertEqual(code, 1)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertIn("memory/2026-05-01.md: <private> at line 2 is never closed", out)
        self.assertIn("memory/gbk.md is not indexed", out)
        self.assertIn("iconv -f GB18030", out)
        code, out, _ = self.run_suite("doctor", "--json")
        self.assertEqual(len(json.loads(out)["problems"]), 2)

    def test_a_note_not_in_utf8_is_said_to_be_indexed_with_its_fix(self):
        self.write("memory/latin1.md", "- Lunch at the café\n".encode("cp1252"))
        self.write("memory/broken.md", "- 中文 ok \n".encode("utf-8") + b"\xff\n")
        out = self.run_suite("doctor")[1]
        self.assertIn("memory/latin1.md is indexed with", out)
        self.assertIn("iconv -f WINDOWS-1252", out)
        self.assertIn("memory/broken.md is indexed with", out)
        self.assertEqual(out.count("iconv"), 1, out)  # (UTF-8 with a bad byte: converting it would garble the rest)
        self.assertNotIn("not indexed", out)


if __name__ == "__main__":
    unittest.main()
