"""The command line the tools share: options and their converters (each turns
a string into a value, or raises UsageError), the parser, help text, and the
driver that maps errors to exit codes."""
import os
import re
import sys

from .jsonout import print_json
from .records import StoreError, UsageError, record


# Command line: what search.sh, reindex.sh and link.sh share.  A small
# option parser instead of argparse (argparse costs ~10 ms per process to
# import and build, a third of an agent's cold-start budget), JSON written
# by hand (importing json costs ~2.5 ms), one error reporter.

Opt = record("Opt", "flags dest metavar convert help repeat", defaults=(False,))
Opt.__doc__ = "An option: metavar None means a flag (no value); repeat collects every value in a list."


def to_date(value):
    import datetime
    try:
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", value):
            raise ValueError
        datetime.date(*map(int, value.split("-")))
    except (ValueError, TypeError):
        raise UsageError("not a date (YYYY-MM-DD): %r" % value)
    return value


def to_positive_int(value):
    try:
        n = int(value)
    except ValueError:
        raise UsageError("not a whole number: %r" % value)
    if n < 1:
        raise UsageError("must be 1 or more: %r" % value)
    return n


MIN_BUDGET = 50  # tokens: a pack's header and one cited line (MCP memory_context's minimum too)
MAX_BUDGET = 32000


def to_budget(value):
    """A token budget for context: MIN_BUDGET to MAX_BUDGET."""
    n = to_positive_int(value)
    if n < MIN_BUDGET:
        raise UsageError("%d tokens is too small for a cited passage (at least %d)" % (n, MIN_BUDGET))
    if n > MAX_BUDGET:
        raise UsageError("%d tokens is more than a context pack holds (at most %d)" % (n, MAX_BUDGET))
    return n


def to_count(value):
    """A whole number, 0 allowed."""
    try:
        n = int(value)
    except ValueError:
        raise UsageError("not a whole number: %r" % value)
    if n < 0:
        raise UsageError("must be 0 or more: %r" % value)
    return n


def to_seconds(value):
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number of seconds: %r" % value)
    if not 0.05 <= x <= 3600:
        raise UsageError("must be between 0.05 and 3600 seconds: %r" % value)
    return x


def to_unit_score(value):
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number: %r" % value)
    if not 0.0 <= x <= 1.0:
        raise UsageError("must be between 0 and 1: %r" % value)
    return x


def to_days(value):
    """A number of days for --half-life: more than 0, at most a century."""
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number of days: %r" % value)
    if not 0 < x <= 36500:
        raise UsageError("must be more than 0 and at most 36500 days: %r" % value)
    return x


def to_choice(*names, hidden=()):
    """A converter to one of names; hidden ones are accepted but never listed."""
    def convert(value):
        if value not in names and value not in hidden:
            raise UsageError("%r is not one of: %s" % (value, ", ".join(names)))
        return value
    return convert


def to_folder(value):
    if not value.strip():
        raise UsageError("empty folder name")
    return value


FORCE_OPT = Opt(("--force",), "force", None, None,
                "with -o: replace FILE even if it is a note or a file this command did not write")

EMBED_SHOWN = ("off", "auto", "sentence-transformers", "ollama", "openai")
EMBED_CHOICES = EMBED_SHOWN + ("test-hash",)  # test-hash: the tests' own provider, never listed

COMMON_OPTS = [
    Opt(("--dir",), "dir", "DIR", to_folder, "memory folder (default: $MEMORY_DIR, else the workspace "
                                              "the suite sits in)"),
    Opt(("--json",), "json", None, None, "print one JSON object"),
    Opt(("--backend",), "backend", "NAME", to_choice("auto", "sqlite", "json", "postgres"),
        "index backend: auto (default), sqlite, json or postgres ($MEMORY_BACKEND)"),
    Opt(("--namespace",), "namespace", "NAME", str,
        "postgres: this folder's namespace ($MEMORY_NAMESPACE); a,b or all: the namespaces a search reads"),
    Opt(("--sessions",), "sessions", "DIR", to_folder,
        "also index agent transcripts (*.jsonl) in DIR ($MEMORY_SESSIONS_DIR)"),
]


# The parser and the driver

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


def query_of(words):
    """The words the shell passed as one query, refused when they hold bytes
    that are not UTF-8 (a terminal in another encoding): nothing could match them."""
    query = " ".join(words)
    if any("\ud800" <= c <= "\udfff" for c in query):
        raise UsageError("the query holds bytes that are not valid UTF-8; set the terminal's encoding to UTF-8")
    return query


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
    except KeyboardInterrupt:  # Ctrl-C: said in one line, as any error
        return report_error("interrupted", 130, as_json, prog)
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


def no_words(args):
    if args.words:
        raise UsageError("unexpected argument %r (to search for words that start with a command's "
                         "name, put -- before them: search.sh -- status report)" % args.words[0])


def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
