"""The command-line layer the three tools share: a small option parser (argparse costs
~10 ms a process), help text, errors and output helpers."""
import os
import sys
import unicodedata

from ..base.jsonout import print_json
from ..base.records import StoreError, UsageError, record
from ..store.memory_store import MemoryStore


class Args(dict):
    """Parsed options, read as attributes; a name no option defines is an
    AttributeError (a misspelling must not read as 'not given')."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("no option named %r" % name)


def parse_args(argv, opts, takes_words=True):
    """Options and positional words (args.words).  '--' ends options; --opt=value works."""
    by_flag = {f: o for o in opts for f in o.flags}
    args = Args({o.dest: ([] if o.repeat else False if o.metavar is None else None) for o in opts})
    args["help"] = False
    args["words"] = words = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            words.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        if arg in ("-h", "--help"):
            args["help"] = True
            continue
        flag, eq, inline = arg.partition("=")
        if flag not in by_flag and not arg.startswith("--") and len(arg) > 2 and arg[:2] in by_flag \
                and by_flag[arg[:2]].metavar is not None:
            flag, eq, inline = arg[:2], "=", arg[2:]  # a short option with its value attached: -n1
        opt = by_flag.get(flag)
        if opt is None:
            hint = (" (to search for text that starts with '-', put -- before it: -- %s)" % arg
                    if takes_words else "")
            raise UsageError("unknown option %s%s" % (flag, hint))
        if opt.metavar is None:
            if eq:
                raise UsageError("%s takes no value" % flag)
            args[opt.dest] = True
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError("%s needs a value (%s)" % (flag, opt.metavar))
            inline = argv[i]
            i += 1
        try:
            value = opt.convert(inline)
        except UsageError as exc:
            raise UsageError("%s: %s" % (flag, exc))
        if opt.repeat:
            args[opt.dest].append(value)
        else:
            args[opt.dest] = value
    return args


def format_help(usage, description, opts, epilog=""):
    import textwrap
    lines = ["usage: " + usage, ""] + textwrap.wrap(description, 88) + ["", "options:"]
    for o in opts:
        left = ", ".join(o.flags) + ("" if o.metavar is None else " " + o.metavar)
        wrapped = textwrap.wrap(o.help, 88 - 25) or [""]
        lines.append("  %-22s %s" % (left, wrapped[0]))
        lines.extend(" " * 25 + more for more in wrapped[1:])
    lines.append("  %-22s %s" % ("-h, --help", "show this help"))
    return "\n".join(lines) + ("\n\n" + epilog if epilog else "") + "\n"


Command = record("Command", "opts usage description handler takes_words epilog", defaults=(True, ""))
Command.__doc__ = ("A subcommand: its options, usage line, description, handler(args) -> exit code, "
                   "whether it takes words, and what its help ends with (examples).")


def split_subcommand(argv, commands, others=()):
    """(subcommand or None, the other arguments).  The first word that is not
    an option (or an option's value) picks the subcommand, wherever the global
    options put it; after '--' all is words.  others: subcommands with a parser
    of their own (search.sh hook), found the same way."""
    takes_value = {f for c in commands.values() for o in c.opts if o.metavar for f in o.flags}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("-"):
            i += 2 if arg in takes_value else 1
            continue
        if arg in commands or arg in others:
            return arg, argv[:i] + argv[i + 1:]
        break
    return None, argv


def run_cli(argv, commands, prog):
    """Shared CLI driver: parse, run, map errors to exit codes (0 ok, 1 runtime
    error, 2 usage error), one line on stderr; MEMORY_DEBUG=1 adds the traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # odd bytes in a query or a file never crash output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    as_json = "--json" in argv[:argv.index("--")] if "--" in argv else "--json" in argv
    try:
        name, rest = split_subcommand(argv, commands)
        command = commands[name]
        args = parse_args(rest, command.opts, command.takes_words)
        args["prog"] = prog
        if args.help:
            sys.stdout.write(format_help(command.usage, command.description, command.opts, command.epilog))
            return 0
        return command.handler(args)
    except UsageError as exc:
        return report_error("%s; see --help" % exc, 2, as_json, prog)
    except StoreError as exc:
        return report_error(exc, 1, as_json, prog)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for a user; say what broke
        if os.environ.get("MEMORY_DEBUG"):
            import traceback
            traceback.print_exc()
        return report_error("unexpected %s: %s (MEMORY_DEBUG=1 shows where)" % (type(exc).__name__, exc),
                            1, as_json, prog)


def report_error(message, code, as_json=False, prog="search"):
    """One line on stderr (and a JSON error object on stdout with --json)."""
    message = " ".join(str(message).split())
    sys.stderr.write("%s: error: %s\n" % (prog, message))
    if as_json:
        print_json({"error": message})
    return code


def cli_store(args):
    """The MemoryStore a command works on (--dir, --backend), its warnings
    prefixed with the command's name."""
    backend = args.backend or os.environ.get("MEMORY_BACKEND")
    if backend and backend.lower() not in ("auto", "sqlite", "json", "postgres"):
        raise UsageError("MEMORY_BACKEND=%r is not one of: auto, sqlite, json, postgres" % backend)
    prog = args.get("prog", "memory")
    return MemoryStore(args.dir, backend=backend, warn=lambda msg: sys.stderr.write("%s: %s\n" % (prog, msg)),
                       sessions=args.get("sessions"), namespace=args.get("namespace"))


def no_words(args):
    if args.words:
        raise UsageError("unexpected argument %r (to search for words that start with a command's "
                         "name, put -- before them: search.sh -- status report)" % args.words[0])


def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def pad(text, width):
    """Left-align text in a column, counting wide (CJK) characters as two."""
    shown = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - shown)


def plural(n, word, words=None):
    """'1 file', '2 files'."""
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def human_bytes(n):
    if n < 1024:
        return "%d B" % n
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024.0
        if n < 1024 or unit == "GiB":
            return "%.1f %s" % (n, unit)


def embedding_store(args):
    """cli_store with the embedding provider --embed or MEMORY_EMBED asks for
    (a provider asked for by name that cannot run is said once on stderr)."""
    store = cli_store(args)
    if (args.get("embed") or os.environ.get("MEMORY_EMBED") or "off").lower() == "off":
        return store  # the default: the provider code is never loaded
    try:
        from ..search.embeddings import make_embedder
        store.use_embedder(*make_embedder(args.get("embed")))
    except BaseException:
        store.close()
        raise
    report = store.embed_report
    if store.embedder is None and report["requested"] != "off":  # auto too: say it fell back, and why
        reasons = "; ".join("%s: %s" % kv for kv in report["skipped"].items())
        store.warn("%s: embeddings off (%s); keyword search only"
                   % ("note" if report["requested"] == "auto" else "warning", reasons))
    return store
