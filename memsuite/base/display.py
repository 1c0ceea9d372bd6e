"""Text for a terminal: columns that count wide characters, plurals, sizes."""
import unicodedata


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


def elided(text, width=80):
    """A user's text as a message echoes it: at most width characters, "…" at the cut."""
    return text if len(text) <= width else text[:width - 1] + "…"
