"""Shared plumbing of the end-to-end tests: the real agent clients (installed
from npm into MEMORY_E2E_PREFIX) against local stubs of their model APIs
(tests/e2e/stubs, from ../shared/realclients), everything under one temporary
folder (HOME included), servers on 127.0.0.1 stopped by their process id.

The tests run only with MEMORY_E2E=1 (the optional section of .ci/run sets
it); without it, or without a client, they skip at once."""
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STUBS = os.path.join(HERE, "stubs")


def claude_stub_env(port):
    """Claude Code's environment against the stub on port, kept quiet (stubs/claude-env.json)."""
    with open(os.path.join(STUBS, "claude-env.json")) as f:
        return {k: v.replace("PORT", str(port)) for k, v in json.load(f).items()}
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
SEARCH = os.path.join(ROOT, "search.sh")
ENABLED = os.environ.get("MEMORY_E2E") == "1"
PREFIX = os.environ.get("MEMORY_E2E_PREFIX") or os.path.join(tempfile.gettempdir(), "memory-e2e-clients")
PYTHON = os.environ.get("MEMORY_E2E_PYTHON") or sys.executable
BADGE = "Remember that my new badge number is 88412. The old one (7731) is void."
PIANO = "记住：我女儿的钢琴课改到周三下午四点。"
SECRETS = ("Hunter2Secret", "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVcXz")
SECRET_PROMPT = ("Remember that the staging DB URL is postgres://atlas:Hunter2Secret@db.internal:5432/atlas and "
                 "the home-lab key is sk-ant-api03-Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVcXz-AbCdEf12.")


def wanted(client):
    """Whether this run covers a client (MEMORY_E2E_CLIENTS=claude,codex,openclaw; default all)."""
    chosen = os.environ.get("MEMORY_E2E_CLIENTS")
    return ENABLED and (not chosen or client in chosen.split(","))


