"""The store's contract: module graph, narrow recovery, settings recorded in
the index, strict options, backends that agree, a pinned tokenizer."""
import ast
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
import unittest
from unittest import mock

from helpers import ROOT, TempMemory, clean_env
import memory_linker
import memory_search
import memory_store as ms


def imports_of(module_file):
    """Every module a file imports, at any depth (lazy imports included)."""
    with open(os.path.join(ROOT, module_file), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


PACKAGE = os.path.join(ROOT, "memsuite")
# The layers are the package's folders, lowest first; search and links share a
# rank and never import each other (docs/architecture.md has the map).
LAYERS = ["base", "text", "files", "index", "store", "search links", "app", "doors"]


def package_modules():
    """{dotted name under memsuite: file path} of every module, __init__ files left out."""
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py") and f != "__init__.py":
                rel = os.path.relpath(os.path.join(folder, f[:-3]), PACKAGE)
                found[rel.replace(os.sep, ".")] = os.path.join(folder, f)
    return found


def module_imports(name, path, modules):
    """The package modules that module `name` imports, lazy imports included
    ("from . import x" counts x when x is a module)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    package = name.split(".")[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
            elif (node.module or "").startswith("memsuite"):
                base = []
            else:
                continue
            target = ".".join(base + ([m for m in (node.module or "").split(".") if m]
                                      if node.level else (node.module or "").split(".")[1:]))
            for a in node.names:
                sub = (target + "." + a.name).strip(".")
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(a.name[len("memsuite."):] for a in node.names if a.name.startswith("memsuite."))
    return {m for m in found if m in modules and m != name}


class ModuleGraphTest(unittest.TestCase):
    """The package's layers are its folders: a module imports its own layer or
    lower ones, never a higher one, lazy imports included; search and links
    are siblings that never import each other."""

    def rank_of(self, module):
        top = module.split(".")[0]
        ranks = [i for i, names in enumerate(LAYERS) if top in names.split()]
        self.assertEqual(len(ranks), 1, "%s sits in no layer folder (%s)" % (module, ", ".join(LAYERS)))
        return ranks[0]

    def test_every_module_sits_in_a_layer_folder(self):
        for module in package_modules():
            self.assertIn(".", module, "%s sits at the top of memsuite/, not in a layer" % module)
            self.rank_of(module)

    def test_lower_layers_never_import_upper_ones(self):
        modules = package_modules()
        wrong = []
        for module, path in modules.items():
            for other in module_imports(module, path, modules):
                a, b = module.split(".")[0], other.split(".")[0]
                if self.rank_of(other) > self.rank_of(module) or {a, b} == {"search", "links"}:
                    wrong.append("%s imports %s" % (module, other))
        self.assertEqual(wrong, [])

    def test_no_import_cycle(self):
        """Imports form no cycle, not even through a lazy import inside a function."""
        modules = package_modules()
        graph = {m: module_imports(m, p, modules) for m, p in modules.items()}
        state = {}

        def visit(m, path):
            if state.get(m) == "done":
                return
            self.assertNotEqual(state.get(m), "open", "cycle: " + " -> ".join(path + [m]))
            state[m] = "open"
            for n in graph[m]:
                visit(n, path + [m])
            state[m] = "done"
        for m in graph:
            visit(m, [])

    def test_no_import_by_string(self):
        """Every import is a statement the tests above can see: no __import__ or
        importlib over a module's name (a lazy import is a small function)."""
        found = []
        for module, path in package_modules().items():
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                name = getattr(node, "id", None) or getattr(node, "attr", None)
                if name in ("__import__", "import_module", "importlib"):
                    found.append("%s:%d" % (module, node.lineno))
        self.assertEqual(found, [])

    def test_no_module_imports_another_modules_private_names(self):
        """A name starting with _ is its module's own: what another module needs
        gets a public name (or moves to a module both can import)."""
        found = []
        for module, path in package_modules().items():
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("memsuite")):
                    found += ["%s:%d %s" % (module, node.lineno, a.name) for a in node.names
                              if a.name.startswith("_")]
        self.assertEqual(found, [])

    def test_the_module_map_lists_every_module_once(self):
        """docs/architecture.md has one line per module, under its layer's
        heading: none missing, none extra, none under the wrong layer."""
        with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
            text = f.read()
        listed, layer = [], None
        for line in text.splitlines():
            heading = re.match(r"## (\w+):", line)
            layer = heading.group(1) if heading else layer if not line.startswith("## ") else None
            item = re.match(r"- `([\w/]+)\.py`: \S", line)
            if item:
                listed.append(item.group(1).replace("/", "."))
                self.assertEqual(item.group(1).split("/")[0], layer, line)
        self.assertEqual(len(listed), len(set(listed)), "a module listed twice")
        self.assertEqual(sorted(listed), sorted(package_modules()))

    def test_front_doors_import_only_the_package(self):
        ours = {"memory_store", "memory_search", "memory_linker"}
        for door in ours:
            self.assertEqual(imports_of(door + ".py") & ours, set(), door)

    def test_public_names_exist(self):
        for module in (ms, memory_search, memory_linker):
            for name in module.__all__:
                self.assertTrue(hasattr(module, name), (module.__name__, name))

    def test_linker_compiles_its_patterns_on_first_use(self):
        code = ("import sys; sys.path.insert(0, %r); import memory_linker; "
                "print(len(memory_linker._compiled))" % ROOT)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
        self.assertEqual(out.strip(), "0")


