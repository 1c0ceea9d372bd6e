"""The memory page (link.sh graph --format html, search.sh report --html):
self-contained, deterministic, private blocks absent, the graph complete;
and, when Chromium is installed, rendered in a real headless browser."""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import PYTHON, ROOT, TempMemory, clean_env, run_script

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser import Browser, find_chromium  # noqa: E402

SECRET_EN = "QuuxbarVault"
SECRET_ZH = "青龙计划"
SECRET_LINE = "the door code is 4471-9920"


class PageFolder(TempMemory):
    """The bundled examples plus a private block holding names that would be
    entities (a CamelCase word, a Chinese term, a #tag) if they were shown."""

    def setUp(self):
        super().setUp()
        self.copy_examples()
        self.write("memory/2026-03-26.md", (
            "# 2026-03-26\n\n## Plans\n- OpenClaw and GitHub again, with PaperMod.\n"
            "<private>\n- %s holds %s and #%s\n- %s 和 %s配置, OpenClaw\n</private>\n"
            "- 京都 trip photos sorted.\n"
            "- Odd names stay text: `</script><img src=x onerror=alert(1)>` and `a\"b'c&d`, with OpenClaw.\n")
            % (SECRET_EN, SECRET_LINE, SECRET_EN, SECRET_ZH, SECRET_ZH))
        with open(os.path.join(self.dir, "MEMORY.md"), encoding="utf-8") as f:
            memory = f.read()
        self.write("MEMORY.md", memory + "\n<private>\n%s at %s\n</private>\n" % (SECRET_EN, SECRET_ZH))
        self.out = os.path.join(self.tmp, "memory.html")

    def page(self, *extra, script="link.sh"):
        args = (["graph", "--format", "html"] if script == "link.sh" else ["report", "--html"])
        code, out, err = run_script(script, *args, "--dir", self.dir, "-o", self.out, *extra)
        self.assertEqual(code, 0, err)
        with open(self.out, encoding="utf-8") as f:
            return f.read()

    def graph(self):
        import memory_linker
        import memory_store
        store = memory_store.MemoryStore(self.dir)
        self.addCleanup(store.close)
        store.refresh()
        return store, memory_linker.synced_graph(store)


def without_time(text):
    return re.sub(r'<span id="made">[^<]*</span>', '<span id="made"></span>', text)


