"""The prompt hook's gate and budget, and injection that respects what a
session holds (issue 25): resumed and compacted sessions are sent what
changed, a chunk partly in the brief is still recalled for its other lines,
long prompts are judged like short questions, long lines are cut to their
best sentences.  Hooks run as Claude Code runs them (test_hooks.HookCase)."""
import json
import os
import shutil
import unittest

from helpers import ROOT, TempMemory
from test_hooks import HookCase, check_citations

CHANGED_FACTS = os.path.join(ROOT, "tests", "folders", "changed-facts")


def memory_lines(context):
    """The lines of injected text that come from memory files (not framing, citations or headings)."""
    return [l for l in (context or "").split("\n") if l.startswith("- ")]


class ResumeTest(HookCase):
    def test_a_resumed_session_gets_only_what_changed(self):
        first, _ = self.hook("SessionStart", source="startup")
        self.assertIn("KX-4471", first)
        again, p = self.hook("SessionStart", source="resume")
        self.assertIsNone(again, "nothing changed: nothing is sent")
        self.assertEqual(p.stdout, b"")
        with open(os.path.join(self.dir, "MEMORY.md"), "a", encoding="utf-8") as f:
            f.write("- The spare house key is with the neighbour at number 14.\n")
        changed, _ = self.hook("SessionStart", source="resume")
        self.assertIn("spare house key", changed)
        self.assertNotIn("KX-4471", changed)
        check_citations(self, self.dir, changed)
        self.assertEqual(len(memory_lines(changed)), 1, changed)

    def test_resumed_four_times_carries_one_brief(self):
        sent = [self.hook("SessionStart", source=s)[0] for s in ("startup", "resume", "resume", "resume", "resume")]
        self.assertTrue(sent[0])
        self.assertEqual(sent[1:], [None] * 4)

    def test_clear_and_a_new_session_get_the_whole_brief_again(self):
        first, _ = self.hook("SessionStart", source="startup")
        cleared, _ = self.hook("SessionStart", source="clear")
        self.assertEqual(memory_lines(cleared), memory_lines(first))
        other, _ = self.hook("SessionStart", source="startup", session_id="sess-2")
        self.assertEqual(memory_lines(other), memory_lines(first))

    def test_compact_sends_the_checkpoint_and_the_brief_again(self):
        """A compaction drops the notes from the model's context (Claude Code
        2.1.197: the request after /compact carries no earlier brief; Codex
        0.171: its replacement history leaves our developer message out):
        the checkpoint and the brief again; then a resume gets nothing."""
        from test_hooks import TRANSCRIPT
        first, _ = self.hook("SessionStart", source="startup")
        self.transcript(TRANSCRIPT + [cc_attachment(first)])
        self.hook("PreCompact", trigger="manual", custom_instructions="")
        context, _ = self.hook("SessionStart", source="compact")
        self.assertIn("This session before compaction", context)
        self.assertIn("Fly.io", context)
        self.assertIn("KX-4471", context)
        boundary = json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": "b1", "compactMetadata": {
            "preservedMessages": {"allUuids": ["kept-1"]}}})
        self.transcript(TRANSCRIPT + [cc_attachment(first), boundary, cc_attachment(context)])
        again, _ = self.hook("SessionStart", source="resume")
        self.assertIsNone(again, "the compaction's brief is in the context")

    def test_a_compaction_keeps_the_notes_of_the_messages_it_keeps(self):
        first, _ = self.hook("SessionStart", source="startup")
        for kept in (["u-brief"], []):
            boundary = json.dumps({"type": "system", "subtype": "compact_boundary", "compactMetadata": {
                "preservedMessages": {"allUuids": kept}}})
            brief_record = json.loads(cc_attachment(first))
            brief_record["uuid"] = "u-brief"
            self.transcript([json.dumps(brief_record), boundary], name="c%d.jsonl" % len(kept))
            again, _ = self.hook("SessionStart", source="resume", session_id="sess-c%d" % len(kept),
                                 transcript_path=os.path.join(self.tmp, "c%d.jsonl" % len(kept)))
            if kept:
                self.assertIsNone(again, "the brief's message was kept")
            else:
                self.assertIn("KX-4471", again)

    def test_a_resumed_session_is_not_sent_its_own_capture(self):
        from test_hooks import TRANSCRIPT
        self.hook("SessionStart", source="startup")
        self.transcript(TRANSCRIPT)
        self.hook("SessionEnd", reason="other")  # claude -p ends the session; --resume takes it up again
        resumed, _ = self.hook("SessionStart", source="resume")
        self.assertTrue(resumed is None or "Fly.io" not in resumed, resumed)
        other, _ = self.hook("SessionStart", source="startup", session_id="sess-2")
        self.assertIn("Fly.io", other)

    def test_what_a_prompt_got_is_not_sent_by_a_resume(self):
        context, _ = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?")
        self.assertTrue(context)
        brief, _ = self.hook("SessionStart", source="resume")
        self.assertFalse(set(memory_lines(context)) & set(memory_lines(brief)))

    def test_damaged_session_state_fails_open(self):
        self.hook("SessionStart", source="startup")
        folder = os.path.join(self.dir, ".memory", "hooks")
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), "w") as f:
                f.write('{"held": 7, "capture": ')
        context, _ = self.hook("SessionStart", source="resume")
        self.assertIn("KX-4471", context)  # nothing known as held: the whole brief


