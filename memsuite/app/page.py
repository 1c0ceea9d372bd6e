"""The memory page: one self-contained HTML file showing what a memory folder
holds (`link.sh graph --format html -o memory.html`, `search.sh report --html`).

collect() reads the synced index into plain data; render() turns that data
into the page: the entity graph laid out here (memsuite.links.layout) and drawn as
SVG, a timeline, citations with their lines, a filter box, and a small
inline script for pan, zoom, hover, click and filtering.  The page's HTML,
CSS and JavaScript are files in page_assets/, read when a page is made.  Nothing is fetched:
no font, image, script or style sheet outside the file, and a
Content-Security-Policy that forbids any request.  The same folder gives the
same bytes, apart from the time the page was made.

Private blocks never reach the page: it reads the index, which holds them
masked as '[private]' lines, and leaves those lines out.
"""
import html
import json
import math
import os
import string
from collections import Counter, defaultdict

from ..links import layout
from ..text.citations import cite
from ..text.markdown import content_lines
from ..text.redact import redact, redact_start

__all__ = ["collect", "render", "cmd_page", "MAX_LINKS", "MAX_ENTITIES"]

MAX_ENTITIES = 2000   # entities on the page by default (the most mentioned)
MAX_LINKS = 10000     # links drawn at most (the strongest)
CITES_SHOWN = 50       # per entity, the newest citations listed on the page, at most
CITED_WITH_LINES = 30  # per entity, the newest citations that carry their lines
CITES_BUDGET = 1200000  # bytes of citations and their lines on the whole page, about
LINES_PER_CITATION = 6
LINE_WIDTH = 200

WIDTH, HEIGHT = 1000.0, 700.0
LABEL_SIZE = 12.0
LEVELS, FIRST_LEVEL = 7, -2  # label levels: zoom 1/4, 1/2, 1, 2, 4, 8, 16 (in screen pixels per unit)

# Kind -> colour: dark enough for white text halos and a white background,
# told apart by hue (after Okabe and Ito's palette for colour-blind readers).
KIND_COLOURS = {"name": "#0b6fb8", "place": "#0a8a63", "term": "#c77c00", "acronym": "#b8508f",
                "code": "#3e8fc4", "tag": "#c84f0c", "mention": "#8a7a00", "link": "#7b5ea7",
                "url": "#6b7785", "path": "#55606b"}

FONTS = ('system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, '
         '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", '
         '"Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", "Noto Sans CJK JP", sans-serif')


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------

def _shown_lines(row):
    """[(line number, text)] of a chunk worth showing: no blank lines, no
    headings, never a masked private line."""
    lines = row.text.split("\n")
    out = []
    for i in content_lines(lines):
        text = redact_start(lines[i].strip(), 4 * LINE_WIDTH)  # the page is made to be shared: no secret on it
        if not text or text == "[private]":
            continue
        if len(text) > LINE_WIDTH:
            text = text[:LINE_WIDTH - 1] + "…"
        out.append((row.start_line + i, text))
    return out


