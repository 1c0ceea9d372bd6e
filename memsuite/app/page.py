"""The memory page: one self-contained HTML file showing what a memory folder
holds (`link.sh graph --format html -o memory.html`, `search.sh report --html`).

collect() reads the synced index into plain data; render() turns that data
into the page: the entity graph laid out here (memsuite.links.layout) and drawn as
SVG, a timeline, citations with their lines, a filter box, and a small
inline script for pan, zoom, hover, click and filtering.  Nothing is fetched:
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
from collections import Counter, defaultdict

from ..links import layout
from ..text.citations import cite
from ..text.markdown import content_lines
from ..text.redact import redact

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
        text = redact(lines[i].strip())  # the page is made to be shared: no secret on it
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
    return _TEMPLATE.format(
        title=html.escape("Memory: " + (os.path.basename(data["folder"].rstrip("/\\")) or data["folder"])),
        fonts=FONTS, lod_css=lod_css, folder=html.escape(data["folder"]), made=html.escape(made_at),
        summary=html.escape(summary), kind_options=kind_options, legend=legend, svg=svg, empty=empty,
        timeline=timeline_svg(data["days"]), first_day=first_day, last_day=last_day,
        data=_json_script(payload), script=_SCRIPT)


GENERATOR_TAG = '<meta name="generator" content="memory-suite">'


def is_page(head):
    """An earlier page of ours, which -o may replace without --force."""
    return GENERATOR_TAG in head


def thousands(n):
    return "{:,}".format(n)


_TEMPLATE = """<!DOCTYPE html>
<html lang="und">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="generator" content="memory-suite">
<title>{title}</title>
<style>
:root{{--ink:#1d2733;--muted:#5b6672;--line:#d5dbe1;--bg:#f6f7f9;--accent:#0b6fb8}}
*{{box-sizing:border-box}}
body{{margin:0;font-family:{fonts};color:var(--ink);background:var(--bg);font-size:14px;line-height:1.45}}
header{{padding:10px 16px;background:#fff;border-bottom:1px solid var(--line)}}
h1{{font-size:17px;margin:0 0 2px}}
.muted{{color:var(--muted)}} .pad{{padding:16px}}
#filters{{display:flex;flex-wrap:wrap;gap:8px;align-items:center;padding:8px 16px;background:#fff;border-bottom:1px solid var(--line)}}
#filters input,#filters select,#filters button{{font:inherit;padding:3px 6px;border:1px solid #aab4be;border-radius:4px;background:#fff;color:var(--ink)}}
#filters input[type=search]{{width:16em}}
#count{{color:var(--muted);margin-left:auto}}
html,body{{height:100%}}
body{{display:flex;flex-direction:column}}
main{{display:flex;flex:1;min-height:460px}}
#left{{flex:1;display:flex;flex-direction:column;min-width:0}}
#stage{{flex:1;position:relative;min-height:300px;background:#fff}}
#pan{{position:absolute;left:0;top:0;width:100%;height:100%;transform-origin:0 0;will-change:transform}}
#graph,#over{{position:absolute;left:0;top:0;width:100%;height:100%;display:block;overflow:visible}}
#graph{{cursor:grab;touch-action:none;user-select:none;will-change:opacity}}
#over{{pointer-events:none}}
#stage{{overflow:hidden}}
#stage.drag #graph{{cursor:grabbing}}
#graph.dim{{opacity:.2}}
#edges path{{fill:none;stroke:#8796a5;vector-effect:non-scaling-stroke;stroke-linecap:round}}
#edges .w0{{stroke-width:.6px}} #edges .w1{{stroke-width:1.1px}} #edges .w2{{stroke-width:1.7px}}
#edges .w3{{stroke-width:2.4px}} #edges .w4{{stroke-width:3.2px}} #edges .w5{{stroke-width:4.2px}}
#hl line{{stroke:#d04a02;stroke-opacity:.85;vector-effect:non-scaling-stroke}}
#nodes circle{{stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke;cursor:pointer}}
#over circle{{stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}}
#labels text,#over text{{display:none;font-size:calc(var(--fs,12) * 1px);fill:var(--ink);paint-order:stroke;stroke:#fff;
  stroke-width:3px;stroke-linejoin:round;vector-effect:non-scaling-stroke;cursor:pointer}}
#labels text.e,#over text.e{{text-anchor:end}} #labels text.m,#over text.m{{text-anchor:middle}}
{lod_css}
#over text.show,#over #fl text{{display:inline}}
#over #fl text.cur{{font-weight:700}}
#over #fn circle.cur{{stroke:#1d2733;stroke-width:2.5px}}
#tip{{position:absolute;pointer-events:none;background:rgba(29,39,51,.94);color:#fff;padding:5px 8px;border-radius:4px;
  font-size:13px;display:none;max-width:22em;z-index:3}}
