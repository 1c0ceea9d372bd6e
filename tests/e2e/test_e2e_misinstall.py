"""The misinstalls the clients keep quiet about, with the real clients: a
Claude Code plugin whose checkout moved (the plugin no longer loads, no hook
runs) or with no memory folder set, and Codex hooks not trusted or changed
since (Codex skips them).
`search.sh doctor` names each with its fix, and the fix works."""
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from clients import ROOT, ClientCase, briefs, notes, tool, wanted
from memsuite.files.sources import NO_MEMORY_FOLDER

CLAUDE = tool("cc", "node_modules", ".bin", "claude")
CODEX = tool("codex", "node_modules", ".bin", "codex")
CLAUDE_HOOKS = ("SessionStart", "UserPromptSubmit", "SessionEnd")  # what a `claude -p` turn runs


@unittest.skipUnless(wanted("claude") and CLAUDE, "MEMORY_E2E=1 and Claude Code under MEMORY_E2E_PREFIX/cc needed")
class ClaudeMovedCheckoutTest(ClientCase):
    client = "claude-moved"
    stub_script = "anthropic_stub.py"
    notes_script = "make_notes_small.sh"

    @classmethod
    def prepare(cls):
        cls.set_up_claude()
        checkout, cls.moved = os.path.join(cls.world, "checkout"), os.path.join(cls.world, "moved")
        shutil.copytree(ROOT, checkout, ignore=shutil.ignore_patterns(".git", ".memory", "__pycache__", "tests"))
        cls.claude("plugin", "marketplace", "add", checkout)
        cls.claude("plugin", "install", "memory-suite@memory-suite")
        os.rename(checkout, cls.moved)
        cls.listed_moved = cls.claude("plugin", "list").stdout.decode("utf-8", "replace")
        cls.turn_moved = cls.turn()
        cls.doctor = cls.run_client([os.path.join(cls.moved, "search.sh"), "doctor", "--dir", cls.mem],
                                    check=False)[0]
        fix = re.search(r"`(claude plugin marketplace add [^`]+)`", cls.doctor.stdout.decode())
        cls.fix = fix.group(1) if fix else None
        if cls.fix:
            cls.claude(*cls.fix.split()[1:])
        cls.listed_fixed = cls.claude("plugin", "list").stdout.decode("utf-8", "replace")
        cls.turn_fixed = cls.turn()
        cls.doctor_fixed = cls.run_client([os.path.join(cls.moved, "search.sh"), "doctor", "--dir", cls.mem],
                                          check=False)[0]
        cls.told, cls.turn_no_dir = cls.turn_without_memory_dir()

    @classmethod
    def turn_without_memory_dir(cls):
        """A turn with MEMORY_DIR gone from the settings and no notes in the
        project: (what `claude -p` showed the user, the requests)."""
        path = os.path.join(cls.home, ".claude", "settings.json")
        with open(path) as f:
            settings = json.load(f)  # the plugin's enablement stays
        del settings["env"]["MEMORY_DIR"]
        with open(path, "w") as f:
            json.dump(settings, f)
        m = cls.stub.mark()
        shown = cls.claude("-p", "--output-format", "stream-json", "--verbose",
                           "Where did I get the bike derailleur fixed?")
        return shown.stdout.decode("utf-8", "replace") + shown.stderr.decode("utf-8", "replace"), cls.stub.bodies(m)

    def logged_for_each_hook(self, line, seconds=5.0):
        """The user's cache's hooks.log once every hook of the turn logged line
        (the resident answers SessionEnd before it runs), or as it is after seconds."""
        path, logged = os.path.join(self.home, ".cache", "memory-suite", "hooks.log"), ""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                with open(path, encoding="utf-8") as f:
                    logged = f.read()
            except OSError:
                pass
            if all("%s: %s" % (event, line) in logged for event in CLAUDE_HOOKS):
                break
            time.sleep(0.1)
        return logged

    @classmethod
    def claude(cls, *args):
        return cls.run_client([CLAUDE] + list(args))[0]

    @classmethod
    def turn(cls):
        m = cls.stub.mark()
        cls.claude("-p", "Where did I get the bike derailleur fixed?")
        return cls.stub.bodies(m)

    def test_a_moved_checkout_loads_no_plugin_and_no_brief(self):
        self.assertIn("cache-miss", self.listed_moved)
        self.assertFalse(any(briefs(b) for b in self.turn_moved))

    def test_doctor_names_the_fix_and_the_fix_works(self):
        self.assertEqual(self.doctor.returncode, 1)
        self.assertEqual(self.fix, "claude plugin marketplace add %s" % self.moved, self.doctor.stdout)
        self.assertIn("enabled", self.listed_fixed)
        self.assertNotIn("failed to load", self.listed_fixed)
        self.assertTrue(any(briefs(b) for b in self.turn_fixed))
        self.assertEqual(self.doctor_fixed.stdout, b"no problems found\n")

    def test_without_memory_dir_the_user_is_told_and_nothing_is_written(self):
        """No MEMORY_DIR and no notes in the project: the session's start shows
        the user the documented line (a status line, not context), every hook
        logs it in the user's cache, and no index appears beside the plugin."""
        shown = [json.loads(l) for l in self.told.splitlines() if l.startswith("{")]
        said = [json.loads(e["output"]).get("systemMessage") for e in shown
                if e.get("subtype") == "hook_response" and e.get("hook_event") == "SessionStart"]
        self.assertEqual(said, ["memory-suite: " + NO_MEMORY_FOLDER], self.told[-2000:])
        self.assertTrue(self.turn_no_dir, "the turn reached the model")
        self.assertFalse(any(notes(b) for b in self.turn_no_dir))
        logged = self.logged_for_each_hook(NO_MEMORY_FOLDER)
        for event in CLAUDE_HOOKS:
            self.assertIn("%s: %s" % (event, NO_MEMORY_FOLDER), logged)
        for folder in (self.moved, os.path.join(self.home, ".claude")):
            made = [d for d, _, _ in os.walk(folder) if os.path.basename(d) == ".memory"]
            self.assertEqual(made, [], "an index beside the plugin")
        cache = os.path.join(self.home, ".cache", "memory-suite")  # nor one in the cache, for the plugin's folder
        self.assertEqual([n for n in os.listdir(cache) if re.fullmatch(r"[0-9a-f]{16}", n)], [])


