"""link.sh: build, entity, related, entities, graph."""
import sys
from collections import Counter

from ..store.memory_store import store_for
from ..base.display import pad, plural
from ..base.options import (COMMON_OPTS, Command, FORCE_OPT, Opt, no_words, query_of, run_cli, to_choice, to_folder,
                            to_positive_int, use_colour)
from ..links.entities import KINDS
from ..links.graph import entity_json, entity_report, related_report, synced_graph
from ..links.graph_export import graph_dot, graph_json, graph_mermaid
from ..base.jsonout import print_json, to_json
from ..base.records import UsageError


# CLI: link.sh

def open_graph(args):
    """(store, graph), both synced; the caller closes the store."""
    store = store_for(args)
    try:
        store.refresh()
        graph = synced_graph(store)
    except BaseException:
        store.close()
        raise
    return store, graph


def cmd_build(args):
    no_words(args)
    store, graph = open_graph(args)
    try:
        ents = graph.table()
        by_kind = Counter(e.kind for e in ents)
        summary = {"files": len(store.known_files()), "chunks": store.chunk_count(),
                   "entities": len(ents), "by_kind": dict(by_kind.most_common()),
                   "top_entities": [entity_json(e) for e in ents[:10]],
                   "top_links": [{"a": a.name, "b": b.name, "weight": w} for a, b, w in graph.strongest_links(10)]}
    finally:
        store.close()
    if args.json:
        print_json(summary)
        return 0
    out = sys.stdout.write
    kinds = ", ".join("%d %s" % (n, k) for k, n in by_kind.most_common())
    out("Linked %s, %s: %s (%s)\n" % (plural(summary["files"], "file"),
                                       plural(summary["chunks"], "chunk"),
                                       plural(len(ents), "entity", "entities"), kinds or "none"))
    if not summary["files"]:
        out("Nothing to link in %s; point --dir or MEMORY_DIR at the folder that holds your notes.\n"
            % store.root)
    if ents:
        out("\nMost mentioned:\n")
        for e in ents[:10]:
            out("  %s %-8s %3d chunks, %d files\n" % (pad(e.name, 28), e.kind, e.chunks, e.files))
    if summary["top_links"]:
        out("\nStrongest links (chunks shared):\n")
        for link in summary["top_links"]:
            out("  %s — %s  %d\n" % (link["a"], link["b"], link["weight"]))
    return 0


def cmd_entity(args):
    if not " ".join(args.words).strip():
        raise UsageError("entity needs a NAME (try: link.sh entities)")
    store, graph = open_graph(args)
    try:
        (entity, places, neighbours), data = entity_report(graph, query_of(args.words), args.limit or 20)
    finally:
        store.close()
    if args.json:
        print_json(data)
        return 0
    colour = use_colour()
    bold, dim, off = ("\033[1m", "\033[2m", "\033[0m") if colour else ("", "", "")
    out = sys.stdout.write
    kind = entity.kind + (", " + entity.expansion if entity.expansion else "")
    out("%s%s%s (%s): %s in %s\n" % (bold, entity.name, off, kind, plural(entity.chunks, "chunk"),
                                     plural(entity.files, "file")))
    out("\nAppears in (newest first):\n")
    for a in places:
        out("  %s:%d-%d  %s%s%s\n     %s\n" % (a.path, a.start_line, a.end_line, dim, a.heading, off, a.snippet))
    if entity.chunks > len(places):
        out("  … and %d more (use --limit)\n" % (entity.chunks - len(places)))
    if neighbours:
        out("\nOften with: %s\n" % ", ".join("%s (%d)" % (e.name, w) for e, w in neighbours))
    return 0


def cmd_related(args):
    if len(args.words) != 1:
        raise UsageError("related takes one chunk id (file.md#5), citation (file.md:31-44) or file path")
    store, graph = open_graph(args)
    try:
        results, data = related_report(graph, args.words[0], args.limit or 5)
    finally:
        store.close()
    if args.json:
        print_json(data)
        return 0
    out = sys.stdout.write
    if not results:
        out("Nothing shares entities with %s.\n" % args.words[0])
    for i, r in enumerate(results, 1):
        out("%d. %.2f  %s:%d-%d  %s\n   via %s\n   %s\n" % (i, r.score, r.path, r.start_line, r.end_line,
                                                         r.heading, ", ".join(r.shared), r.snippet))
    return 0


def cmd_entities(args):
    no_words(args)
    store, graph = open_graph(args)
    try:
        ents = graph.table(args.top or 30, args.kind)
    finally:
        store.close()
    if args.json:
        print_json({"entities": [entity_json(e) for e in ents]})
        return 0
    sys.stdout.write("%s %-8s %6s %6s\n" % (pad("entity", 32), "kind", "chunks", "files"))
    for e in ents:
        sys.stdout.write("%s %-8s %6d %6d\n" % (pad(e.name, 32), e.kind, e.chunks, e.files))
    return 0


def cmd_graph(args):
    if args.format == "html":
        return cmd_page(args)
    no_words(args)
    store, graph = open_graph(args)
    try:
        centre = graph.find(args.entity) if args.entity else None
        nodes, edges = graph.subgraph(centre, args.depth or 1, args.top or 15)
    finally:
        store.close()
    fmt = "json" if args.json else (args.format or "mermaid")
    if fmt == "json":
        text = to_json(graph_json(nodes, edges)) + "\n"
    else:
        text = (graph_dot if fmt == "dot" else graph_mermaid)(nodes, edges)
    if not args.output:
        sys.stdout.write(text)
        return 0
    from ..base.output_file import write_output  # only for -o
    write_output(args.output, text, store.root, args.force, is_graph_export)
    return 0


