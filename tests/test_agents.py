"""Agent integration: the MCP server, writing memories, the skill, the
workspace rule, and session transcripts."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from helpers import PYTHON, ROOT, TempMemory, clean_env, run_script
import memory_store as ms


class McpClient:
    """A minimal MCP client over the server's stdio, standard library only."""

    def __init__(self, test, folder, env=None):
        self.proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "--dir", folder, "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env or clean_env())
        test.addCleanup(self.close)
        self.next_id = 0

    def send(self, message):
        """Send one raw line (bytes or an object); return the response object, or None
        when the server sends none within a short while (a notification)."""
        data = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read(self):
        line = self.proc.stdout.readline()
        return json.loads(line.decode("utf-8")) if line else None

    def request(self, method, params=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        response = self.read()
        assert response["id"] == self.next_id, response
        return response

    def call(self, tool, **arguments):
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=20)
        self.proc.stdout.close()
        self.proc.stderr.close()


class DoorsAgreeTest(TempMemory):
    """The CLI and the MCP server check a search's arguments in one place (the
    command layer): the same bad input is refused with the same message."""
    files = {"MEMORY.md": "# Notes\nkyoto trip\n"}
    BAD = [({"limit": 0}, ["--limit", "0"]), ({"min_score": 2}, ["--min-score", "2"]),
           ({"since": "yesterday"}, ["--since", "yesterday"]), ({"until": "2026-02-30"}, ["--until", "2026-02-30"]),
           ({"since": "2026-03-01", "until": "2026-02-01"}, ["--since", "2026-03-01", "--until", "2026-02-01"]),
           ({"mode": "fast"}, ["--mode", "fast"]), ({"sort": "size"}, ["--sort", "size"]),
           ({"half_life": 0}, ["--half-life", "0"]), ({"half_life": 40000}, ["--half-life", "40000"]),
           ({"query": "  "}, [])]

    def test_the_mcp_tool_and_the_cli_refuse_alike(self):
        import contextlib
        import io
        import memory_search
        store = ms.MemoryStore(self.dir)
        self.addCleanup(store.close)
        server = memory_search.McpServer(store)
        for arguments, argv in self.BAD:
            call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "memory_search", "arguments": dict({"query": "kyoto"}, **arguments)}}
            result = server.handle(call)["result"]
            self.assertTrue(result["isError"], arguments)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = memory_search.main(["--dir", self.dir] + argv + ["--", arguments.get("query", "kyoto")])
            self.assertEqual(code, 2, argv)
            self.assertEqual(err.getvalue(), "search: error: %s; see --help\n" % result["content"][0]["text"])


