"""Search with the conversation before the query (search/context.py): the
turns' words weigh below the query's own, the user's above the
assistant's, the recent above the old; a transcript is read from its tail;
search.sh --context-file and MCP `context` pass the same turns."""
import json
import os
import subprocess
import unittest

from helpers import ROOT, TempMemory, clean_env

from memsuite.files.transcripts import tail_lines
from memsuite.search import context
from memsuite.search.context import Turn

SEARCH = os.path.join(ROOT, "search.sh")


class TurnWeightsTest(unittest.TestCase):
    def test_the_user_weighs_above_the_assistant_and_the_recent_above_the_old(self):
        w = context.turn_weights([Turn("user", "glacier kayak"), Turn("assistant", "harbour lighthouse"),
                                  Turn("user", "volcano")])
        self.assertGreater(w["volcano"], w["glacier"])       # newer user turn
        self.assertGreater(w["glacier"], w["lighthous"] if "lighthous" in w else w["lighthouse"])
        self.assertTrue(all(v < 1.0 for v in w.values()), "below the prompt's own words")

    def test_only_the_last_turns_count(self):
        turns = [Turn("user", "word%d" % i) for i in range(context.CONTEXT_TURNS + 3)]
        w = context.turn_weights(turns)
        self.assertNotIn("word0", w)
        self.assertIn("word%d" % (len(turns) - 1), w)

    def test_a_transcript_holding_the_prompt_as_its_last_turn_leaves_it_out(self):
        turns = [Turn("user", "earlier words"), Turn("user", "the prompt itself")]
        self.assertEqual(context.before_prompt(turns, "the  prompt itself"), turns[:1])

    def test_a_context_file_names_roles_or_is_the_users(self):
        turns = context.turns_from_lines("user: hello there\nassistant: hi\nplain line\n\n")
        self.assertEqual([t.role for t in turns], ["user", "assistant", "user"])


class TailTest(TempMemory):
    def test_the_tail_is_bounded_and_holds_whole_records(self):
        path = self.write("t.jsonl", "".join(json.dumps({"n": i, "pad": "x" * 50}) + "\n" for i in range(2000)))
        lines = tail_lines(path, 4096)
        self.assertLess(sum(len(l) for l in lines), 4096)
        self.assertEqual(json.loads(lines[-1])["n"], 1999)
        for line in lines:
            json.loads(line)  # the first, cut record is left out

    def test_a_missing_transcript_gives_nothing(self):
        self.assertEqual(context.turns_from_transcript(os.path.join(self.dir, "none.jsonl")), [])

    def test_claude_and_codex_records_become_turns(self):
        records = [{"type": "user", "message": {"role": "user", "content": "about the harbour"}},
                   {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                         "content": [{"type": "output_text", "text": "yes"}]}}]
        path = self.write("t.jsonl", "".join(json.dumps(r) + "\n" for r in records))
        self.assertEqual(context.turns_from_transcript(path), [Turn("user", "about the harbour"),
                                                               Turn("assistant", "yes")])


NOTES = {"memory/2026-05-01.md": "# 2026-05-01\n\n- The lighthouse keeper Ilse changes the lamp every spring.\n",
         "memory/2026-05-02.md": "# 2026-05-02\n\n- The bakery on Elm street changes its sourdough recipe: each change is posted, changes noted.\n",
         "memory/2026-05-03.md": "# 2026-05-03\n\n- When does the ferry leave? Timetable printed.\n"}


