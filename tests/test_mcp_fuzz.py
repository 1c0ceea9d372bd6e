"""Nothing a client sends stops the MCP server (issue: the right folder, and nothing an
agent sends can break the server): thousands of malformed messages, each followed
by a ping that must be answered."""
import json
import os
import random
import subprocess
import unittest

from helpers import ROOT, TempMemory, clean_env

FUZZ_MESSAGES = int(os.environ.get("MEMORY_FUZZ_MESSAGES", "2000"))
TOOLS = ["memory_search", "memory_get", "memory_add", "memory_related", "memory_entity",
         "memory_timeline", "memory_context", "memory_status"]
WEIRD = [None, True, False, 0, -1, 1.5, float("inf"), "", "x", "../../etc/passwd", "\u0000", "博客",
         [], [1, 2], {}, {"a": {"b": []}}, "a" * 5000, 10 ** 30]


def deep(n):
    value = []
    for _ in range(n):
        value = [value]
    return value


def fuzz_lines(rng, count):
    """count raw lines: type-confused envelopes and arguments for every tool,
    truncated and invalid UTF-8 lines, a 1 MB line, deep nesting."""
    for i in range(count):
        kind = i % 10
        if kind == 0:
            msg = {"jsonrpc": rng.choice(["2.0", "1.0", None, 2]), "id": rng.choice(WEIRD),
                   "method": rng.choice(WEIRD + ["initialize", "tools/call", "tools/list", "ping"])}
            yield json.dumps(msg).encode()
        elif kind == 1:
            yield json.dumps({"jsonrpc": "2.0", "id": i, "method": "initialize",
                              "params": rng.choice([{"clientInfo": rng.choice(WEIRD)},
                                                    {"protocolVersion": rng.choice(WEIRD)}, rng.choice(WEIRD)])}).encode()
        elif kind in (2, 3, 4):
            tool = rng.choice(TOOLS + WEIRD[:8])
            args = {k: rng.choice(WEIRD) for k in rng.sample(["query", "path", "text", "target", "name", "anchor",
                                                               "limit", "from", "lines", "budget", "tags", "mode",
                                                               "since", "sort", "request", "x"], 3)}
            params = rng.choice([{"name": tool, "arguments": args}, {"name": tool, "arguments": rng.choice(WEIRD)},
                                 {"name": [tool]}, rng.choice(WEIRD)])
            yield json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params},
                             allow_nan=True).encode()
        elif kind == 5:
            good = json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/list"}).encode()
            yield good[:rng.randrange(1, len(good))]  # truncated
        elif kind == 6:
            yield bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))).replace(b"\n", b" ")
        elif kind == 7:
            yield b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "\xff\xfe"}}'
        elif kind == 8:
            yield json.dumps(rng.choice([[], [1], [{"jsonrpc": "2.0"}], "str", 5, None])).encode()
        else:
            yield json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "memory_search", "arguments": {"query": deep(rng.choice([5, 50]))}}}).encode()
    yield b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "pad": "' + b"a" * (1 << 20) + b'"}'
    yield b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": ' + b"[" * 100000 + b"]" * 100000 + b"}"


class McpFuzzTest(TempMemory):
    def test_thousands_of_bad_messages_each_followed_by_an_answered_ping(self):
        self.write("MEMORY.md", "# Memory\n\nThe blog runs on Hugo.\n")
        proc = subprocess.Popen([os.path.join(ROOT, "search.sh"), "mcp", "--dir", self.dir],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                env=clean_env())
        self.addCleanup(proc.stdout.close)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        rng = random.Random(17)
        sent = answered = 0
        for n, line in enumerate(fuzz_lines(rng, FUZZ_MESSAGES)):
            ping_id = "ping-%d" % n
            proc.stdin.write(line + b"\n" + json.dumps({"jsonrpc": "2.0", "id": ping_id, "method": "ping"}).encode()
                             + b"\n")
            proc.stdin.flush()
            sent += 1
            while True:
                reply = proc.stdout.readline()
                self.assertTrue(reply, "the server died after message %d: %r" % (n, line[:200]))
                doc = json.loads(reply)  # every line the server writes is JSON-RPC
                self.assertEqual(doc.get("jsonrpc"), "2.0")
                if doc.get("id") == ping_id:
                    self.assertEqual(doc.get("result"), {})
                    answered += 1
                    break
        self.assertEqual((sent, answered), (FUZZ_MESSAGES + 2, FUZZ_MESSAGES + 2))
        proc.stdin.close()
        self.assertEqual(proc.wait(timeout=30), 0)
        with open(os.path.join(self.dir, "MEMORY.md"), encoding="utf-8") as f:
            self.assertTrue(f.read().startswith("# Memory\n\nThe blog runs on Hugo.\n"))


if __name__ == "__main__":
    unittest.main()
