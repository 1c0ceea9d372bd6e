"""search.sh and reindex.sh: their options and help, the table of subcommands (each
loaded only when run), and the search command itself."""
import sys

from ..base.options import Command, query_of, run_cli, split_subcommand, use_colour
from ..app.commands import embedding_store, empty_note, explain_hits, no_sessions_note, run_search, search_request, search_result, skipped_files
from ..index.records import Filters, glob_matches
from ..base.jsonout import print_json
from ..base.options import (COMMON_OPTS, EMBED_CHOICES, EMBED_SHOWN, FORCE_OPT, Opt, to_choice, to_folder,
                            to_positive_int, to_seconds)
from ..text.params import DEFAULT_HALF_LIFE
from ..base.records import UsageError
from ..search.ranking import ANSWER_CUT
from ..search.results import changed_mark
from ..search.results import gist, highlight
from ..text.tokenizer import tokenize


def print_compact(hits, query):
    if not hits:
        say_no_match(query)
    for hit in hits:
        sys.stdout.write("%s %s %.2f %s\n" % (hit.id, hit.date or "-", hit.score, gist(hit.snippet)))


def say_no_match(query):
    from ..base.display import elided  # (only then: a query's path imports no more than it needs)
    sys.stdout.write("No memories match %r.\n" % elided(query))


def print_hits(hits, query, colour):
    if not hits:
        say_no_match(query)
        return
    qterms = set(tokenize(query))
    dim, bold, off = ("\033[2m", "\033[1m", "\033[0m") if colour else ("", "", "")
    for i, hit in enumerate(hits, 1):
        where = "%s:%d-%d" % (hit.path, hit.start_line, hit.end_line)
        heading = ("  " + dim + hit.heading + off) if hit.heading else ""
        mark = changed_mark(hit, getattr(hits, "earlier", None))
        heading += ("  %s%s%s" % (dim, mark, off)) if mark else ""
        sys.stdout.write("%d. %.2f  %s%s%s%s\n" % (i, hit.score, bold, where, off, heading))
        sys.stdout.write("   %s\n" % highlight(hit.snippet, qterms, colour))


# CLI

EMBED_OPT = Opt(("--embed",), "embed", "PROVIDER", to_choice(*EMBED_SHOWN, hidden=EMBED_CHOICES),
                "semantic search with an embedding provider: " + ", ".join(EMBED_SHOWN)
                + " (default $MEMORY_EMBED, else off)")


