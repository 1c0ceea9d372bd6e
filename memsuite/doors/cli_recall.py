"""search.sh get, timeline and context: reading what a search cited, and recall packs."""
import sys

from ..app.commands import context_result, embedding_store, timeline_entries, timeline_result
from ..store.memory_store import store_for
from ..base.jsonout import print_json
from ..base.options import query_of
from ..search.results import MAX_GET_LINES, gist, gist_text, read_cited
from ..base.records import UsageError
from ..files.sources import is_session, resolve_memory_dir


def cmd_timeline(args):
    if len(args.words) != 1:
        raise UsageError("timeline takes one ID, citation or date (got %d): search.sh timeline "
                         "memory/2026-02-20.md:1-7" % len(args.words))
    with store_for(args) as store:
        if args.json:
            print_json(timeline_result(store, args.words[0], args.before, args.after, args.full))
            return 0
        entries = timeline_entries(store, args.words[0], args.before, args.after)
    for e in entries:
        mark = ">" if e.anchor else " "
        head = "%s %s  %s  %s" % (mark, e.id, e.date, e.heading)
        if args.full:
            sys.stdout.write(head + "\n" + "".join("    %s\n" % l for l in e.text.split("\n")))
        else:
            sys.stdout.write("%s\n    %s\n" % (head, gist(gist_text(e.text))))
    return 0


def cmd_context(args):
    with embedding_store(args) as store:
        text, doc = context_result(store, query_of(args.words), args.budget, args.since, args.until, args.path,
                                   args.dated_only, args.today)
    if args.json:
        print_json(doc)
    else:
        sys.stdout.write(text)
        if doc.get("note"):
            sys.stderr.write("context: note: %s\n" % doc["note"])
    return 0


def cmd_get(args):
    if len(args.words) != 1:
        raise UsageError("get takes one PATH (got %d)" % len(args.words))
    root = resolve_memory_dir(args.dir)
    if "#" in args.words[0] or is_session(args.words[0].split(":")[0]):
        with store_for(args) as store:
            got = read_cited(root, args.words[0], args.start, args.lines, store)
    else:
        got = read_cited(root, args.words[0], args.start, args.lines)
    if args.json:
        print_json(got)
        return 0
    if not got["total_lines"]:
        sys.stderr.write("search: %s is empty\n" % got["path"])
    for n, line in enumerate(got["lines"], got["start_line"]):
        sys.stdout.write(line + "\n" if args.plain else "%6d  %s\n" % (n, line))
    if got["end_line"] < got["total_lines"] and not args.lines and got["end_line"] - got["start_line"] + 1 == MAX_GET_LINES:
        sys.stderr.write("search: showing lines %d-%d of %d; use --from/--lines for more\n"
                         % (got["start_line"], got["end_line"], got["total_lines"]))
    return 0
