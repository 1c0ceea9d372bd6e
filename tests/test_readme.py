"""The README and docs/*.md tell the truth: every `console` example prints what
the page shows, every usage line in a `sh` block runs (and a search finds
something), and the MCP client snippets start a server that answers.

Examples run from the suite's folder with MEMORY_DIR set to a copy of
examples/memory, as the README's usage section says.  An example output may
end a run of lines with `...`: the lines it stands for are not compared."""
import glob
import json
import os
import re
import shlex
import subprocess
import unittest

from helpers import ROOT, TempMemory, clean_env

README = os.path.join(ROOT, "README.md")
GENERATED = ("cli-reference.md",)  # printed by the tools themselves (tests/test_docs.py)
SKIPPED = ("watch", " mcp", "|", ">", "~", "$(", "--sessions", "printf",  # long-running, piped or machine-specific
           "--namespace", " -o ")  # needs a PostgreSQL server; writes a file


def readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def pages():
    """[(name, text)] of the README and every written page of docs/."""
    paths = [README] + sorted(p for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
                              if os.path.basename(p) not in GENERATED)
    found = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            found.append((os.path.relpath(path, ROOT), f.read()))
    return found


def console_examples(text):
    """[(command, expected output lines)] of the ```console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = part.partition("\n")
            examples.append((command, output.rstrip("\n").split("\n") if output.strip() else []))
    return examples


def usage_lines(text):
    """Commands of the ```sh blocks that the tests can run as shown."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.split("\n"):
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command.startswith(("./search.sh", "./link.sh", "./reindex.sh")) \
                    and "--dir" not in command and not any(s in command for s in SKIPPED):
                lines.append(command)
    return lines


def matches(expected, actual):
    """Whether actual lines match expected ones, where '...' stands for any lines."""
    pattern = "".join(r"(?:.*\n)*?" if line == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "\n".join(actual) + "\n") is not None


class ReadmeTest(TempMemory):
    def run_example(self, command):
        argv = shlex.split(command)
        argv[0] = os.path.join(ROOT, argv[0])
        return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                              env=clean_env(MEMORY_DIR=self.dir))

    def test_console_examples_print_what_the_pages_show(self):
        examples = [(page, example) for page, text in pages() for example in console_examples(text)]
        self.assertGreater(len(examples), 6)
        self.assertGreater(len(console_examples(readme())), 3)
        for page, (command, expected) in examples:
            with self.subTest(page=page, command=command):
                self.reset_examples()
                proc = self.run_example(command.replace("--dir examples/memory ", ""))
                self.assertEqual(proc.returncode, 0, proc.stderr)
                actual = proc.stdout.rstrip("\n").split("\n")
                self.assertTrue(expected, "%s shows no output for %s" % (page, command))
                self.assertTrue(matches(expected, actual), "%s:\n%s\n\nactual:\n%s"
                                % (page, "\n".join(expected), "\n".join(actual)))

    def test_usage_lines_run_and_searches_find_something(self):
        self.reset_examples()
        commands = [(page, command) for page, text in pages() for command in usage_lines(text)]
        self.assertGreater(len(commands), 20)
        self.assertGreater(len(usage_lines(readme())), 10)
        for page, command in commands:
            with self.subTest(page=page, command=command):
                proc = self.run_example(command)
                if "OpenClow" in command:  # the docs' example of an unknown entity
                    self.assertEqual(proc.returncode, 1)
                    self.assertIn("did you mean OpenClaw", proc.stderr)
                    continue
                self.assertEqual(proc.returncode, 0, proc.stderr)
                words = shlex.split(command)[1:]
                if command.startswith("./search.sh") and words[0] not in (
                        "get", "add", "sync", "status", "reindex", "timeline", "context", "--"):
                    self.assertNotIn("No memories match", proc.stdout)

    def test_mcp_snippets_start_a_server(self):
        snippets = [json.loads(b) for _, text in pages() for b in re.findall(r"```json\n(.*?)```", text, re.S)]
        servers = [s["mcpServers"]["memory"] for s in snippets if "mcpServers" in s] + \
                  [s["mcp"]["servers"]["memory"] for s in snippets if "mcp" in s]
        self.assertEqual(len(servers), 2)  # Claude Code / Desktop, OpenClaw
        self.reset_examples()
        for server in servers:
            with self.subTest(server=server):
                self.assertEqual(os.path.basename(server["command"]), "search.sh")
                args = [self.dir if a == "/path/to/your/workspace" else a for a in server["args"]]
                env = clean_env(**{k: self.dir for k in server.get("env", {})})
                hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "readme-test", "version": "1"}}}
                proc = subprocess.run([os.path.join(ROOT, "search.sh")] + args, input=json.dumps(hello) + "\n",
                                      capture_output=True, text=True, env=env, timeout=60)
                answer = json.loads(proc.stdout.splitlines()[0])
                self.assertEqual(answer["result"]["protocolVersion"], "2025-06-18")

    def reset_examples(self):
        """A fresh copy of examples/memory in self.dir (examples may add notes)."""
        self.copy_examples()


if __name__ == "__main__":
    unittest.main()
