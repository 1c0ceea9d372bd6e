"""Security and privacy: no reads outside the memory folder, private blocks
never leave the index, no network, arguments never run; and portability."""
import ast
import contextlib
import glob
import io
import json
import os
import socket
import unittest

from helpers import ROOT, TempMemory, run_script
import memory_linker
import memory_search
import memory_store as ms

SECRET = "TOPSECRET-4242"


class PathEscapeTest(TempMemory):
    files = {"memory/2026-01-01.md": "# Day\nkyoto note\n", "MEMORY.md": "long-term\n"}

    def setUp(self):
        super().setUp()
        outside = os.path.join(self.tmp, "outside")
        os.makedirs(outside)
        with open(os.path.join(outside, "secret.md"), "w") as f:
            f.write(SECRET + "\n")
        os.symlink(os.path.join(outside, "secret.md"), os.path.join(self.dir, "link.md"))
        os.symlink(outside, os.path.join(self.dir, "linkdir"))
        self.outside = outside

    ESCAPES = ["../outside/secret.md", "memory/../../outside/secret.md", "/etc/passwd", "link.md",
               "linkdir/secret.md", "..\\outside\\secret.md", "memory/..%2f..%2foutside/secret.md",
               "%2e%2e/outside/secret.md", "....//outside/secret.md", "memory//../../outside/secret.md",
               "C:\\Windows\\win.ini", "~/.bashrc", "\u2025/outside/secret.md", "./../outside/secret.md",
               "memory/2026-01-01.md/../../../outside/secret.md", "nul\0byte.md"]

    def test_get_refuses_every_escape(self):
        for path in self.ESCAPES:
            for extra in ([], ["--json"], ["--from", "1", "--lines", "5"]):
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = memory_search.main(["get", path, "--dir", self.dir] + extra)
                self.assertEqual(code, 1, (path, out.getvalue()))
                self.assertNotIn(SECRET, out.getvalue() + err.getvalue(), path)

    def test_get_reads_only_memory_files(self):
        self.write(".env", "API_KEY=" + SECRET + "\n")
        self.write("notes.txt", SECRET + "\n")
        self.write(".hidden/x.md", SECRET + "\n")
        run_script("search.sh", "sync", "--dir", self.dir)
        for path in (".env", "notes.txt", ".hidden/x.md", ".memory/index.sqlite3", "memory/../.env"):
            code, out, err = run_script("search.sh", "get", path, "--dir", self.dir)
            self.assertEqual(code, 1, path)
            self.assertNotIn(SECRET, out)

    def test_citation_forms_refuse_escapes_too(self):
        for path in ("../outside/secret.md:1-1", "../outside/secret.md#0", "link.md#0"):
            code, out, err = run_script("search.sh", "get", path, "--dir", self.dir)
            self.assertEqual(code, 1, path)
            self.assertNotIn(SECRET, out)

    def test_related_refuses_every_escape(self):
        for path in self.ESCAPES + ["../outside/secret.md#0"]:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = memory_linker.main(["related", path, "--dir", self.dir])
            self.assertEqual(code, 1, path)
            self.assertNotIn(SECRET, out.getvalue())

    def test_nothing_outside_is_indexed(self):
        code, out, _ = run_script("search.sh", "--dir", self.dir, SECRET, "--json")
        self.assertEqual(json.loads(out)["results"], [])