class QueryPathTest(TempMemory):
    """A query loads only what it needs (issue: a query path that loads only
    what it needs): run one no-change search in a fresh interpreter, as
    search.sh does, and pin the set of the suite's modules it imported."""
    QUERY_MODULES = {
        "memory_search", "memsuite", "memsuite.base.records", "memsuite.base.patterns", "memsuite.base.jsonout",
        "memsuite.base.options", "memsuite.base.compiled", "memsuite.text.chinese",
        "memsuite.text.stemmer", "memsuite.text.irregular", "memsuite.text.tokenizer", "memsuite.text.bm25", "memsuite.text.params", "memsuite.text.markdown",
        "memsuite.text.citations", "memsuite.files.sources", "memsuite.index.records", "memsuite.index.backend", "memsuite.index.blocks",
        "memsuite.index.sqlite.index", "memsuite.index.sqlite.schema",
        "memsuite.store.memory_store", "memsuite.store.freshness", "memsuite.search.synonyms", "memsuite.search.dates", "memsuite.search.ranking",
        "memsuite.search.results", "memsuite.doors.cli_search", "memsuite.app.commands",
        "memsuite.search.supersede",  # the newest fact first (issue 27)
        "memsuite.text.filler",  # a long prompt's chat words (issue 27)
        "memsuite.search.lexicon",  # English <-> Chinese at query time (a memory-mapped table)
        "memsuite.search.features",  # proximity, the topic test and the label (issue 36)
        "memsuite.search.crosslingual",  # a question in the other language, searched again translated (issue 36)
        "memsuite.search.feedback", "memsuite.search.context",  # an unsure question searched again with its best hits' words
        "memsuite.search.answers",  # the kind of answer asked for: a time, an amount (issue 36)
        "memsuite.search.names",  # a name in the other script: Wang Lei / 王磊 (issue 36)
        "memsuite.text.lexicon_table", "memsuite.text.pinyin",  # the tables lexicon.py and names.py read
    }
    NEVER = {"json", "argparse", "memsuite.index.prepare", "memsuite.files.chunker", "memsuite.index.sqlite.writer",
             "memsuite.index.json.index", "memsuite.index.json.format", "memsuite.index.json.writer", "memsuite.index.link_tables", "memsuite.links.entities",
             "memsuite.links.graph", "memsuite.doors.mcp", "memsuite.search.embeddings", "memsuite.index.embedding_tables",
             "memsuite.doors.watch", "memsuite.files.notes", "memsuite.store.backups", "memsuite.store.embedding_fill", "memsuite.files.transcripts", "memsuite.app.page", "memsuite.links.layout", "memsuite.doors.hooks",
             "memsuite.search.recency",  # only for --recent
             "memsuite.search.recall", "memsuite.base.display", "memsuite.doors.cli_admin", "memsuite.doors.cli_link", "memsuite.doors.cli_recall",
             "memory_store", "memory_linker"}

    def imported_by(self, argv):
        code = ("import sys; sys.path[0] = %r; import io, contextlib; before = set(sys.modules)\n"
                "from memory_search import main\n"
                "with contextlib.redirect_stdout(io.StringIO()): code = main(%r)\n"
                "print(code, ' '.join(sorted(set(sys.modules) - before)))" % (ROOT, argv))
        env = clean_env(XDG_CACHE_HOME=os.path.join(self.dir, ".cache"))  # compiled tables: made by the first run
        out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                             env=env, check=True).stdout.split()
        self.assertEqual(out[0], "0")
        return set(out[1:])

    def test_a_no_change_query_imports_only_the_reader_side(self):
        self.write("MEMORY.md", "# Notes\n\n- 博客 RSS 配置: rssLimit 20\n")
        argv = ["--dir", self.dir, "博客RSS配置", "--json"]
        self.imported_by(argv)  # builds the index
        modules = self.imported_by(argv)
        packages = {"memsuite." + m.rsplit(".", 1)[0] for m in package_modules()}  # __init__ files
        ours = {m for m in modules if m.startswith(("memsuite", "memory_"))} - packages
        self.assertEqual(ours, self.QUERY_MODULES)
        self.assertEqual(modules & self.NEVER, set())

    def test_the_documented_path_is_the_one_a_query_runs(self):
        """docs/architecture.md names the modules a query passes through, in
        order, at most eight; each must run code during a real query."""
        with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as f:
            section = f.read().split("## The path a query takes", 1)[1].split("\n## ", 1)[0]
        steps = re.findall(r"^\d+\. `([\w/.]+\.py)`", section, re.M)  # each step's first module
        self.assertLessEqual(len(steps), 8)
        self.assertEqual(len(steps), len(set(steps)), steps)
        self.write("MEMORY.md", "# Notes\n\n- 博客 RSS 配置: rssLimit 20\n")
        code = ("import sys, io, contextlib; sys.path[0] = %r; ran = set()\n"
                "sys.setprofile(lambda frame, event, arg: ran.add(frame.f_code.co_filename) if event == 'call' else None)\n"
                "from memory_search import main\n"
                "with contextlib.redirect_stdout(io.StringIO()): main(['--dir', %r, 'RSS feed', '--json'])\n"
                "sys.setprofile(None); print('\\n'.join(ran))" % (ROOT, self.dir))
        env = clean_env(XDG_CACHE_HOME=os.path.join(self.dir, ".cache"))
        ran = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env,
                             check=True).stdout.split("\n")
        ran = {os.path.relpath(p, ROOT).replace(os.sep, "/") for p in ran if p.startswith(ROOT)}
        for step in steps:
            path = step if "/" not in step or step.startswith("memory_") else "memsuite/" + step
            self.assertIn(path, ran, "the documented path names %s, which a query does not run" % step)


