"""Nothing leaked: a secret written in a note never goes out on the suite's
own initiative (the SessionStart brief, prompt recall, entities, the page,
indexed transcripts), while search and get of the note show what the user
wrote and <private> blocks stay private as before."""
import contextlib
import io
import json
import os
import unittest

from helpers import TempMemory

import memory_linker
import memory_search

KEY = "sk-proj-Tq8ZkV3nR7wXy2LmP9aB4cD6eF"
PASSWORD = "Hunter2Redis!x"
DAY = "memory/2026-11-30.md"
NOTES = {
    "MEMORY.md": "# Long-term\n\n## Accounts\n- 新申请了 OpenAI key：%s\n"
                 "- Alice works on OpenClaw with Bob.\n<private>\n- bank PIN 4242 PRIVATE-MARK\n</private>\n" % KEY,
    DAY: "# 2026-11-30\n\n- 10:00 Redis 密码是 %s for the cache.\n- OpenAI key %s rotated with Alice.\n"
         "- OpenClaw deploy went fine with Bob.\n" % (PASSWORD, KEY),
}


def run(main, *argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


class SecretsStayHomeTest(TempMemory):
    files = NOTES

    def assert_clean(self, text, where):
        self.assertNotIn(KEY, text, where)
        self.assertNotIn(KEY[8:20].lower(), text.lower(), where)  # nor its tail, as an entity's key
        self.assertNotIn(PASSWORD, text, where)
        self.assertNotIn("PRIVATE-MARK", text, where)

    def test_brief_has_no_secret(self):
        from memsuite.app import brief
        text, _ = brief.build(self.dir, 1500)
        self.assertIn("OpenClaw", text)  # the brief still says what the notes say
        self.assertIn("[redacted]", text)
        self.assert_clean(text, "brief")

    def test_recall_has_no_secret(self):
        from memsuite.doors import hooks
        for prompt in ("what is my OpenAI key", "Redis 密码 for the cache", "OpenAI key rotated with Alice " + KEY):
            text, _ = hooks.recall(self.dir, prompt, cut=0.0, floor=0.0)
            self.assertTrue(text, prompt)
            self.assert_clean(text, prompt)

    def test_no_secret_is_an_entity(self):
        code, out, err = run(memory_linker.main, "--dir", self.dir, "entities", "--json")
        self.assertEqual(code, 0, err)
        names = [e["name"] for e in json.loads(out)["entities"]]
        self.assertIn("OpenClaw", names)
        self.assert_clean(json.dumps(names, ensure_ascii=False), "entities")
        self.assertFalse([n for n in names if "redacted" in n.lower()], names)

    def test_page_has_no_secret(self):
        path = os.path.join(self.tmp, "page.html")
        code, _, err = run(memory_linker.main, "--dir", self.dir, "graph", "--format", "html", "-o", path)
        self.assertEqual(code, 0, err)
        with open(path, encoding="utf-8") as f:
            page = f.read()
        self.assertIn("OpenClaw", page)
        self.assert_clean(page, "page")

    def test_indexed_transcript_has_no_secret(self):
        sessions = os.path.join(self.tmp, "sessions")
        os.makedirs(sessions)
        with open(os.path.join(sessions, "s1.jsonl"), "w", encoding="utf-8") as f:
            for role, text in (("user", "Redis 密码是 %s and the db is mysql://root:%s@db:3306/app" % (PASSWORD, PASSWORD)),
                               ("assistant", "Noted the Redis settings.")):
                f.write(json.dumps({"type": role, "message": {"role": role, "content": text}}) + "\n")
        code, out, err = run(memory_search.main, "--dir", self.dir, "Redis 密码", "--sessions", sessions,
                             "--source", "sessions", "--json")
        self.assertEqual(code, 0, err)
        self.assertIn("sessions/s1.jsonl", out)
        self.assert_clean(out, "transcript")

    def test_search_and_get_show_what_the_user_wrote(self):
        code, out, err = run(memory_search.main, "--dir", self.dir, "OpenAI key", "--json")
        self.assertEqual(code, 0, err)
        self.assertIn(KEY, out)
        code, out, err = run(memory_search.main, "--dir", self.dir, "get", "MEMORY.md")
        self.assertEqual(code, 0, err)
        self.assertIn(KEY, out)
        self.assertNotIn("PRIVATE-MARK", out)  # <private> unchanged: never shown


if __name__ == "__main__":
    unittest.main()