@unittest.skipUnless(wanted("codex") and CODEX, "MEMORY_E2E=1 and Codex under MEMORY_E2E_PREFIX/codex needed")
class CodexUntrustedHooksTest(ClientCase):
    client = "codex-trust"
    stub_script = "openai_stub.py"
    notes_script = "make_notes_small.sh"

    @classmethod
    def prepare(cls):
        cls.codex_home = cls.set_up_codex(CODEX)
        cls.config = os.path.join(cls.codex_home, "config.toml")
        cls.hooks_file = os.path.join(cls.codex_home, "hooks.json")
        cls.untrusted = cls.suite("status"), cls.suite("doctor")
        cls.trust_as_codex_would()
        cls.trusted = cls.suite("doctor")
        m = cls.stub.mark()
        cls.run_client([CODEX, "exec", "Where did I get the bike derailleur fixed?"])
        cls.trusted_turn = cls.stub.bodies(m)
        with open(cls.hooks_file, encoding="utf-8") as f:
            hooks = f.read()
        with open(cls.hooks_file, "w", encoding="utf-8") as f:  # an edit: Codex no longer trusts that hook
            f.write(hooks.replace('"timeout": 30', '"timeout": 31'))
        cls.edited = cls.suite("status"), cls.suite("doctor")

    @classmethod
    def suite(cls, command):
        return cls.run_client([os.path.join(ROOT, "search.sh"), command, "--dir", cls.mem], check=False)[0]

    @classmethod
    def hooks_list(cls):
        """Codex's own hooks/list, through its app server."""
        requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"clientInfo": {"name": "t", "version": "1"}}},
                    {"jsonrpc": "2.0", "method": "initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [cls.proj]}}]
        p = subprocess.Popen([CODEX, "app-server"], cwd=cls.proj, env=cls.env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            p.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
            p.stdin.flush()
            for line in p.stdout:
                reply = json.loads(line)
                if reply.get("id") == 2:
                    return [h for e in reply["result"]["data"] for h in e["hooks"]]
        finally:
            p.kill()
            p.wait()
            p.stdin.close()
            p.stdout.close()

    @classmethod
    def trust_as_codex_would(cls):
        """The tables the TUI's "Trust all" writes: each hook's key and its current hash."""
        with open(cls.config, "a") as f:
            for h in cls.hooks_list():
                f.write('\n[hooks.state."%s"]\ntrusted_hash = "%s"\n' % (h["key"], h["currentHash"]))

    @staticmethod
    def shipped_hooks():
        """How many hooks the suite ships for Codex: the count the messages name."""
        with open(os.path.join(ROOT, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            return sum(len(entries) for entries in json.load(f)["hooks"].values())

    def test_untrusted_hooks_get_the_documented_line(self):
        status, doctor = self.untrusted
        n = self.shipped_hooks()
        line = ("Codex hooks for this suite are not trusted (%d of %d in %s), so Codex skips them: run `codex`, then "
                "answer \"Hooks need review\" with \"Trust all and continue\" (or type /hooks, then t)"
                % (n, n, self.hooks_file))
        self.assertIn("warning: " + line, status.stdout.decode())
        self.assertEqual(doctor.stdout.decode(), "problem: %s\n" % line)
        self.assertEqual(doctor.returncode, 1)

    def test_trusted_hooks_run_and_doctor_is_quiet(self):
        self.assertEqual(self.trusted.stdout, b"no problems found\n")
        self.assertTrue(any(briefs(b) for b in self.trusted_turn))

    def test_an_edited_hook_is_found_by_asking_codex(self):
        status, doctor = self.edited
        line = "changed since you trusted them (1 of %d in %s)" % (self.shipped_hooks(), self.hooks_file)
        self.assertIn(line, doctor.stdout.decode())
        self.assertIn(line, status.stdout.decode())  # hooks.json is newer than config.toml: status asks too

    @classmethod
    def stop_client(cls):
        subprocess.run([CODEX, "app-server", "daemon", "stop"], env=cls.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
