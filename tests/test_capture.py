"""Capture keeps what the people said, once (issue 26): transcripts shaped like
the real clients' (tests/fixtures/transcripts: Claude Code 2.1.197 and Codex
0.171 sessions recorded against the stubs of ../shared/realclients), the
client's own records left out by their structure, no line twice, a cue's
completing sentence kept, questions only beside their answers, corrections
dated, one file per whole session id, OpenClaw's masked secrets redacted."""
import json
import os
import subprocess
import unittest

from helpers import ROOT, TempMemory, clean_env
from memsuite.app import capture as cap

SEARCH = os.path.join(ROOT, "search.sh")
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "transcripts")


def record(role, content, **extra):
    rec = {"type": role, "message": {"role": role, "content": content}, "sessionId": "s",
           "timestamp": "2026-11-20T09:00:00Z", "uuid": "u"}
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


class CaptureCase(TempMemory):
    def lines_of(self, records):
        path = os.path.join(self.tmp, "t.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(records) + "\n")
        return cap.capture_lines(path)

    def fixture(self, name):
        return cap.capture_lines(os.path.join(FIXTURES, name))

    def assert_once(self, lines, text):
        self.assertEqual(sum(text in line for line in lines), 1, (text, lines))


class ClientRecordsTest(CaptureCase):
    def test_claude_code_compaction_summary_and_command_records_are_left_out(self):
        lines = self.fixture("claude-code-compact.jsonl")
        text = "\n".join(lines)
        # the summary (isCompactSummary) quotes every user message: each fact would be there twice
        for fact in ("88412", "周三下午四点", "db.internal"):
            self.assert_once(lines, fact)
        for gone in ("Primary Request", "continued from a previous conversation", "compact", "Compacted",
                     "Caveat", "TOOLNOISE", "Hunter2Secret", "Zx9Qw8Er7Ty6"):
            self.assertNotIn(gone, text)

    def test_a_flagged_summary_is_left_out_whatever_its_words(self):
        lines = self.lines_of([
            record("user", "Remember that the boiler is serviced in May."),
            record("system", None, subtype="compact_boundary"),
            record("user", "Remember that SUMMARY-WORDS are kept.", isCompactSummary=True,
                   isVisibleInTranscriptOnly=True),
            record("user", "We decided to paint the fence green.")])
        self.assertNotIn("SUMMARY-WORDS", "\n".join(lines))
        self.assertIn("fence green", "\n".join(lines))
        self.assertIn("boiler", "\n".join(lines))
        # unflagged, the first user record after the boundary is still the client's summary
        lines = self.lines_of([record("system", None, subtype="compact_boundary"),
                               record("user", "Remember that SUMMARY-WORDS are kept."),
                               record("user", "Remember that the gate code is 4711.")])
        self.assertNotIn("SUMMARY-WORDS", "\n".join(lines))
        self.assertIn("4711", "\n".join(lines))

    def test_codex_environment_context_and_compaction_turn_are_left_out(self):
        lines = self.fixture("codex-compact.jsonl")
        text = "\n".join(lines)
        for gone in ("environment_context", "<cwd>", "current_date", "## Summary", "handoff", "permissions",
                     "Another language model"):
            self.assertNotIn(gone, text)
        self.assert_once(lines, "4-112")
        self.assert_once(lines, "周四下午要去取护照")

    def test_codex_rollouts_that_record_what_was_typed(self):
        def item(kind, **payload):
            return json.dumps({"timestamp": "2026-11-20T09:00:00Z", "type": kind, "payload": payload})
        lines = self.lines_of([
            item("response_item", type="message", role="user", content=[
                {"type": "input_text", "text": "# AGENTS.md instructions for /p\n\nINSTRUCTIONS-TEXT"}]),
            item("response_item", type="message", role="user", content=[
                {"type": "input_text", "text": "Remember that the van is parked on level 3."}]),
            item("event_msg", type="user_message", message="Remember that the van is parked on level 3."),
            item("response_item", type="message", role="assistant", content=[
                {"type": "output_text", "text": "Noted: level 3."}]),
            item("event_msg", type="agent_message", message="Noted: level 3.")])
        text = "\n".join(lines)
        self.assertNotIn("INSTRUCTIONS-TEXT", text)
        self.assert_once(lines, "parked on level 3")
        self.assert_once(lines, "Noted: level 3.")

    def test_client_tags_and_notices_are_not_what_was_said(self):
        lines = self.lines_of([
            record("user", "<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"),
            record("user", "<user_instructions>Always answer in verse.</user_instructions>Remember that the "
                           "bins go out on Tuesday."),
            record("user", "[Request interrupted by user]"),
            record("assistant", "ok")])
        text = "\n".join(lines)
        self.assertNotIn("cwd", text)
        self.assertNotIn("verse", text)
        self.assertNotIn("interrupted", text)
        self.assertIn("bins go out on Tuesday", text)


class LinesTest(CaptureCase):
    def test_a_concluded_sentence_is_not_written_again_inside_the_whole_reply(self):
        lines = self.lines_of([
            record("user", "Why does the build fail?"),
            record("assistant", "I looked at the logs first. The cause was a stale cache in CI. I cleared it.")])
        self.assert_once(lines, "stale cache")

    def test_the_sentence_that_completes_a_cue_is_kept_with_it(self):
        lines = self.lines_of([record("user", "Remember that my new badge number is 88412. The old one (7731) "
                                              "is void. What else is on today?")])
        [line] = [l for l in lines if "88412" in l]
        self.assertIn("The old one (7731) is void.", line)
        self.assertNotIn("What else", line)

    def test_questions_are_never_noted_and_only_their_answers_kept(self):
        lines = self.lines_of([record("user", "我的护照取件号是多少？"),
                               record("assistant", "取件号是 A-3307，周四下午可以取。")])
        self.assertFalse([l for l in lines if l.startswith("- Noted")], lines)
        self.assertEqual(lines, ["- Answered: 取件号是 A-3307，周四下午可以取。"])
        self.assertEqual(self.lines_of([record("user", "What's my badge number now?")]), [])

    def test_corrections_are_dated(self):
        lines = self.lines_of([record("user", "记住：我女儿的钢琴课改到周三下午四点。"),
                               record("user", "The gym is no longer on Main Street; remember it is on Elm Road."),
                               record("user", "以后周报都用中文写。"),
                               record("user", "Remember that I like green tea.")])
        for text in ("周三下午四点", "Elm Road", "周报"):
            [line] = [l for l in lines if text in l]
            self.assertTrue(line.startswith("- Corrected (2026-11-20): "), line)
        [tea] = [l for l in lines if "green tea" in l]
        self.assertTrue(tea.startswith("- Noted: "), tea)

    def test_openclaw_messages_with_masked_secrets(self):
        messages = [{"role": "user", "content": [{"type": "text", "text": "Remember the home-lab key is "
                                                  "sk-ant…2345 and the token ghp_R2…6Kk9."}],
                     "timestamp": 1796150000000},
                    {"role": "assistant", "content": [{"type": "text", "text": "Noted, I will keep the key out."}]}]
        lines = cap.capture_lines(None, messages=messages)
        text = "\n".join(lines)
        self.assertIn("home-lab key", text)
        for gone in ("2345", "6Kk9", "sk-ant"):
            self.assertNotIn(gone, text)
        self.assertEqual(cap.redact("really…okay, wait… what"), "really…okay, wait… what")


class SessionFileTest(TempMemory):
    def hook(self, payload):
        p = subprocess.run([SEARCH, "hook", "--dir", self.dir], input=json.dumps(payload).encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(), timeout=60)
        self.assertEqual((p.returncode, p.stdout), (0, b""), p.stderr)

    def test_one_file_per_session_named_by_the_whole_id(self):
        os.makedirs(os.path.join(self.dir, "memory"), exist_ok=True)
        ids = ["01a23345-5e5b-7d41-a224-47dc1127a37e", "01a23345-6382-70f2-83f0-905439d12be9"]  # UUIDv7, a second apart
        for n, sid in enumerate(ids):
            path = os.path.join(self.tmp, "t%d.jsonl" % n)
            with open(path, "w", encoding="utf-8") as f:
                f.write(record("user", "Remember that locker %d is mine." % (40 + n)) + "\n")
            self.hook({"hook_event_name": "SessionEnd", "session_id": sid, "transcript_path": path, "cwd": "/p"})
        names = sorted(n for n in os.listdir(os.path.join(self.dir, "memory")) if "-session-" in n)
        self.assertEqual(len(names), 2, names)
        for sid, name in zip(ids, names):
            self.assertTrue(name.endswith("-session-%s.md" % sid), name)
            with open(os.path.join(self.dir, "memory", name), encoding="utf-8") as f:
                self.assertEqual(f.read().count("locker"), 1)

    def test_messages_on_stdin_are_captured_without_a_transcript(self):
        self.hook({"hook_event_name": "SessionEnd", "session_id": "oc-5", "cwd": "/ws",
                   "messages": [{"role": "user", "content": "Remember that the boat is moored at pier 9."}]})
        [name] = [n for n in os.listdir(os.path.join(self.dir, "memory")) if "-session-oc-5" in n]
        with open(os.path.join(self.dir, "memory", name), encoding="utf-8") as f:
            self.assertIn("pier 9", f.read())

    def test_a_question_session_never_outranks_the_fact(self):
        os.makedirs(os.path.join(self.dir, "memory"), exist_ok=True)
        sessions = [("s-fact", [record("user", "Remember that my new badge number is 88412."),
                                record("assistant", "Noted.")]),
                    ("s-question", [record("user", "What's my badge number now?"),
                                    record("assistant", "I could not find it in the notes.")])]
        for sid, records in sessions:
            path = os.path.join(self.tmp, sid + ".jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(records) + "\n")
            self.hook({"hook_event_name": "SessionEnd", "session_id": sid, "transcript_path": path, "cwd": "/p"})
        out = subprocess.run([SEARCH, "--dir", self.dir, "What's my badge number now?", "--json"],
                             stdout=subprocess.PIPE, env=clean_env(), timeout=60)
        hits = [h for h in json.loads(out.stdout)["results"] if "-session-" in h["path"]]
        self.assertTrue(hits and "s-fact" in hits[0]["path"], [(h["path"], h["score"]) for h in hits])


if __name__ == "__main__":
    unittest.main()
