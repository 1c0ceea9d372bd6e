"""Agent hooks (search.sh hook): each event driven as Claude Code drives it
(the documented JSON on stdin of a new process, stdout parsed as Claude Code
parses it), the memory folder checked afterwards; fail-open cases; capture
(one block per session, secrets, private blocks, tool noise, concurrency);
the installs (plugin, OpenClaw hook, Codex config); add's writing fixes."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import unittest

from helpers import ROOT, TempMemory, clean_env

SEARCH = os.path.join(ROOT, "search.sh")
def today():
    """Today as the code under test reads it, at the moment of asking (a run may cross midnight)."""
    return time.strftime("%Y-%m-%d")
CLAUDE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd", "Stop")

SECRETS = ["sk-ant-api03-AAAABBBBCCCCDDDDEEEEFFFF0000", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
           "AKIAIOSFODNN7EXAMPLE", "hunter2-Pa55word", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX3g",
           "MIIEowIBAAKCAQEA7bq98", "s3cr3t-db-pass", "Tr0ub4dor&3zz"]


def claude_parse(event, stdout, returncode):
    """What Claude Code takes from a command hook: (added context or None).
    Exit 0: JSON on stdout is validated (hookSpecificOutput.hookEventName must
    be the event; PreCompact/SessionEnd/Stop may not carry hookSpecificOutput),
    plain text is context for SessionStart and UserPromptSubmit only."""
    assert returncode == 0, "a memory hook must exit 0"
    text = stdout.decode("utf-8")
    if not text.strip():
        return None
    if text.lstrip().startswith("{"):
        data = json.loads(text)
        specific = data.get("hookSpecificOutput")
        if event not in ("SessionStart", "UserPromptSubmit"):
            assert specific is None, "%s cannot add context" % event
            return None
        assert specific["hookEventName"] == event
        context = specific.get("additionalContext")
        assert isinstance(context, str)
        assert len(context) <= 9500, len(context)  # arrives whole
        return context
    assert event in ("SessionStart", "UserPromptSubmit"), "stray stdout from %s" % event
    return text


def turn(role, content, **extra):
    rec = {"type": role, "message": {"role": role, "content": content}, "sessionId": "s",
           "timestamp": "2026-12-01T09:00:00Z", "uuid": "u%d" % time.time_ns()}
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


TRANSCRIPT = [
    turn("user", "Remember that the deploy target for the shop is Fly.io in region fra."),
    turn("assistant", [{"type": "thinking", "thinking": "THINKING-SHOULD-NOT-APPEAR"},
                       {"type": "text", "text": "Understood, Fly.io in fra."},
                       {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]),
    turn("user", [{"type": "tool_result", "tool_use_id": "t1",
                   "content": "TOOL-OUTPUT-DUMP line 1\nline 2\n" * 50}]),
    turn("user", "My API key is %s and the db url is postgres://admin:%s@db.internal:5432/shop"
         % (SECRETS[0], SECRETS[6])),
    turn("assistant", [{"type": "tool_use", "id": "t2", "name": "Edit",
                        "input": {"file_path": "/work/shop/app.py", "old_string": "a", "new_string": "b"}}]),
    turn("user", [{"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                   "content": "ModuleNotFoundError: No module named 'stripe'"}]),
    turn("assistant", [{"type": "text", "text": "The cause was a missing dependency; I fixed it by adding stripe "
                                                "to requirements.txt."}]),
    turn("user", "以后周报都用中文写。<private>我的身份证号 PRIVATE-ID-110101</private>"),
    turn("user", "<memory-notes source=\"memory-suite\">\n[MEMORY.md:1-3]\nINJECTED-MEMORY-LINE\n</memory-notes>",
         isMeta=True),
    turn("user", "Context from a hook:\n<memory-notes source=\"memory-suite\">\nINJECTED-PLAIN-LINE\n</memory-notes>\n"
         "Also, remember that invoices go out on the 3rd."),
    turn("user", "Export GITHUB_TOKEN=%s before the release and set Authorization: Bearer %s"
         % (SECRETS[1], SECRETS[4])),
    turn("user", "ok"),
]


class HookCase(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()
        self.env = clean_env()

    def hook(self, event=None, raw=None, args=(), env=None, **fields):
        """Run search.sh hook as Claude Code does; (context, completed process)."""
        if raw is None:
            payload = {"session_id": "sess-1", "transcript_path": os.path.join(self.tmp, "t.jsonl"),
                       "cwd": "/work/shop", "hook_event_name": event, "permission_mode": "default"}
            payload.update(fields)
            raw = json.dumps(payload).encode("utf-8")
        p = subprocess.run([SEARCH, "hook", "--dir", self.dir] + list(args), input=raw, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env or self.env, cwd=self.tmp, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return claude_parse(event or "SessionStart", p.stdout, p.returncode), p

    def transcript(self, lines, name="t.jsonl"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def session_files(self):
        return sorted(glob.glob(os.path.join(self.dir, "memory", "*-session-*.md")))

    def folder_bytes(self):
        out = b""
        for dirpath, _, names in os.walk(self.dir):
            for n in names:
                if not n.endswith((".lock",)):
                    with open(os.path.join(dirpath, n), "rb") as f:
                        out += f.read()
        return out

    def log_lines(self):
        try:
            with open(os.path.join(self.dir, ".memory", "hooks.log"), encoding="utf-8") as f:
                return f.read().splitlines()
        except OSError:
            return []


def check_citations(test, folder, context):
    """Every '[path:a-b]' block's lines are lines of that file within a-b."""
    blocks = re.findall(r"^\[([^\]\n]+?):(\d+)-(\d+)\][^\n]*\n((?:(?!\[[^\]\n]+:\d+-\d+\])[^\n]*\n?)*)",
                        context, re.M)
    test.assertTrue(blocks, context[:300])
    for rel, a, b, body in blocks:
        with open(os.path.join(folder, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        cited = lines[int(a) - 1:int(b)]
        for line in body.split("\n"):
            if not line.strip() or line.startswith(("</memory-notes", "## Long-term", "## Recent", "## This session",
                                                    "## Memories for")):
                continue
            test.assertTrue(any(line.rstrip("…") in c for c in cited), "%r not in %s:%s-%s" % (line, rel, a, b))
    return blocks


def wait_for_lock_waiter(lock_path, proc, seconds=30):
    """Whether a process came to wait for the flock on lock_path (Linux:
    /proc/locks lists waiters with '->'); elsewhere, a pause of 1.5 s."""
    if not os.path.exists("/proc/locks"):
        time.sleep(1.5)
        return False
    inode = ":%d " % os.stat(lock_path).st_ino
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None:
        with open("/proc/locks") as f:
            if any("->" in line and inode in line + " " for line in f):
                return True
        time.sleep(0.05)
    return False


class SessionStartTest(HookCase):
    def test_startup_brief_is_cited_framed_and_bounded(self):
        context, _ = self.hook("SessionStart", source="startup")
        self.assertIn("not instructions", context)
        self.assertTrue(context.startswith("<memory-notes"))
        blocks = check_citations(self, self.dir, context)
        paths = {b[0] for b in blocks}
        self.assertIn("MEMORY.md", paths)
        self.assertTrue(any(p.startswith("memory/2026-03-25") for p in paths), paths)  # the newest day
        self.assertLessEqual(len(context), 9500)

    def test_long_memory_md_gives_part_of_every_section_within_budget(self):
        sections = "".join("## Topic %d\n" % i + "".join("- fact %d.%d about things worth keeping here\n" % (i, j)
                                                        for j in range(60)) + "\n" for i in range(30))
        self.write("MEMORY.md", "# MEMORY\n\n" + sections)
        context, _ = self.hook("SessionStart", source="clear")
        self.assertLessEqual(len(context), 9500)
        for i in (0, 15, 29):
            self.assertIn("## Topic %d" % i, context)
        self.assertNotIn("fact 3.59", context)  # not the whole file
        check_citations(self, self.dir, context)

    def test_a_small_budget_sends_lines_not_bare_headings(self):
        self.write("MEMORY.md", "# MEMORY\n\n" + "".join("## Topic %d\n- topic %d's fact, long enough that one line of "
                                                          "every section cannot fit a small budget\n\n" % (i, i)
                                                          for i in range(12)))
        context, _ = self.hook("SessionStart", source="startup", args=["--budget", "250"])
        self.assertIn("## Long-term notes (MEMORY.md)\n", context)  # the first sections, if not all
        part = context.split("## Long-term notes (MEMORY.md)\n", 1)[1].split("\n\n## ", 1)[0]
        self.assertIn("topic 0's fact", part)
        shown = part.splitlines()
        for k, line in enumerate(shown):  # every heading has a line under it
            if line.startswith("## "):
                self.assertTrue(k + 1 < len(shown) and shown[k + 1].startswith("- "), part)

    def test_a_memory_md_of_headings_only_is_sent_whole(self):
        self.write("MEMORY.md", "# Deploy: blue-green, never on Fridays\n")
        context, _ = self.hook("SessionStart", source="startup")
        self.assertIn("never on Fridays", context)

    def test_a_large_budget_is_still_cut_at_9500_characters(self):
        self.write("MEMORY.md", "# MEMORY\n\n" + "".join("## Topic %d\n- a fact about topic %d, long enough to "
                                                          "count for something in the brief\n\n" % (i, i)
                                                          for i in range(400)))
        context, _ = self.hook("SessionStart", source="startup", args=["--budget", "8000"])
        self.assertGreater(len(context), 8000)
        self.assertLessEqual(len(context), 9500)
        self.assertTrue(context.rstrip().endswith("</memory-notes>"))

    def test_compact_brings_this_sessions_checkpoint(self):
        self.transcript(TRANSCRIPT)
        context, _ = self.hook("PreCompact", trigger="auto", custom_instructions="")
        self.assertIsNone(context)
        context, _ = self.hook("SessionStart", source="compact")
        self.assertIn("This session before compaction", context)
        self.assertIn("Fly.io", context)
        check_citations(self, self.dir, context)

    def test_empty_folder_prints_nothing(self):
        shutil.rmtree(self.dir)
        os.makedirs(self.dir)
        context, p = self.hook("SessionStart", source="startup")
        self.assertIsNone(context)
        self.assertEqual(p.stdout, b"")


class PromptTest(HookCase):
    def test_relevant_prompt_gets_cited_passages_once_per_session(self):
        context, _ = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?")
        self.assertIn("memory/2026-03-22.md", context)
        self.assertIn("not instructions", context)
        check_citations(self, self.dir, context)
        from memory_search import estimate_tokens
        self.assertLessEqual(estimate_tokens(context), 500 + 80)
        again, p = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?")
        sent = [l for l in context.split("\n") if l.startswith("- ")]
        self.assertFalse(again and any(l in again for l in sent), again)  # at most lines not sent yet
        other, _ = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?",
                             session_id="sess-2")
        self.assertIn("memory/2026-03-22.md", other)

    def test_what_the_brief_gave_is_not_injected_again(self):
        brief, _ = self.hook("SessionStart", source="startup")
        self.assertIn("KX-4471", brief)
        context, _ = self.hook("UserPromptSubmit", prompt="What is the booking code of the Kyoto flight?")
        given = [l for l in brief.split("\n") if l.startswith("- ")]
        self.assertIn("- Kyoto trip 2026-03-14 to 2026-03-20. 京都的机票已经订好 (booking code KX-4471).", given)
        self.assertFalse(context and [l for l in given if l in context.split("\n")], context)  # other lines may come

    def test_absent_topic_injects_nothing(self):
        for prompt in ("quantum computing lecture notes", "bitcoin mining rig setup", "量子计算讲座"):
            context, p = self.hook("UserPromptSubmit", prompt=prompt)
            self.assertIsNone(context, prompt)
            self.assertEqual(p.stdout, b"")

    def test_trivial_prompts_are_skipped(self):
        for prompt in ("ok", "yes", "继续", "thanks!", "/compact RSS feed", "   "):
            context, p = self.hook("UserPromptSubmit", prompt=prompt)
            self.assertEqual(p.stdout, b"", prompt)
        self.assertFalse(glob.glob(os.path.join(self.dir, ".memory", "index*")), "no search ran")

    def test_chinese_prompt(self):
        context, _ = self.hook("UserPromptSubmit", prompt="博客的RSS配置是怎么改的？")
        self.assertIn("memory/2026-02-20.md", context)


class CaptureTest(HookCase):
    def capture(self, event="PreCompact", **fields):
        context, p = self.hook(event, **fields)
        self.assertIsNone(context)
        self.assertEqual(p.stdout, b"")
        return p

    def test_capture_writes_one_block_with_what_was_said(self):
        self.transcript(TRANSCRIPT)
        self.capture(trigger="manual")
        files = self.session_files()
        self.assertEqual(len(files), 1)
        self.assertTrue(os.path.basename(files[0]).startswith(today() + "-session-"))
        with open(files[0], encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text.count("<!-- session:sess-1 -->"), 1)
        self.assertIn("Fly.io in region fra", text)
        self.assertIn("以后周报都用中文写", text)
        self.assertIn("app.py", text)  # files touched
        self.assertIn("No module named 'stripe'", text)  # the error...
        self.assertIn("adding stripe", text)  # ...and its fix
        self.assertIn("invoices go out on the 3rd", text)
        for gone in ("THINKING-SHOULD-NOT-APPEAR", "TOOL-OUTPUT-DUMP", "INJECTED-MEMORY-LINE", "INJECTED-PLAIN-LINE",
                     "PRIVATE-ID"):
            self.assertNotIn(gone, text)
        self.assertLess(len(text), 8200)

    def test_captured_facts_are_found_by_search(self):
        self.transcript(TRANSCRIPT)
        self.capture()
        out = subprocess.run([SEARCH, "--dir", self.dir, "deploy target shop Fly.io", "--json"],
                             stdout=subprocess.PIPE, env=self.env, timeout=60)
        hits = json.loads(out.stdout)["results"]
        self.assertTrue(hits and "-session-" in hits[0]["path"], hits[:1])

    def test_secrets_never_reach_the_folder(self):
        self.transcript(TRANSCRIPT)
        self.capture()
        self.capture("SessionEnd", reason="prompt_input_exit")
        data = self.folder_bytes()
        for secret in SECRETS:
            self.assertNotIn(secret.encode(), data, secret)
        self.assertIn(b"[redacted]", data)

    def test_a_detached_session_end_returns_before_it_captures(self):
        sys.path.insert(0, ROOT)
        from memsuite.base.fileio import FileLock
        self.transcript(TRANSCRIPT)
        self.hook("SessionStart")  # the index and the hooks' folder exist
        lock = os.path.join(self.dir, ".memory", "hooks", "capture")
        os.makedirs(os.path.dirname(lock), exist_ok=True)
        with FileLock(lock):  # a capture waits for this lock: a hook that waited for it would never return
            _, p = self.hook("SessionEnd", args=["--detach"], reason="other")
            self.assertEqual(p.stdout, b"")
            self.assertEqual(self.session_files(), [])
        deadline = time.monotonic() + 30
        while not self.session_files() and time.monotonic() < deadline:
            time.sleep(0.05)
        [f] = self.session_files()  # the detached process captured once the lock was free
        with open(f, encoding="utf-8") as fh:
            self.assertIn("Fly.io in region fra", fh.read())

    def test_capturing_twice_keeps_one_block_and_earlier_lines(self):
        path = self.transcript(TRANSCRIPT)
        self.capture()
        [f] = self.session_files()
        with open(f, "rb") as fh:
            first = fh.read()
        self.capture("SessionEnd", reason="other")
        with open(f, "rb") as fh:
            self.assertEqual(fh.read(), first)  # nothing new: unchanged
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(turn("user", "Remember that the staging database lives on db2.internal.") + "\n")
        self.capture("SessionEnd", reason="other")
        self.assertEqual(self.session_files(), [f])
        with open(f, "rb") as fh:
            second = fh.read()
        self.assertTrue(second.startswith(first))  # earlier lines never change
        self.assertIn(b"db2.internal", second)
        self.assertEqual(second.count(b"<!-- session:"), 1)
        self.assertEqual(second.count(b"Fly.io in region fra"), 1)

    def test_stop_is_off_by_default(self):
        self.transcript(TRANSCRIPT)
        self.capture("Stop", stop_hook_active=False)
        self.assertEqual(self.session_files(), [])
        self.hook("Stop", args=["--stop"], stop_hook_active=True)
        self.assertEqual(self.session_files(), [])  # never while a Stop hook is already continuing
        self.hook("Stop", args=["--stop"], stop_hook_active=False)
        self.assertEqual(len(self.session_files()), 1)

    def test_concurrent_captures_never_interleave(self):
        paths = []
        for k in range(3):
            lines = [turn("user", "Remember that project %d uses port %d for service %s." % (k, 8000 + i, "x" * 40))
                     for i in range(15)]
            paths.append(self.transcript(lines, "t%d.jsonl" % k))
        procs = []
        for k in range(3):
            for event in ("PreCompact", "SessionEnd"):
                raw = json.dumps({"session_id": "par-%d" % k, "transcript_path": paths[k], "cwd": "/w",
                                  "hook_event_name": event}).encode()
                procs.append(subprocess.Popen([SEARCH, "hook", "--dir", self.dir], stdin=subprocess.PIPE,
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env))
                procs[-1].stdin.write(raw)
                procs[-1].stdin.close()
        for p in procs:
            self.assertEqual(p.wait(60), 0)
            self.assertEqual(p.stdout.read(), b"")
            p.stdout.close()
            p.stderr.close()
        files = self.session_files()
        self.assertEqual(len(files), 3)
        for f in files:
            with open(f, encoding="utf-8") as fh:
                text = fh.read()
            self.assertEqual(text.count("<!-- session:"), 1, f)
            project = re.findall(r"project (\d)", text)
            self.assertEqual(len(set(project)), 1, f)  # one session's lines only
            self.assertEqual(len(project), 15, f)  # each once, none lost
            for line in text.splitlines():
                self.assertTrue(line == "" or line.startswith(("#", "<!--", "- ")), line)

    def test_a_capture_waits_for_the_writers_lock(self):
        try:
            import fcntl
        except ImportError:
            self.skipTest("no fcntl here")
        self.transcript(TRANSCRIPT)
        lock_path = os.path.join(self.dir, ".memory", "hooks", "capture.lock")
        os.makedirs(os.path.dirname(lock_path))
        with open(lock_path, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # another writer is busy
            raw = json.dumps({"session_id": "sess-1", "transcript_path": os.path.join(self.tmp, "t.jsonl"),
                              "cwd": "/w", "hook_event_name": "PreCompact"}).encode()
            p = subprocess.Popen([SEARCH, "hook", "--dir", self.dir], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=self.env)
            p.stdin.write(raw)
            p.stdin.close()
            waiting = wait_for_lock_waiter(lock_path, p)  # the capture reached the lock and waits there
            self.assertEqual(self.session_files(), [], "wrote while another writer held the lock")
            self.assertIsNone(p.poll(), "the capture finished while another writer held the lock")
            self.assertTrue(waiting or not os.path.exists("/proc/locks"), "the capture never waited for the lock")
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
        self.assertEqual(p.wait(60), 0)
        p.stdout.close()
        p.stderr.close()
        self.assertEqual(len(self.session_files()), 1)

    def test_openclaw_transcript(self):
        lines = [json.dumps({"type": "session", "version": 3, "id": "oc-1", "cwd": "/ws"}),
                 json.dumps({"type": "message", "id": "m1", "message": {"role": "user", "content": [
                     {"type": "text", "text": "记住：我女儿的生日是五月二十日。"}]}}, ensure_ascii=False),
                 json.dumps({"type": "message", "id": "m2", "message": {"role": "assistant", "content": [
                     {"type": "thinking", "thinking": "OC-THINKING"},
                     {"type": "toolCall", "id": "c1", "name": "write", "arguments": {"path": "/ws/notes.md"}}]}}),
                 json.dumps({"type": "message", "id": "m3", "message": {"role": "toolResult", "toolCallId": "c1",
                                                                         "content": [{"type": "text",
                                                                                      "text": "OC-TOOL-RESULT"}]}}),
                 json.dumps({"type": "message", "id": "m4", "message": {"role": "assistant", "content": [
                     {"type": "text", "text": "好的，已经记下了。"}]}}, ensure_ascii=False)]
        self.transcript(lines)
        self.capture("SessionEnd", session_id="oc-1")
        [f] = self.session_files()
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        self.assertIn("五月二十日", text)
        self.assertIn("notes.md", text)
        self.assertNotIn("OC-THINKING", text)
        self.assertNotIn("OC-TOOL-RESULT", text)


class FailOpenTest(HookCase):
    def assert_silent(self, p, logged=True):
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout, b"")
        if logged:
            self.assertTrue(self.log_lines(), "a line in hooks.log")

    def test_no_stdin(self):
        p = subprocess.run([SEARCH, "hook", "--dir", self.dir], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=self.env, timeout=60)
        self.assert_silent(p)
        self.assertEqual(p.stderr, b"")

    def test_bad_json(self):
        for raw in (b"{not json", b"[1, 2]", b"\xff\xfe", b'"just a string"'):
            _, p = self.hook(raw=raw)
            self.assert_silent(p)

    def test_unknown_or_missing_event(self):
        _, p = self.hook(raw=b'{"session_id": "x"}')
        self.assert_silent(p)
        _, p = self.hook("PostToolUse", tool_name="Bash")
        self.assert_silent(p)

    def test_missing_transcript(self):
        _, p = self.hook("PreCompact", transcript_path=os.path.join(self.tmp, "nope.jsonl"))
        self.assert_silent(p)
        self.assertEqual(self.session_files(), [])
        self.assertTrue(any("transcript not found" in l for l in self.log_lines()))

    def test_damaged_transcript_lines_are_skipped(self):
        self.transcript(["{broken", "", "[]", "null"] + TRANSCRIPT[:1] + ["\x00\x01garbage"])
        _, p = self.hook("PreCompact")
        self.assert_silent(p, logged=False)
        self.assertEqual(len(self.session_files()), 1)

    def test_unwritable_memory_folder(self):
        self.transcript(TRANSCRIPT)
        shutil.rmtree(os.path.join(self.dir, "memory"))
        self.write("memory", "a file where the folder should be\n")  # nothing can be written under it
        _, p = self.hook("PreCompact")
        self.assert_silent(p)
        self.assertTrue(any("Error" in l or "cannot" in l for l in self.log_lines()), self.log_lines())

    def test_debug_prints_the_log_line_on_stderr(self):
        _, p = self.hook(raw=b"{bad", env=clean_env(MEMORY_DEBUG="1"))
        self.assertEqual(p.stdout, b"")
        self.assertIn(b"memory hook:", p.stderr)

    def test_damaged_index(self):
        self.hook("SessionStart", source="startup")
        for path in glob.glob(os.path.join(self.dir, ".memory", "index.sqlite3*")):
            with open(path, "wb") as f:
                f.write(b"garbage" * 100)
        context, p = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?",
                               session_id="sess-9")
        self.assertEqual(p.returncode, 0)  # recovered (rebuilt) or silent, never an error