#zoom{{position:absolute;right:8px;top:8px;display:flex;flex-direction:column;gap:4px}}
#zoom button{{width:30px;height:30px;font-size:17px;border:1px solid #aab4be;border-radius:4px;background:#fff;cursor:pointer;color:var(--ink)}}
#legend{{position:absolute;left:8px;bottom:6px;font-size:12px;background:rgba(255,255,255,.9);padding:3px 6px;border-radius:4px}}
#legend span{{margin-right:10px;white-space:nowrap}} #legend i{{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:4px;vertical-align:-1px}}
aside{{width:380px;max-width:45vw;overflow:auto;border-left:1px solid var(--line);background:#fff;padding:10px 14px}}
aside h2{{font-size:16px;margin:0 0 4px;word-break:break-word}}
aside h3{{font-size:13px;margin:12px 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}}
#cites{{list-style:none;margin:0;padding:0}}
#cites li{{border-top:1px solid #e6eaee;padding:6px 0}}
#cites code{{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,"Noto Sans Mono CJK SC",monospace;font-size:12.5px;color:#0a4f85}}
.ln{{display:grid;grid-template-columns:3.2em 1fr;font-size:13px}}
.ln b{{font-weight:400;color:#8a949e;text-align:right;padding-right:.6em;font-variant-numeric:tabular-nums}}
.ln span{{word-break:break-word}}
mark{{background:#ffe58a;color:inherit;padding:0 1px;border-radius:2px}}
.chip{{display:inline-block;border:1px solid #c4ccd4;border-radius:10px;padding:0 7px;margin:2px 3px 2px 0;cursor:pointer;font-size:12.5px;background:#fff;color:var(--ink)}}
#time{{background:#fff;border-top:1px solid var(--line);padding:4px 16px 6px}}
#days{{width:100%;height:54px;display:block}}
.trow{{display:grid;grid-template-columns:170px 1fr;align-items:end}}
#ticks{{position:relative;height:15px;font-size:11px;color:var(--muted);border-top:1px solid #c9d1d9}}
#ticks span{{position:absolute;top:0;white-space:nowrap;padding-left:3px;border-left:1px solid #c9d1d9}}
#days .day{{fill:#6f8fb0;cursor:pointer}} #days .day.hit{{fill:#d04a02}}
#days #range{{fill:#ffe58a;opacity:.55}}
#spans{{font-size:12.5px;max-height:92px;overflow:auto}}
.span{{display:grid;grid-template-columns:170px 1fr;align-items:center;cursor:pointer;height:18px}}
.span>span{{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding-right:6px}}
.span>div{{position:relative;height:100%}}
.span>div>i{{position:absolute;top:7px;height:4px;border-radius:2px;min-width:4px;opacity:.85}}
.span:hover{{background:#eef3f8}}
@media (max-width:800px){{body{{display:block}} main{{flex-direction:column}} #stage{{height:70vh;flex:none}} aside{{width:auto;max-width:none}}}}
</style>
</head>
<body>
<header>
<h1>{title}</h1>
<div class="muted">Folder <code id="folder">{folder}</code> · made <span id="made">{made}</span> · {summary}</div>
</header>
<div id="filters">
<input type="search" id="q" placeholder="Filter by entity name" aria-label="entity name">
<select id="kind" aria-label="kind"><option value="">every kind</option>{kind_options}</select>
<label>from <input type="date" id="from" value="" min="{first_day}" max="{last_day}" aria-label="from date"></label>
<label>to <input type="date" id="to" value="" min="{first_day}" max="{last_day}" aria-label="to date"></label>
<button id="clear" type="button">Clear</button>
<span id="count"></span>
</div>
<main>
<div id="left">
<div id="stage"><div id="pan">{svg}</div>{empty}
<div id="zoom"><button id="zin" type="button" title="zoom in">+</button><button id="zout" type="button" title="zoom out">−</button><button id="zfit" type="button" title="fit">⤢</button></div>
<div id="legend">{legend}</div>
<div id="tip"></div>
</div>
<section id="time">
<div class="trow"><div class="muted">Chunks per day<br><small>click a day to filter</small></div><div>{timeline}</div></div>
<div class="trow"><div class="muted"><small>First and last mention</small></div><div class="muted"><small>(the most mentioned entities shown)</small></div></div>
<div id="spans"></div>
</section>
</div>
<aside id="panel"><p class="muted">Click an entity to see where it is mentioned: each citation (<code>path:first-last</code>) with its lines. Scroll to zoom, drag to pan, hover for details.</p></aside>
</main>
<script type="application/json" id="data">{data}</script>
<script>{script}</script>
</body>
</html>
"""


_SCRIPT = r"""
(function(){
"use strict";
// The graph is drawn once, by Python, in #graph.  Everything that changes
// while a person looks (hover, selection, filter matches) is drawn in the
// small #over layer on top, so the big picture is never repainted for it;
// pan and zoom move both layers as one composited image and redraw the
// picture at its new scale only when the gesture stops.
var D=JSON.parse(document.getElementById("data").textContent);
var N=D.nodes,C=D.citations,days=D.days,NS="http://www.w3.org/2000/svg";
var $=function(id){return document.getElementById(id);};
var svg=$("graph"),over=$("over"),pan=$("pan"),stage=$("stage");
var adj=[],texts=[],i;
for(i=0;i<N.length;i++)adj.push([]);
D.links.forEach(function(l){adj[l[0]].push([l[1],l[2]]);adj[l[1]].push([l[0],l[2]]);});
document.querySelectorAll("#labels text").forEach(function(t){texts[+t.getAttribute("data-i")]=t;});
var W=1000,H=700,z=1,tx=0,ty=0,cz=1,ctx=0,cty=0,timer=0;
function box(){var r=stage.getBoundingClientRect(),u=Math.min(r.width/W,r.height/H)||1;return{u:u,ox:(r.width-W*u)/2,oy:(r.height-H*u)/2,left:r.left,top:r.top};}
function commit(){
  timer=0;cz=z;ctx=tx;cty=ty;
  var t="translate("+tx+","+ty+") scale("+z+")";
  $("vp").setAttribute("transform",t);$("vp2").setAttribute("transform",t);
  pan.style.transform="";
  // labels were placed for zooms 2**level; a window a little smaller than the
  // picture's own size (down to 0.84 of it) still shows that level's labels
  var s=z*box().u,lv=Math.max(0,Math.min(D.levels-1,Math.floor(Math.log(s)/Math.LN2+0.25)-D.first));
  pan.style.setProperty("--fs",(D.size/s).toFixed(3));
  pan.className="z"+lv;
}
function moved(){
  // show the new view at once as a transform of the last drawn one
  var b=box(),f=z/cz;
  pan.style.transform="translate("+(b.ox*(1-f)+b.u*(tx-f*ctx))+"px,"+(b.oy*(1-f)+b.u*(ty-f*cty))+"px) scale("+f+")";
  if(timer)clearTimeout(timer);
  timer=setTimeout(commit,180);
}
function toWorld(cx,cy){var b=box();return{x:(cx-b.left-b.ox)/b.u,y:(cy-b.top-b.oy)/b.u};}
function zoomAt(f,cx,cy){var nz=Math.max(.5,Math.min(16,z*f));f=nz/z;tx=cx-(cx-tx)*f;ty=cy-(cy-ty)*f;z=nz;moved();}
stage.addEventListener("wheel",function(ev){ev.preventDefault();var p=toWorld(ev.clientX,ev.clientY);zoomAt(Math.pow(1.0015,-ev.deltaY),p.x,p.y);},{passive:false});
var drag=null;
svg.addEventListener("pointerdown",function(ev){if(ev.button!==0)return;drag={x:ev.clientX,y:ev.clientY,tx:tx,ty:ty,moved:false,target:ev.target};});
window.addEventListener("pointermove",function(ev){
  if(!drag)return;var dx=ev.clientX-drag.x,dy=ev.clientY-drag.y;
  if(!drag.moved&&Math.abs(dx)+Math.abs(dy)<4)return;
  if(!drag.moved){drag.moved=true;stage.classList.add("drag");unhover();}
  var u=box().u;tx=drag.tx+dx/u;ty=drag.ty+dy/u;moved();});
window.addEventListener("pointerup",function(){
  var d=drag;drag=null;if(!d)return;
  if(d.moved){stage.classList.remove("drag");return;}
  var k=d.target.getAttribute&&d.target.getAttribute("data-i");
  if(k!==null&&k!==undefined)select(+k);else clearSelection();});
$("zin").onclick=function(){zoomAt(1.6,W/2,H/2);};
$("zout").onclick=function(){zoomAt(1/1.6,W/2,H/2);};
$("zfit").onclick=function(){z=1;tx=0;ty=0;moved();};
window.addEventListener("resize",function(){commit();});
var tip=$("tip");
svg.addEventListener("mouseover",function(ev){var k=ev.target.getAttribute("data-i");if(k===null||drag)return;hover(+k,ev);});
svg.addEventListener("mousemove",function(ev){if(tip.style.display==="block")place(ev);});
svg.addEventListener("mouseout",function(ev){if(ev.target.getAttribute("data-i")!==null)unhover();});
function esc(s){return String(s).replace(/[&<>"']/g,function(c){return{"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c];});}
function when(n){return n[5]?(n[5]===n[6]?n[5]:n[5]+" → "+n[6]):"undated";}
function place(ev){var r=stage.getBoundingClientRect();tip.style.left=Math.max(0,Math.min(r.width-260,ev.clientX-r.left+14))+"px";tip.style.top=(ev.clientY-r.top+14)+"px";}
function el(name,attrs,text){var e=document.createElementNS(NS,name);for(var a in attrs)e.setAttribute(a,attrs[a]);if(text)e.textContent=text;return e;}
function dot(k,cls){var n=N[k];return el("circle",{cx:n[10],cy:n[11],r:n[12],fill:kindColour[n[1]]||"#6b7785","class":cls||""});}
function label(k,cls){var t=texts[k];var e=el("text",{x:t.getAttribute("x"),y:t.getAttribute("y"),dx:t.getAttribute("dx"),dy:t.getAttribute("dy"),"class":t.getAttribute("class")+(cls?" "+cls:"")},N[k][0]);return e;}
var kindColour={};document.querySelectorAll("#nodes circle").forEach(function(c){kindColour[N[+c.getAttribute("data-i")][1]]=c.getAttribute("fill");});
var hovered=-1,selected=-1;
function focusOn(k){
  // k's links, neighbours and labels on top; -1 clears
  var hl=$("hl"),fn=$("fn"),fl=$("fl");hl.textContent="";fn.textContent="";fl.textContent="";
  if(k<0){svg.classList.toggle("dim",active);return;}
  svg.classList.add("dim");
  var n=N[k],nb=adj[k],fr=document.createDocumentFragment(),fr2=document.createDocumentFragment(),fr3=document.createDocumentFragment();
  nb.forEach(function(e){var m=N[e[0]];
    fr.appendChild(el("line",{x1:n[10],y1:n[11],x2:m[10],y2:m[11],"stroke-width":Math.min(5,1+Math.log(e[1])).toFixed(2)}));
    fr2.appendChild(dot(e[0]));});
  fr2.appendChild(dot(k,"cur"));
  var shown=nb.slice().sort(function(a,b){return b[1]-a[1]||a[0]-b[0];}).slice(0,30);
  shown.forEach(function(e){fr3.appendChild(label(e[0]));});
  fr3.appendChild(label(k,"cur"));
  hl.appendChild(fr);fn.appendChild(fr2);fl.appendChild(fr3);
}
function hover(k,ev){
  var n=N[k];hovered=k;
  tip.innerHTML="<b>"+esc(n[0])+"</b> · "+esc(n[1])+(n[8]?" ("+esc(n[8])+")":"")+"<br>"+n[2]+" chunks, "+n[3]+" files, "+n[4]+" mentions<br>"+esc(when(n))+"<br>linked to "+adj[k].length;
  tip.style.display="block";place(ev);
  if(selected<0)focusOn(k);
}
function unhover(){tip.style.display="none";if(selected<0&&hovered>=0)focusOn(-1);hovered=-1;}
function highlight(text,names){
  var out=esc(text);names.forEach(function(nm){if(!nm||nm.length<2&&!/[^\x00-\x7f]/.test(nm))return;
    var lo=out.toLowerCase(),t=esc(nm).toLowerCase(),res="",at=0,j;
    while((j=lo.indexOf(t,at))>=0){res+=out.slice(at,j)+"<mark>"+out.slice(j,j+t.length)+"</mark>";at=j+t.length;}
    out=res+out.slice(at);});
  return out;
}
function select(k){
  selected=k;focusOn(k);
  var n=N[k],names=[n[0].replace(/^[#@]/,""),n[9].replace(/^[#@]/,"")];
  var h="<h2>"+esc(n[0])+"</h2><div class='muted'>"+esc(n[1])+(n[8]?" · "+esc(n[8]):"")+" · "+n[2]+" chunks in "+n[3]+" files · "+esc(when(n))+"</div>";
  var nb=adj[k].slice().sort(function(a,b){return b[1]-a[1]||N[b[0]][2]-N[a[0]][2]||a[0]-b[0];}).slice(0,12);
  if(nb.length){h+="<h3>Often with</h3>"+nb.map(function(e){return "<span class='chip' data-go='"+e[0]+"'>"+esc(N[e[0]][0])+" ("+e[1]+")</span>";}).join("");}
  h+="<h3>Citations (newest first)</h3><ul id='cites'>";
  var cited=n[7],shown=cited.length;
  for(var j=0;j<shown;j++){var c=C[cited[j]];
    h+="<li><code>"+esc(c[0])+"</code> <span class='muted'>"+esc(c[1])+"</span>";
    c[2].forEach(function(l){h+="<div class='ln'><b>"+l[0]+"</b><span>"+highlight(l[1],names)+"</span></div>";});
    h+="</li>";}
  h+="</ul>";
  if(n[2]>shown)h+="<p class='muted'>… and "+(n[2]-shown)+" more: <code>link.sh entity "+esc(n[0])+" --limit "+n[2]+"</code></p>";
  else if(cited.some(function(c){return !C[c][2].length;}))h+="<p class='muted'>Lines of older citations: <code>search.sh get PATH:FIRST-LAST</code></p>";
  var p=$("panel");p.innerHTML=h;p.scrollTop=0;
  p.querySelectorAll("[data-go]").forEach(function(x){x.onclick=function(){select(+x.getAttribute("data-go"));};});
  markDays(k);
}
function clearSelection(){if(selected<0)return;selected=-1;focusOn(-1);markDays(-1);}
document.addEventListener("keydown",function(ev){if(ev.key==="Escape")clearSelection();});
var dayRects={};document.querySelectorAll("#days .day").forEach(function(r){dayRects[r.getAttribute("data-d")]=r;
  r.addEventListener("click",function(){var d=r.getAttribute("data-d");$("from").value=d;$("to").value=d;filter();});});
var marked=[];
function markDays(k){
  marked.forEach(function(r){r.classList.remove("hit");});marked=[];
  if(k<0)return;N[k][13].forEach(function(d){var r=dayRects[days[d]];if(r){r.classList.add("hit");marked.push(r);}});
}
var d0=days.length?Date.parse(days[0]):0,d1=days.length?Date.parse(days[days.length-1]):0,span=Math.max(1,(d1-d0)/864e5+1);
function pct(d){return(Date.parse(d)-d0)/864e5/span*100;}
var active=false,matched=null;
function filter(){
  var q=$("q").value.trim().toLowerCase(),kind=$("kind").value,from=$("from").value,to=$("to").value;
  active=!!(q||kind||from||to);var hits=[];
  if(active){for(var k=0;k<N.length;k++){var n=N[k];
    if(q&&n[0].toLowerCase().indexOf(q)<0&&n[9].indexOf(q)<0)continue;
    if(kind&&n[1]!==kind)continue;
    if((from||to)&&!n[13].some(function(i){var d=days[i];return(!from||d>=from)&&(!to||d<=to);}))continue;
    hits.push(k);}}
  matched=active?hits:null;
  var mn=$("mn"),ml=$("ml");mn.textContent="";ml.textContent="";
  if(active){var a=document.createDocumentFragment(),b=document.createDocumentFragment(),few=hits.length<=40;
    hits.slice().reverse().forEach(function(k){a.appendChild(dot(k,"m"));b.appendChild(label(k,few?"show":""));});
    mn.appendChild(a);ml.appendChild(b);}
  svg.classList.toggle("dim",active||selected>=0||hovered>=0);
  $("count").textContent=active?hits.length+" of "+N.length+" entities":N.length+" entities";
  var rg=$("range");
  if(rg&&(from||to)&&days.length){var x0=from?Math.max(0,pct(from)):0,x1=to?Math.min(100,pct(to)+100/span):100;rg.setAttribute("x",x0*10);rg.setAttribute("width",Math.max(0,(x1-x0)*10));}
  else if(rg)rg.setAttribute("width",0);
  spans(matched);
}
function spans(hits){
  var list=(hits||N.map(function(_,k){return k;})).filter(function(k){return N[k][5];}).slice(0,25);
  var h="";list.forEach(function(k){var n=N[k],a=pct(n[5]),b=pct(n[6])+100/span;
    h+="<div class='span' data-go='"+k+"' title='"+esc(n[0]+": "+when(n))+"'><span>"+esc(n[0])+"</span><div><i style='left:"+a.toFixed(2)+"%;width:"+Math.max(.4,b-a).toFixed(2)+"%;background:"+(kindColour[n[1]]||"#6b7785")+"'></i></div></div>";});
  var e=$("spans");e.innerHTML=h||"<span class='muted'>no dated mentions</span>";
  e.querySelectorAll("[data-go]").forEach(function(x){x.onclick=function(){select(+x.getAttribute("data-go"));};});
}
var pending=0;
["q","kind","from","to"].forEach(function(id){$(id).addEventListener("input",function(){if(pending)clearTimeout(pending);pending=setTimeout(function(){pending=0;filter();},60);});});
$("clear").onclick=function(){$("q").value="";$("kind").value="";$("from").value="";$("to").value="";clearSelection();filter();};
window.memoryPage={filter:filter,select:select,commit:commit};
commit();
filter();
window.__memoryPageReady=performance.now();
requestAnimationFrame(function(){requestAnimationFrame(function(){window.__memoryPageDrawn=performance.now();});});
})();
"""