class McpServerTest(TempMemory):
    def setUp(self):
        super().setUp()
        self.copy_examples()

    def handshake(self, client, version="2025-06-18"):
        response = client.request("initialize", {"protocolVersion": version, "capabilities": {},
                                                 "clientInfo": {"name": "test", "version": "1"}})
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response["result"]

    def test_version_negotiation(self):
        for asked, answered in (("2024-11-05", "2024-11-05"), ("2025-03-26", "2025-03-26"),
                                ("2025-06-18", "2025-06-18"), ("2025-11-25", "2025-11-25"),
                                ("1999-01-01", "2025-11-25")):
            client = McpClient(self, self.dir)
            result = self.handshake(client, asked)
            self.assertEqual(result["protocolVersion"], answered)
            self.assertEqual(result["capabilities"], {"tools": {"listChanged": False}})
            self.assertEqual(result["serverInfo"]["name"], "memory-search")
            self.assertEqual(client.request("ping")["result"], {})
            client.close()

    def test_every_tool(self):
        client = McpClient(self, self.dir)
        self.handshake(client)
        tools = {t["name"]: t for t in client.request("tools/list")["result"]["tools"]}
        self.assertEqual(set(tools), {"memory_search", "memory_get", "memory_add", "memory_related",
                                      "memory_entity", "memory_timeline", "memory_context", "memory_status"})
        for tool in tools.values():
            self.assertEqual(tool["inputSchema"]["type"], "object")
            self.assertIn("readOnlyHint", tool["annotations"])
            for key, spec in tool["inputSchema"]["properties"].items():  # an agent reads only the schema
                self.assertTrue(spec.get("description"), (tool["name"], key))
        self.assertFalse(tools["memory_add"]["annotations"]["readOnlyHint"])
        self.assertTrue(tools["memory_search"]["annotations"]["readOnlyHint"])

        found = client.call("memory_search", query="博客RSS配置", limit=3)
        self.assertFalse(found["isError"])
        doc = found["structuredContent"]
        self.assertEqual(json.loads(found["content"][0]["text"]), doc)  # the text is the same object
        code, out, _ = run_script("search.sh", "--dir", self.dir, "博客RSS配置", "--limit", "3", "--json")
        self.assertEqual(doc["results"], json.loads(out)["results"])  # as --json prints it
        top = doc["results"][0]
        got = client.call("memory_get", path=top["id"])["structuredContent"]
        self.assertEqual((got["start_line"], got["end_line"]), (top["start_line"], top["end_line"]))

        added = client.call("memory_add", text="买了去大阪的新干线车票 shinkansen", tags=["旅行"])["structuredContent"]
        self.assertTrue(added["id"].startswith(added["path"] + ":"))
        again = client.call("memory_search", query="shinkansen 新干线")["structuredContent"]["results"]
        self.assertEqual(again[0]["path"], added["path"])

        related = client.call("memory_related", target="memory/2026-02-20.md#0")["structuredContent"]
        self.assertTrue(related["results"])
        entity = client.call("memory_entity", name="openclaw")["structuredContent"]
        self.assertEqual(entity["name"], "OpenClaw")
        line = client.call("memory_timeline", anchor="memory/2026-02-20.md:1-7")["structuredContent"]
        self.assertTrue(any(e["anchor"] for e in line["entries"]))
        pack = client.call("memory_context", query="RSS feed", budget=300)["structuredContent"]
        self.assertLessEqual(pack["tokens"], 300)
        status = client.call("memory_status")["structuredContent"]
        self.assertEqual(status["backend"], "sqlite-fts5")

    def test_errors_keep_the_server_alive(self):
        client = McpClient(self, self.dir)
        self.handshake(client)
        client.send(b"this is not json")
        self.assertEqual(client.read()["error"]["code"], -32700)
        client.send(b'[{"jsonrpc": "2.0", "id": 9, "method": "ping"}]')
        self.assertEqual(client.read()["error"]["code"], -32600)
        client.send({"id": 10, "method": "ping"})  # no jsonrpc: 2.0
        self.assertEqual(client.read()["error"]["code"], -32600)
        self.assertEqual(client.request("no/such/method")["error"]["code"], -32601)
        self.assertEqual(client.request("tools/call", {"name": "no_tool", "arguments": {}})["error"]["code"], -32602)
        self.assertEqual(client.request("tools/call", {"name": "memory_search", "arguments": []})["error"]["code"],
                         -32602)
        for arguments, says in (({}, "missing argument: query"), ({"query": 5}, "query must be of type string"),
                                ({"query": "x", "limit": 0}, "limit: must be 1 or more"),
                                ({"query": "x", "limit": 51}, "limit: must be at most 50"),
                                ({"query": "x", "mode": "fast"}, "mode: 'fast' is not one of"),
                                ({"query": "x", "colour": True}, "unknown argument: colour"),
                                ({"query": "x", "since": "yesterday"}, "not a date")):
            result = client.call("memory_search", **arguments)
            self.assertTrue(result["isError"], arguments)
            self.assertIn(says, result["content"][0]["text"])
            self.assertEqual(len(result["content"][0]["text"].split("\n")), 1)
        for tool, arguments, says in (("memory_get", {"path": "../../etc/passwd"}, "outside"),
                                      ("memory_add", {"text": "   "}, "empty"),
                                      ("memory_add", {"text": "x", "file": "../x.md"}, "outside"),
                                      ("memory_entity", {"name": "nobody-at-all"}, "unknown entity"),
                                      ("memory_get", {"id": "MEMORY.md:1-2"}, "unknown argument: id (known: from,")):
            result = client.call(tool, **arguments)
            self.assertTrue(result["isError"], (tool, result))
            self.assertIn(says, result["content"][0]["text"])
        self.assertEqual(client.request("ping")["result"], {})  # still alive
        client.proc.stdin.close()
        self.assertEqual(client.proc.wait(timeout=20), 0)
        self.assertEqual(client.proc.stdout.read(), b"")  # nothing but responses on stdout

    def test_a_note_another_process_wrote_is_found(self):
        client = McpClient(self, self.dir)
        self.handshake(client)
        self.assertEqual(client.call("memory_search", query="zebrafish")["structuredContent"]["results"], [])
        code, out, err = run_script("search.sh", "--dir", self.dir, "add", "the zebrafish tank needs a heater")
        self.assertEqual(code, 0, err)
        hits = client.call("memory_search", query="zebrafish")["structuredContent"]["results"]
        self.assertEqual(len(hits), 1)