class RedactTest(unittest.TestCase):
    def test_patterns(self):
        from memsuite.app.capture import redact
        for text in ("key sk-proj-abcdefghijklmnopqrstuvwx1234", "token=ghp_abcdefghijklmnopqrstuvwxyz012345",
                     "Authorization: Basic dXNlcjpwYXNz", "https://bob:pa55w0rd@example.com/x",
                     "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----",
                     "password: correct-horse", "我的密码是 abc12345", "AWS AKIAIOSFODNN7EXAMPLE",
                     "mysql --password hunter2", "xoxb-123456789012-abcdefghij"):
            out = redact(text)
            self.assertIn("[redacted]", out, text)
            for secret in ("abcdefghijklmnop", "dXNlcjpwYXNz", "pa55w0rd", "b3BlbnNzaC1rZXk", "correct-horse",
                           "abc12345", "AKIAIOSFODNN7EXAMPLE", "hunter2", "abcdefghij"):
                if secret in text:
                    self.assertNotIn(secret, out, text)

    def test_ordinary_words_stay(self):
        from memsuite.app.capture import redact
        for text in ("the token budget is 500", "passwords should be rotated", "a secret recipe for 饺子",
                     "Authorization is handled by the gateway"):
            self.assertEqual(redact(text), text)

    def test_case_blind_keys_in_odd_letters_are_still_found(self):
        # a case-blind pattern also reads İ and ı as i, ſ as s and the Kelvin sign as k
        from memsuite.text.redact import redact
        for text in ("PASSWORD: correct-horse", "paſſword: correct-horse", "AUTHORİZATION: Basic dXNlcjpwYXNz",
                     "api_\u212aey=abcd1234efgh", "Bearer abcdefghijklmnop"):
            self.assertIn("[redacted]", redact(text), text)


