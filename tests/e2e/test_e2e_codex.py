"""Codex CLI (npm @openai/codex) with integrations/codex/hooks.json installed as
the docs say (the memory folder on the command line), against the stub of the
Responses API: `codex exec` with --dangerously-bypass-hook-trust (CI has no one
to trust the hooks), and, when tmux is here, the TUI: the trust step, a fact
and /compact."""
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from clients import (BADGE, PIANO, SECRET_PROMPT, ClientCase, briefs, bullets, notes, recalls, report, tool,
                     wanted)

CODEX = tool("codex", "node_modules", ".bin", "codex")
BYPASS = "--dangerously-bypass-hook-trust"
TMUX = shutil.which("tmux")
TOPIC_TURN = "明天要去出入境管理局取护照。"
THIN_PROMPT = "Which number do I need to show them?"
FORK_PROMPT = "What's my badge number now? Who is my landlord and when is rent due? What is the Wi-Fi called?"
CODEX_MARKERS = ["environment_context", "<cwd>", "current_date", "Summary", "summary", "handoff",
                 "Another language model", "permissions", "AGENTS.md", "<"]


@unittest.skipUnless(wanted("codex") and CODEX, "MEMORY_E2E=1 and Codex under MEMORY_E2E_PREFIX/codex needed")
class CodexTest(ClientCase):
    client = "codex"
    stub_script = "openai_stub.py"
    notes_script = "make_notes_small.sh"
    socket = None

    @classmethod
    def prepare(cls):
        codex_home = cls.set_up_codex(CODEX)
        m = cls.stub.mark()
        cls.untrusted = cls.codex("exec", "Where did I get the bike derailleur fixed?")
        cls.untrusted_bodies = cls.stub.bodies(m)
        m = cls.stub.mark()
        cls.codex("exec", BYPASS, "我的护照取件号是多少？ Where did I get the bike derailleur fixed?")
        cls.first = cls.stub.bodies(m)
        sid = cls.session_id(cls.codex("exec", BYPASS, BADGE))
        for prompt in (PIANO, SECRET_PROMPT):
            cls.codex("exec", BYPASS, "resume", sid, prompt)
        m = cls.stub.mark()
        cls.codex("exec", BYPASS, "resume", sid, "What should I do next about the staging DB?")
        cls.resumed = cls.stub.bodies(m)
        m = cls.stub.mark()  # a fork: its transcript names its parent (forked_from_id), copies nothing
        cls.fork_of, cls.fork_id = sid, cls.session_id(cls.codex("exec", BYPASS, "fork", sid, FORK_PROMPT))
        cls.forked = cls.stub.bodies(m)
        m = cls.stub.mark()
        cls.codex("exec", BYPASS, "What's my badge number now? 我女儿的钢琴课是什么时候？")
        cls.third = cls.stub.bodies(m)
        procs = []  # two sessions a second apart: their UUIDv7 ids share the first 8 hex digits
        for fact in ("Remember that my locker is number 17.", "Remember that my bike lock code is 5521."):
            procs.append(subprocess.Popen([CODEX, "exec", BYPASS, fact], cwd=cls.proj, env=cls.env,
                                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            time.sleep(1)
        cls.pair = [cls.session_id(p.communicate(timeout=300)[1]) for p in procs]
        cls.thin = {setting: cls.thin_prompt_after_its_topic(setting) for setting in ("", "0")}
        cls.tui = cls.run_tui() if TMUX else None

    @classmethod
    def thin_prompt_after_its_topic(cls, setting):
        """The request of a prompt whose topic only its session's first turn
        names (that turn recalls nothing: its cut is out of reach), resumed
        with MEMORY_HOOK_CONTEXT set to `setting` ("" for the default)."""
        first = cls.run_client([CODEX, "exec", BYPASS, TOPIC_TURN], env=dict(cls.env, MEMORY_HOOK_MIN_SCORE="99"))[0]
        m = cls.stub.mark()
        env = dict(cls.env, **({"MEMORY_HOOK_CONTEXT": setting} if setting else {}))
        cls.run_client([CODEX, "exec", BYPASS, "resume", cls.session_id(first.stderr), THIN_PROMPT], env=env)
        return cls.stub.bodies(m)

    @classmethod
    def codex(cls, *args):
        return cls.run_client([CODEX] + list(args))[0].stderr

    @staticmethod
    def session_id(stderr):
        found = re.search(rb"session id: ([0-9a-f-]{36})", stderr)
        return found.group(1).decode() if found else None

    @classmethod
    def run_tui(cls):
        """The TUI in tmux: trust the hooks when asked, a fact, /compact, a question; what Codex recorded."""
        cls.socket = "memory-e2e-%d" % os.getpid()
        t = ["tmux", "-L", cls.socket]
        env = " ".join("%s=%s" % (k, cls.env[k]) for k in ("HOME", "PATH", "STUB_API_KEY", "MEMORY_PYTHON"))
        subprocess.run(t + ["new-session", "-d", "-s", "cx", "-x", "160", "-y", "50", "-c", cls.proj,
                            "env %s %s" % (env, CODEX)], check=True, env=cls.env)
        asked = False
        for _ in range(40):
            pane = subprocess.run(t + ["capture-pane", "-p", "-t", "cx"], stdout=subprocess.PIPE).stdout.decode()
            if "Trust this folder" in pane or "trust this folder" in pane.lower() and "Yes" in pane:
                subprocess.run(t + ["send-keys", "-t", "cx", "Enter"])
            elif "Hooks need review" in pane:
                asked = True
                subprocess.run(t + ["send-keys", "-t", "cx", "Down"])
                time.sleep(0.3)
                subprocess.run(t + ["send-keys", "-t", "cx", "Enter"])
                time.sleep(2)
                break
            time.sleep(1)
        m = cls.stub.mark()
        for text in ("Remember that my new desk is number 4-112. 记住：周四下午要去取护照。", "/compact",
                     "What's my desk number now?", "/quit"):
            subprocess.run(t + ["send-keys", "-t", "cx", "-l", text])
            time.sleep(0.3)
            subprocess.run(t + ["send-keys", "-t", "cx", "Enter"])
            time.sleep(6)
        with open(os.path.join(cls.home, ".codex", "config.toml"), encoding="utf-8") as f:
            config = f.read()
        return {"asked": asked, "config": config, "bodies": cls.stub.bodies(m)}

    @classmethod
    def stop_client(cls):
        if cls.socket:
            subprocess.run(["tmux", "-L", cls.socket, "kill-server"], stderr=subprocess.DEVNULL)
        subprocess.run([CODEX, "app-server", "daemon", "stop"], env=cls.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)
        daemon = os.path.join(cls.home, ".codex", "packages", "app-server-daemon")
        out = subprocess.run(["pgrep", "-f", daemon], stdout=subprocess.PIPE).stdout.split()
        for pid in out:  # only the daemons of this test's HOME
            try:
                os.kill(int(pid), 15)
            except (OSError, ValueError):
                pass

    def test_untrusted_hooks_do_not_run(self):
        self.assertEqual(sum(len(notes(b)) for b in self.untrusted_bodies), 0)

    def test_the_resident_process_served_the_hooks(self):
        self.check_resident_served()

    def test_a_prompt_whose_topic_is_in_the_earlier_turns_gets_the_memory(self):
        """The rollout's earlier turn names the passport; the prompt alone
        does not, and without the conversation (MEMORY_HOOK_CONTEXT=0) it
        gets nothing of it."""
        self.check_the_conversation_recalls("SH-0702-5518")

    def test_brief_and_recall_in_the_request(self):
        body = self.first[-1]
        self.assertEqual(len(briefs(body)), 1, notes(body))
        [recall] = recalls(body)
        self.assertTrue("SH-0702-5518" in recall or "Velo Fix" in recall, recall)

    def test_facts_captured_once_secrets_absent(self):
        self.check_facts_once_and_secrets_absent(["88412", "周三下午四点", "db.internal"])

    def test_nothing_from_the_client(self):
        self.check_no_client_lines(CODEX_MARKERS)

    def test_measure(self):
        self.measure(CODEX_MARKERS, self.third, ["88412", "周三下午四点"])

    def test_a_new_session_gets_the_facts(self):
        self.check_new_session_gets(self.third, ["88412", "周三下午四点"])

    def test_two_sessions_a_second_apart_write_two_files(self):
        self.assertTrue(all(self.pair), self.pair)
        self.assertEqual(self.pair[0][:8], self.pair[1][:8])  # the case that wrote one file before
        lock, bike = self.check_two_files("locker is number 17", "5521")
        self.assertTrue(lock.endswith(self.pair[0] + ".md") and bike.endswith(self.pair[1] + ".md"))

    def test_one_brief_per_session_on_resume(self):
        self.assertLessEqual(len(briefs(self.resumed[-1])), 1)

    def test_a_fork_is_not_sent_what_its_conversation_holds(self):
        """codex exec fork ID: SessionStart(fork) (integrations/codex/hooks.json
        matches it) and the prompt under a new id; the parent's brief is in
        the fork's request, no memory line twice, and the fork's file does
        not repeat its parent's lines."""
        body = self.forked[-1]
        self.assertTrue(self.fork_id and self.fork_id != self.fork_of, self.fork_id)
        self.assertIn("Okafor", "\n".join(briefs(body)), "the parent's brief is in the fork's conversation")
        sent = [l for n in notes(body) for l in n.split("\n") if l.startswith("- ") and "stub" not in l.lower()]
        self.assertEqual(len(sent), len(set(sent)), [l for l in set(sent) if sent.count(l) > 1])
        parent, fork = ([l for n, l in bullets(self.mem) if sid in n] for sid in (self.fork_of, self.fork_id))
        self.assertTrue(parent)
        self.assertFalse(set(parent) & set(fork), "the fork's file repeats its parent's lines")

    @unittest.skipUnless(TMUX, "tmux is needed to drive the TUI")
    def test_tui_trust_step_then_compaction_captures_what_was_said(self):
        self.assertTrue(self.tui["asked"], "the TUI did not ask to trust the hooks")
        self.assertIn("trusted_hash", self.tui["config"])
        self.assertTrue(any(recalls(b) or briefs(b) for b in self.tui["bodies"]))
        self.check_facts_once_and_secrets_absent(["4-112", "周四下午要去取护照"])

    @unittest.skipUnless(TMUX, "tmux is needed to drive the TUI")
    def test_tui_after_compaction_the_brief_comes_again(self):
        """Codex's compaction leaves our developer message out of what it keeps:
        the question after /compact carries the brief again, once."""
        asked = [b for b in self.tui["bodies"] if "What's my desk number now?" in json.dumps(b, ensure_ascii=False)]
        self.assertTrue(asked)
        [brief] = briefs(asked[-1])
        self.assertIn("Okafor", brief)

    def test_turn_time_with_and_without_the_hooks(self):
        rows = []
        for mode in ("off", "on") * 3:
            flags = ["--disable", "hooks"] if mode == "off" else [BYPASS]
            rows.append(("exec, hooks %s" % mode, self.run_client(
                [CODEX, "exec"] + flags + ["Where did I get the bike derailleur fixed?"])[1]))
        report("Codex", rows)