SEARCH_OPTS = COMMON_OPTS + [
    Opt(("--limit", "-n"), "limit", "N", str, "how many results (default 5)"),
    Opt(("--min-score",), "min_score", "X", str,
        "leave out results under X (0-1; %g drops partial matches; 0 shows all)" % ANSWER_CUT),
    Opt(("--since",), "since", "DATE", str, "only files dated on or after DATE (YYYY-MM-DD)"),
    Opt(("--until",), "until", "DATE", str, "only files dated on or before DATE"),
    Opt(("--dated-only",), "dated_only", None, None, "leave out undated files such as MEMORY.md"),
    Opt(("--today",), "today", "DATE", str,
        "read the query's relative dates (yesterday, 上周三, last week) against DATE, not the clock's "
        "(default $MEMORY_TODAY)"),
    Opt(("--path",), "path", "GLOB", str, "only paths matching GLOB, or under a folder"),
    Opt(("--mode",), "mode", "MODE", str,
        "hybrid (default), keyword (BM25) or vector (TF-IDF)"),
    Opt(("--related",), "related", None, None,
        "also list memories linked to the top hits by shared entities (see link.sh)"),
    Opt(("--source",), "source", "SOURCE", str,
        "memory, sessions (transcripts; see --sessions) or all (default)"),
    Opt(("--compact",), "compact", None, None, "one short line per hit: id, date, score, gist"),
    EMBED_OPT,
    Opt(("--sort",), "sort", "ORDER", str,
        "score (default) or date (newest first, after the cut)"),
    Opt(("--recent",), "recent", None, None,
        "prefer newer notes: 0.3 of a hit's score halves every %g days of its age, counted from the "
        "newest note (undated MEMORY.md counts as new; off by default)" % DEFAULT_HALF_LIFE),
    Opt(("--half-life",), "half_life", "DAYS", str, "--recent with this half-life instead of %g days"
        % DEFAULT_HALF_LIFE),
    Opt(("--explain",), "explain", None, None,
        "say what each hit matched (after folding and synonyms), each channel's score, the bonus, "
        "and why weaker hits were cut"),
    Opt(("--context-file",), "context_file", "FILE", str,
        "the conversation before the query, one turn a line ('user: ...' / 'assistant: ...'): its last "
        "turns' words count beside the query's own, below them"),
]
TIMELINE_OPTS = COMMON_OPTS + [
    Opt(("--before",), "before", "N", str, "memories before the anchor (default 3)"),
    Opt(("--after",), "after", "N", str, "memories after the anchor (default 3)"),
    Opt(("--full",), "full", None, None, "print every line, not a gist"),
]
ADD_OPTS = COMMON_OPTS + [
    Opt(("--heading",), "heading", "TEXT", str,
        "put the note under '## TEXT' (at the end of that section if the file has one)"),
    Opt(("--tag",), "tags", "TAG", str, "end the note with #TAG (repeat for more)", True),
    Opt(("--file",), "file", "PATH", str, "append to this memory file (default: memory/<today>.md)"),
    Opt(("--request",), "request", "KEY", str,
        "a key for this note: adding again with the same key writes nothing (safe retries)"),
]
WATCH_OPTS = COMMON_OPTS + [
    Opt(("--interval",), "interval", "SECONDS", to_seconds, "how often to check recent files (default 1)"),
    Opt(("--quiet",), "quiet", None, None, "no line per sync on stderr"),
    EMBED_OPT,
]
CONTEXT_OPTS = COMMON_OPTS + [o for o in SEARCH_OPTS if o.dest in ("since", "until", "dated_only", "path", "today")] + [
    Opt(("--budget",), "budget", "TOKENS", str, "size of the pack (50-32000; default 1500)"),
    EMBED_OPT,
]
GET_OPTS = COMMON_OPTS + [
    Opt(("--from",), "start", "N", to_positive_int, "first line (1-based)"),
    Opt(("--lines",), "lines", "M", to_positive_int,
        "how many lines (default: the cited range, else up to 200)"),
    Opt(("--plain",), "plain", None, None, "print the lines without line numbers"),
]
REINDEX_OPTS = COMMON_OPTS + [
    Opt(("--check",), "check", None, None, "only report what is stale; change nothing"),
]

SEARCH_HELP = """subcommands (each takes --dir, --json and --help):
  search.sh get PATH [--from N] [--lines M] [--plain]
                              print lines of a memory file; PATH may be a citation
                              (file.md:31-44, as results cite) or a chunk (file.md#5)
  search.sh timeline ID|DATE  what happened around a memory in time
  search.sh context QUERY     the best passages as one Markdown block (--budget 1500)
  search.sh add TEXT          append a note to today's log (--heading, --tag, --file; - reads stdin)
  search.sh watch             keep the index fresh while an agent runs
  search.sh mcp               an MCP server on stdio, for agents that speak MCP
  search.sh hook              for agents' lifecycle hooks: reads the event JSON on stdin
                              (see README, "Automatic memory"); never fails the agent
  search.sh report --html -o memory.html
                              the memory as one page: entity graph, timeline, citations
  search.sh status            backend, files, chunks, index size, problems
  search.sh doctor            every problem found (memory folder, hooks, files), each with its fix
  search.sh sync              bring the index up to date without searching
  search.sh reindex [--check] back up the index and rebuild it (= reindex.sh)

examples:
  search.sh "博客RSS配置"
  search.sh "configure RSS feed" --limit 3 --json
  search.sh 京都 机票 --since 2026-02-01 --path "memory/*" --compact
  search.sh "where does Anna live" --recent     newer notes first when a fact changed
  search.sh get memory/2026-02-20.md:1-7 --json
  search.sh -- status                  search for the word "status" itself

Scores are 0-1: at 0.4 and above a hit holds most of the query's words
(--min-score 0.4 leaves out most partial matches).
exit codes: 0 ok (also when nothing matches), 1 runtime error, 2 usage error.
environment: MEMORY_DIR (memory folder), MEMORY_BACKEND (auto|sqlite|json|postgres),
MEMORY_INDEX_DIR (index location), MEMORY_PYTHON (the wrappers' interpreter),
MEMORY_SESSIONS_DIR (transcripts), MEMORY_EMBED (embedding provider; see README),
MEMORY_TODAY (the day relative dates are read against), MEMORY_DEBUG=1 (tracebacks),
NO_COLOR (no colour)."""