def collect(store, graph, top=MAX_ENTITIES, keys=None, max_links=MAX_LINKS):
    """Plain data for render(): entities, links, cited chunks, days.

    keys: only these entities (a picture around one entity); else the `top`
    most mentioned."""
    entities = graph.entities()
    ranked = graph.table()
    if keys is not None:
        chosen = [e for e in ranked if e.key in keys]
    else:
        chosen = ranked[:top]
    index = {e.key: i for i, e in enumerate(chosen)}
    in_chunk = defaultdict(set)
    for key, path, ordinal, _ in graph.links.mentions_of([e.key for e in chosen]):
        if key in index:
            in_chunk[(path, ordinal)].add(index[key])
    pairs = Counter()
    for ids in in_chunk.values():
        ids = sorted(ids)
        for a in range(len(ids)):
            for b in range(a + 1, len(ids)):
                pairs[(ids[a], ids[b])] += 1
    links = sorted(((a, b, w) for (a, b), w in pairs.items()), key=lambda e: (-e[2], e[0], e[1]))
    links_total = len(links)
    links = sorted(links[:max_links])

    files = store.known_files()
    rows, days, day_files = {}, Counter(), defaultdict(set)
    n_chunks = 0
    for path in sorted(files):
        for row in store.chunks_of(path):
            n_chunks += 1
            if row.date:
                days[row.date] += 1
                day_files[row.date].add(path)
            if (path, row.ordinal) in in_chunk:
                rows[(path, row.ordinal)] = row

    def newest_first(ref):
        row = rows[ref]
        return (row.date is not None, row.date or "", row.path, -row.start_line)

    refs = sorted(rows, key=newest_first, reverse=True)
    day_list = sorted(days)
    day_index = {d: i for i, d in enumerate(day_list)}
    mentioned = [[] for _ in chosen]  # every chunk, newest first
    for ref in refs:
        for i in sorted(in_chunk[ref]):
            mentioned[i].append(ref)
    # Citations are given out a rank at a time across all entities (every
    # entity's newest first, then every entity's second...), each entity's
    # newest CITES_SHOWN at most, with the lines of its newest
    # CITED_WITH_LINES, until CITES_BUDGET bytes are spent: a 50 MB folder
    # still makes a page of a few MB, and every entity keeps its newest
    # citation (with its lines while the budget lasts).
    chunk_id, chunks, listed, budget = {}, [], [[] for _ in chosen], CITES_BUDGET
    for rank in range(CITES_SHOWN):
        for i, m in enumerate(mentioned):
            if rank >= len(m):
                continue
            ref = m[rank]
            if ref not in chunk_id:
                if budget <= 0 and rank > 0:  # the newest is always listed, if without its lines
                    continue
                row = rows[ref]
                citation = cite(row.path, row.start_line, row.end_line)
                lines = _shown_lines(row)[:LINES_PER_CITATION] if rank < CITED_WITH_LINES and budget > 0 else []
                chunk_id[ref] = len(chunks)
                chunks.append([citation, redact(row.heading or ""), lines])
                budget -= len(citation) + len((row.heading or "").encode("utf-8")) + 12 + sum(
                    len(t.encode("utf-8")) + 10 for _, t in lines)
            listed[i].append(chunk_id[ref])
    nodes = []
    for i, e in enumerate(chosen):
        dates = sorted({rows[ref].date for ref in mentioned[i] if rows[ref].date})
        nodes.append({"key": e.key, "name": e.name, "kind": e.kind, "chunks": e.chunks, "files": e.files,
                      "mentions": e.mentions, "expansion": e.expansion or "",
                      "first": dates[0] if dates else "", "last": dates[-1] if dates else "",
                      "cited": listed[i],
                      "days": [day_index[d] for d in dates]})
    return {"folder": str(store.root), "files": len(files), "chunks": n_chunks,
            "entities_total": len(entities), "links_total": links_total,
            "nodes": nodes, "links": links, "citations": chunks,
            "days": sorted((d, n, len(day_files[d])) for d, n in days.items())}


# --------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------

def _radius(mentions, most, n):
    biggest = max(6.0, min(18.0, 520.0 / math.sqrt(n + 1)))
    smallest = min(3.0, biggest / 3.0)
    return smallest + (biggest - smallest) * math.sqrt(mentions / float(max(most, 1)))


def _fmt(x):
    return ("%.1f" % x).rstrip("0").rstrip(".")