class NoMemoryFolderTest(unittest.TestCase):
    """A plugin installed with no memory folder (no MEMORY_DIR, the suite in
    its client's cache): the session's start says so to the user, and nothing
    is indexed inside the suite's folder."""

    def setUp(self):
        import tempfile
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.suite = os.path.join(self.tmp, "cache", "market", "memory-suite", "1.0")
        os.makedirs(self.suite)
        for name in ("search.sh", "memory_search.py", "memory_store.py", "memory_linker.py"):
            shutil.copy(os.path.join(ROOT, name), self.suite)
        shutil.copytree(os.path.join(ROOT, "memsuite"), os.path.join(self.suite, "memsuite"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.cache = os.path.join(self.tmp, "user-cache")

    def hook(self, event):
        p = subprocess.run([os.path.join(self.suite, "search.sh"), "hook"], input=json.dumps(event).encode(),
                           capture_output=True, env=clean_env(XDG_CACHE_HOME=self.cache), timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.decode()

    def test_the_user_is_told_and_nothing_is_indexed_in_the_plugin(self):
        out = self.hook({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"})
        message = json.loads(out)["systemMessage"]
        self.assertIn("MEMORY_DIR", message)
        self.assertNotIn("hookSpecificOutput", out)  # a line for the user, not context for the model
        self.assertEqual(self.hook({"hook_event_name": "UserPromptSubmit", "session_id": "s1",
                                    "prompt": "what did we decide about the deploy key"}), "")
        self.assertFalse(os.path.exists(os.path.join(self.suite, ".memory")))
        with open(os.path.join(self.cache, "memory-suite", "hooks.log"), encoding="utf-8") as f:
            self.assertEqual(len([l for l in f if "MEMORY_DIR" in l]), 2)  # every event logged

    def test_a_memory_dir_naming_no_folder_is_said_at_the_start(self):
        """A typo or a moved folder: the session's start names it, and no
        event is an error to the client."""
        missing = os.path.join(self.tmp, "memz")
        env = clean_env(XDG_CACHE_HOME=self.cache, MEMORY_DIR=missing)
        said = []
        for event in ({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"},
                      {"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": "the deploy key"}):
            p = subprocess.run([os.path.join(ROOT, "search.sh"), "hook"], input=json.dumps(event).encode(),
                               capture_output=True, env=env, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            said.append(p.stdout.decode())
        self.assertIn(missing, json.loads(said[0])["systemMessage"])
        self.assertEqual(said[1], "")
        self.assertFalse(os.path.exists(missing))

    def test_no_command_writes_an_index_inside_the_plugin(self):
        """The suite's own folder is searched when no memory folder is found;
        its index goes to the user's cache, never into the folder a client's
        reinstall deletes."""
        env = clean_env(XDG_CACHE_HOME=self.cache, HOME=self.tmp)
        said = b""
        for args in (["deploy key"], ["status"], ["sync"], ["doctor"]):
            p = subprocess.run([os.path.join(self.suite, "search.sh")] + args, capture_output=True, env=env,
                               cwd=self.tmp, timeout=120)
            self.assertNotIn(b"Traceback", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.suite, ".memory")), args)
            said += p.stdout
        self.assertIn(b"problem: no memory folder found", said)  # doctor's line


class InstallTest(unittest.TestCase):
    def test_claude_plugin_files(self):
        with open(os.path.join(ROOT, ".claude-plugin", "plugin.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        self.assertEqual(manifest["name"], "memory-suite")
        with open(os.path.join(ROOT, "hooks", "hooks.json"), encoding="utf-8") as f:
            hooks = json.load(f)["hooks"]
        self.assertEqual(set(hooks), {"SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"})
        for groups in hooks.values():
            for group in groups:
                for h in group["hooks"]:
                    self.assertEqual(h["type"], "command")
                    self.assertIn("${CLAUDE_PLUGIN_ROOT}/search.sh", h["command"])
                    self.assertIn(" hook", h["command"])

    @unittest.skipUnless(shutil.which("claude"), "the claude CLI is not installed")
    def test_claude_plugin_validate(self):
        p = subprocess.run(["claude", "plugin", "validate", ROOT], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn(b"Validation passed", p.stdout)

    def test_claude_marketplace_lists_the_suite_itself(self):
        with open(os.path.join(ROOT, ".claude-plugin", "marketplace.json"), encoding="utf-8") as f:
            market = json.load(f)
        [plugin] = market["plugins"]
        self.assertEqual(plugin["name"], "memory-suite")
        self.assertEqual(os.path.realpath(os.path.join(ROOT, plugin["source"])), os.path.realpath(ROOT))
        self.assertTrue(market["name"] and market["owner"]["name"])

    def test_codex_config(self):
        with open(os.path.join(ROOT, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            hooks = json.load(f)["hooks"]
        # Stop captures after every turn, so a SessionEnd would only cost a process more each exec
        self.assertEqual(set(hooks), {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"})
        self.assertIn("--stop", hooks["Stop"][0]["hooks"][0]["command"])
        self.assertIn("--detach", hooks["Stop"][0]["hooks"][0]["command"])
        for groups in hooks.values():  # the memory folder on the command line: TUI hooks keep the daemon's env
            self.assertIn("--dir /path/to/memory", groups[0]["hooks"][0]["command"])

    def test_openclaw_plugin_folder(self):
        folder = os.path.join(ROOT, "integrations", "openclaw", "memory-suite-plugin")
        with open(os.path.join(folder, "openclaw.plugin.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        with open(os.path.join(folder, "package.json"), encoding="utf-8") as f:
            package = json.load(f)
        self.assertEqual(manifest["id"], "memory-suite")
        self.assertFalse(package.get("dependencies"))  # plain JavaScript, nothing to install
        self.assertEqual(package["openclaw"]["extensions"], ["./index.js"])
        with open(os.path.join(folder, "index.js"), encoding="utf-8") as f:
            source = f.read()
        for event in ("before_prompt_build", "agent_end", "before_reset"):
            self.assertIn('"%s"' % event, source)

    def test_openclaw_hook_folder(self):
        folder = os.path.join(ROOT, "integrations", "openclaw", "memory-suite")
        with open(os.path.join(folder, "HOOK.md"), encoding="utf-8") as f:
            head = f.read().split("---")[1]
        for event in ("command:new", "command:reset", "session:compact:before"):
            self.assertIn(event, head)
        self.assertTrue(os.path.exists(os.path.join(folder, "handler.js")))


def _node():
    node = shutil.which("node")
    if not node:
        return None
    try:
        out = subprocess.run([node, "--version"], stdout=subprocess.PIPE, timeout=30).stdout.decode()
        return node if int(out.strip().lstrip("v").split(".")[0]) >= 18 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


class OpenClawHandlerTest(HookCase):
    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_handler_runs_search_sh_hook(self):
        path = self.transcript(TRANSCRIPT)
        handler = os.path.join(ROOT, "integrations", "openclaw", "memory-suite", "handler.js")
        event = {"type": "session", "action": "compact:before", "sessionKey": "agent:main:main",
                 "timestamp": "2026-12-01T09:00:00Z", "messages": [],
                 "context": {"sessionId": "oc-77", "sessionFile": path, "workspaceDir": self.dir}}
        script = ("import(process.argv[1]).then(m => m.default(JSON.parse(process.argv[2])))"
                  ".then(() => console.log('done'))")
        p = subprocess.run([_node(), "--input-type=module", "-e", script, handler, json.dumps(event)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"done", p.stdout)
        [f] = self.session_files()
        with open(f, encoding="utf-8") as fh:
            self.assertIn("Fly.io", fh.read())
        # as OpenClaw 2026.9 sends compact:before: only the session id; the transcript is in the state folder
        state = os.path.join(self.tmp, "state")
        os.makedirs(os.path.join(state, "agents", "main", "sessions"))
        shutil.copy(path, os.path.join(state, "agents", "main", "sessions", "oc-88.jsonl"))
        bare = dict(event, context={"sessionId": "oc-88", "messageCount": 11})
        p = subprocess.run([_node(), "--input-type=module", "-e", script, handler, json.dumps(bare)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
                           env=clean_env(OPENCLAW_STATE_DIR=state, MEMORY_DIR=self.dir))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(self.session_files()), 2)
        event["type"], event["action"] = "command", "stop"  # not ours: nothing happens
        p = subprocess.run([_node(), "--input-type=module", "-e", script, handler, json.dumps(event)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)


class OpenClawPluginTest(HookCase):
    """integrations/openclaw/memory-suite-plugin driven as OpenClaw 2026.9 calls it."""
    SCRIPT = ("const m = await import(process.argv[1]); const [config, calls] = JSON.parse(process.argv[2]);"
              "const p = m.createPlugin(config); const out = [];"
              "for (const [name, event, ctx] of calls) out.push(name === 'prompt' ? await p.beforePrompt(event, ctx)"
              " : name === 'compaction' ? p.compacted(ctx) : await p.capture(event, ctx, name));"
              " console.log(JSON.stringify(out));")

    def run_plugin(self, config, calls):
        index = os.path.join(ROOT, "integrations", "openclaw", "memory-suite-plugin", "index.js")
        p = subprocess.run([_node(), "--input-type=module", "-e", self.SCRIPT, index, json.dumps([config, calls])],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout.decode("utf-8").strip().splitlines()[-1])

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_recall_before_the_prompt_and_capture_from_the_messages(self):
        ctx = {"sessionId": "oc-9", "workspaceDir": self.dir}
        messages = [{"role": "user", "content": [{"type": "text", "text": "Remember that the kayak is in shed 3."}],
                     "timestamp": 1796150000000},
                    {"role": "assistant", "content": [{"type": "text", "text": "Noted: shed 3."}]}]
        first, second, captured = self.run_plugin({"search": SEARCH, "memoryDir": self.dir}, [
            ["prompt", {"prompt": "How did we fix the RSS feed duplicates in Feedly?"}, ctx],
            ["prompt", {"prompt": "How did we fix the RSS feed duplicates in Feedly?"}, ctx],
            ["SessionEnd", {"messages": messages}, ctx]])
        self.assertIn("<memory-notes", first["prependContext"])
        self.assertIn("Long-term", first["prependContext"])  # the brief comes with the session's first prompt
        sent = [l for l in first["prependContext"].split("\n") if l.startswith("- ")]
        self.assertFalse(second and any(l in second["prependContext"] for l in sent), second)  # never twice
        self.assertIsNone(captured)
        [f] = self.session_files()
        self.assertTrue(f.endswith("-session-oc-9.md"), f)
        with open(f, encoding="utf-8") as fh:
            self.assertIn("shed 3", fh.read())

    def brief_lines(self, out):
        text = (out or {}).get("prependContext", "")
        return [l for l in text.split("\n") if l.startswith("- ")] if "Long-term" in text else []

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_a_gateway_restart_does_not_send_the_brief_again(self):
        ctx = {"sessionId": "oc-restart", "workspaceDir": self.dir}
        config = {"search": SEARCH, "memoryDir": self.dir}
        ask = ["prompt", {"prompt": "What did I plan for the weekend?"}, ctx]
        [first] = self.run_plugin(config, [ask])
        self.assertTrue(self.brief_lines(first), first)
        [again] = self.run_plugin(config, [ask])  # a new process: the gateway restarted
        self.assertFalse(self.brief_lines(again), again)
        [other] = self.run_plugin(config, [["prompt", ask[1], dict(ctx, sessionId="oc-new")]])
        self.assertTrue(self.brief_lines(other), other)  # a new session still gets it

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_after_a_compaction_or_a_reset_the_brief_comes_again(self):
        ctx = {"sessionId": "oc-compact", "workspaceDir": self.dir}
        ask = ["prompt", {"prompt": "What did I plan for the weekend?"}, ctx]
        messages = [{"role": "user", "content": [{"type": "text", "text": "Remember that the kayak is in shed 3."}]}]
        out = self.run_plugin({"search": SEARCH, "memoryDir": self.dir}, [
            ask, ask, ["compaction", {}, ctx], ask, ["SessionEnd", {"messages": messages}, ctx], ask])
        first, second, _, compacted, _, reset = out
        self.assertTrue(self.brief_lines(first))
        self.assertFalse(self.brief_lines(second))
        self.assertTrue(self.brief_lines(compacted), compacted)
        self.assertTrue(self.brief_lines(reset), reset)

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_no_search_sh_is_said_once(self):
        index = os.path.join(ROOT, "integrations", "openclaw", "memory-suite-plugin", "index.js")
        script = ("const m = await import(process.argv[1]); const said = [];"
                  "const p = m.createPlugin({search: '/nonexistent/search.sh'}, {warn: (t) => said.push(t)});"
                  "await p.beforePrompt({prompt: 'a'}, {sessionId: 's', workspaceDir: '/nonexistent'});"
                  "await p.beforePrompt({prompt: 'b'}, {sessionId: 's', workspaceDir: '/nonexistent'});"
                  "console.log(JSON.stringify(said));")
        env = dict(self.env, HOME=self.tmp, OPENCLAW_STATE_DIR=os.path.join(self.tmp, "oc"))
        env.pop("MEMORY_SUITE_SEARCH", None)
        copy = os.path.join(self.tmp, "plugin-copy", "index.js")  # as OpenClaw runs a linked plugin: a copy
        os.makedirs(os.path.dirname(copy))
        shutil.copy(index, copy)
        p = subprocess.run([_node(), "--input-type=module", "-e", script, copy], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, timeout=120)
        said = json.loads(p.stdout.decode("utf-8").strip().splitlines()[-1])
        self.assertEqual(len(said), 1, said)
        self.assertIn("config.search", said[0])

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_a_thin_prompt_is_recalled_with_the_events_messages(self):
        """before_prompt_build's event.messages reach the hook: a prompt whose
        topic only the earlier messages name gets the note of that topic."""
        ctx = {"sessionId": "oc-talk", "workspaceDir": self.dir}
        messages = [{"role": "user", "content": [{"type": "text", "text": "Feedly shows duplicate posts of the "
                                                                          "blog RSS feed again"}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "The feed ids changed?"}]}]
        prompt = "Okay, what did we decide back then?"
        talked, alone = self.run_plugin({"search": SEARCH, "memoryDir": self.dir}, [
            ["prompt", {"prompt": prompt, "messages": messages}, ctx],
            ["prompt", {"prompt": prompt, "messages": []}, dict(ctx, sessionId="oc-alone")]])
        recalled = lambda out: out["prependContext"].partition("## Memories for")[2] if out else ""  # noqa: E731
        self.assertIn("Feedly", recalled(talked))
        self.assertNotIn("Feedly", recalled(alone))

    @unittest.skipUnless(_node(), "node >= 18 is not installed")
    def test_fails_open(self):
        missing = os.path.join(self.tmp, "no-such-folder")
        out = self.run_plugin({"search": SEARCH, "memoryDir": missing}, [
            ["prompt", {"prompt": "How did we fix the RSS feed duplicates?"}, {"sessionId": "x"}],
            ["SessionEnd", {"messages": "not a list"}, {"sessionId": "x"}],
            ["prompt", {}, None]])
        self.assertEqual(out, [None, None, None])


class OpenClawCliTest(TempMemory):
    @unittest.skipUnless(shutil.which("openclaw"), "the openclaw CLI is not installed")
    def test_openclaw_sees_the_hook_ready(self):
        home = os.path.join(self.tmp, "home")
        shutil.copytree(os.path.join(ROOT, "integrations", "openclaw", "memory-suite"),
                        os.path.join(home, ".openclaw", "hooks", "memory-suite"))
        env = dict(os.environ, HOME=home)
        env.pop("OPENCLAW_STATE_DIR", None)
        p = subprocess.run(["openclaw", "hooks", "list", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = p.stdout.decode("utf-8")
        data = json.loads(text[text.index("{"):])
        [ours] = [h for h in data["hooks"] if h["name"] == "memory-suite"]
        self.assertTrue(ours.get("eligible") and ours.get("loadable"), ours)
        self.assertEqual(ours.get("unknownEvents"), [])
        p = subprocess.run(["openclaw", "hooks", "info", "memory-suite"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, timeout=300)
        self.assertIn(b"session:compact:before", p.stdout)


class AddWritingTest(TempMemory):
    def add(self, *args, input_bytes=None):
        return subprocess.run([SEARCH, "add", "--dir", self.dir] + list(args), input=input_bytes,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(), timeout=60)

    def read(self, rel):
        with open(os.path.join(self.dir, rel), encoding="utf-8") as f:
            return f.read()

    def test_heading_is_reused(self):
        for i in range(5):
            self.assertEqual(self.add("batch note %d" % i, "--heading", "Batch").returncode, 0)
        text = self.read("memory/%s.md" % today())
        self.assertEqual(text.count("## Batch"), 1)
        self.assertEqual(text.count("batch note"), 5)

    def test_heading_in_the_middle_gets_the_note_at_its_end(self):
        self.write("MEMORY.md", "# MEMORY\n\n## People\n- Alice: designer\n\n## Work\n- Shop on Fly.io\n")
        p = self.add("Bob: Alice's brother", "--heading", "People", "--file", "MEMORY.md", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(self.read("MEMORY.md"),
                         "# MEMORY\n\n## People\n- Alice: designer\n- Bob: Alice's brother\n\n## Work\n- Shop on Fly.io\n")
        self.assertEqual(json.loads(p.stdout)["id"], "MEMORY.md:5-5")
        found = subprocess.run([SEARCH, "--dir", self.dir, "get", "MEMORY.md:5-5", "--plain"],
                               stdout=subprocess.PIPE, env=clean_env(), timeout=60).stdout.decode()
        self.assertIn("Bob", found)

    def test_unclosed_private_is_refused_and_status_warns(self):
        self.write("memory/2026-01-01.md", "# 2026-01-01\n\n<private>\nmy diary\n")
        before = self.read("memory/2026-01-01.md")
        p = self.add("a public note", "--file", "memory/2026-01-01.md")
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"private", p.stderr)
        self.assertEqual(self.read("memory/2026-01-01.md"), before)
        status = subprocess.run([SEARCH, "status", "--dir", self.dir], stdout=subprocess.PIPE, env=clean_env(),
                                timeout=60).stdout.decode()
        self.assertIn("memory/2026-01-01.md: <private> at line 3 is never closed", status)

    def test_invalid_utf8_is_rejected(self):
        day = today()
        self.write("memory/%s.md" % day, "# %s\n\n- fine\n" % day)
        p = self.add("-", input_bytes=b"caf\xe9 au lait\n")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn(b"UTF-8", p.stderr)
        p = subprocess.run([SEARCH, "add", "--dir", self.dir, os.fsdecode(b"bad \xff arg")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(), timeout=60)
        self.assertEqual(p.returncode, 2, p.stderr)
        with open(os.path.join(self.dir, "memory", "%s.md" % day), "rb") as f:
            f.read().decode("utf-8")  # still valid UTF-8


if __name__ == "__main__":
    unittest.main()
