"""The docs cannot drift from the code: the CLI reference is what the tools'
--help prints now, and every subcommand, option, MCP tool and MEMORY_*
variable the code knows is written about in README.md or docs/*.md (the prose,
not the generated reference), and every link between the pages leads somewhere.

Help comes in-process from the front doors (docs/make-cli-reference.py); only
the MCP server runs as a process, through its wrapper."""
import difflib
import importlib.util
import json
import os
import re
import subprocess
import unittest

from helpers import ROOT, TempMemory, clean_env

DOCS = os.path.join(ROOT, "docs")
REFERENCE = os.path.join(DOCS, "cli-reference.md")
SOURCE_EXTENSIONS = (".py", ".sh", ".js")
NOT_PRODUCT = ("tests", "bench", "docs", "examples", "data")  # folders whose code the user never runs
# Read from the environment: "MEMORY_X" or 'MEMORY_X' (Python, JS), $MEMORY_X or ${MEMORY_X (shell,
# help texts), process.env.MEMORY_X (the OpenClaw handler); a constant named MEMORY_X is not one.
ENV_READ = re.compile(r"(?:[\"'$]|\$\{|env\.)(MEMORY_[A-Z][A-Z0-9_]*)")


def load_generator():
    spec = importlib.util.spec_from_file_location("make_cli_reference", os.path.join(DOCS, "make-cli-reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose_pages():
    """{path relative to ROOT: text} of the README and the written pages of docs/."""
    paths = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(DOCS, n) for n in os.listdir(DOCS) if n.endswith(".md") and n != "cli-reference.md")
    pages = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            pages[os.path.relpath(path, ROOT)] = f.read()
    return pages


def mentions(text, word):
    """Whether text holds word as a whole token (--since, not --since-x; -n, not -name)."""
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(word), text) is not None


def options_in_help(text):
    """The options a --help text lists: the left column of its option table, and
    the flags of its usage: or Options: line."""
    flags = set()
    for line in text.splitlines():
        row = re.match(r"  (-[^\s,]+(?:, -[^\s,]+)*)", line)
        if row:
            flags.update(row.group(1).split(", "))
        elif line.startswith(("usage:", "Options:")):
            flags.update(re.findall(r"(?<![\w-])--?[a-zA-Z][\w-]*", line))
    return flags - {"-h", "--help"}


def hook_events(text):
    """The EVENT words `search.sh hook --help` lists, e.g. (session-start, prompt, ...)."""
    found = re.search(r"EVENT \(([^)]*)\)", text)
    return [w.strip() for w in found.group(1).split(",")] if found else []


def environment_variables():
    """{MEMORY_* name: first file that reads it} in the suite's own code."""
    found = {}
    for folder, dirs, files in os.walk(ROOT):
        rel = os.path.relpath(folder, ROOT)
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"
                   and not (rel == "." and d in NOT_PRODUCT)]
        for name in files:
            if name.endswith(SOURCE_EXTENSIONS):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for var in ENV_READ.findall(f.read()):
                        found.setdefault(var, os.path.relpath(path, ROOT))
    return found


