"""Markdown lines: line breaks kept exact, headings, and private blocks masked."""

from ..base.patterns import pattern


def split_lines(text):
    """Lines as an editor numbers them: \\n, \\r\\n and lone \\r all end a line."""
    if "\r" not in text:  # the common case, without a regular expression
        lines = text.split("\n")
    else:
        lines = pattern("line_break").split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the newline at the end of the last line
    return lines


def unclosed_private(text):
    """The 1-based line of a <private> tag that is never closed (it hides
    everything to the end of the file), or None."""
    if "private" not in text.lower():
        return None
    last = None
    for m in pattern("private").finditer(text):
        last = m
    if last is None or pattern("private_end").search(last.group(0)):
        return None
    return len(pattern("line_break").findall(text[:last.start()])) + 1


def mask_private(text):
    """Replace each line of a <private>...</private> block by [private], keeping
    every line break as it was (\n, \r\n or \r), so line numbers stay exact."""
    if "private" not in text.lower():
        return text
    return pattern("private").sub(_masked_block, text)


def _masked_block(m):
    """[private] for each line of a block; a block left open to the end of a
    file that ends with a line break has no line after that break."""
    block = m.group(0)
    breaks = pattern("line_break").findall(block)
    last = "" if block.endswith(("\n", "\r")) else "[private]"
    return "".join("[private]" + brk for brk in breaks) + last


def is_heading(line):
    """Whether a line is a Markdown ATX heading ('## Title', not '#tag')."""
    return line.lstrip(" ")[:1] == "#" and pattern("heading").match(line) is not None


def content_lines(lines):
    """Indexes of the lines worth showing: not blank, not headings (if any
    such line exists; else the non-blank ones)."""
    shown = [i for i, l in enumerate(lines) if l.strip() and not is_heading(l)]
    return shown or [i for i, l in enumerate(lines) if l.strip()]


def line_pieces(line, max_chars):
    """A line too long for one chunk, cut into pieces of max_chars."""
    return [line[k:k + max_chars] for k in range(0, len(line), max_chars)]