def tool(*parts):
    """A client's executable under the prefix, or None."""
    path = os.path.join(PREFIX, *parts)
    return path if os.access(path, os.X_OK) else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stub:
    """A model-API stub on a free local port; every request one JSON line in self.log."""

    def __init__(self, script, folder):
        self.port, self.log = free_port(), os.path.join(folder, "requests.log")
        self.proc = subprocess.Popen([PYTHON, os.path.join(STUBS, script), str(self.port), self.log,
                                      "--max-seconds", "1800"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the stub did not start")

    def mark(self):
        try:
            with open(self.log, encoding="utf-8") as f:
                return sum(1 for _ in f)
        except OSError:
            return 0

    def bodies(self, since=0):
        """Request bodies logged after line `since`."""
        out = []
        with open(self.log, encoding="utf-8") as f:
            for n, line in enumerate(f):
                if n >= since:
                    body = json.loads(line).get("body")
                    if isinstance(body, dict):
                        out.append(body)
        return out

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def notes(body):
    """The <memory-notes> blocks a request carried."""
    return [m for s in strings(body) for m in re.findall(r"<memory-notes.*?</memory-notes>", s, re.S)]


def briefs(body):
    return [n for n in notes(body) if "## Long-term" in n or "## Recent days" in n]


def recalls(body):
    return [n for n in notes(body) if "## Memories for" in n]


def session_files(mem):
    return sorted(glob.glob(os.path.join(mem, "memory", "*-session-*.md")))


def bullets(mem):
    """[(file name, bullet line)] of every captured session file."""
    out = []
    for path in session_files(mem):
        with open(path, encoding="utf-8") as f:
            out += [(os.path.basename(path), l) for l in f.read().splitlines() if l.startswith("- ")]
    return out


def folder_bytes(mem):
    """The memory folder's notes and index (MEMORY.md, memory/, .memory/), not
    what else a workspace holds (an OpenClaw workspace has the skill's copy of
    the suite, whose tests hold the planted secrets)."""
    data = b""
    for dirpath, dirnames, names in os.walk(mem):
        if dirpath == mem:
            dirnames[:] = [d for d in dirnames if d in ("memory", ".memory")]
            names = [n for n in names if n == "MEMORY.md"]
        for n in names:
            try:
                with open(os.path.join(dirpath, n), "rb") as f:
                    data += f.read()
            except OSError:
                pass
    return data


class ClientCase(unittest.TestCase):
    """One temporary world per test class: HOME, the stub, the memory folder."""
    client = None          # set by each test class
    stub_script = None
    notes_script = "make_notes.sh"
    timings = {}

    @classmethod
    def setUpClass(cls):
        cls.world = tempfile.mkdtemp(prefix="memory-e2e-%s-" % cls.client)
        cls.home = os.path.join(cls.world, "home")
        cls.mem = os.path.join(cls.world, "mem")
        cls.proj = os.path.join(cls.world, "proj")
        for d in (cls.home, cls.proj):
            os.makedirs(d)
        subprocess.run(["sh", os.path.join(STUBS, cls.notes_script), cls.mem], check=True,
                       stdout=subprocess.DEVNULL)
        cls.stub = Stub(cls.stub_script, cls.world)
        cls.env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMORY_", "ANTHROPIC_", "OPENAI_",
                                                                             "CODEX_", "OPENCLAW_", "CLAUDE"))}
        cls.env.update(HOME=cls.home, MEMORY_PYTHON=PYTHON, DO_NOT_TRACK="1")
        cls.run_dir = os.path.join(cls.world, "run")  # the resident process's socket: gone with the world
        os.makedirs(cls.run_dir, mode=0o700)
        cls.env["XDG_RUNTIME_DIR"] = cls.run_dir
        try:
            cls.prepare()
        except Exception:
            cls.stub.stop()
            raise

    @classmethod
    def prepare(cls):
        """Client configuration and the sessions the tests read (each test class)."""

    @classmethod
    def tearDownClass(cls):
        cls.stop_client()
        cls.stub.stop()
        for pid, _ in cls.residents():
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        if os.environ.get("MEMORY_E2E_KEEP"):
            sys.stderr.write("\n%s kept: %s\n" % (cls.client, cls.world))
        else:
            shutil.rmtree(cls.world, ignore_errors=True)

    @classmethod
    def residents(cls):
        """[(pid, hooks served)] of the resident processes the hooks started (doors/resident.py)."""
        from memsuite.doors.resident import read_pid_file
        folder = os.path.join(cls.run_dir, "memory-suite")
        names = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
        return [read_pid_file(os.path.join(folder, n)) for n in names if n.endswith(".sock.pid")]

    def check_resident_served(self):
        """The hooks started a resident process, and it served later hooks."""
        served = [n for _, n in self.residents() if n]
        self.assertTrue(served and max(served) >= 2, self.residents())

    @classmethod
    def set_up_claude(cls):
        """Claude Code against the stub, MEMORY_DIR in its settings, as docs/agents.md says."""
        cls.env.update(claude_stub_env(cls.stub.port))
        os.makedirs(os.path.join(cls.home, ".claude"))
        with open(os.path.join(cls.home, ".claude", "settings.json"), "w") as f:
            json.dump({"env": {"MEMORY_DIR": cls.mem}}, f)

    @classmethod
    def set_up_codex(cls, codex):
        """Codex against the stub with the suite's hooks.json, as docs/agents.md says; its CODEX_HOME."""
        cls.env.update(STUB_API_KEY="dummy", PATH=os.path.dirname(codex) + os.pathsep + cls.env.get("PATH", ""))
        codex_home = os.path.join(cls.home, ".codex")
        os.makedirs(codex_home)
        with open(os.path.join(STUBS, "codex-config.toml")) as f:  # the stub as the model
            toml = f.read().replace("PORT", str(cls.stub.port))
        with open(os.path.join(codex_home, "config.toml"), "w") as f:
            f.write(toml)
        with open(os.path.join(ROOT, "integrations", "codex", "hooks.json"), encoding="utf-8") as f:
            hooks = f.read().replace("/path/to/memory-suite", ROOT).replace("/path/to/memory", cls.mem)
        with open(os.path.join(codex_home, "hooks.json"), "w", encoding="utf-8") as f:
            f.write(hooks)
        subprocess.run(["git", "init", "-q", cls.proj], check=True)
        return codex_home

    @classmethod
    def stop_client(cls):
        """Stop what the client left running (its daemons), by process id."""

    @classmethod
    def run_client(cls, argv, timeout=300, env=None, check=True):
        t = time.perf_counter()
        p = subprocess.run(argv, cwd=cls.proj, env=env or cls.env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("%s exited %d: %s" % (argv[:3], p.returncode,
                                                       p.stderr.decode("utf-8", "replace")[-800:]))
        return p, (time.perf_counter() - t) * 1000

    # --- the checks every client shares ------------------------------------------

    def check_no_client_lines(self, markers):
        lines = bullets(self.mem)
        self.assertTrue(lines, "nothing captured")
        for name, line in lines:
            for marker in markers:
                self.assertNotIn(marker, line, "%s: a client's line was captured: %s" % (name, line))

    def check_facts_once_and_secrets_absent(self, facts):
        lines = bullets(self.mem)
        for fact in facts:
            holding = [l for _, l in lines if fact in l]
            self.assertEqual(len(holding), 1, (fact, holding))
        for name in {n for n, _ in lines}:  # within a file, no line twice
            mine = [l for n, l in lines if n == name]
            self.assertEqual(len(mine), len(set(mine)), mine)
        data = folder_bytes(self.mem)  # Markdown and index
        for secret in SECRETS:
            self.assertNotIn(secret.encode(), data, secret)


    def check_the_conversation_recalls(self, fact):
        """self.thin: {MEMORY_HOOK_CONTEXT setting: the requests of a thin
        prompt whose topic its session's earlier turn named}: by default its
        recall holds the fact, without the conversation ("0") it does not."""
        default, off = ("\n".join(r for body in self.thin[k] for r in recalls(body)) for k in ("", "0"))
        self.assertIn(fact, default)
        self.assertNotIn(fact, off)

    def check_new_session_gets(self, bodies, facts):
        text = "\n".join(n for body in bodies for n in notes(body))
        for fact in facts:
            self.assertIn(fact, text)

    def files_holding(self, *facts):
        """For each fact, the session files whose lines hold it."""
        return [[name for name, line in bullets(self.mem) if fact in line] for fact in facts]

    def check_two_files(self, first, second):
        """Two sessions started a second apart, each stating one fact: two files, one fact each."""
        one, two = self.files_holding(first, second)
        self.assertEqual((len(one), len(two)), (1, 1), (one, two))
        self.assertNotEqual(one, two)
        return one[0], two[0]


    def measure(self, markers, new_session, facts, pair=("locker is number 17", "5521")):
        """Issue 26's figures for this client, printed: captured lines from the
        client (markers), doubled lines, facts the new session received,
        planted secrets in the folder, files for two sessions."""
        lines = bullets(self.mem)
        client = sum(any(m in line for m in markers) for _, line in lines)
        doubled = held = 0  # the same line twice in a file; a line another of the file holds whole
        for name in {n for n, _ in lines}:
            mine = [line.split(": ", 1)[-1].rstrip("…") for n, line in lines if n == name]
            doubled += len(mine) - len(set(mine))
            held += sum(any(len(other) > len(body) and body in other for other in mine) for body in mine)
        text = "\n".join(n for body in new_session for n in notes(body))
        data = folder_bytes(self.mem)
        files = self.files_holding(*pair)
        report(self.client + " capture", [
            ("session files", len(session_files(self.mem))), ("captured lines", len(lines)),
            ("lines from the client", client), ("doubled lines", doubled), ("lines held by another", held),
            ("facts the new session received", sum(f in text for f in facts)),
            ("planted secrets in the folder", sum(s.encode() in data for s in SECRETS)),
            ("files for the two sessions", len({f for names in files for f in names}))], unit="")


def report(name, rows, unit=" ms"):
    """Timings printed (never asserted): name, [(label, ms)]."""
    sys.stderr.write("\n%s: %s\n" % (name, ", ".join("%s %.0f%s" % (label, value, unit) for label, value in rows)))
