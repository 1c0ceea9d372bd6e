"""Options and their converters: each turns a string into a value, or raises UsageError."""
import re

from .records import UsageError, record


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