REINDEX_HELP = """examples:
  reindex.sh                  back up the index, rebuild it from the Markdown
  reindex.sh --check --json   only say what is stale: {"stale": true, "changed": [...]}"""


def read_context(path):
    """The turns of --context-file FILE (search/context.py), or None."""
    if not path:
        return None
    from ..search.context import turns_from_lines
    try:
        with open(path, "rb") as f:
            text = f.read(1 << 20).decode("utf-8", "replace")  # the last turns are read from its first MB
    except OSError as exc:
        raise UsageError("cannot read --context-file %s: %s" % (path, exc.strerror or exc))
    return turns_from_lines(text)


def cmd_search(args):
    request = search_request(query_of(args.words), args.limit, args.mode, args.min_score, args.since, args.until,
                             args.path, args.dated_only, args.source, args.sort, args.recent, args.half_life,
                             args.compact, args.explain, args.today, read_context(args.context_file))
    with embedding_store(args) as store:
        hits = run_search(store, request)
        related = linked_memories(store, hits) if args.related else None
        explain_no_hits(store, hits, args)
        say_skipped(store)
        if args.json:
            doc = search_result(store, request, hits)
            if related is not None:
                from ..links.graph import related_json
                doc["related"] = [related_json(r, related_to=via) for r, via in related]
            print_json(doc)
        elif args.compact:
            print_compact(hits, request.query)
        else:
            print_hits(hits, request.query, use_colour())
            if related:
                print_related(related)
        if args.explain and not args.json:
            from ..search.explain import dates_read, print_explained
            print_explained(hits, *explain_hits(store, request, hits), dates=dates_read(request.query, request.filters))
    return 0


def explain_no_hits(store, hits, args):
    """A note on stderr when nothing matched for a reason the user can fix."""
    if hits:
        return
    note = empty_note(store) or no_sessions_note(store, Filters(source=args.source))
    if note:
        sys.stderr.write("search: note: %s\n" % note)
    elif args.path and not any(glob_matches(args.path, p) for p in store.known_files()):
        sys.stderr.write("search: note: no memory file matches --path %r\n" % args.path)


def say_skipped(store):
    """A note on stderr naming the files no search can see (another encoding)."""
    skipped = skipped_files(store)
    if skipped:
        sys.stderr.write("search: note: %d file%s skipped, not searchable: %s (search.sh status says how to fix)\n"
                         % (len(skipped), "" if len(skipped) == 1 else "s",
                            ", ".join("%s (%s)" % (s["path"], s["issue"]) for s in skipped[:3])
                            + (" and %d more" % (len(skipped) - 3) if len(skipped) > 3 else "")))


def linked_memories(store, hits, limit=3):
    """[(Related, hit id)]: memories sharing entities with the top hits."""
    from ..links.graph import synced_graph  # only loaded for --related
    return synced_graph(store).related_to_hits(hits, limit)


def print_related(related):
    sys.stdout.write("\nRelated (shared entities):\n")
    for r, via in related:
        sys.stdout.write("   %.2f  %s:%d-%d  %s  (via %s, linked to %s)\n"
                         % (r.score, r.path, r.start_line, r.end_line, r.heading, ", ".join(r.shared[:4]), via))


def door(name):
    """The module that runs a subcommand, imported only when it runs (a
    search never loads the MCP server)."""
    if name == "mcp":
        from . import mcp as module
    elif name == "watch":
        from . import watch as module
    elif name == "report":
        from . import cli_link as module
    elif name in ("get", "timeline", "context"):
        from . import cli_recall as module
    else:
        from . import cli_admin as module
    return module