class PrivateBlocksTest(TempMemory):
    files = {
        "memory/2026-02-01.md": "# Day\nPublic kyoto note with OpenClaw.\n<private>\n"
                                "password " + SECRET + " for SecretProject #secrettag\n"
                                "</private>\nMore public text about OpenClaw.\n",
        "memory/2026-02-02.md": "Inline <private>" + SECRET + " SecretProject</private> and OpenClaw again.\n",
    }

    def test_private_text_never_appears(self):
        outputs = []
        for args in (["search.sh", "note", "--json"], ["search.sh", "public", "--json"],
                     ["search.sh", "OpenClaw", "--json", "--related"], ["search.sh", "OpenClaw"],
                     ["search.sh", "get", "memory/2026-02-01.md"], ["search.sh", "get", "memory/2026-02-01.md", "--json"],
                     ["link.sh", "build", "--json"], ["link.sh", "entities", "--json", "--top", "100"],
                     ["link.sh", "entity", "OpenClaw", "--json"], ["link.sh", "graph", "--format", "dot"],
                     ["link.sh", "related", "memory/2026-02-01.md", "--json"]):
            code, out, err = run_script(args[0], *args[1:], "--dir", self.dir)
            self.assertEqual(code, 0, (args, err))
            outputs.append(out + err)
        joined = "\n".join(outputs)
        for secret in (SECRET, "SecretProject", "secrettag", "password"):
            self.assertNotIn(secret, joined)
        for word in (SECRET, "password", "SecretProject"):  # searching for it finds nothing
            code, out, _ = run_script("search.sh", word, "--json", "--dir", self.dir)
            self.assertEqual(json.loads(out)["results"], [], word)
        with open(os.path.join(self.dir, "memory", "2026-02-01.md")) as f:
            self.assertIn(SECRET, f.read())  # the note itself is untouched


class NoNetworkTest(TempMemory):
    def test_default_commands_open_no_socket(self):
        self.copy_examples()
        opened = []
        real_socket = socket.socket

        def refuse(*args, **kwargs):
            opened.append(args)
            raise OSError("network access attempted")
        socket.socket = refuse
        self.addCleanup(setattr, socket, "socket", real_socket)
        for main, args in ((memory_search.main, ["博客RSS配置", "--json", "--related"]),
                           (memory_search.main, ["status", "--json"]), (memory_search.main, ["reindex"]),
                           (memory_linker.main, ["build"]), (memory_linker.main, ["graph", "--format", "dot"])):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(main(args + ["--dir", self.dir]), 0, args)
        self.assertEqual(opened, [])


class ShellArgumentsTest(TempMemory):
    def test_shell_syntax_is_searched_as_text(self):
        self.copy_examples()
        marker = os.path.join(self.tmp, "ran")
        for q in ("$(touch %s)" % marker, "`touch %s`" % marker, "; touch %s" % marker,
                  "| touch %s" % marker, "&& touch %s" % marker, "$HOME", "*", "~"):
            code, out, err = run_script("search.sh", "--dir", self.dir, q, "--json")
            self.assertEqual(code, 0, err)
            self.assertEqual(json.loads(out)["query"], q)
            code, out, err = run_script("link.sh", "entity", q, "--dir", self.dir)
            self.assertIn(code, (0, 1))
        self.assertFalse(os.path.exists(marker))


class PortabilityTest(unittest.TestCase):
    def test_shipped_code_parses_as_python_3_8(self):
        files = [p for folder in ("", "memsuite/**", "tests", "bench") for p in glob.glob(os.path.join(ROOT, folder, "*.py"), recursive=True)]
        self.assertGreater(len(files), 40)
        for path in files:
            with open(path, encoding="utf-8") as f:
                ast.parse(f.read(), filename=path, feature_version=(3, 8))

    def test_missing_fts5_falls_back_to_json_and_says_why(self):
        real_open = ms.SqliteBackend.open

        def no_fts5(backend):
            real_open(backend)
            raise backend.sqlite3.OperationalError("no such module: fts5")
        ms.SqliteBackend.open = no_fts5
        self.addCleanup(setattr, ms.SqliteBackend, "open", real_open)
        import tempfile
        import shutil
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder, True)
        shutil.copytree(os.path.join(ROOT, "examples", "memory"), os.path.join(folder, "m"),
                        ignore=shutil.ignore_patterns(".memory"))
        store = ms.MemoryStore(os.path.join(folder, "m"))
        self.addCleanup(store.close)
        store.sync()
        self.assertEqual(store.backend.name, "json")
        self.assertIn("FTS5", store.status()["fallback_reason"])
        self.assertFalse(os.path.exists(os.path.join(folder, "m", ".memory", "index.sqlite3")))
        self.assertTrue(memory_search.search(store, "十三香"))
        with self.assertRaises(ms.StoreError):
            ms.MemoryStore(os.path.join(folder, "m"), backend="sqlite")


if __name__ == "__main__":
    unittest.main()
