"""Markdown lines: line breaks kept exact, headings, private blocks masked,
and the lines an index reads (no front matter)."""

import re

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


def private_blocks(text, depth=0):
    """([(start, end)] of the <private> blocks of text, the depth open after
    it).  Blocks nest: a block ends at the </private> that closes its own
    <private>; one left open runs to the end.  depth: blocks already open
    before text (an earlier message of the same transcript)."""
    spans, start = [], 0
    if "private" not in text.lower():
        return ([(0, len(text))] if depth else []), depth
    for m in pattern("private_tag").finditer(text):
        if m.group(1):  # a closing tag; one closing nothing is left as it is
            if depth:
                depth -= 1
                if not depth:
                    spans.append((start, m.end()))
        else:
            if not depth:
                start = m.start()
            depth += 1
    if depth:
        spans.append((start, len(text)))
    return spans, depth


def unclosed_private(text):
    """The 1-based line of a <private> tag that is never closed (it hides
    everything to the end of the file), or None."""
    spans, depth = private_blocks(text)
    if not depth:
        return None
    return len(pattern("line_break").findall(text[:spans[-1][0]])) + 1


FRONT_MATTER_LINES = 60  # a YAML block longer than this at a file's top is taken for text
_YAML_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:(?:\s|$)")  # its first line (a rule '---' over text is no front matter)
_YAML_LINE = re.compile(r"^(?:[A-Za-z_][\w-]*\s*:(?:\s|$)|\s+\S|-\s)")  # each line: a key, more of one, a list item


def indexed_lines(text):
    """The lines of a note as the index reads them: <private> blocks masked,
    and a YAML front matter (Obsidian's, Jekyll's: '---' on line 1 to the
    next '---' or '...') blank: its keys are about the note, not what it
    says (a snippet 'aliases: [Wang Fang] ---' answered where she lives).
    Line numbers stay exact."""
    lines = split_lines(mask_private(text))
    if len(lines) > 1 and lines[0].lstrip("\ufeff").rstrip() == "---" and _YAML_KEY.match(lines[1]):
        end = next((i for i, line in enumerate(lines[1:FRONT_MATTER_LINES + 1], 1)
                    if line.rstrip() in ("---", "...")), None)
        if end is not None and all(_YAML_LINE.match(line) for line in lines[1:end] if line.strip()):
            lines[:end + 1] = [""] * (end + 1)
    return lines


def mask_private(text, depth=0):
    """Replace each line of a <private>...</private> block by [private], keeping
    every line break as it was (\n, \r\n or \r), so line numbers stay exact."""
    return mask_private_carried(text, depth)[0]


def mask_private_carried(text, depth=0):
    """(mask_private of text, the depth of blocks open after it): for text
    read in pieces, each piece's depth given to the next."""
    spans, depth = private_blocks(text, depth)
    if not spans:
        return text, depth
    out, at = [], 0
    for start, end in spans:
        out += [text[at:start], _masked_block(text[start:end])]
        at = end
    out.append(text[at:])
    return "".join(out), depth


def _masked_block(block):
    """[private] for each line of a block; a block left open to the end of a
    file that ends with a line break has no line after that break."""
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