def is_graph_export(head):
    """An earlier graph of ours, in any format, which -o may replace without --force."""
    return head.split("\n", 1)[0] in ("graph LR", "graph memory {") or head.startswith('{"nodes":')


def cmd_report(args):
    """search.sh report --html: the same page as link.sh graph --format html."""
    if not args.html:
        raise UsageError("report needs --html (e.g. search.sh report --html -o memory.html)")
    return cmd_page(args)


def cmd_page(args):
    """Write the page for link.sh graph --format html and search.sh report --html:
    to -o FILE, else to standard output when that is not a terminal."""
    import datetime
    from ..app.page import MAX_ENTITIES, collect, is_page, render, thousands
    no_words(args)
    output = args.get("output")
    if not output and sys.stdout.isatty():
        raise UsageError("the page is HTML: give -o FILE (e.g. -o memory.html), or redirect it")
    if args.json and not output:
        raise UsageError("--json with the page needs -o FILE (the JSON then says what was written)")
    store, graph = open_graph(args)
    try:
        keys = None
        if args.get("entity"):
            centre = graph.find(args.entity)
            nodes, _ = graph.subgraph(centre, args.get("depth") or 1, args.get("top") or 50)
            keys = {e.key for e in nodes}
        data = collect(store, graph, top=args.get("top") or MAX_ENTITIES, keys=keys)
    finally:
        store.close()
    made = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = render(data, made)
    if not output:
        sys.stdout.write(page)
        sys.stdout.flush()
        return 0
    from ..base.output_file import write_output  # only for -o
    path = write_output(output, page, store.root, args.get("force"), is_page)
    size = len(page.encode("utf-8"))
    if args.json:
        print_json({"output": path, "bytes": size, "entities": len(data["nodes"]),
                    "links": len(data["links"]), "folder": data["folder"], "made": made})
    else:
        sys.stdout.write("wrote %s (%s KB): %s entities, %s links from %s\n" % (
            output, thousands((size + 1023) // 1024), thousands(len(data["nodes"])), thousands(len(data["links"])),
            data["folder"]))
    return 0


def cmd_help(args):
    """No known command: say which ones there are (link.sh --help shows them all)."""
    names = ", ".join(k for k in COMMANDS if k)
    if args.words:
        raise UsageError("unknown command %r (commands: %s)" % (args.words[0], names))
    raise UsageError("a command is needed: %s" % names)


LINK_HELP = """commands:
  link.sh build                      sync the entity graph and summarise it
  link.sh entity OpenClaw            where an entity appears, and what it appears with
  link.sh related 2026-02-20.md#1    memories sharing entities with a chunk, lines
                                     (2026-02-20.md:9-13) or a whole file
  link.sh entities [--kind term]     the entity table
  link.sh graph --entity OpenClaw --format dot | dot -Tsvg > graph.svg
  link.sh graph --format html -o memory.html   one page to open in a browser

Every command syncs the index first and accepts --dir DIR and --json.
exit codes: 0 ok, 1 runtime error (e.g. unknown entity), 2 usage error."""

_COMMON = COMMON_OPTS
_LIMIT = Opt(("--limit", "-n"), "limit", "N", to_positive_int, "how many to show")
COMMANDS = {
    None: Command(_COMMON, "link.sh COMMAND [options]",
                  "How memories connect: entities and the memories that share them.", cmd_help,
                  True, LINK_HELP),
    "build": Command(_COMMON, "link.sh build [--json]", "Sync the entity graph and summarise it.",
                     cmd_build, False),
    "entity": Command(_COMMON + [_LIMIT], "link.sh entity NAME [--limit N] [--json]",
                      "Where an entity appears (newest first) and what it appears with.", cmd_entity),
    "related": Command(_COMMON + [_LIMIT], "link.sh related ID|CITATION|PATH [--limit N] [--json]",
                       "Memories sharing entities with a chunk (file.md#5), lines (file.md:9-13) "
                       "or a whole file (file.md).", cmd_related),
    "entities": Command(_COMMON + [
        Opt(("--top",), "top", "N", to_positive_int, "how many (default 30)"),
        Opt(("--kind",), "kind", "KIND", to_choice(*KINDS), "only this kind: " + ", ".join(KINDS))],
        "link.sh entities [--top N] [--kind KIND] [--json]", "The entity table, most mentioned first.",
        cmd_entities, False),
    "graph": Command(_COMMON + [
        Opt(("--entity",), "entity", "NAME", str, "centre the picture on an entity"),
        Opt(("--depth",), "depth", "N", to_positive_int, "steps out from --entity (default 1)"),
        Opt(("--top",), "top", "N", to_positive_int,
            "entities in the picture, the centre included (default 15)"),
        Opt(("--format",), "format", "FMT", to_choice("dot", "mermaid", "json", "html"),
            "dot (Graphviz), mermaid (default), json, or html (one self-contained page: "
            "every entity up to --top 2000, a timeline, citations)"),
        Opt(("--output", "-o"), "output", "FILE", to_folder, "write to FILE instead of standard output"),
        FORCE_OPT],
        "link.sh graph [--entity NAME] [--depth N] [--top N] [--format dot|mermaid|json|html] [-o FILE [--force]]",
        "Draw the entity graph.", cmd_graph, False),
}


def main(argv=None):
    return run_cli(argv, COMMANDS, "link")