class ForkTest(HookCase):
    """Codex's SessionStart source=fork: a new session id whose conversation
    is its parent's, named by forked_from_id in its transcript's first line."""

    def fork_transcript(self, parent):
        meta = {"timestamp": "2026-12-01T10:00:00Z", "type": "session_meta",
                "payload": {"id": "sess-fork", "forked_from_id": parent, "cwd": "/work/shop"}}
        return self.transcript([json.dumps(meta)], name="fork.jsonl")

    def test_a_fork_of_a_briefed_session_gets_only_what_changed(self):
        first, _ = self.hook("SessionStart", source="startup")
        self.assertIn("KX-4471", first)
        path = self.fork_transcript("sess-1")
        forked, _ = self.hook("SessionStart", source="fork", session_id="sess-fork", transcript_path=path)
        self.assertIsNone(forked, "its parent's brief is in its conversation")
        with open(os.path.join(self.dir, "MEMORY.md"), "a", encoding="utf-8") as f:
            f.write("- The spare house key is with the neighbour at number 14.\n")
        later, _ = self.hook("SessionStart", source="fork", session_id="sess-fork-2", transcript_path=path)
        self.assertIn("spare house key", later)
        self.assertNotIn("KX-4471", later)

    def test_a_forks_prompt_holds_what_its_parent_was_sent_without_a_session_start(self):
        # Codex 0.171 `exec fork`: without "fork" in the SessionStart matcher the prompt comes first
        brief, _ = self.hook("SessionStart", source="startup")
        path = self.fork_transcript("sess-1")
        context, _ = self.hook("UserPromptSubmit", prompt=PROFILE, session_id="sess-fork", transcript_path=path)
        self.assertFalse(set(memory_lines(context)) & set(memory_lines(brief)), context)
        alone, _ = self.hook("UserPromptSubmit", prompt=PROFILE, session_id="sess-other")
        self.assertTrue(set(memory_lines(alone)) & set(memory_lines(brief)), "the prompt must reach the brief's lines")

    def test_the_codex_hooks_start_a_fork(self):
        with open(os.path.join(ROOT, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            [start] = json.load(f)["hooks"]["SessionStart"]
        self.assertIn("fork", start["matcher"].split("|"))

    def test_a_fork_of_an_unknown_parent_gets_the_brief_as_a_new_session(self):
        # its parent may never have had one: a brief twice costs less than none
        for path in (os.path.join(self.tmp, "missing.jsonl"), self.transcript(["[" * 100000], name="deep.jsonl")):
            forked, _ = self.hook("SessionStart", source="fork", session_id="sess-fork-%d" % len(path),
                                  transcript_path=path)
            self.assertIn("KX-4471", forked)


def cc_attachment(context, hook="SessionStart"):
    """A Claude Code transcript record of a hook's additionalContext (as 2.1.197 writes it)."""
    return json.dumps({"type": "attachment", "sessionId": "any", "uuid": "u-%d" % len(context),
                       "attachment": {"type": "hook_additional_context", "content": [context],
                                      "hookName": hook, "hookEvent": hook}})


def codex_developer(context):
    """A Codex rollout record of a hook's context (the model's input: a developer message)."""
    return json.dumps({"type": "response_item", "payload": {
        "type": "message", "role": "developer", "content": [{"type": "input_text", "text": context}]}})


SPARE_KEY = "- The spare house key is with the neighbour at number 14.\n"
PROFILE = "Who is Lin Wei, what does he work as, and which time zone and phone number are on file?"


class TranscriptHeldTest(HookCase):
    """What a session's transcript carries of the notes the hooks sent is
    held, whatever the session id.  Claude Code 2.1.197's `--resume ID
    --fork-session` (the real client, tests/e2e): SessionStart comes with
    source=resume under the PARENT's id and transcript; the prompts that
    follow come under a new id whose transcript, a copy of the parent's
    records (its notes included), is written only after the first prompt."""

    def add_note(self):
        with open(os.path.join(self.dir, "MEMORY.md"), "a", encoding="utf-8") as f:
            f.write(SPARE_KEY)

    def briefed_parent(self):
        """sess-1 briefed at startup, its transcript holding the brief as Claude Code records it."""
        brief, _ = self.hook("SessionStart", source="startup")
        self.assertIn("KX-4471", brief)
        self.transcript([cc_attachment(brief)])
        return brief

    def test_a_resume_under_a_new_id_whose_transcript_holds_the_brief_gets_only_what_changed(self):
        brief, _ = self.hook("SessionStart", source="startup", session_id="sess-0")
        for record in (cc_attachment, codex_developer):
            path = self.transcript([record(brief)], name="other-%s.jsonl" % record.__name__)
            again, _ = self.hook("SessionStart", source="resume", session_id="new-" + record.__name__,
                                 transcript_path=path)
            self.assertIsNone(again, "its transcript holds the brief")
        self.add_note()
        path = self.transcript([cc_attachment(brief)], name="third.jsonl")
        changed, _ = self.hook("SessionStart", source="resume", session_id="sess-3", transcript_path=path)
        self.assertEqual(memory_lines(changed), [SPARE_KEY.strip()])

    def test_a_forks_first_prompt_is_not_sent_what_its_parent_holds(self):
        brief = self.briefed_parent()
        alone, _ = self.hook("UserPromptSubmit", prompt=PROFILE, session_id="sess-other",
                             transcript_path=os.path.join(self.tmp, "elsewhere", "o.jsonl"))
        self.assertTrue(set(memory_lines(alone)) & set(memory_lines(brief)), "the prompt must reach the brief's lines")
        self.add_note()
        delta, _ = self.hook("SessionStart", source="resume")  # the fork's start, under its parent's id
        self.assertEqual(memory_lines(delta), [SPARE_KEY.strip()])
        fork = os.path.join(self.tmp, "sess-fork.jsonl")  # not written yet
        context, _ = self.hook("UserPromptSubmit", prompt=PROFILE + " Where is the spare house key?",
                               session_id="sess-fork", transcript_path=fork)
        self.assertFalse(set(memory_lines(context)) & set(memory_lines(brief) + memory_lines(delta)), context)

    def test_the_parent_resumed_again_gets_what_its_fork_was_sent(self):
        self.briefed_parent()
        self.add_note()
        self.hook("SessionStart", source="resume")  # a fork's start: what it sends lands in the fork
        self.hook("UserPromptSubmit", prompt=PROFILE, session_id="sess-fork",
                  transcript_path=os.path.join(self.tmp, "sess-fork.jsonl"))
        again, _ = self.hook("SessionStart", source="resume")  # the parent's transcript never got it
        self.assertEqual(memory_lines(again), [SPARE_KEY.strip()])

    def test_a_plain_resumes_prompt_is_not_sent_what_the_resume_sent(self):
        self.briefed_parent()
        self.add_note()
        delta, _ = self.hook("SessionStart", source="resume")
        context, _ = self.hook("UserPromptSubmit", prompt="Where is the spare house key?")
        self.assertNotIn(SPARE_KEY.strip(), memory_lines(context))

    def test_a_forks_capture_leaves_out_its_parents_lines(self):
        from test_hooks import TRANSCRIPT, turn
        brief, _ = self.hook("SessionStart", source="startup")
        self.transcript(TRANSCRIPT + [cc_attachment(brief)])
        self.hook("SessionEnd", reason="other")
        fork = self.transcript(TRANSCRIPT + [cc_attachment(brief), turn(
            "user", "Remember that the staging bucket is called shop-stage-eu.")], name="sess-fork.jsonl")
        self.hook("SessionEnd", reason="other", session_id="sess-fork", transcript_path=fork)
        mine = [f for f in self.session_files() if "sess-fork" in f]
        with open(mine[0], encoding="utf-8") as f:
            captured = [l for l in f.read().splitlines() if l.startswith("- ")]
        self.assertEqual(len(captured), 1, captured)
        self.assertIn("shop-stage-eu", captured[0])

    def test_a_damaged_transcript_fails_open(self):
        brief, _ = self.hook("SessionStart", source="startup")
        path = self.transcript(["[" * 100000 + "<memory-notes", "{not json <memory-notes", "\xff\xfe",
                                cc_attachment(brief)[:-20]], name="bad.jsonl")
        again, p = self.hook("SessionStart", source="resume", session_id="sess-bad", transcript_path=path)
        self.assertIn("KX-4471", again)  # nothing known as held: the whole brief
        self.assertEqual(p.stderr, b"")


class CarriedTest(unittest.TestCase):
    def test_read_from_where_the_last_look_stopped(self):
        import tempfile
        from memsuite.files.carried import carried
        block = '<memory-notes source="memory-suite" session="abc123">\nNotes\n- one\n- two\n</memory-notes>'
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "t.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write(cc_attachment(block) + "\n" + cc_attachment(block.replace("two", "three"))[:30])
            items, end = carried(path)
            self.assertEqual(items, [("notes", "u-%d" % len(block), ["Notes", "- one", "- two", ""], {"abc123"})])
            with open(path, "a", encoding="utf-8") as f:  # the half-written record completed
                f.write(cc_attachment(block.replace("two", "three"))[30:] + "\n")
                f.write(json.dumps({"type": "compacted", "payload": {"replacement_history": []}}) + "\n")
            items, end2 = carried(path, end)
            self.assertEqual([i[0] for i in items], ["notes", "compacted"])
            self.assertIn("- three", items[0][2])
            self.assertNotIn("- two", items[0][2])
            self.assertEqual(carried(path, end2)[0], [])
            self.assertIn("- two", carried(path, end2 + 100)[0][0][2], "a shorter file was rewritten: read again")
            self.assertIsNone(carried(os.path.join(tmp, "missing.jsonl")))


class BackendTest(HookCase):
    def test_the_hook_uses_the_backend_it_is_given(self):
        shutil.rmtree(os.path.join(self.dir, ".memory"), ignore_errors=True)
        context, _ = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?",
                               args=["--backend", "json"])
        self.assertIn("memory/2026-03-22.md", context)
        names = os.listdir(os.path.join(self.dir, ".memory"))
        self.assertIn("index.json", names)
        self.assertNotIn("index.sqlite3", names)

    def test_an_unknown_backend_fails_open(self):
        context, p = self.hook("UserPromptSubmit", prompt="How did I fix the RSS duplicate items in Feedly?",
                               args=["--backend=bogus"])
        self.assertIsNone(context)
        self.assertEqual(p.stdout, b"")
        self.assertTrue(any("bogus" in l for l in self.log_lines()), self.log_lines())


class PartlyBriefedTest(HookCase):
    """tests/folders/changed-facts: a session captured a new badge number and
    the piano lesson's new time; a 250-token brief holds only the last lines
    of that capture, and the prompt asks for both facts."""

    def setUp(self):
        super().setUp()
        shutil.rmtree(self.dir)
        shutil.copytree(CHANGED_FACTS, self.dir)

    def test_the_rest_of_a_chunk_partly_in_the_brief_is_recalled(self):
        brief, _ = self.hook("SessionStart", source="startup", args=["--budget", "250"])
        self.assertIn("memory/2026-12-01-session-5f2c9a1b.md", brief)
        self.assertNotIn("88412", brief)
        context, _ = self.hook("UserPromptSubmit", prompt="What's my badge number now? 我女儿的钢琴课是什么时候？")
        self.assertIn("88412", context)
        self.assertIn("周三下午四点", context)
        if "周六上午九点" in context:  # the outdated time may follow, never come first
            self.assertLess(context.index("周三下午四点"), context.index("周六上午九点"))
        self.assertFalse(set(memory_lines(brief)) & set(memory_lines(context)), "a line sent twice")
        check_citations(self, self.dir, context)


LONG_PROMPT = ("Hello again. I have been thinking a lot this week about everything that happened with the "
               "newsletter and the blog, and honestly I am a bit tired of the whole thing. Before I decide "
               "anything else, remind me: how did I fix the RSS duplicate items in Feedly last time? I want to "
               "make sure the same problem does not come back when I move the site, because that took ages.")
ABSENT_LONG = ("Hello again. I have been thinking a lot this week about my grandmother's garden and the "
               "tomatoes that never ripened, and honestly I am a bit tired of the whole thing. Before I decide "
               "anything else, which fertiliser should I buy for heirloom tomatoes grown in clay soil, and how "
               "often should I water them when the summer is this dry and hot?")


class LongPromptTest(HookCase):
    def test_a_long_turn_about_a_remembered_topic_gets_it(self):
        context, _ = self.hook("UserPromptSubmit", prompt=LONG_PROMPT)
        self.assertIn("memory/2026-03-22.md", context)
        from memory_search import estimate_tokens
        self.assertLessEqual(estimate_tokens(context), 500)
        self.assertNotIn("tired of the whole thing", context, "the prompt is not echoed back")

    def test_a_long_turn_about_an_absent_topic_gets_nothing(self):
        context, p = self.hook("UserPromptSubmit", prompt=ABSENT_LONG)
        self.assertIsNone(context)
        self.assertEqual(p.stdout, b"")


class RedactedBeforeCutTest(TempMemory):
    """A recalled line is redacted before it is cut to the budget: a cut
    could leave part of a key no pattern knows, and the room a key took
    goes to the words after it."""
    files = {"memory/2026-11-02.md": "# 2026-11-02\n\n- Deploy bot: the CI token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"
                                     " rotates monthly, and Dana approves every rotation of the deploy bot token"
                                     " before the release train leaves on Thursday mornings at nine.\n"}

    def test_a_cut_line_shows_the_placeholder_and_what_follows_it(self):
        from memsuite.doors import hooks
        text = hooks.recall(self.dir, "who approves the deploy bot token rotation?", budget=40)[0]
        self.assertIn("[redacted] rotates", text)
        self.assertNotIn("ghp_", text)


class TranslatedLinesTest(TempMemory):
    """The lines sent for a prompt are chosen by its words and by what its
    search added to them (translations, synonyms): an English question's
    answer written in Chinese is sent before the English lines that only
    share a word with it."""
    files = {"memory/2026-11-26.md": "# 2026-11-26\n\n## Car\n- Car is a white BYD Seal, the car plate 浙A·7K2Q9.\n"
                                     "- Car wash on Sundays near the office, the car park on level 2.\n"
                                     "- 车险在平安保险，保单号 PA-2026-778812，明年 3 月到期。\n"}

    def test_the_answer_in_the_other_language_is_sent(self):
        from memsuite.doors import hooks
        text = hooks.recall(self.dir, "When does my car insurance expire?", budget=120)[0]
        self.assertIn("明年 3 月到期", text)


class BudgetTest(unittest.TestCase):
    def hit(self, text, start=10, score=0.9):
        from memsuite.search.results import Hit
        return Hit("m.md:%d" % start, "memory/m.md", start, start + text.count("\n"), "Day", "2026-01-01",
                   score, score, 0.0, "", text, None)

    def test_a_line_longer_than_the_budget_is_cut_to_its_best_sentences(self):
        from memsuite.search.recall import pack_lines
        from memsuite.search.results import estimate_tokens
        filler = " ".join("Sentence %d talks about the weather and nothing else at all." % i for i in range(60))
        line = "**Assistant**: " + filler + " The wine course starts with Burgundy on Tuesday. " + filler
        text, ranges, keys = pack_lines([self.hit(line)], "When does the wine course start?", 200)
        self.assertLessEqual(estimate_tokens(text), 200)
        self.assertIn("Burgundy on Tuesday", text)
        self.assertIn("…", text)
        self.assertEqual(ranges, [("memory/m.md", 10, 10)])
        self.assertEqual(len(keys), 1, "a line sent in part is held: it is not sent again")

    def test_several_sessions_are_cited_within_the_budget(self):
        from memsuite.search.recall import pack_lines
        from memsuite.search.results import estimate_tokens
        hits = [self.hit("\n".join("- wine note %d.%d: Burgundy, Bordeaux and the Loire, tasted slowly and "
                                   "compared with care." % (k, i) for i in range(12)), start=1 + 20 * k)
                for k in range(6)]
        text, ranges, _ = pack_lines(hits, "wine Burgundy", 500)
        self.assertLessEqual(estimate_tokens(text), 500)
        self.assertGreaterEqual(len(ranges), 4, text)

    def test_tokens_count_each_cjk_character(self):
        # counted in UTF-8 bytes (a str class of the CJK ranges costs a cold process
        # ~5 ms to compile): the same characters as chinese.is_cjk_char
        from memsuite.search.results import estimate_tokens
        from memsuite.text.chinese import is_cjk_char
        samples = ["博客RSS配置", "ひらがな and カタカナ", "한국어 text", "\U00020000\U00033fff\U00034000",
                   "\u303f\u3040\ud7ff\ud800\uf8ff\uf900\ufaff\ufb00", "naïve café — “quotes”，。", "plain ascii"]
        for text in samples:
            cjk = sum(1 for c in text if is_cjk_char(c))
            self.assertEqual(estimate_tokens(text), cjk + (len(text) - cjk + 3) // 4, repr(text))

    def test_held_lines_leave_the_rest_of_a_hit(self):
        from memsuite.search.recall import line_key, unheld
        h = self.hit("## Day\n- one\n- two\n- three")
        pieces = unheld([h], {line_key("- two")})
        self.assertEqual([(p.start_line, p.end_line, p.text) for p in pieces],
                         [(10, 11, "## Day\n- one"), (13, 13, "- three")])
        self.assertEqual(unheld([h], {line_key(l) for l in ("- one", "- two", "- three")}), [])


class BestLinesTest(unittest.TestCase):
    """pack_lines sends the best lines of any hit first (issue 25, the 500-token budget)."""

    hit = BudgetTest.hit

    def test_a_lower_hit_holding_the_prompt_gives_its_line_before_the_best_hits_weaker_lines(self):
        from memsuite.search.recall import pack_lines
        from memsuite.search.results import estimate_tokens
        top = self.hit("\n".join(["- the garden shed needs paint"] + ["- shed note %d, nothing more" % i for i in range(30)]),
                       start=1, score=0.6)
        other = self.hit("- unrelated line\n- the shed key is under the blue garden pot", start=100, score=0.5)
        text, ranges, _ = pack_lines([top, other], "where is the garden shed key?", 200)
        self.assertLessEqual(estimate_tokens(text), 200)
        self.assertIn("under the blue garden pot", text)
        self.assertIn(("memory/m.md", 101, 101), ranges)
        self.assertNotIn("unrelated", text, "a line without the prompt's words is not sent")

    def test_long_lines_of_many_hits_stay_within_the_budget(self):
        from memsuite.search.recall import best_part, pack_lines
        from memsuite.search.results import estimate_tokens
        turn = ("**Assistant**: First, 1. **The van** is at the depot (e.g.,level 3) — ask Bob. " * 12).strip()
        hits = [self.hit("\n".join([turn] * 4), start=1 + 10 * k, score=0.9 - 0.05 * k) for k in range(6)]
        for budget in (60, 200, 500):
            text, ranges, _ = pack_lines(hits, "where is the van at the depot?", budget)
            self.assertLessEqual(estimate_tokens(text), budget)
            self.assertTrue(ranges or budget < 100, budget)
        for room in (10, 30, 90):
            self.assertLessEqual(estimate_tokens(best_part(turn, {"van", "depot"}, room)), room)

    def test_the_best_lines_go_whole_the_others_cut(self):
        """The answer is often the part of a line without the prompt's words
        (the day after "the camping trip"): the WHOLE_LINES best lines are
        sent whole, a later long line only its best part."""
        from memsuite.search.recall import WHOLE_LINES, pack_lines
        tail = " We settled on the weekend of the ninth, leaving at dawn from the north car park%s."
        lines = ["**Mel** (D%d): Thanks, Caro! The camping trip is still on, the kids are thrilled about it." % i
                 + tail % (" number %d" % i) for i in range(WHOLE_LINES + 20)]
        hits = [self.hit(line, start=1 + 10 * i, score=0.9 - 0.02 * i) for i, line in enumerate(lines)]
        text, _, _ = pack_lines(hits, "When is Mel's camping trip?", 250)  # the later lines fill the budget
        for line in lines[:WHOLE_LINES]:
            self.assertIn(line, text)
        self.assertNotIn(lines[WHOLE_LINES], text)
        self.assertIn("(D%d)" % WHOLE_LINES, text)  # cited, in part

    def test_the_reply_after_a_matching_line_comes_with_it(self):
        from memsuite.search.recall import pack_lines
        h = self.hit("**Ann**: Where did you park the van?\n**Bob**: Level 3, bay 41, next to the lift.\n"
                     "**Ann**: Thanks.", score=0.8)
        text, ranges, _ = pack_lines([h], "Where is the van parked?", 200)
        self.assertIn("bay 41", text)
        self.assertEqual(ranges, [("memory/m.md", 10, 11)])

    def test_hits_the_session_holds_are_cited_not_sent_again(self):
        from memsuite.search.recall import held_whole, line_key, pack_lines, unheld
        old = self.hit("- the van is on level 3", start=1)
        new = self.hit("- the van keys are at the desk", start=50)
        held = {line_key("- the van is on level 3")}
        self.assertEqual(held_whole([old, new], held), [old])
        text, ranges, _ = pack_lines(unheld([old, new], held), "van", 200, sent=held_whole([old, new], held))
        self.assertIn("Already in this session: [memory/m.md:1-1]", text)
        self.assertNotIn("level 3", text)
        self.assertEqual(ranges, [("memory/m.md", 50, 50)])


class GateTest(unittest.TestCase):
    """The cut judges a long turn by the part of its topic the memory and its
    best hit hold, a question by whether its best hit holds its subject."""

    LONG = ("Hi, I'm back! The violin recital rehearsal went fine and my bow hand aches, so I went through "
            "the checklist, the morning routine and the evening review. What's the next step?")

    def hit(self, score, text="- checklist, morning routine, evening review"):
        return BudgetTest.hit(self, text, score=score)

    def topic(self, unseen=0.0, **known):
        from memsuite.search.recall import Topic
        return Topic(known, unseen, 1.0)

    def test_a_long_turn_about_what_the_memory_never_saw_stays_silent(self):
        from memsuite.search.recall import RECALL_CUT, choose, gate_factor
        known = self.topic(checklist=2.0, morn=1.0, routin=1.0)
        foreign = self.topic(unseen=4.0, checklist=2.0, morn=1.0, routin=1.0)
        score = RECALL_CUT / gate_factor(self.LONG, known, self.hit(1.0)) + 0.01
        self.assertTrue(choose([self.hit(score)], self.LONG, topic=known))
        self.assertEqual(choose([self.hit(score)], self.LONG, topic=foreign), [])

    def test_a_long_turn_whose_best_hit_holds_little_of_its_topic_stays_silent(self):
        from memsuite.search.recall import RECALL_CUT, choose, covered_share, gate_factor
        topic = self.topic(checklist=2.0, morn=1.0, routin=1.0, violin=3.0, recit=3.0)
        little = self.hit(1.0, "- the checklist")
        much = self.hit(1.0, "- the violin recital checklist")
        self.assertLess(covered_share(topic, little), covered_share(topic, much))
        score = RECALL_CUT / gate_factor(self.LONG, topic, much) + 0.01
        self.assertTrue(choose([much._replace(score=score)], self.LONG, topic=topic))
        self.assertEqual(choose([little._replace(score=score)], self.LONG, topic=topic), [])

    def test_a_short_turn_of_several_sentences_is_judged_as_a_turn_not_a_question(self):
        # another person's "Understood. 3 litres it is for today." matches on a word or two: a
        # best hit holding little of its topic keeps it under the cut, though it holds its subject
        from memsuite.search.recall import RECALL_CUT, choose, covered_share
        turn = "Understood. The violin recital checklist it is for today."
        question = "The violin recital checklist for today?"
        topic = self.topic(violin=3.0, recit=2.5, checklist=2.0, understood=2.0, todai=2.0)
        best = self.hit(RECALL_CUT - 0.01, "- the violin")  # its subject, a quarter of its topic
        self.assertLess(covered_share(topic, best), 0.3)
        self.assertTrue(choose([best], question, topic=topic))  # a question holding its subject
        self.assertEqual(choose([best], turn, topic=topic), [])
        held = self.hit(RECALL_CUT - 0.01, "- understood: the violin recital checklist")
        self.assertTrue(choose([held], turn, topic=topic))  # most of its topic

    def test_a_question_is_judged_by_its_score_unless_its_best_hit_holds_its_subject(self):
        from memsuite.search.recall import RECALL_CUT, SUBJECT_BOOST, choose
        question = "violin recital checklist?"
        topic = self.topic(checklist=1.0, violin=3.0)
        score = RECALL_CUT / (1 + SUBJECT_BOOST) + 0.01
        self.assertLess(score, RECALL_CUT)
        self.assertTrue(choose([self.hit(score, "- the violin checklist")], question, topic=topic))
        self.assertEqual(choose([self.hit(score, "- the checklist")], question, topic=topic), [])
        self.assertEqual(choose([self.hit(score, "- the violin checklist")], question,
                                topic=self.topic(unseen=8.0, checklist=1.0, violin=3.0)), [])
        self.assertTrue(choose([self.hit(RECALL_CUT, "- the checklist")], question, topic=topic))
        self.assertEqual(choose([self.hit(RECALL_CUT - 0.01, "- the checklist")], question, topic=topic), [])


class PromptTopicTest(TempMemory):
    """recall.prompt_topic on a real index: the share of a prompt's topic no note holds."""

    def notes(self, days):
        for d in range(days):
            topic = ("sourdough starter", "bike chain", "tax return", "guitar strings")[d % 4]
            lines = ["# Day %d" % d, ""]
            for k in range(4):
                lines += ["## Chat %d" % k, "", "- The %s checklist: a morning routine and an evening review." % topic,
                          "- The %s is in the schedule now." % topic, ""]
            self.write("memory/2026-%02d-%02d.md" % (d // 28 + 1, d % 28 + 1), "\n".join(lines))
        from memsuite.store.memory_store import MemoryStore
        store = MemoryStore(self.dir, warn=lambda m: None)
        self.addCleanup(store.close)
        store.sync()
        return store

    def test_words_the_memory_never_saw_make_the_unknown_share(self):
        from memsuite.search.recall import prompt_topic, unknown_share
        store = self.notes(60)
        self.assertGreaterEqual(store.chunk_count(), 200)
        known = unknown_share(prompt_topic(store, "The sourdough starter checklist and the evening review are in "
                                                  "the schedule."))
        foreign = unknown_share(prompt_topic(store, GateTest.LONG))
        self.assertEqual(known, 0.0)
        self.assertGreater(foreign, 0.5)

    def test_a_small_memory_counts_unknown_words_less(self):
        from memsuite.search.recall import prompt_topic, unknown_share
        small = unknown_share(prompt_topic(self.notes(6), GateTest.LONG))
        self.assertGreater(small, 0.0)
        self.assertLess(small, 0.5)

    def test_the_subject_is_the_rarest_known_word(self):
        from memsuite.search.recall import holds_subject, prompt_topic
        store = self.notes(60)
        topic = prompt_topic(store, "What is in the sourdough starter checklist?")
        self.assertTrue(holds_subject(topic, GateTest.hit(self, 0.5, "- the sourdough starter")))
        self.assertFalse(holds_subject(topic, GateTest.hit(self, 0.5, "- the checklist")))


class StateTest(unittest.TestCase):
    def test_the_session_state_keeps_the_newest_keys_only(self):
        from memsuite.doors import hook_state
        state = {}
        hook_state.hold(state, ["k%d" % i for i in range(hook_state.MAX_HELD + 500)])
        hook_state.hold(state, ["k%d" % (hook_state.MAX_HELD + 499), "new"])  # one already held, one new
        self.assertEqual(len(state["held"]), hook_state.MAX_HELD)
        self.assertEqual(state["held"][-1], "new")
        self.assertNotIn("k0", hook_state.held(state))


if __name__ == "__main__":
    unittest.main()