def slug(heading):
    """The anchor GitHub gives a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


class CliReferenceTest(unittest.TestCase):
    def test_the_reference_is_what_the_tools_print_now(self):
        with open(REFERENCE, encoding="utf-8") as f:
            committed = f.read()
        generated = load_generator().render()
        if committed != generated:
            changes = difflib.unified_diff(committed.splitlines(True), generated.splitlines(True),
                                           "docs/cli-reference.md", "the tools' --help now", n=1)
            self.fail("docs/cli-reference.md is out of date: run python3 docs/make-cli-reference.py\n"
                      + "".join(changes))


class EverythingDocumentedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.commands = load_generator().commands()
        cls.prose = "\n".join(prose_pages().values())

    def test_every_subcommand_is_documented(self):
        subcommands = [title for title, _ in self.commands if " " in title]
        self.assertIn("search.sh get", subcommands)  # the help was read at all
        for title in subcommands:
            with self.subTest(subcommand=title):
                self.assertTrue(mentions(self.prose, title), "%s is in no page of README.md or docs/" % title)

    def test_every_option_is_documented(self):
        for title, text in self.commands:
            options = options_in_help(text)
            self.assertTrue(options or title == "link.sh build", "no options read from %s --help" % title)
            for flag in sorted(options):
                with self.subTest(command=title, option=flag):
                    self.assertTrue(mentions(self.prose, flag), "%s (%s) is in no page of README.md or docs/"
                                    % (flag, title))

    def test_every_hook_event_is_documented(self):
        events = hook_events(dict(self.commands)["search.sh hook"])
        self.assertTrue(events)
        for event in events:
            with self.subTest(event=event):
                self.assertTrue(mentions(self.prose, event))

    def test_every_environment_variable_is_documented(self):
        variables = environment_variables()
        self.assertIn("MEMORY_DIR", variables)  # the scan found the code at all
        for name, where in sorted(variables.items()):
            with self.subTest(variable=name):
                self.assertTrue(mentions(self.prose, name), "%s (read in %s) is in no page of README.md or docs/"
                                % (name, where))


class McpToolsDocumentedTest(TempMemory):
    def test_every_mcp_tool_is_documented(self):
        messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "docs-test", "version": "1"}}},
                    {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
        proc = subprocess.run([os.path.join(ROOT, "search.sh"), "mcp", "--dir", self.dir],
                              input="".join(json.dumps(m) + "\n" for m in messages),
                              capture_output=True, text=True, env=clean_env(), timeout=60)
        answers = {a.get("id"): a for a in map(json.loads, proc.stdout.splitlines())}
        tools = [t["name"] for t in answers[2]["result"]["tools"]]
        self.assertIn("memory_search", tools)
        prose = "\n".join(prose_pages().values())
        for tool in tools:
            with self.subTest(tool=tool):
                self.assertTrue(mentions(prose, tool), "MCP tool %s is in no page of README.md or docs/" % tool)
        with open(os.path.join(DOCS, "agents.md"), encoding="utf-8") as f:
            table = {m.group(1): (m.group(2), m.group(3)) for m in
                     re.finditer(r"^\| `(memory_\w+)` \|([^|]*)\|([^|]*)\|$", f.read(), re.M)}
        for tool in answers[2]["result"]["tools"]:  # docs/agents.md's table of arguments
            with self.subTest(arguments=tool["name"]):
                required, optional = (set(re.findall(r"`(\w+)`", re.sub(r"\(.*?\)", "", cell)))
                                      for cell in table[tool["name"]])  # (what a bracket says is not an argument)
                schema = tool["inputSchema"]
                self.assertEqual(required, set(schema["required"]))
                self.assertEqual(optional, set(schema["properties"]) - set(schema["required"]))


class LinksTest(unittest.TestCase):
    def test_every_link_between_pages_leads_to_a_page_and_heading(self):
        pages = prose_pages()
        with open(REFERENCE, encoding="utf-8") as f:
            pages["docs/cli-reference.md"] = f.read()
        for page, text in sorted(pages.items()):
            for target in re.findall(r"\]\(([^)\s]+)\)", text):
                if re.match(r"[a-z]+:", target):
                    continue  # a web address
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                with self.subTest(page=page, link=target):
                    if resolved == os.path.join("docs", "architecture.md") and \
                            not os.path.exists(os.path.join(ROOT, resolved)):
                        continue  # the module map arrives with the package's reorganisation
                    self.assertTrue(os.path.exists(os.path.join(ROOT, resolved)), "%s links to a missing %s"
                                    % (page, resolved))
                    if anchor and resolved.endswith(".md"):
                        with open(os.path.join(ROOT, resolved), encoding="utf-8") as f:
                            headings = [slug(h) for h in re.findall(r"^#+ (.*)$", strip_code(f.read()), re.M)]
                        self.assertIn(anchor, headings, "%s: no heading #%s in %s" % (page, anchor, resolved))


def strip_code(text):
    """Markdown without its fenced blocks (a '# comment' there is not a heading)."""
    return re.sub(r"```.*?```", "", text, flags=re.S)


if __name__ == "__main__":
    unittest.main()