class OfficialMcpClientTest(TempMemory):
    def test_the_official_python_client(self):
        try:
            import anyio  # noqa: F401  (the client's own dependency)
            from mcp import ClientSession, StdioServerParameters
            from mcp.client.stdio import stdio_client
        except ImportError:
            self.skipTest("the mcp package is not installed (pip install mcp)")
        self.copy_examples()

        async def session():
            server = StdioServerParameters(command=os.path.join(ROOT, "search.sh"), args=["--dir", self.dir, "mcp"],
                                           env=clean_env())
            async with stdio_client(server) as (read, write):
                async with ClientSession(read, write) as client:
                    info = await client.initialize()
                    tools = await client.list_tools()
                    found = await client.call_tool("memory_search", {"query": "博客RSS配置", "limit": 2})
                    bad = await client.call_tool("memory_search", {"limit": 2})
                    return info, tools, found, bad
        import asyncio
        info, tools, found, bad = asyncio.run(session())

        def field(obj, *names):  # the SDK's 1.x names are camelCase, 2.x snake_case
            return next(getattr(obj, n) for n in names if hasattr(obj, n))
        self.assertEqual(field(info, "serverInfo", "server_info").name, "memory-search")
        self.assertIn("memory_add", [t.name for t in tools.tools])
        self.assertFalse(field(found, "isError", "is_error"))
        self.assertEqual(field(found, "structuredContent", "structured_content")["results"][0]["path"],
                         "memory/2026-02-20.md")
        self.assertTrue(field(bad, "isError", "is_error"))