COMMANDS = {
    None: Command(SEARCH_OPTS, "search.sh [options] QUERY...",
                  "Search the Markdown memory folder (hybrid BM25 + TF-IDF), with citations.", cmd_search,
                  True, SEARCH_HELP),
    "get": Command(GET_OPTS, "search.sh get PATH [--from N] [--lines M] [--json]",
                   "Print lines of a memory file (never outside the memory folder).",
                   lambda args: door("get").cmd_get(args)),
    "timeline": Command(TIMELINE_OPTS, "search.sh timeline ID|CITATION|DATE [--before N] [--after N] [--full]",
                        "What happened around a memory in time: the chunks before and after it in its "
                        "file and in the daily logs of the days around it, oldest first.",
                        lambda args: door("timeline").cmd_timeline(args)),
    "context": Command(CONTEXT_OPTS, "search.sh context QUERY... [--budget TOKENS] [--json]",
                       "The best passages for a query, with citations, as one Markdown block that fits "
                       "a token budget (1 token per CJK character, 1 per 4 other characters).",
                       lambda args: door("context").cmd_context(args)),
    "add": Command(ADD_OPTS, "search.sh add TEXT|- [--heading H] [--tag T]... [--file PATH] [--json]",
                   "Append a note to today's daily log (memory/YYYY-MM-DD.md), or to --file; - reads "
                   "the note from standard input.  Prints where it went (path:first-last).",
                   lambda args: door("add").cmd_add(args)),
    "mcp": Command(COMMON_OPTS + [EMBED_OPT], "search.sh mcp [--dir DIR]",
                   "Serve the memory to an MCP client over stdio (JSON-RPC 2.0, one message per line): "
                   "memory_search, memory_get, memory_add, memory_related, memory_entity, "
                   "memory_timeline, memory_context, memory_status.",
                   lambda args: door("mcp").cmd_mcp(args), False),
    "watch": Command(WATCH_OPTS, "search.sh watch [--interval SECONDS] [--quiet]",
                     "Keep the index fresh until stopped (Ctrl-C or SIGTERM); searches meanwhile skip "
                     "their own check of the folder.",
                     lambda args: door("watch").cmd_watch(args), False),
    "status": Command(COMMON_OPTS + [EMBED_OPT], "search.sh status [--json]", "Show the index's state.",
                      lambda args: door("status").cmd_status(args)),
    "doctor": Command(COMMON_OPTS, "search.sh doctor [--json]",
                      "List every problem found, one line each with its fix: no memory folder, the "
                      "agents' hooks installed but not running (Codex hooks not trusted or changed since, "
                      "asking Codex itself when it is on the PATH; a Claude Code plugin whose folder moved), "
                      "files the index skipped, <private> blocks never closed.  Exits 1 when it finds one.",
                      lambda args: door("doctor").cmd_doctor(args)),
    "sync": Command(COMMON_OPTS + [EMBED_OPT], "search.sh sync [--json]", "Bring the index up to date.",
                    lambda args: door("sync").cmd_sync(args)),
    "report": Command(COMMON_OPTS + [
        Opt(("--html",), "html", None, None, "the page as HTML (the one format so far)"),
        Opt(("--output", "-o"), "output", "FILE", to_folder, "write to FILE instead of standard output"),
        FORCE_OPT,
        Opt(("--top",), "top", "N", to_positive_int, "entities on the page (default 2000)")],
        "search.sh report --html [-o FILE [--force]] [--top N]",
        "One self-contained HTML page of what the memory holds: the entity graph, a timeline, "
        "citations with their lines (the same page as link.sh graph --format html).",
        lambda args: door("report").cmd_report(args), False),
    "reindex": Command(REINDEX_OPTS, "reindex.sh [--check] [--json] [--dir DIR] [--backend NAME]",
                       "Back up the index (the last 3 are kept) and rebuild it from the Markdown.\n"
                       "--check changes nothing and exits 0 either way (with --json it says\n"
                       "\"stale\": true or false).",
                       lambda args: door("reindex").cmd_reindex(args), False, REINDEX_HELP),
}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    name, rest = split_subcommand(argv, COMMANDS, others=("hook",))
    if name == "hook":  # agent lifecycle hooks, after --dir DIR too: they fail open, never the CLI's errors
        from .hooks import main as hook_main
        return hook_main(rest)
    return run_cli(argv, COMMANDS, "reindex" if name == "reindex" else "search")