def graph_svg(data):
    """The graph as SVG markup (laid out here, labels placed), and per node [x, y, r]."""
    nodes, links = data["nodes"], data["links"]
    n = len(nodes)
    most = max([nd["mentions"] for nd in nodes] or [1])
    radii = [_radius(nd["mentions"], most, n) for nd in nodes]
    raw = layout.spring_layout(n, links)
    margin = 30.0 + (max(radii) if radii else 0)
    bottom = HEIGHT - 24  # the legend's strip stays clear
    points = layout.fit(raw, WIDTH, bottom, margin)
    points = layout.separate(points, radii, pad=1.5)
    points = layout.fit(points, WIDTH, bottom, margin, stretch=1.0) if n > 1 else [(WIDTH / 2, bottom / 2)] * n
    widths = [layout.text_width(nd["name"], LABEL_SIZE) for nd in nodes]
    labels = layout.place_labels(points, radii, widths, LABEL_SIZE * 1.25, LEVELS, first=FIRST_LEVEL,
                                 bounds=(2.0, 2.0, WIDTH - 2.0, HEIGHT - 2.0))
    heaviest = max([w for _, _, w in links] or [1])
    buckets = defaultdict(list)
    for a, b, w in links:
        level = min(5, int(5 * math.sqrt((w - 1) / float(max(heaviest - 1, 1))) + 0.5)) if heaviest > 1 else 0
        (xa, ya), (xb, yb) = points[a], points[b]
        buckets[level].append("M%s %sL%s %s" % (_fmt(xa), _fmt(ya), _fmt(xb), _fmt(yb)))
    # many links: each fainter, so the picture stays a picture and not a grey mass
    opacity = max(0.12, min(0.45, 12.0 / math.sqrt(max(len(links), 1))))
    out = ['<svg id="graph" viewBox="0 0 %d %d" role="img" aria-label="entity graph">' % (WIDTH, HEIGHT),
           '<g id="vp"><g id="edges" style="stroke-opacity:%.2f">' % opacity]
    for level in sorted(buckets):
        out.append('<path class="w%d" d="%s"/>' % (level, "".join(buckets[level])))
    out.append('</g><g id="nodes">')
    for i in sorted(range(n), key=lambda i: (radii[i], -i)):  # big ones last: on top, clickable
        nd = nodes[i]
        x, y = points[i]
        out.append('<circle data-i="%d" cx="%s" cy="%s" r="%s" fill="%s"/>' % (
            i, _fmt(x), _fmt(y), _fmt(radii[i]), KIND_COLOURS.get(nd["kind"], "#6b7785")))
    out.append('</g><g id="labels">')
    for i, nd in enumerate(nodes):
        x, y = points[i]
        level, side = labels[i]
        cls = "l%d" % level if level is not None else "lx"
        x, y, extra, dx, dy = {
            1: (x + radii[i], y, "", ".3em", ".35em"),
            -1: (x - radii[i], y, " e", "-.3em", ".35em"),
            2: (x, y + radii[i], " m", "0", "1.05em"),
            -2: (x, y - radii[i], " m", "0", "-.4em")}[side]
        out.append('<text data-i="%d" class="%s%s" x="%s" y="%s" dx="%s" dy="%s">%s</text>' % (
            i, cls, extra, _fmt(x), _fmt(y), dx, dy, html.escape(nd["name"])))
    out.append("</g></g></svg>")
    out.append('<svg id="over" viewBox="0 0 %d %d" aria-hidden="true"><g id="vp2"><g id="mn"></g><g id="ml"></g>'
               '<g id="hl"></g><g id="fn"></g><g id="fl"></g></g></svg>' % (WIDTH, HEIGHT))
    geometry = [[round(points[i][0], 1), round(points[i][1], 1), round(radii[i], 1)] for i in range(n)]
    return "".join(out), geometry