class AddTest(TempMemory):
    def add(self, *args, input_text=None):
        return run_script("search.sh", "--dir", self.dir, "add", *args, input_text=input_text)

    def test_a_note_goes_to_todays_log_and_is_found(self):
        code, out, err = self.add("订了去京都的机票 KX-9931", "--tag", "旅行", "--heading", "京都")
        self.assertEqual(code, 0, err)
        today = time.strftime("%Y-%m-%d")
        self.assertEqual(out.strip(), "added memory/%s.md:3-4 (new file)" % today)
        with open(os.path.join(self.dir, "memory", today + ".md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "# %s\n\n## 京都\n- 订了去京都的机票 KX-9931 #旅行\n" % today)
        code, out, _ = run_script("search.sh", "--dir", self.dir, "KX-9931", "--json")
        self.assertEqual(json.loads(out)["results"][0]["path"], "memory/%s.md" % today)

    def test_stdin_file_and_json(self):
        self.write("MEMORY.md", "# Facts\nlast line without newline")
        code, out, err = self.add("-", "--file", "MEMORY.md", "--json", input_text="line one\nline two\n")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), {"id": "MEMORY.md:4-5", "path": "MEMORY.md", "start_line": 4,
                                           "end_line": 5, "created": False, "heading": "Facts", "indexed": True})
        with open(os.path.join(self.dir, "MEMORY.md"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "# Facts\nlast line without newline\n\nline one\nline two\n")

    def test_bad_input_changes_nothing(self):
        path = self.write("MEMORY.md", "# Facts\nkeep me\n")
        for args, code in ((("",), 2), (("   ",), 2), (("x", "--file", "../outside.md"), 1),
                           (("x", "--file", "notes.txt"), 1), (("x", "--file", "MEMORY.md/x.md"), 1),
                           (("x", "--tag", "two words"), 2), ((), 2)):
            got, out, err = self.add(*args)
            self.assertEqual(got, code, (args, err))
            self.assertEqual(len(err.strip().split("\n")), 1, err)
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), "# Facts\nkeep me\n")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "outside.md")))

    def test_private_text_stays_private(self):
        self.add("door code <private>4711</private> is with the neighbour")
        code, out, _ = run_script("search.sh", "--dir", self.dir, "door code neighbour", "--json")
        self.assertNotIn("4711", out)
        self.assertIn("[private]", out)

    def test_eight_writers_lose_nothing(self):
        """8 processes adding 50 notes each at once: every note there once, whole."""
        code = ("import sys; sys.path.insert(0, %r); import memory_store as ms\n"
                "for i in range(50): ms.append_memory(sys.argv[1], 'writer %%s note %%d ' %% (sys.argv[2], i) + 'x' * 300)\n"
                % ROOT)
        procs = [subprocess.Popen([PYTHON, "-c", code, self.dir, str(w)]) for w in range(8)]
        self.assertEqual([p.wait(timeout=120) for p in procs], [0] * 8)
        path = os.path.join(self.dir, "memory", time.strftime("%Y-%m-%d") + ".md")
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        notes = [l for l in lines if l.startswith("- writer")]
        self.assertEqual(len(notes), 400)
        self.assertEqual(len(set(notes)), 400)
        self.assertTrue(all(l.endswith("x" * 300) for l in notes))  # none torn or interleaved
        self.assertEqual(lines[0], "# " + time.strftime("%Y-%m-%d"))
        self.assertEqual(sum(1 for l in lines if l.startswith("# ")), 1)


class SkillTest(unittest.TestCase):
    def test_the_skill_validates(self):
        try:
            from skills_ref.validator import validate
        except ImportError:
            self.skipTest("skills-ref is not installed (pip install skills-ref)")
        from pathlib import Path
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, "memory-search")  # the folder is installed under the skill's name
            os.symlink(ROOT, folder)
            self.assertEqual(validate(Path(folder)), [])

    def test_the_skill_text_is_short_and_complete(self):
        with open(os.path.join(ROOT, "SKILL.md"), encoding="utf-8") as f:
            text = f.read()
        head, body = text.split("---", 2)[1:]
        self.assertIn("name: memory-search", head)
        for needed in ("description:", "compatibility:", "openclaw:", "python3", "emoji:"):
            self.assertIn(needed, head)
        for needed in ("--json", " get ", " add ", "related", "entity", "path:first-last", "MEMORY_DIR"):
            self.assertIn(needed, body)
        self.assertLess(len(body.split()), 500)  # read on every activation: keep it short


