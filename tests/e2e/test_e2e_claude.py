"""Claude Code (npm @anthropic-ai/claude-code) with the suite installed as the
docs say (a marketplace, then a lasting plugin install), against the stub of
the Messages API: brief and recall in the model's request, capture through
/compact, a new session, two sessions a second apart, resume."""
import json
import subprocess
import time
import unittest

from clients import (BADGE, PIANO, ROOT, SECRET_PROMPT, ClientCase, briefs, bullets, notes, recalls, report, tool,
                     wanted)

CLAUDE = tool("cc", "node_modules", ".bin", "claude")
TOPIC_TURN = "I have to go back to the exit-entry bureau tomorrow for my passport."
THIN_PROMPT = "Which number do I need to show them?"
FORK_PROMPT = "What's my badge number now? Where is the car insurance policy, and who is my dentist?"
CLAUDE_MARKERS = ["Primary Request", "previous conversation", "Summary", "Compacted", "command-", "Caveat",
                  "TOOLNOISE", "system-reminder", "<"]


@unittest.skipUnless(wanted("claude") and CLAUDE, "MEMORY_E2E=1 and Claude Code under MEMORY_E2E_PREFIX/cc needed")
class ClaudeCodeTest(ClientCase):
    client = "claude"
    stub_script = "anthropic_stub.py"

    @classmethod
    def prepare(cls):
        cls.set_up_claude()
        t = time.perf_counter()
        cls.claude("plugin", "marketplace", "add", ROOT)
        cls.claude("plugin", "install", "memory-suite@memory-suite")
        cls.install_ms = (time.perf_counter() - t) * 1000
        cls.installed = cls.claude("plugin", "list").stdout.decode("utf-8", "replace")
        m = cls.stub.mark()
        cls.claude("-p", "上次修厨房漏水的水管工电话是多少？ Also, when is my dentist appointment?")
        cls.first = cls.stub.bodies(m)
        sid = json.loads(cls.claude("-p", BADGE, "--output-format", "json").stdout)["session_id"]
        for prompt in (PIANO, SECRET_PROMPT):
            cls.claude("--resume", sid, "-p", prompt)
        cls.claude("--allowedTools", "Bash", "--resume", sid, "-p", "Please RUN-TOOL to list the folder.")
        cls.claude("--resume", sid, "-p", "/compact")
        m = cls.stub.mark()
        cls.claude("--resume", sid, "-p", "What should I do next about the staging DB?")
        cls.resumed = cls.stub.bodies(m)
        cls.sid = sid
        m = cls.stub.mark()
        third = cls.claude("-p", "What's my badge number now? 我女儿的钢琴课是什么时候？", "--output-format", "json")
        cls.third = cls.stub.bodies(m)
        # a fork of it: its SessionStart comes as a resume of the parent, its prompt under a new id
        cls.fork_of = json.loads(third.stdout)["session_id"]
        m = cls.stub.mark()
        fork = cls.claude("--resume", cls.fork_of, "--fork-session", "-p", FORK_PROMPT, "--output-format", "json")
        cls.forked, cls.fork_id = cls.stub.bodies(m), json.loads(fork.stdout)["session_id"]
        # the same question under a 250-token brief: a fact's line can fall out of the brief
        m = cls.stub.mark()
        cls.run_client([CLAUDE, "-p", "What's my badge number now? 我女儿的钢琴课是什么时候？"],
                       env=dict(cls.env, MEMORY_HOOK_BRIEF_TOKENS="250"))
        cls.small_brief = cls.stub.bodies(m)
        # two sessions started a second apart
        procs = []
        for fact in ("Remember that my locker is number 17.", "Remember that my bike lock code is 5521."):
            procs.append(subprocess.Popen([CLAUDE, "-p", fact], cwd=cls.proj, env=cls.env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        for p in procs:
            p.wait(300)
        cls.thin = {setting: cls.thin_prompt_after_its_topic(setting) for setting in ("", "0")}

    @classmethod
    def thin_prompt_after_its_topic(cls, setting):
        """The request of a prompt whose topic only its session's first turn
        names (that turn recalls nothing: its cut is out of reach), resumed
        with MEMORY_HOOK_CONTEXT set to `setting` ("" for the default)."""
        first = cls.run_client([CLAUDE, "-p", TOPIC_TURN, "--output-format", "json"],
                               env=dict(cls.env, MEMORY_HOOK_MIN_SCORE="99"))[0]
        m = cls.stub.mark()
        env = dict(cls.env, **({"MEMORY_HOOK_CONTEXT": setting} if setting else {}))
        cls.run_client([CLAUDE, "--resume", json.loads(first.stdout)["session_id"], "-p", THIN_PROMPT], env=env)
        return cls.stub.bodies(m)

    @classmethod
    def claude(cls, *args):
        return cls.run_client([CLAUDE] + list(args))[0]

    def test_the_resident_process_served_the_hooks(self):
        self.check_resident_served()

    def test_installed_from_the_marketplace(self):
        self.assertIn("memory-suite@memory-suite", self.installed)
        self.assertIn("enabled", self.installed)

    def test_brief_and_recall_in_the_request(self):
        body = self.first[-1]
        self.assertEqual(len(briefs(body)), 1, notes(body))
        [recall] = recalls(body)
        self.assertIn("139-0017-5526", recall)  # the plumber's phone number

    def test_facts_captured_once_secrets_absent(self):
        self.check_facts_once_and_secrets_absent(["88412", "周三下午四点", "db.internal"])
        [line] = [l for _, l in bullets(self.mem) if "88412" in l]
        self.assertIn("The old one (7731) is void.", line)

    def test_nothing_from_the_client(self):
        self.check_no_client_lines(CLAUDE_MARKERS)

    def test_measure(self):
        self.measure(CLAUDE_MARKERS, self.third, ["88412", "周三下午四点"])

    def test_a_new_session_gets_the_facts(self):
        self.check_new_session_gets(self.third, ["88412", "周三下午四点"])

    def test_a_small_brief_still_brings_the_newest_facts(self):
        """Issue 25's case: with a 250-token brief the new badge and lesson time
        were skipped and the outdated lesson time injected instead."""
        body = self.small_brief[-1]
        [brief] = briefs(body)
        self.assertLess(len(brief), len(briefs(self.third[-1])[0]), "the budget did not reach the brief")
        text = "\n".join(notes(body))
        for fact in ("88412", "周三下午四点"):
            self.assertIn(fact, text)

    def test_a_prompt_whose_topic_is_in_the_earlier_turns_gets_the_memory(self):
        """The transcript's earlier turn names the passport; the prompt alone
        does not, and without the conversation (MEMORY_HOOK_CONTEXT=0) it
        gets nothing of it."""
        self.check_the_conversation_recalls("SH-0814-2231")

    def test_two_sessions_a_second_apart_write_two_files(self):
        self.check_two_files("locker is number 17", "5521")

    def test_one_brief_per_session_on_resume(self):
        self.assertLessEqual(sum(len(briefs(b)) for b in self.resumed[-1:]), 1)

    def test_after_compact_the_brief_comes_again(self):
        """/compact drops the notes from the context (the request after it
        carried no brief before): the brief comes again, once, beside the
        checkpoint."""
        body = self.resumed[-1]
        [brief] = briefs(body)
        self.assertIn("PA-2291-0043", brief)
        sent = [l for n in notes(body) for l in n.split("\n") if l.startswith("- ") and "stub" not in l.lower()]
        self.assertEqual(len(sent), len(set(sent)), [l for l in set(sent) if sent.count(l) > 1])

    def test_a_fork_is_not_sent_what_its_conversation_holds(self):
        """claude --resume ID --fork-session: the fork's request carries its
        parent's notes; no memory line reaches it twice (the stub's own
        answer, captured in every session, aside), and the new session file
        does not repeat its parent's lines (test_facts_captured_once)."""
        body = self.forked[-1]
        self.assertNotEqual(self.fork_id, self.fork_of)
        self.assertIn(FORK_PROMPT, json.dumps(body, ensure_ascii=False))
        self.assertIn("PA-2291-0043", "\n".join(briefs(body)), "the parent's brief is in the fork's conversation")
        sent = [l for n in notes(body) for l in n.split("\n") if l.startswith("- ") and "stub" not in l.lower()]
        self.assertEqual(len(sent), len(set(sent)), [l for l in set(sent) if sent.count(l) > 1])
        self.assertLessEqual(len(briefs(body)), 2, "the parent's brief and at most what changed since")
        parent, fork = ([l for n, l in bullets(self.mem) if sid in n] for sid in (self.fork_of, self.fork_id))
        self.assertFalse(set(parent) & set(fork), "the fork's file repeats its parent's lines")

    def test_turn_time_with_and_without_the_hooks(self):
        rows = [("install (marketplace add + plugin install)", self.install_ms)]
        for state in ("disable", "enable", "disable", "enable", "disable", "enable"):
            self.claude("plugin", state, "memory-suite@memory-suite")
            rows.append(("turn, hooks %s" % ("on" if state == "enable" else "off"),
                         self.run_client([CLAUDE, "-p", "Where did I put the winter tyres?"])[1]))
        report("Claude Code", rows)