class FreshnessWithTheAnswerTest(TempMemory):
    """How fresh the index was comes back with the answer (Hits, Freshness),
    not as an attribute of the store that the next call overwrites."""

    def test_a_search_carries_its_freshness(self):
        self.write("MEMORY.md", "# Notes\n\n- RSS feed: full text\n")
        store = ms.MemoryStore(self.dir)
        try:
            hits = memory_search.search(store, "RSS feed", sync=True)
            self.assertEqual((hits.stale, hits.checked), (False, None))
            self.assertEqual(tuple(store.refresh()), (False, None))
            self.assertFalse(hasattr(store, "stale") or hasattr(store, "checked_by"))
        finally:
            store.close()


class BackendContractTest(unittest.TestCase):
    """Every backend implements the whole contract (index/backend.py): a method
    left to the base class would raise NotImplementedError mid-search."""

    def test_every_backend_implements_every_method(self):
        from memsuite.index.backend import Backend
        from memsuite.index.json.index import JsonBackend
        from memsuite.index.postgres.backend import PostgresBackend
        from memsuite.index.sqlite.index import SqliteBackend
        contract = [n for n, v in vars(Backend).items() if callable(v) and not n.startswith("_")]
        self.assertIn("discard", contract)
        for cls in (SqliteBackend, JsonBackend, PostgresBackend):
            self.assertTrue(issubclass(cls, Backend), cls.__name__)
            self.assertIsInstance(cls.name, str, cls.__name__)
            missing = [n for n in contract if getattr(cls, n) is getattr(Backend, n)]
            self.assertEqual(missing, [], cls.__name__)

    def test_the_base_class_raises(self):
        from memsuite.index.backend import Backend
        with self.assertRaises(NotImplementedError):
            Backend().links