class WorkspaceRuleTest(unittest.TestCase):
    """Without --dir or MEMORY_DIR, the suite searches the workspace it is installed in."""

    def install(self, workspace_files, skill_parent):
        tmp = tempfile.mkdtemp(prefix="memws-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for rel, text in workspace_files.items():
            full = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)
        skill = os.path.join(tmp, skill_parent, "memory-search")
        os.makedirs(os.path.dirname(skill), exist_ok=True)
        shutil.copytree(ROOT, skill, ignore=shutil.ignore_patterns(".git", ".memory", "__pycache__", "bench",
                                                                  "tests", ".ci"))
        return tmp, skill

    def search(self, skill, query, env_extra=None, *args):
        env = clean_env(**(env_extra or {}))
        proc = subprocess.run([os.path.join(skill, "search.sh"), query, "--json"] + list(args),
                              capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), timeout=60)
        return json.loads(proc.stdout)["results"], proc.stderr

    def test_workspace_skills_folder(self):
        tmp, skill = self.install({"MEMORY.md": "# Facts\nthe wombat lives in the garden\n",
                                   "skills/other/SKILL.md": "---\nname: other\n---\nwombat instructions\n"},
                                  "skills")
        results, err = self.search(skill, "wombat")
        self.assertEqual([r["path"] for r in results], ["MEMORY.md"], err)  # not the other skill, not our files
        self.assertTrue(os.path.isdir(os.path.join(tmp, ".memory")))

    def test_a_symlinked_install_finds_its_workspace(self):
        tmp, copy = self.install({"elsewhere/README.md": "not a memory\n"}, "elsewhere")
        workspace = os.path.join(tmp, "ws")
        os.makedirs(os.path.join(workspace, "skills"))
        with open(os.path.join(workspace, "MEMORY.md"), "w", encoding="utf-8") as f:
            f.write("# Facts\nthe pangolin sleeps all day\n")
        link = os.path.join(workspace, "skills", "memory-search")
        os.symlink(copy, link)
        results, err = self.search(link, "pangolin")
        self.assertEqual([r["path"] for r in results], ["MEMORY.md"], err)
        self.assertTrue(os.path.isdir(os.path.join(workspace, ".memory")))
        self.assertFalse(os.path.exists(os.path.join(copy, ".memory")))  # not the suite's real folder

    def test_openclaw_managed_skills_folder(self):
        tmp, skill = self.install({"workspace/memory/2026-01-02.md": "# 2026-01-02\nfed the axolotl\n"}, "skills")
        results, _ = self.search(skill, "axolotl")
        self.assertEqual([r["path"] for r in results], ["memory/2026-01-02.md"])

    def test_agents_skills_folder_and_the_order_of_the_rules(self):
        tmp, skill = self.install({"memory/2026-01-03.md": "# 2026-01-03\nthe quokka smiled\n"},
                                  os.path.join(".agents", "skills"))
        self.assertEqual([r["path"] for r in self.search(skill, "quokka")[0]], ["memory/2026-01-03.md"])
        other = tempfile.mkdtemp(prefix="memother-")
        self.addCleanup(shutil.rmtree, other, True)
        with open(os.path.join(other, "MEMORY.md"), "w") as f:
            f.write("# Other\nthe quokka moved out\n")
        results, _ = self.search(skill, "quokka", {"MEMORY_DIR": other})
        self.assertEqual([r["snippet"] for r in results], ["the quokka moved out"])  # MEMORY_DIR wins
        results, _ = self.search(skill, "quokka", {"MEMORY_DIR": other}, "--dir", os.path.join(tmp))
        self.assertEqual([r["path"] for r in results], ["memory/2026-01-03.md"])  # --dir wins over both


