#!/usr/bin/env python3
"""The memory page at scale: file size, time to make it, and time until it is
interactive in headless Chromium.

Without --dir it writes a synthetic folder (in a temporary directory) of
daily logs that mention --entities CamelCase project names, a few per
section, the popular ones far more often, so the graph has about that many
entities and well over --links links (the page draws the strongest 10,000).

Then: `link.sh graph --format html -o page.html` as a new process (sync and
link included, and again with the index warm), the file's size, and in the
browser: load event, the page's own ready mark (script done: pan, zoom,
hover and click live), and the time a click on the biggest node takes to list
its citations, a hover, a zoom step and a filter keystroke.

Usage: python3 bench/page.py [--entities 2000] [--links 10000] [--dir FOLDER]
       [--screenshot out.png] [--runs 3]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from browser import Browser, find_chromium  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vin", "sal", "qua", "zen", "bri", "dax", "fel", "gor", "hul",
             "jin", "kel", "mor", "nax", "pel", "rix", "sol", "tam", "ul", "vex", "wyn", "yor"]


def names(n, rng):
    out, seen = [], set()
    while len(out) < n:
        a, b = rng.choice(SYLLABLES).capitalize(), rng.choice(SYLLABLES).capitalize()
        name = a + b + rng.choice(["", "", "Hub", "Lab", "Kit", "Ops", "DB"])
        if name not in seen and len(name) > 4:
            seen.add(name)
            out.append(name)
    return out


def synthetic_folder(root, n_entities, n_links, seed=1):
    """Daily logs: each section names 3-7 entities (half of them popular ones,
    half any), n_links / 3 sections, six a day."""
    rng = random.Random(seed)
    n_entities = int(n_entities * 1.25)  # some names are parts of others and merge: ask for more
    ents = names(n_entities, rng)
    sections = max(200, n_links // 3)
    per_day = 6
    os.makedirs(os.path.join(root, "memory"))
    day = 0
    for start in range(0, sections, per_day):
        y, m, d = 2024 + day // 336, 1 + (day // 28) % 12, 1 + day % 28
        lines = ["# %04d-%02d-%02d" % (y, m, d), ""]
        for s in range(start, min(start + per_day, sections)):
            k = rng.randint(3, 7)
            picked = []
            # every entity appears at least once; then popularity by a power law
            if s < n_entities:
                picked.append(ents[s])
            while len(picked) < k:
                if rng.random() < 0.5:
                    picked.append(ents[min(n_entities - 1, int(rng.paretovariate(0.9)) - 1)])
                else:
                    picked.append(rng.choice(ents))
            picked = list(dict.fromkeys(picked))
            lines += ["## Work on %s" % picked[0],
                      "- Met about %s and %s today." % (picked[0], ", ".join(picked[1:])),
                      "- Next step for %s: review the notes." % picked[-1], ""]
        with open(os.path.join(root, "memory", "%04d-%02d-%02d.md" % (y, m, d)), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        day += 1
    return root


def make_page(folder, out):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    t = time.perf_counter()
    proc = subprocess.run([os.path.join(ROOT, "link.sh"), "graph", "--format", "html", "--dir", folder,
                           "-o", out], env=env, capture_output=True, text=True)
    took = time.perf_counter() - t
    if proc.returncode:
        sys.exit("link.sh failed: %s" % proc.stderr.strip())
    return took, proc.stdout.strip()


def in_browser(page, screenshot=None):
    with Browser() as b:
        load = b.open("file://" + page)
        ready = b.evaluate("window.__memoryPageReady") / 1000.0
        drawn = b.evaluate("new Promise(function(r){(function w(){if(window.__memoryPageDrawn)r(window.__memoryPageDrawn);"
                           "else setTimeout(w,20)})()})") / 1000.0
        timing = b.evaluate("(function(){var n=performance.getEntriesByType('navigation')[0];"
                            "return [n.domInteractive,n.domContentLoadedEventEnd,n.loadEventEnd]})()")
        nodes = b.evaluate("document.querySelectorAll('#nodes circle').length")
        x, y = b.evaluate("(function(){var r=document.querySelector(\"#nodes circle[data-i='0']\")"
                          ".getBoundingClientRect();return [r.x+r.width/2,r.y+r.height/2]})()")
        frame = "new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame(r)})})"
        hovers = []
        for _ in range(2):  # the first hover pays for compiling and styling; the second is what a person feels
            b.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 2, "y": 2})
            b.evaluate(frame)
            t = time.perf_counter()
            b.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
            b.evaluate(frame)
            hovers.append(time.perf_counter() - t)
        hover, hover2 = hovers
        t = time.perf_counter()
        for kind in ("mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        cites = b.evaluate("new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame("
                           "function(){r(document.querySelectorAll('#cites li').length)})})})")
        click = time.perf_counter() - t
        b.evaluate("document.dispatchEvent(new KeyboardEvent('keydown',{key:'Escape'}))")
        t = time.perf_counter()
        b.evaluate("document.getElementById('zin').click();memoryPage.commit();"
                   "new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame(r)})})")
        zoom = time.perf_counter() - t
        t = time.perf_counter()
        b.evaluate("document.getElementById('q').value='ka';memoryPage.filter();"
                   "new Promise(function(r){requestAnimationFrame(function(){requestAnimationFrame(r)})})")
        filt = time.perf_counter() - t
        errors = b.errors()
        fetched = [u for u in b.requests() if u != "file://" + page and not u.startswith("data:")]
        if screenshot:
            b.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 2, "y": 2})
            b.evaluate("document.getElementById('q').value='';memoryPage.filter();"
                       "document.getElementById('zfit').click();new Promise(function(r){setTimeout(r,500)})")
            b.screenshot(screenshot)
    return {"load": load, "ready": ready, "drawn": drawn, "hover2": hover2, "timing": timing, "nodes": nodes, "hover": hover, "click": click, "cites": cites,
            "zoom": zoom, "filter": filt, "errors": errors, "requests": fetched}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entities", type=int, default=2000)
    ap.add_argument("--links", type=int, default=10000)
    ap.add_argument("--dir", help="a real memory folder instead of the synthetic one (it is copied)")
    ap.add_argument("--screenshot")
    ap.add_argument("--runs", type=int, default=3, help="browser runs (the median is shown)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-page-")
    try:
        folder = os.path.join(tmp, "mem")
        if args.dir:
            shutil.copytree(args.dir, folder, ignore=shutil.ignore_patterns(".memory"))
        else:
            synthetic_folder(folder, args.entities, args.links)
        page = os.path.join(tmp, "page.html")
        cold, said = make_page(folder, page)
        warm, said = make_page(folder, page)
        size = os.path.getsize(page)
        print("folder: %s" % (args.dir or "synthetic, %d entities asked" % args.entities))
        print("link.sh graph --format html: %.1f s cold (index and links built), %.1f s warm" % (cold, warm))
        print("  %s" % said)
        print("file: %.2f MB (%d bytes)" % (size / 1e6, size))
        if not find_chromium():
            print("browser: no chromium installed, skipped")
            return 0
        runs = [in_browser(page, args.screenshot if i == 0 else None) for i in range(args.runs)]

        def median(key):
            vals = sorted(r[key] for r in runs)
            return vals[len(vals) // 2]
        r = runs[0]
        print("browser (headless Chromium, median of %d): load event %.2f s, script ready %.2f s, "
              "first frame drawn %.2f s (from navigation start)" % (
                  len(runs), median("load"), median("ready"), median("drawn")))
        print("  navigation timing (ms): dom interactive %.0f, DOMContentLoaded end %.0f, load end %.0f" % tuple(r["timing"]))
        print("  then (to the next frame drawn): hover on the biggest node %.0f ms (first) / %.0f ms (again), "
              "click -> %d citations listed %.0f ms, zoom step redrawn %.0f ms, filter %.0f ms" % (
            median("hover") * 1000, median("hover2") * 1000, r["cites"], median("click") * 1000, median("zoom") * 1000,
            median("filter") * 1000))
        print("  nodes in the SVG: %d; console errors: %d; network requests: %d" % (
            r["nodes"], len(r["errors"]), len(r["requests"])))
        for e in r["errors"][:5]:
            print("  error: %s" % e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
