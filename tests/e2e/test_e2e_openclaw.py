"""OpenClaw (npm openclaw, on Node >= 24.16) with the suite installed as the
docs say: the skill, the hook (integrations/openclaw/memory-suite) and the
plugin (integrations/openclaw/memory-suite-plugin), turns through the gateway
on loopback against the stub of the Chat Completions API."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import unittest

from clients import (BADGE, PIANO, ROOT, SECRET_PROMPT, ClientCase, briefs, free_port, notes, recalls, report,
                     strings, tool, wanted)

OPENCLAW = tool("oc", "node_modules", ".bin", "openclaw")
NODE_BIN = os.path.dirname(tool("node24", "node_modules", ".bin", "node") or "/nonexistent/node")
PLUGIN = os.path.join(ROOT, "integrations", "openclaw", "memory-suite-plugin")
THIRD_PROMPT = "What's my badge number now? 我女儿的钢琴课是什么时候？"
COMPACTED_PROMPT = "And what is my dentist's name?"
RESTARTED_PROMPT = "Anything else about the piano lessons?"
TOPIC_TURN = "Tomorrow I must go back to the exit-entry bureau to collect my passport."
THIN_PROMPT = "Which number do I need to show them?"
OPENCLAW_MARKERS = ["Sender", "untrusted metadata", "message_id", "Summary", "<", "```",
                    "A new session was started"]


@unittest.skipUnless(wanted("openclaw") and OPENCLAW and os.path.isdir(NODE_BIN),
                     "MEMORY_E2E=1, OpenClaw and Node 24 under MEMORY_E2E_PREFIX (oc/, node24/) needed")
class OpenClawTest(ClientCase):
    client = "openclaw"
    stub_script = "openai_stub.py"
    gateway = None

    @classmethod
    def prepare(cls):
        cls.env.update(PATH=os.pathsep.join([NODE_BIN, os.path.dirname(OPENCLAW), cls.env.get("PATH", "")]),
                       OPENCLAW_DISABLE_BONJOUR="1")
        cls.port = free_port()
        cls.oc("onboard", "--non-interactive", "--accept-risk", "--mode", "local", "--flow", "quickstart",
               "--auth-choice", "custom-api-key", "--custom-base-url", "http://127.0.0.1:%d/v1" % cls.stub.port,
               "--custom-api-key", "dummy", "--custom-model-id", "stub-model", "--custom-compatibility", "openai",
               "--custom-text-input", "--no-install-daemon", "--skip-channels", "--skip-health", "--skip-search",
               "--skip-skills", "--skip-ui", "--skip-daemon", "--gateway-port", str(cls.port), "--json")
        cls.oc("config", "set", "discovery.mdns.mode", "off")
        workspace = os.path.join(cls.home, ".openclaw", "workspace")
        for name in os.listdir(cls.mem):  # the memory folder is the agent's workspace
            shutil.move(os.path.join(cls.mem, name), os.path.join(workspace, name))
        cls.mem = workspace
        shutil.copytree(ROOT, os.path.join(workspace, "skills", "memory-search"),
                        ignore=shutil.ignore_patterns(".git", ".memory", "node_modules"))
        shutil.copytree(os.path.join(ROOT, "integrations", "openclaw", "memory-suite"),
                        os.path.join(cls.home, ".openclaw", "hooks", "memory-suite"))
        cls.oc("hooks", "enable", "memory-suite")
        cls.hooks = cls.oc("hooks", "list").stdout.decode("utf-8", "replace")
        t = time.perf_counter()
        cls.oc("plugins", "install", "--link", PLUGIN, "--force", "--accept-capabilities")
        cls.oc("config", "set", "plugins.entries.memory-suite.hooks.allowConversationAccess", "true")
        cls.oc("config", "set", "plugins.entries.memory-suite.config.search", os.path.join(ROOT, "search.sh"))
        cls.install_ms = (time.perf_counter() - t) * 1000
        cls.plugins = cls.oc("plugins", "list").stdout.decode("utf-8", "replace")
        cls.start_gateway()
        m = cls.stub.mark()
        cls.turn("e2e-1", "上次修厨房漏水的水管工电话是多少？ Also, when is my dentist appointment?")
        cls.first = cls.stub.bodies(m)
        cls.turn("e2e-2", BADGE + " " + PIANO)
        m = cls.stub.mark()
        cls.turn("e2e-2", SECRET_PROMPT)
        cls.second_turn = cls.stub.bodies(m)
        cls.turn("e2e-2", "/new")
        procs = []  # two sessions a second apart
        for key, fact in (("e2e-3", "Remember that my locker is number 17."),
                          ("e2e-4", "Remember that my bike lock code is 5521.")):
            procs.append(subprocess.Popen([OPENCLAW, "agent", "--agent", "main", "--session-key", "agent:main:" + key,
                                           "-m", fact, "--json"], cwd=cls.proj, env=cls.env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        for p in procs:
            p.wait(300)
        m = cls.stub.mark()
        cls.turn("e2e-5", THIRD_PROMPT)
        cls.third = cls.stub.bodies(m)
        m = cls.stub.mark()
        cls.turn("e2e-6", "What's my badge number now? RUN-SKILL")
        cls.skill = cls.stub.bodies(m)
        # a compaction empties the context: the brief comes again with the next prompt
        cls.turn("e2e-7", "Where did I put the winter tyres?")
        cls.oc("sessions", "compact", "agent:main:e2e-7", "--json")
        m = cls.stub.mark()
        cls.turn("e2e-7", COMPACTED_PROMPT)
        cls.after_compact = cls.stub.bodies(m)
        # a gateway restart does not: the session's first prompt after it gets no brief again
        cls.stop_client()
        cls.start_gateway()
        m = cls.stub.mark()
        cls.turn("e2e-5", RESTARTED_PROMPT)
        cls.after_restart = cls.stub.bodies(m)
        cls.thin = cls.thin_prompts_after_their_topic()

    @classmethod
    def thin_prompts_after_their_topic(cls):
        """{MEMORY_HOOK_CONTEXT setting ("" for the default): the requests of a
        prompt whose topic only its session's first turn names}.  The first
        turns recall nothing (their cut is out of reach); the gateway, whose
        environment the plugin's hooks get, is started again for each setting."""
        cls.stop_client()
        cls.start_gateway(MEMORY_HOOK_MIN_SCORE="99")
        for setting in ("", "0"):
            cls.turn("thin-%s" % setting, TOPIC_TURN)
        thin = {}
        for setting in ("0", ""):  # the default last: the tests after this one run under it
            cls.stop_client()
            cls.start_gateway(**({"MEMORY_HOOK_CONTEXT": setting} if setting else {}))
            m = cls.stub.mark()
            cls.turn("thin-%s" % setting, THIN_PROMPT)
            thin[setting] = cls.stub.bodies(m)
        return thin

    @classmethod
    def oc(cls, *args):
        return cls.run_client([OPENCLAW] + list(args))[0]

    @classmethod
    def turn(cls, key, text):
        return cls.run_client([OPENCLAW, "agent", "--agent", "main", "--session-key", "agent:main:" + key,
                               "-m", text, "--json"])[1]

    @classmethod
    def start_gateway(cls, **env):
        """The gateway, with `env` added to the environment its plugin's hooks get."""
        cls.starts = getattr(cls, "starts", 0) + 1
        cls.gateway_log = os.path.join(cls.world, "gateway-%d.log" % cls.starts)
        with open(cls.gateway_log, "wb") as log:
            cls.gateway = subprocess.Popen([OPENCLAW, "gateway", "run", "--bind", "loopback", "--port", str(cls.port)],
                                           cwd=cls.proj, env=dict(cls.env, **env), stdin=subprocess.DEVNULL, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(180):
            with open(cls.gateway_log, encoding="utf-8", errors="replace") as f:
                if re.search(r"\[gateway\] ready\s*$", re.sub(r"\x1b\[[0-9;]*m", "", f.read()), re.M):
                    return
            time.sleep(1)
        raise AssertionError("the gateway did not start")

    @classmethod
    def stop_client(cls):
        if cls.gateway is not None:
            try:
                os.killpg(cls.gateway.pid, signal.SIGTERM)  # the gateway's own process group
                cls.gateway.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(cls.gateway.pid, signal.SIGKILL)
            cls.gateway = None

    def test_the_hook_and_the_plugin_are_loaded(self):
        self.assertRegex(self.hooks, r"ready.*memory-suite|memory-suite.*ready")
        self.assertIn("memory-suite", self.plugins)

    @staticmethod
    def briefs_with(bodies, prompt):
        """The briefs the plugin put before this prompt (prependContext: in the prompt's own text)."""
        return [b for s in strings(bodies[-1]) if prompt in s for b in briefs(s)]

    def test_after_compaction_the_brief_comes_again(self):
        self.assertEqual(len(self.briefs_with(self.after_compact, COMPACTED_PROMPT)), 1,
                         [notes(b) for b in self.after_compact])

    def test_after_a_gateway_restart_the_brief_is_not_sent_again(self):
        """The session's first prompt after a restart gets at most what changed
        since its brief (as a resume does), none of the lines it was sent."""
        lines = lambda briefs: {l for b in briefs for l in b.split("\n") if l.startswith("- ")}  # noqa: E731
        first = lines(self.briefs_with(self.third, THIRD_PROMPT))
        self.assertTrue(first, "the session's first prompt had its brief")
        again = lines(self.briefs_with(self.after_restart, RESTARTED_PROMPT))
        self.assertFalse(first & again, first & again)

    def test_the_resident_process_served_the_hooks(self):
        self.check_resident_served()

    def test_a_thin_prompt_gets_what_its_conversation_is_about(self):
        """The plugin passes event.messages: a prompt whose topic only an
        earlier turn names is recalled with it, and without the conversation
        (MEMORY_HOOK_CONTEXT=0) it is not."""
        self.check_the_conversation_recalls("SH-0814-2231")

    def test_brief_and_recall_in_the_request(self):
        body = self.first[-1]
        self.assertEqual(len(briefs(body)), 1, notes(body))
        [recall] = recalls(body)
        self.assertIn("139-0017-5526", recall)

    def test_facts_captured_once_secrets_absent(self):
        self.check_facts_once_and_secrets_absent(["88412", "周三下午四点", "db.internal"])

    def test_nothing_from_the_client(self):
        self.check_no_client_lines(OPENCLAW_MARKERS)

    def test_measure(self):
        self.measure(OPENCLAW_MARKERS, self.third, ["88412", "周三下午四点"])

    def test_a_new_session_gets_the_facts(self):
        self.check_new_session_gets(self.third, ["88412", "周三下午四点"])

    def test_two_sessions_a_second_apart_write_two_files(self):
        self.check_two_files("locker is number 17", "5521")

    def test_one_brief_per_session(self):
        self.assertLessEqual(sum(len(briefs(b)) for b in self.second_turn[-1:]), 1)

    def test_the_skill_still_works(self):
        tool_results = [s for b in self.skill for m in b.get("messages", []) if m.get("role") == "tool"
                        for s in strings(m.get("content"))]
        self.assertTrue(any("88412" in s for s in tool_results), tool_results)

    def test_turn_time_with_and_without_the_plugin(self):
        rows = [("plugin install", self.install_ms)]
        for n in range(3):
            rows.append(("turn, plugin on", self.turn("time-on-%d" % n, "Where did I put the winter tyres?")))
        self.stop_client()
        self.oc("plugins", "disable", "memory-suite")
        self.start_gateway()
        for n in range(3):
            rows.append(("turn, plugin off", self.turn("time-off-%d" % n, "Where did I put the winter tyres?")))
        report("OpenClaw", rows)