class SessionsTest(TempMemory):
    files = {"MEMORY.md": "# Facts\nThe blog runs on Hugo.\n"}
    OPENCLAW = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-04-08T01:03:43.107Z", "cwd": "/w"},
        {"type": "message", "id": "a1", "timestamp": "2026-04-08T01:04:00.000Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "把博客的 RSS 改成全文输出"}]}},
        {"type": "message", "id": "a2", "timestamp": "2026-04-08T01:04:05.000Z",
         "message": {"role": "assistant", "content": [{"type": "thinking", "thinking": "THINKING-NOISE"},
                                                      {"type": "toolCall", "id": "t1", "name": "read",
                                                       "arguments": {"path": "rss.xml"}}]}},
        {"type": "message", "id": "a3", "message": {"role": "toolResult", "toolCallId": "t1",
                                                     "content": [{"type": "text", "text": "TOOL-NOISE"}]}},
        {"type": "message", "id": "a4", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "已把 .Summary 换成 .Content，RSS 输出全文。"}]}},
        {"type": "message", "id": "a5", "message": {"role": "user", "content": [
            {"type": "text", "text": "key <private>sk-secret-99</private> noted"}]}},
    ]
    CLAUDE = [
        {"type": "summary", "summary": "Blog deploy", "leafUuid": "u5"},
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "<command-name>/clear</command-name>"},
         "timestamp": "2026-03-02T09:00:00.000Z"},
        {"type": "user", "message": {"role": "user", "content": "Deploy the blog to Cloudflare Pages"},
         "timestamp": "2026-03-02T09:00:05.000Z"},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Switching the workflow."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "TOOL-NOISE deploy.yml"}]}},
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Done: the project is named linwei-blog on Cloudflare Pages."}]}},
        # /compact: a boundary, then the summary as a user record (flagged, or by place alone)
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
        {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content":
            "This session is being continued from a previous conversation. QUOKKACOMPACTED"}},
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"},
        {"type": "user", "message": {"role": "user", "content": "Summary: WOMBATUNFLAGGED"}},
        {"type": "user", "message": {"role": "user", "content": "Now add the custom domain"},
         "timestamp": "2026-03-02T10:00:00.000Z"},
    ]

    def setUp(self):
        super().setUp()
        self.sessions = os.path.join(self.tmp, "sessions")
        for rel, records in (("openclaw/s1.jsonl", self.OPENCLAW), ("claude/5d2c.jsonl", self.CLAUDE)):
            full = os.path.join(self.sessions, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")

    def search(self, *args, env=None):
        code, out, err = run_script("search.sh", "--dir", self.dir, *args, "--json", env=env)
        self.assertEqual(code, 0, err)
        return json.loads(out)["results"]

    def test_off_by_default(self):
        self.assertEqual(self.search("Cloudflare Pages"), [])

    def test_turns_are_found_and_cited_by_file_and_line(self):
        hits = self.search("--sessions", self.sessions, "Cloudflare project name")
        self.assertEqual(hits[0]["source"], "sessions")
        self.assertEqual(hits[0]["path"], "sessions/claude/5d2c.jsonl")
        self.assertIn("linwei-blog", hits[0]["snippet"])
        code, out, _ = run_script("search.sh", "--dir", self.dir, "--sessions", self.sessions, "get",
                                  hits[0]["id"], "--json")
        lines = json.loads(out)["lines"]
        self.assertIn("assistant: Done: the project is named linwei-blog on Cloudflare Pages.", lines)
        self.assertEqual(self.search("--sessions", self.sessions, "custom domain")[0]["path"],
                         "sessions/claude/5d2c.jsonl")  # what the person said after a compaction is kept
        hits = self.search("--sessions", self.sessions, "RSS 全文")
        self.assertEqual(hits[0]["path"], "sessions/openclaw/s1.jsonl")
        env = clean_env(MEMORY_SESSIONS_DIR=self.sessions)
        self.assertEqual(self.search("RSS 全文", env=env)[0]["path"], "sessions/openclaw/s1.jsonl")

    def test_tool_noise_and_private_blocks_are_left_out(self):
        for noise in ("TOOL-NOISE", "THINKING-NOISE", "sk-secret-99", "clear", "QUOKKACOMPACTED",
                      "WOMBATUNFLAGGED"):
            hits = self.search("--sessions", self.sessions, noise, "--source", "sessions")
            self.assertEqual(hits, [], noise)

    def test_the_source_filter(self):
        both = {h["source"] for h in self.search("--sessions", self.sessions, "blog")}
        self.assertEqual(both, {"memory", "sessions"})
        only = {h["source"] for h in self.search("--sessions", self.sessions, "blog", "--source", "memory")}
        self.assertEqual(only, {"memory"})
        only = {h["source"] for h in self.search("--sessions", self.sessions, "blog", "--source", "sessions")}
        self.assertEqual(only, {"sessions"})

    def test_a_transcript_is_dated_by_its_first_timestamp(self):
        store = ms.MemoryStore(self.dir, sessions=self.sessions)
        self.addCleanup(store.close)
        store.sync()
        self.assertEqual(store.file_dates()["sessions/openclaw/s1.jsonl"], "2026-04-08")
        self.assertEqual(store.file_dates()["sessions/claude/5d2c.jsonl"], "2026-03-02")


if __name__ == "__main__":
    unittest.main()