class SearchWithContextTest(TempMemory):
    files = NOTES

    def search(self, *args):
        p = subprocess.run([SEARCH, "--dir", self.dir, "--json"] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=clean_env(), timeout=60)
        return p

    def test_the_conversation_brings_the_note_its_topic_is_in(self):
        path = os.path.join(self.tmp, "talk.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("user: I keep thinking about the lighthouse and its keeper\nassistant: the tower?\n")
        alone = json.loads(self.search("when does it change").stdout)
        talked = json.loads(self.search("when does it change", "--context-file", path).stdout)
        first = lambda doc: doc["results"][0]["path"] if doc["results"] else None  # noqa: E731
        self.assertNotEqual(first(alone), "memory/2026-05-01.md")
        self.assertEqual(first(talked), "memory/2026-05-01.md")

    def test_explain_names_the_conversations_terms(self):
        path = os.path.join(self.tmp, "talk.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("user: I keep thinking about the lighthouse and its keeper\n")
        doc = json.loads(self.search("when does it change", "--context-file", path, "--explain").stdout)
        top = doc["results"][0]["explain"]["matched"]
        self.assertIn("conversation", {m["from"] for m in top})
        self.assertTrue(all(m["weight"] < 1 for m in top if m["from"] == "conversation"))

    def test_the_mcp_tool_takes_the_same_context(self):
        from test_agents import McpClient
        client = McpClient(self, self.dir)
        client.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "1"}})
        talk = "user: I keep thinking about the lighthouse and its keeper\nassistant: the tower?"
        doc = client.call("memory_search", query="when does it change", context=talk)["structuredContent"]
        self.assertEqual(doc["results"][0]["path"], "memory/2026-05-01.md")

    def test_an_unreadable_context_file_is_one_clear_error(self):
        for path in (os.path.join(self.tmp, "missing.txt"), self.tmp):
            p = self.search("ferry", "--context-file", path)
            self.assertEqual(p.returncode, 2)
            self.assertIn(b"--context-file", p.stderr)
            self.assertNotIn(b"Traceback", p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
    unittest.main()


from test_hooks import HookCase  # noqa: E402


class HookReadsTheConversationTest(HookCase):
    """By default the prompt hook reads the turns its transcript holds
    before the prompt when the prompt alone finds nothing worth sending;
    MEMORY_HOOK_CONTEXT=0 turns that off."""
    PROMPT = "Okay, what did we decide back then?"

    def setUp(self):
        super().setUp()
        turns = [("user", "Feedly shows duplicate posts of the blog RSS feed again"),
                 ("assistant", "That sounds like the feed items changed their ids.")]
        self.transcript([json.dumps({"type": r, "message": {"role": r, "content": t}}) for r, t in turns])

    def test_a_prompt_whose_topic_is_in_earlier_turns_gets_it(self):
        context, _ = self.hook("UserPromptSubmit", prompt=self.PROMPT)
        self.assertIsNotNone(context)
        self.assertIn("Feedly", context)

    def test_off_with_the_setting(self):
        context, _ = self.hook("UserPromptSubmit", prompt=self.PROMPT, env=dict(self.env, MEMORY_HOOK_CONTEXT="0"))
        self.assertTrue(context is None or "Feedly" not in context)


class ConversationOnlyWhenThePromptIsThinTest(HookCase):
    """The prompt is searched alone first: what it finds by itself is sent
    as if there were no conversation; a stranger's conversation (words this
    memory never saw) leaves a thin prompt silent."""

    def recall(self, prompt, said):
        from memsuite.doors import hooks
        return hooks.recall(self.dir, prompt, context=[Turn(role, text) for role, text in said])[0]

    def test_a_prompt_that_finds_its_answer_alone_is_sent_the_same(self):
        prompt = "How did I fix the duplicate items in Feedly?"
        alone = self.recall(prompt, [])
        self.assertIn("Feedly", alone)
        talk = [("user", "I am planning the hiking trip and the blog migration"), ("assistant", "Which one first?")]
        self.assertEqual(self.recall(prompt, talk), alone)

    def test_a_thin_prompt_is_searched_with_its_conversation_lazily(self):
        from memsuite.doors import hooks
        asked = []

        def turns():
            asked.append(1)
            return [Turn("user", "Feedly shows duplicate posts of the blog RSS feed again")]
        hooks.recall(self.dir, "How did I fix the duplicate items in Feedly?", context=turns)
        self.assertEqual(asked, [], "the conversation was read though the prompt alone had its answer")
        self.assertIn("Feedly", hooks.recall(self.dir, "Okay, what did we decide back then?", context=turns)[0])
        self.assertEqual(asked, [1])

    def test_a_strangers_conversation_stays_silent(self):
        talk = [("user", "My quokka Bartholomew refused the zucchini again, and the vet in Wollongong says "
                         "his glockenspiel lessons stress him"),
                ("assistant", "Poor Bartholomew. Maybe the xylophone teacher could come to Wollongong?"),
                ("user", "The quokka also chewed the marimba mallets")]
        self.assertEqual(self.recall("Okay, what did we decide back then?", talk), "")