class CompiledTablesTest(unittest.TestCase):
    def test_two_copies_of_a_source_keep_their_own_tables(self):
        import tempfile
        import shutil
        from memsuite.base import compiled
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        a, b = os.path.join(tmp, "a.txt"), os.path.join(tmp, "b.txt")
        for path in (a, b):
            with open(path, "w") as f:
                f.write("x")
        built = []
        with mock.patch.dict(os.environ, {"XDG_CACHE_HOME": os.path.join(tmp, "cache")}):
            for _ in range(3):
                for path in (a, b):
                    compiled.compiled("t", [path], lambda: built.append(path) or path)
            self.assertEqual(sorted(built), [a, b])  # each built once, then read back
            with open(a, "w") as f:
                f.write("changed")
            self.assertEqual(compiled.compiled("t", [a], lambda: "new"), "new")  # an edited source compiles afresh
            self.assertEqual(compiled.compiled("t", [a], lambda: "v2", depends=(2,)), "v2")  # so does a new tokenizer
            self.assertEqual(compiled.compiled("t", [a], lambda: "v3", depends=(2,)), "v2")

    def test_tables_of_a_removed_copy_and_older_shapes_are_pruned(self):
        import tempfile
        import shutil
        from memsuite.base import compiled
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        cache = os.path.join(tmp, "cache", "memory-suite", "tables")
        copies = [os.path.join(tmp, name, "data.txt") for name in ("kept", "removed")]
        for path in copies:
            os.makedirs(os.path.dirname(path))
            with open(path, "w") as f:
                f.write("x")
        with mock.patch.dict(os.environ, {"XDG_CACHE_HOME": os.path.join(tmp, "cache")}):
            for path in copies:
                compiled.compiled("t-1", [path], lambda: "old shape")
            compiled.compiled("other", [copies[0]], lambda: "another table of the same source")
            shutil.rmtree(os.path.dirname(copies[1]))  # a test's copy of the suite, deleted
            unnoted = os.path.join(cache, "t-1-0000aaaa-0000bbbb.marshal")  # kept before sources were noted
            with open(unnoted, "wb") as f:
                f.write(b"")
            os.utime(unnoted, (0, 0))
            self.assertEqual(len(os.listdir(cache)), 7)
            self.assertEqual(compiled.compiled("t-2", [copies[0]], lambda: "new shape"), "new shape")
            left = sorted(re.sub(r"(-[0-9a-f]{8})+\.", ".", f) for f in os.listdir(cache))
        self.assertEqual(left, ["other.marshal", "other.sources", "t-2.marshal", "t-2.sources"])
        with mock.patch.dict(os.environ, {"XDG_CACHE_HOME": os.path.join(tmp, "cache")}):
            compiled.compiled("t-1", [copies[0]], lambda: "an older checkout of the same copy")
            self.assertEqual(len([f for f in os.listdir(cache) if f.startswith("t-2-")]), 2)  # the newer shape stays