class Resources(html.parser.HTMLParser):
    """Every attribute or tag that could make a browser fetch something."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in ("link", "img", "iframe", "object", "embed", "audio", "video", "source", "base", "image"):
            self.found.append("<%s>" % tag)
        for name, value in attrs:
            value = value or ""
            if name in ("src", "srcset", "poster", "data", "action", "background"):
                self.found.append("%s=%s" % (name, value))
            if name in ("href", "xlink:href") and not value.startswith("#"):
                self.found.append("%s=%s" % (name, value))
            if "://" in value and name not in ("content",):
                self.found.append("%s=%s" % (name, value))
        if tag == "script" and dict(attrs).get("type") not in (None, "application/json"):
            self.found.append("script type %s" % dict(attrs).get("type"))


class PageContentTest(PageFolder):

    def test_self_contained(self):
        text = self.page()
        parser = Resources()
        parser.feed(text)
        self.assertEqual(parser.found, [])
        style = "".join(re.findall(r"<style>(.*?)</style>", text, re.S))
        self.assertNotIn("@import", style)
        self.assertNotIn("@font-face", style)
        self.assertNotIn("url(", style)
        self.assertIn("default-src 'none'", text)  # the browser itself forbids any request
        script = "".join(re.findall(r"<script>(.*?)</script>", text, re.S))
        for call in ("fetch(", "XMLHttpRequest", "import(", "WebSocket", "EventSource", ".src=", "sendBeacon"):
            self.assertNotIn(call, script)

    def test_names_are_escaped(self):
        text = self.page()
        self.assertNotIn("<img", text)
        self.assertEqual(text.count("</script>"), 2)  # the data's and the script's own
        self.assertIn("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;", text)  # the label, as text

    def test_private_blocks_never_appear(self):
        text = self.page()
        for secret in (SECRET_EN, SECRET_ZH, SECRET_LINE, "4471-9920", "[private]", "<private"):
            self.assertNotIn(secret, text)
        # the lines around the block are there, so the file was read
        self.assertIn("京都 trip photos sorted.", text)

    def test_node_and_link_counts_match_the_graph(self):
        text = self.page()
        store, graph = self.graph()
        entities = graph.table()
        self.assertEqual(len(re.findall(r"<circle data-i=", text)), len(entities))
        self.assertEqual(len(re.findall(r'<text data-i="\d+"', text)), len(entities))
        names = re.findall(r'<text data-i="\d+"[^>]*>([^<]*)</text>', text)
        import html as html_mod
        self.assertEqual([html_mod.unescape(n) for n in names], [e.name for e in entities])
        from memsuite.app import page
        data = page.collect(store, graph)
        segments = sum(p.count("M") for p in re.findall(r'<path class="w\d" d="([^"]*)"', text))
        self.assertEqual(segments, len(data["links"]))
        self.assertGreater(len(data["links"]), 50)
        # a link is two entities sharing a chunk: OpenClaw and PaperMod share one
        by_name = {nd["name"]: i for i, nd in enumerate(data["nodes"])}
        pair = tuple(sorted((by_name["OpenClaw"], by_name["PaperMod"])))
        self.assertIn(pair, {(a, b) for a, b, _ in data["links"]})

    def test_citations_carry_their_lines(self):
        store, graph = self.graph()
        from memsuite.app import page
        data = page.collect(store, graph)
        node = next(nd for nd in data["nodes"] if nd["name"] == "OpenClaw")
        cites = [data["citations"][c] for c in node["cited"]]
        self.assertEqual(len(cites), node["chunks"])
        import memory_store
        dates = [memory_store.file_date(c[0].split(":")[0]) or "" for c in cites]
        self.assertEqual(dates, sorted(dates, reverse=True))  # newest first
        first = cites[0]
        self.assertEqual(first[0], "memory/2026-03-26.md:1-6")  # its lines 5-6 are private
        self.assertEqual([n for n, _ in first[2]], [4])
        path, lines = first[0].split(":")
        with open(os.path.join(self.dir, path), encoding="utf-8") as f:
            file_lines = f.read().split("\n")
        for number, line in first[2]:
            self.assertEqual(file_lines[number - 1].strip(), line)
        self.assertEqual(node["first"], "2026-02-10")
        self.assertEqual(node["last"], "2026-03-26")

    def test_big_folders_keep_the_page_small(self):
        from memsuite.app import page
        store, graph = self.graph()
        saved = page.CITES_SHOWN, page.CITED_WITH_LINES, page.CITES_BUDGET
        self.addCleanup(setattr, page, "CITES_BUDGET", saved[2])
        self.addCleanup(setattr, page, "CITED_WITH_LINES", saved[1])
        self.addCleanup(setattr, page, "CITES_SHOWN", saved[0])
        page.CITES_SHOWN, page.CITED_WITH_LINES, page.CITES_BUDGET = 3, 1, 3000
        data = page.collect(store, graph)
        nodes, cites = data["nodes"], data["citations"]
        self.assertTrue(all(1 <= len(nd["cited"]) <= min(3, nd["chunks"]) for nd in nodes))  # each keeps its newest
        self.assertLess(len([nd for nd in nodes if len(nd["cited"]) == min(3, nd["chunks"])]), len(nodes))
        lines = sum(len(t.encode("utf-8")) + 10 for c in cites for _, t in c[2])
        self.assertLess(lines, 3000)
        self.assertGreater(lines, 1000)
        used = sorted({c for nd in nodes for c in nd["cited"]})
        self.assertEqual(used, list(range(len(cites))))  # none listed for nothing
        self.assertTrue(cites[nodes[0]["cited"][0]][2])  # the most mentioned entity's newest, with its lines
        self.assertFalse(all(cites[nd["cited"][0]][2] for nd in nodes))  # ... not every one's: the budget
        newest = {nd["cited"][0] for nd in nodes}
        self.assertTrue(all(i in newest for i, c in enumerate(cites) if c[2]))  # lines only for the newest
        # every day an entity was mentioned is kept for the date filter, not only the listed ones
        kyoto = next(nd for nd in nodes if nd["name"] == "京都")
        self.assertLessEqual(len(kyoto["cited"]), 3)
        self.assertEqual(len(kyoto["days"]), 5)

    def test_deterministic(self):
        one = self.page()
        two = self.page()
        self.assertNotEqual(re.search(r'<span id="made">([^<]*)</span>', one).group(1), "")
        self.assertEqual(without_time(one), without_time(two))
        shutil.rmtree(os.path.join(self.dir, ".memory"))  # a fresh index gives the same page
        three = self.page()
        self.assertEqual(without_time(one), without_time(three))
        four = self.page(script="search.sh")
        self.assertEqual(without_time(one), without_time(four))
        shutil.rmtree(os.path.join(self.dir, ".memory"))  # and the JSON backend draws the same page
        five = self.page("--backend", "json")
        self.assertEqual(without_time(one), without_time(five))

    def test_says_which_folder_and_when(self):
        text = self.page()
        self.assertIn('<code id="folder">%s</code>' % os.path.realpath(self.dir), text)
        self.assertRegex(text, r'<span id="made">\d{4}-\d\d-\d\d \d\d:\d\d UTC</span>')

    def test_cjk_font_fallbacks(self):
        text = self.page()
        body_font = re.search(r"body\{[^}]*font-family:([^;]*);", text).group(1)
        for font in ("Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", "sans-serif"):
            self.assertIn(font, body_font)
        self.assertIn("陳靜", text)  # shown as written, not escaped away

    def test_timeline_counts_chunks_per_day(self):
        text = self.page()
        days = dict(re.findall(r'data-d="([\d-]+)"[^>]*><title>[\d-]+: (\d+) chunks', text))
        store, _ = self.graph()
        expected = {}
        for path in store.known_files():
            for row in store.chunks_of(path):
                if row.date:
                    expected[row.date] = expected.get(row.date, 0) + 1
        self.assertEqual({d: int(n) for d, n in days.items()}, expected)

    def test_entity_page_and_json_summary(self):
        code, out, err = run_script("link.sh", "graph", "--format", "html", "--entity", "OpenClaw", "--top", "8",
                                    "--dir", self.dir, "-o", self.out, "--json")
        self.assertEqual(code, 0, err)
        import json
        summary = json.loads(out)
        self.assertEqual(summary["entities"], 8)
        with open(self.out, encoding="utf-8") as f:
            self.assertEqual(len(re.findall(r"<circle data-i=", f.read())), 8)

    def test_other_formats_to_a_file(self):
        target = os.path.join(self.tmp, "g.mmd")
        code, out, err = run_script("link.sh", "graph", "--dir", self.dir, "-o", target)
        self.assertEqual((code, out), (0, ""), err)
        with open(target, encoding="utf-8") as f:
            self.assertTrue(f.read().startswith("graph LR"))


class PageErrorsTest(PageFolder):

    def assertOneLineError(self, code, err, expected_code):
        self.assertEqual(code, expected_code, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)

    def test_bad_input(self):
        code, _, err = run_script("search.sh", "report", "--dir", self.dir, "-o", self.out)
        self.assertOneLineError(code, err, 2)
        self.assertIn("--html", err)
        code, _, err = run_script("link.sh", "graph", "--format", "html", "--dir", self.dir,
                                  "-o", os.path.join(self.tmp, "no", "such", "folder", "p.html"))
        self.assertOneLineError(code, err, 1)
        code, _, err = run_script("link.sh", "graph", "--format", "html", "--dir", self.dir, "-o", self.tmp)
        self.assertOneLineError(code, err, 2)
        code, _, err = run_script("link.sh", "graph", "--format", "html", "--dir", self.dir, "--json")
        self.assertOneLineError(code, err, 2)
        code, _, err = run_script("link.sh", "graph", "--format", "html", "--dir", self.dir, "--entity",
                                  "NoSuchThingAtAll", "-o", self.out)
        self.assertOneLineError(code, err, 1)
        code, _, err = run_script("search.sh", "report", "--html", "--dir", os.path.join(self.tmp, "missing"),
                                  "-o", self.out)
        self.assertOneLineError(code, err, 1)
        self.assertFalse(os.path.exists(self.out))

    def test_empty_folder(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        code, _, err = run_script("search.sh", "report", "--html", "--dir", empty, "-o", self.out)
        self.assertEqual(code, 0, err)
        with open(self.out, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("nothing to link", text)
        self.assertNotIn("<circle", text)

    def test_searches_never_import_the_page(self):
        probe = ("import sys, io, contextlib; sys.path.insert(0, %r)\n"
                 "import memory_search, memory_linker\n"
                 "with contextlib.redirect_stdout(io.StringIO()):\n"
                 "    memory_search.main(['--dir', %r, 'RSS'])\n"
                 "    memory_linker.main(['entity', 'OpenClaw', '--dir', %r])\n"
                 "    memory_linker.main(['graph', '--dir', %r])\n"
                 "print(sorted(m for m in sys.modules if m in ('memsuite.app.page', 'memsuite.links.layout')))\n") % (
            ROOT, self.dir, self.dir, self.dir)
        out = subprocess.run([PYTHON, "-c", probe], capture_output=True, text=True, env=clean_env(), timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "[]")


class PageCodeTest(unittest.TestCase):

    def test_python_38_and_standard_library_only(self):
        import ast
        files = [os.path.join(ROOT, "memsuite", n) for n in ("__init__.py", "links/layout.py", "app/page.py")] + [
            os.path.join(ROOT, "tests", "browser.py"), os.path.join(ROOT, "bench", "page.py")]
        allowed = {"memory_store", "memory_linker", "memsuite", "browser", "helpers"}
        stdlib = getattr(sys, "stdlib_module_names", None)
        for path in files:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), filename=path, feature_version=(3, 8))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in allowed or stdlib is None:
                        continue
                    self.assertIn(top, stdlib, "%s imports %s" % (path, name))


class LayoutTest(unittest.TestCase):

    def graph(self, n=300, links=1200):
        import random
        r = random.Random(7)
        edges = set()
        while len(edges) < links:
            a, b = int(r.paretovariate(1.3)) % n, r.randrange(n)
            if a != b:
                edges.add((min(a, b), max(a, b), r.randint(1, 6)))
        return n, sorted(edges)

    def test_same_graph_same_layout(self):
        from memsuite.links import layout
        n, edges = self.graph()
        self.assertEqual(layout.spring_layout(n, edges), layout.spring_layout(n, edges))
        n, edges = self.graph(600, 2400)  # the two-stage path for big graphs
        self.assertEqual(layout.spring_layout(n, edges), layout.spring_layout(n, edges))

    def test_linked_nodes_are_closer(self):
        import math
        import random
        from memsuite.links import layout
        n, edges = self.graph()
        pts = layout.spring_layout(n, edges)
        linked = sum(math.dist(pts[a], pts[b]) for a, b, _ in edges) / len(edges)
        r = random.Random(3)
        pairs = [(r.randrange(n), r.randrange(n)) for _ in range(2000)]
        anyone = sum(math.dist(pts[a], pts[b]) for a, b in pairs if a != b) / len(pairs)
        self.assertLess(linked, anyone * 0.8)

    def test_circles_do_not_overlap(self):
        import math
        from memsuite.links import layout
        n, edges = self.graph()
        pts = layout.fit(layout.spring_layout(n, edges), 1000, 700, 20)
        radii = [3 + 9 * (1.0 / (i + 1)) ** 0.5 for i in range(n)]
        pts = layout.separate(pts, radii, pad=1.0, rounds=200)
        worst = min(math.dist(pts[a], pts[b]) - radii[a] - radii[b]
                    for a in range(n) for b in range(a + 1, n))
        self.assertGreater(worst, -0.5)

    def test_labels_never_overlap_at_their_level(self):
        from memsuite.links import layout
        n, edges = self.graph()
        pts = layout.fit(layout.spring_layout(n, edges), 1000, 700, 20)
        radii = [3.0] * n
        widths = [layout.text_width("Entity number %d" % i, 12) for i in range(n)]
        placed = layout.place_labels(pts, radii, widths, 15, levels=5, first=-1)
        self.assertTrue(any(lv == 0 for lv, _ in placed))
        self.assertTrue(any(lv is not None and lv > 0 for lv, _ in placed))
        for level in range(5):
            s = 1.0 / 2 ** (level - 1)
            boxes = [layout._label_box(pts[i], radii[i], widths[i] * s, 15 * s, 4 * s, side)
                     for i, (lv, side) in enumerate(placed) if lv is not None and lv <= level]
            for i, a in enumerate(boxes):
                for b in boxes[i + 1:]:
                    self.assertFalse(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3],
                                     "labels overlap at level %d: %s %s" % (level, a, b))

    def test_text_width_counts_wide_characters(self):
        from memsuite.links import layout
        self.assertEqual(layout.text_width("陈静", 12), 24)
        self.assertLess(layout.text_width("chen", 12), layout.text_width("陈静陈静", 12))


@unittest.skipUnless(find_chromium(), "no chromium installed (Debian: apt-get install chromium fonts-noto-cjk)")
class BrowserTest(PageFolder):
    """The page as a person sees it, in headless Chromium."""

    def setUp(self):
        super().setUp()
        self.text = self.page()
        self.browser = Browser()
        self.addCleanup(self.browser.close)
        self.browser.open("file://" + self.out)

    def click(self, selector):
        b = self.browser
        x, y = b.evaluate("(function(){var r=document.querySelector(%r).getBoundingClientRect();"
                          "return [r.x+r.width/2, r.y+r.height/2]})()" % selector)
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def test_loads_without_errors_or_requests(self):
        b = self.browser
        self.assertIsNotNone(b.evaluate("window.__memoryPageReady"))
        self.assertEqual(b.errors(), [])
        page_url = "file://" + self.out
        fetched = [u for u in b.requests() if u != page_url and not u.startswith("data:")]
        self.assertEqual(fetched, [])
        shot = os.path.join(self.tmp, "page.png")
        b.screenshot(shot)
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_svg_has_every_node(self):
        _, graph = self.graph()
        self.assertEqual(self.browser.evaluate("document.querySelectorAll('#graph #nodes circle').length"),
                         len(graph.table()))
        # and the most mentioned entities are labelled at the first zoom
        shown = self.browser.evaluate(
            "Array.prototype.filter.call(document.querySelectorAll('#labels text'),"
            "function(t){return getComputedStyle(t).display!=='none'}).length")
        self.assertGreater(shown, len(graph.table()) // 3)

    def test_click_shows_citations_with_lines(self):
        _, graph = self.graph()
        top = graph.table()[0]
        self.click("#nodes circle[data-i='0']")
        b = self.browser
        self.assertEqual(b.evaluate("document.querySelector('#panel h2').textContent"), top.name)
        cites = b.evaluate("Array.prototype.map.call(document.querySelectorAll('#cites li code'),"
                           "function(c){return c.textContent})")
        self.assertEqual(len(cites), min(top.chunks, 50))
        for c in cites:
            self.assertRegex(c, r"^[^:]+\.md:\d+-\d+$")
        expected = [a.id for a in graph.appearances(top, 50)]
        self.assertEqual(sorted(cites), sorted(expected))
        lines = b.evaluate("document.querySelectorAll('#cites .ln').length")
        self.assertGreater(lines, 0)
        self.assertEqual(b.errors(), [])

    def test_click_on_a_chinese_entity(self):
        b = self.browser
        i = b.evaluate("Array.prototype.findIndex.call(document.querySelectorAll('#labels text'),"
                       "function(t){return t.textContent==='京都'})")
        self.assertGreaterEqual(i, 0)
        self.click("#nodes circle[data-i='%d']" % i)
        self.assertEqual(b.evaluate("document.querySelector('#panel h2').textContent"), "京都")
        self.assertIn("京都", b.evaluate("document.querySelector('#cites').textContent"))

    def set_filter(self, **values):
        """Type into the filter box as a person would (input events), then wait for it."""
        js = "".join("var e=document.getElementById(%r);e.value=%r;e.dispatchEvent(new Event('input'));" % (k, v)
                     for k, v in values.items())
        self.browser.evaluate(js + "new Promise(function(r){setTimeout(r,200)})")

    def test_odd_names_and_an_empty_folder_render_cleanly(self):
        b = self.browser
        i = b.evaluate("Array.prototype.findIndex.call(document.querySelectorAll('#labels text'),"
                       "function(t){return t.textContent.indexOf('<img')>=0})")
        self.assertGreaterEqual(i, 0)
        b.evaluate("memoryPage.select(%d)" % i)
        self.assertIn("<img src=x", b.evaluate("document.querySelector('#panel h2').textContent"))
        self.assertEqual(b.evaluate("document.querySelectorAll('#panel img').length"), 0)
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        code, _, err = run_script("search.sh", "report", "--html", "--dir", empty, "-o", self.out)
        self.assertEqual(code, 0, err)
        b.open("file://" + self.out)
        self.assertIsNotNone(b.evaluate("window.__memoryPageReady"))
        self.assertEqual(b.errors(), [])

    def test_filter_box(self):
        b = self.browser
        total = b.evaluate("document.querySelectorAll('#nodes circle').length")
        self.set_filter(q="hugo")
        kept = b.evaluate("document.querySelectorAll('#mn circle').length")
        names = b.evaluate("Array.prototype.map.call(document.querySelectorAll('#ml text'),"
                           "function(t){return t.textContent})")
        self.assertTrue(0 < kept < total)
        self.assertEqual(len(names), kept)
        self.assertTrue(all("hugo" in n.lower() for n in names), names)
        self.assertIn("%d of %d" % (kept, total), b.evaluate("document.getElementById('count').textContent"))
        self.assertTrue(b.evaluate("document.getElementById('graph').classList.contains('dim')"))
        self.set_filter(q="", **{"from": "2026-03-26"})
        late = b.evaluate("Array.prototype.map.call(document.querySelectorAll('#ml text'),"
                          "function(t){return t.textContent})")
        self.assertIn("OpenClaw", late)
        self.assertNotIn("KX-4471", late)
        self.set_filter(**{"from": "", "kind": "place"})
        kinds = b.evaluate("Array.prototype.map.call(document.querySelectorAll('#mn circle'),"
                           "function(c){return c.getAttribute('fill')})")
        self.assertEqual(set(kinds), {"#0a8a63"})
        self.assertIn("京都", b.evaluate("document.getElementById('ml').textContent"))
        self.set_filter(kind="")
        self.assertEqual(b.evaluate("document.querySelectorAll('#mn circle').length"), 0)
        self.assertFalse(b.evaluate("document.getElementById('graph').classList.contains('dim')"))
        self.assertEqual(b.errors(), [])

    def test_zoom_shows_more_labels(self):
        b = self.browser
        count = ("Array.prototype.filter.call(document.querySelectorAll('#labels text'),"
                 "function(t){return getComputedStyle(t).display!=='none'}).length")
        before = b.evaluate(count)
        for _ in range(4):
            b.evaluate("document.getElementById('zin').click()")
        b.evaluate("new Promise(function(r){setTimeout(r,400)})")  # the picture is redrawn when zooming stops
        after = b.evaluate(count)
        self.assertGreater(after, before)


if __name__ == "__main__":
    unittest.main()