def timeline_svg(days):
    """Chunks written per day as bars, oldest left; month ticks."""
    import datetime
    if not days:
        return '<p class="muted">No dated notes (dates come from file names such as memory/2026-02-19.md).</p>'
    first = datetime.date(*map(int, days[0][0].split("-")))
    last = datetime.date(*map(int, days[-1][0].split("-")))
    span = (last - first).days + 1
    w, h, top = 1000.0, 54.0, 2.0
    most = max(n for _, n, _ in days)
    step = w / span
    out = ['<svg id="days" viewBox="0 0 %d %d" preserveAspectRatio="none" aria-label="notes per day">' % (w, h),
           '<rect id="range" x="0" y="0" width="0" height="%d"/>' % h]
    for d, n, nfiles in days:
        day = (datetime.date(*map(int, d.split("-"))) - first).days
        bh = max(2.0, (h - top) * n / most)
        out.append('<rect class="day" data-d="%s" x="%s" y="%s" width="%s" height="%s"><title>%s: %d chunks in %d files</title></rect>' % (
            d, _fmt(day * step), _fmt(h - bh), _fmt(max(step * 0.8, 1.0)), _fmt(bh), d, n, nfiles))
    out.append('</svg><div id="ticks">')
    # month ticks (at most ~12 labels)
    months, cur = [], first.replace(day=1)
    while cur <= last:
        months.append(cur)
        cur = (cur.replace(day=28) + datetime.timedelta(days=4)).replace(day=1)
    every = max(1, int(math.ceil(len(months) / 12.0)))
    for m in months[::every]:
        x = max(0, (m - first).days) * step / w * 100
        if x < 95:
            out.append('<span style="left:%s%%">%s</span>' % (_fmt(x), m.strftime("%Y-%m")))
    out.append("</div>")
    return "".join(out)


def _json_script(obj):
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render(data, made_at):
    """The page's HTML text.  made_at: when it was made (text shown as is)."""
    svg, geometry = graph_svg(data)
    kinds = Counter(nd["kind"] for nd in data["nodes"])
    nodes = data["nodes"]
    payload = {"nodes": [[nd["name"], nd["kind"], nd["chunks"], nd["files"], nd["mentions"], nd["first"],
                          nd["last"], nd["cited"], nd["expansion"], nd["key"]] + geometry[i] + [nd["days"]]
                         for i, nd in enumerate(nodes)],
               "links": data["links"], "citations": data["citations"],
               "days": [d for d, _, _ in data["days"]], "levels": LEVELS, "first": FIRST_LEVEL, "size": LABEL_SIZE}
    shown = len(nodes)
    total = data["entities_total"]
    summary = "%s files · %s chunks · %s entities%s · %s links%s" % (
        thousands(data["files"]), thousands(data["chunks"]), thousands(shown),
        (" (the most mentioned of %s)" % thousands(total)) if total > shown else "",
        thousands(len(data["links"])),
        (" (the strongest of %s)" % thousands(data["links_total"])) if data["links_total"] > len(data["links"]) else "")
    kind_options = "".join('<option value="%s">%s (%d)</option>' % (k, k, n)
                           for k, n in sorted(kinds.items(), key=lambda kn: (-kn[1], kn[0])))
    legend = "".join('<span><i style="background:%s"></i>%s</span>' % (KIND_COLOURS.get(k, "#6b7785"), k)
                     for k, _ in sorted(kinds.items(), key=lambda kn: (-kn[1], kn[0])))
    first_day = data["days"][0][0] if data["days"] else ""
    last_day = data["days"][-1][0] if data["days"] else ""
    lod_css = "".join("#pan.z%d text.l%d{display:inline}" % (z, l) for z in range(LEVELS) for l in range(z + 1))
    empty = "" if nodes else '<p class="muted pad">No entities yet: this folder has nothing to link.</p>'
    style = string.Template(asset("page.css")).substitute(fonts=FONTS, lod_css=lod_css)
    return asset("template.html").format(
        title=html.escape("Memory: " + (os.path.basename(data["folder"].rstrip("/\\")) or data["folder"])),
        style=style, folder=html.escape(data["folder"]), made=html.escape(made_at),
        summary=html.escape(summary), kind_options=kind_options, legend=legend, svg=svg, empty=empty,
        timeline=timeline_svg(data["days"]), first_day=first_day, last_day=last_day,
        data=_json_script(payload), script=asset("page.js"))


ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "page_assets")


def asset(name):
    """A file of the page (page_assets/: template.html with {placeholders},
    page.css with $fonts and $lod_css, page.js as is), read at run time."""
    with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
        return f.read()


GENERATOR_TAG = '<meta name="generator" content="memory-suite">'


def is_page(head):
    """An earlier page of ours, which -o may replace without --force."""
    return GENERATOR_TAG in head


def thousands(n):
    return "{:,}".format(n)