class RecordTest(unittest.TestCase):
    """memory_store.record stands in for collections.namedtuple (cheaper to build)."""
    Point = ms.record("Point", "x y label", defaults=("none",))

    def test_built_by_position_or_keyword_with_defaults(self):
        p = self.Point(1, y=2)
        self.assertEqual((p.x, p.y, p.label), (1, 2, "none"))
        self.assertEqual(p, (1, 2, "none"))
        self.assertEqual(self.Point._make([3, 4, "a"]).label, "a")
        self.assertEqual(p._replace(label="b"), self.Point(1, 2, "b"))
        self.assertEqual(p._asdict(), {"x": 1, "y": 2, "label": "none"})
        self.assertEqual(repr(p), "Point(x=1, y=2, label='none')")
        self.assertEqual(ms.Params().chunk_lines, ms.DEFAULT_PARAMS.chunk_lines)

    def test_wrong_fields_are_errors(self):
        for build in (lambda: self.Point(1), lambda: self.Point(1, 2, 3, 4), lambda: self.Point(1, 2, z=3),
                      lambda: self.Point(1, 2, x=3), lambda: self.Point._make([1])):
            self.assertRaises(TypeError, build)
        self.assertRaises(ValueError, self.Point(1, 2)._replace, z=1)
        with self.assertRaises(AttributeError):
            self.Point(1, 2).x = 5

    def test_records_pickle_as_worker_processes_need(self):
        import pickle
        hit = memory_search.Hit(*range(12))
        self.assertEqual(pickle.loads(pickle.dumps(hit)), hit)
        self.assertIs(type(pickle.loads(pickle.dumps(hit))), memory_search.Hit)


class RecoveryIsNarrowTest(TempMemory):
    files = {"a.md": "# A\nkyoto trip notes\n", "b.md": "# B\nhugo blog notes\n"}

    def index_files(self, backend):
        folder = os.path.join(self.dir, ".memory")
        names = sorted(n for n in os.listdir(folder) if not n.endswith(".lock"))
        digest = {}
        for n in names:
            if n.endswith(("-wal", "-shm")):
                continue
            with open(os.path.join(folder, n), "rb") as f:
                digest[n] = hashlib.sha1(f.read()).hexdigest()
        return digest

    def check_injected_bug(self, backend, target, method):
        store = ms.MemoryStore(self.dir, backend=backend)
        store.sync()
        store.close()
        before = self.index_files(backend)

        def broken(*args, **kwargs):
            raise TypeError("injected bug")
        patch = mock.patch.object(target, method, broken)
        patch.start()
        self.addCleanup(patch.stop)
        warnings = []
        store = ms.MemoryStore(self.dir, backend=backend, warn=warnings.append)
        self.addCleanup(store.close)
        with self.assertRaises(TypeError):
            memory_search.search(store, "kyoto")
        store.close()
        self.assertEqual(warnings, [])
        after = self.index_files(backend)
        self.assertEqual(before, after)  # nothing moved aside, nothing rebuilt
        self.assertFalse([n for n in after if "damaged" in n])

    def test_injected_bug_in_the_json_backend_surfaces(self):
        self.check_injected_bug("json", ms.JsonBackend, "keyword")

    def test_injected_bug_in_the_sqlite_backend_surfaces(self):
        self.check_injected_bug("sqlite", ms.SqliteBackend, "fetch")

    def test_injected_bug_shows_as_one_line_from_the_cli(self):
        code = ("import sys; sys.path.insert(0, %r); import memory_store as ms\n"
                "def broken(*a, **k): raise TypeError('injected bug')\n"
                "ms.SqliteBackend.keyword = broken\n"
                "import memory_search; sys.exit(memory_search.main(['--dir', %r, 'kyoto']))" % (ROOT, self.dir))
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env())
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("unexpected TypeError: injected bug", proc.stderr)
        debug = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               env=clean_env(MEMORY_DEBUG="1"))
        self.assertIn("Traceback", debug.stderr)
        self.assertIn("injected bug", debug.stderr)

    def test_a_damaged_link_table_rebuilds_only_the_links(self):
        store = ms.MemoryStore(self.dir)
        store.sync()
        graph = memory_linker.LinkGraph(store)
        graph.sync()
        store.close()
        path = os.path.join(self.dir, ".memory", "index.sqlite3")
        conn = sqlite3.connect(path)
        chunks_before = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        conn.execute("DROP TABLE link_entities")
        conn.commit()
        conn.close()
        warnings = []
        store = ms.MemoryStore(self.dir, warn=warnings.append)
        self.addCleanup(store.close)
        graph = memory_linker.LinkGraph(store)
        changed, _ = graph.sync()
        self.assertEqual(sorted(changed), ["a.md", "b.md"])  # the links were extracted again
        self.assertEqual(warnings, [])                       # the main index was not touched
        self.assertFalse([n for n in os.listdir(os.path.join(self.dir, ".memory")) if "damaged" in n])
        self.assertEqual(store.chunk_count(), chunks_before)
        self.assertEqual(store.sync().added, [])

    def test_a_corrupt_file_is_still_moved_aside_and_rebuilt(self):
        store = ms.MemoryStore(self.dir)
        store.sync()
        store.close()
        with open(os.path.join(self.dir, ".memory", "index.sqlite3"), "r+b") as f:
            f.seek(0)
            f.write(b"garbage" * 200)
        warnings = []
        store = ms.MemoryStore(self.dir, warn=warnings.append)
        self.addCleanup(store.close)
        self.assertEqual([h.path for h in memory_search.search(store, "kyoto", sync=True)], ["a.md"])
        self.assertEqual(len(warnings), 1)
        self.assertIn("damaged", warnings[0])


