"""Pictures of the graph: JSON, Graphviz DOT and Mermaid."""


# Pictures: DOT (Graphviz), Mermaid, JSON

KIND_COLOURS = {"name": "#dbe8fb", "term": "#dcf2dc", "acronym": "#fff2c2", "code": "#ececec",
                "tag": "#f9dcef", "mention": "#f9dcef", "link": "#e6e0f8", "url": "#ffffff",
                "path": "#ffffff"}


def graph_json(nodes, edges):
    return {"nodes": [{"id": e.key, "name": e.name, "kind": e.kind, "chunks": e.chunks, "files": e.files}
                      for e in nodes],
            "edges": [{"source": a.key, "target": b.key, "weight": w} for a, b, w in edges]}


def graph_dot(nodes, edges):
    """Graphviz DOT: node size by how often an entity is mentioned, edge width by shared chunks."""
    def q(text):
        return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')
    top = max([e.chunks for e in nodes] or [1])
    heaviest = max([w for _, _, w in edges] or [1])
    out = ["graph memory {",
           '  graph [layout=neato, overlap=false, splines=true, fontname="sans-serif"];',
           '  node [shape=box, style="rounded,filled", fontname="sans-serif", color="#8899aa"];',
           '  edge [color="#7a8a9a"];']
    for e in nodes:
        size = 10 + 8 * e.chunks / top
        label = '"%s\\n%s · %d"' % (q(e.name)[1:-1], e.kind, e.chunks)
        out.append("  %s [label=%s, fillcolor=%s, fontsize=%.0f];" % (
            q(e.key), label, q(KIND_COLOURS.get(e.kind, "#ffffff")), size))
    for a, b, w in edges:
        out.append("  %s -- %s [penwidth=%.1f, label=%s];" % (q(a.key), q(b.key), 1 + 3.0 * w / heaviest,
                                                              q(str(w))))
    out.append("}")
    return "\n".join(out) + "\n"


def graph_mermaid(nodes, edges):
    """Mermaid flowchart (renders in GitHub, Obsidian and most Markdown viewers)."""
    ids = {e.key: "n%d" % i for i, e in enumerate(nodes)}

    def label(text):
        return text.replace('"', "#quot;").replace("[", "#91;").replace("]", "#93;")
    out = ["graph LR"]
    for e in nodes:
        out.append('  %s["%s · %d"]:::%s' % (ids[e.key], label(e.name), e.chunks, e.kind))
    for a, b, w in edges:
        out.append("  %s ---|%d| %s" % (ids[a.key], w, ids[b.key]))
    for kind in sorted({e.kind for e in nodes}):
        out.append("  classDef %s fill:%s,stroke:#8899aa" % (kind, KIND_COLOURS.get(kind, "#ffffff")))
    return "\n".join(out) + "\n"