class SettingsTest(TempMemory):
    files = {"a.md": "# A\n" + "".join("line %d about kyoto\n" % i for i in range(20))}

    def test_a_settings_change_rebuilds_the_index_and_says_why(self):
        for backend in ("sqlite", "json"):
            store = ms.MemoryStore(self.dir, backend=backend)
            store.sync()
            six = store.chunk_count()
            store.close()
            warnings = []
            store = ms.MemoryStore(self.dir, backend=backend, warn=warnings.append,
                                   params=ms.Params(chunk_lines=10))
            store.refresh()
            self.assertLess(store.chunk_count(), six)
            self.assertEqual(warnings, ["rebuilding the index: its settings changed (chunk_lines 6 -> 10)"])
            store.close()
            store = ms.MemoryStore(self.dir, backend=backend, warn=warnings.append)  # and back
            store.refresh()
            self.assertEqual(store.chunk_count(), six)
            store.close()

    def test_ranking_parameters_do_not_touch_the_index(self):
        store = ms.MemoryStore(self.dir)
        store.sync()
        store.close()
        warnings = []
        store = ms.MemoryStore(self.dir, warn=warnings.append, params=ms.Params(weight_keyword=0.5))
        self.addCleanup(store.close)
        self.assertEqual(store.sync().added, [])
        self.assertEqual(warnings, [])


class StrictOptionsTest(unittest.TestCase):
    def test_a_misspelled_option_name_is_an_error_not_none(self):
        args = ms.parse_args(["--limit", "3"], memory_search.SEARCH_OPTS)
        self.assertEqual(args.limit, "3")  # as given: the command layer checks it (app/commands.py)
        self.assertIsNone(args.since)
        with self.assertRaises(AttributeError):
            args.limt

    def test_a_query_starting_with_a_dash_gets_a_hint(self):
        with self.assertRaises(ms.UsageError) as ctx:
            ms.parse_args(["-x"], memory_search.SEARCH_OPTS)
        self.assertIn("-- -x", str(ctx.exception))


class BackendsAgreeWithFiltersTest(TempMemory):
    files = {
        "MEMORY.md": "# Facts\nkyoto hotel and hugo blog\n",
        "memory/2026-02-01.md": "# 2026-02-01\nkyoto trip planning\n",
        "memory/2026-02-15.md": "# 2026-02-15\nkyoto flights booked, hugo theme\n",
        "memory/2026-03-01.md": "# 2026-03-01\nkyoto photos sorted\n",
        "notes/2026-02-20.md": "# 2026-02-20\nkyoto ramen list\n",
    }

    def test_date_and_path_filters_agree(self):
        cases = [ms.Filters(), ms.Filters(since="2026-02-10"), ms.Filters(until="2026-02-16"),
                 ms.Filters(since="2026-02-10", until="2026-02-28"), ms.Filters(dated_only=True),
                 ms.Filters(path_glob="memory"), ms.Filters(path_glob="memory/2026-02-*"),
                 ms.Filters(path_glob="notes/*", since="2026-02-01"), ms.Filters(path_glob="nothing/*")]
        expected = [
            {"MEMORY.md", "memory/2026-02-01.md", "memory/2026-02-15.md", "memory/2026-03-01.md", "notes/2026-02-20.md"},
            {"MEMORY.md", "memory/2026-02-15.md", "memory/2026-03-01.md", "notes/2026-02-20.md"},
            {"MEMORY.md", "memory/2026-02-01.md", "memory/2026-02-15.md"},
            {"MEMORY.md", "memory/2026-02-15.md", "notes/2026-02-20.md"},
            {"memory/2026-02-01.md", "memory/2026-02-15.md", "memory/2026-03-01.md", "notes/2026-02-20.md"},
            {"memory/2026-02-01.md", "memory/2026-02-15.md", "memory/2026-03-01.md"},
            {"memory/2026-02-01.md", "memory/2026-02-15.md"},
            {"notes/2026-02-20.md"},
            set(),
        ]
        for backend in ("sqlite", "json"):
            store = ms.MemoryStore(self.dir, backend=backend)
            store.sync()
            for filters, want in zip(cases, expected):
                got = {h.path for h in memory_search.search(store, "kyoto", limit=10, filters=filters)}
                self.assertEqual(got, want, (backend, filters))
            store.close()


class TokenizerPinTest(unittest.TestCase):
    """The index deletes rows by deriving their terms again, so the tokenizer's
    output must not change without the index settings changing (which rebuilds
    every index): TOKENIZER_VERSION, or data/zh-variants.txt (its checksum is
    in the settings).  If this fails after an intended change to the code,
    bump the version; then update the digest."""
    PROBE = ("# 博客RSS配置优化 2026-02-20\n- `hugo.toml` 里设置 KX-4471、138-0013-8000 和 Configuration "
             "of the running servers we bought for the kids' colour; ＳＤＫ 十三香小龙虾 帳號 陳靜 Vue3 5G café naïve roadtrip\n"
             "<private>secret</private> e-mail@example.com ~/.openclaw/skills/ 한국어 ひらがな")

    def test_tokenizer_output_is_pinned_to_its_version(self):
        analysed = [ms.text_units(line) for line in self.PROBE.split("\n")]
        output = repr((analysed, [ms.tokenize(line) for line in self.PROBE.split("\n")],
                       [ms.index_terms(line) for line in self.PROBE.split("\n")]))
        digest = hashlib.sha1(output.encode("utf-8")).hexdigest()[:12]
        self.assertEqual((ms.TOKENIZER_VERSION, digest), (13, PINNED_DIGEST), output)


PINNED_DIGEST = "dc6bd728c5db"


class ReadmeExampleTest(TempMemory):
    def test_the_library_example_in_the_readme_runs(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        self.assertTrue(blocks)
        self.copy_examples()
        for code in blocks:
            self.assertIn('if __name__ == "__main__":', code)  # big syncs start worker processes
            script = os.path.join(self.tmp, "example.py")
            with open(script, "w", encoding="utf-8") as f:
                f.write(code.replace('"~/notes"', repr(self.dir)))
            proc = subprocess.run([sys.executable, script], capture_output=True, text=True,
                                  env=clean_env(PYTHONPATH=ROOT), cwd=self.tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(proc.stdout.strip(), code)


if __name__ == "__main__":
    unittest.main()
