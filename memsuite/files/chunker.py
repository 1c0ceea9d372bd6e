"""Heading-aware, bounded, overlapping chunks with exact line ranges, and citations."""

from ..text.markdown import indexed_lines, line_pieces
from ..text.params import DEFAULT_PARAMS
from ..base.patterns import pattern
from ..base.records import record
from .sources import content_hash


# Chunking

Chunk = record("Chunk", "path ordinal start_line end_line piece heading text hash")
Chunk.__doc__ = ("A bounded piece of one file. Lines are 1-based and inclusive; piece is 0, or "
                 "k >= 1 for the k-th slice of a line too long for one chunk; heading is the "
                 "trail of enclosing headings joined by ' > '; hash identifies its text.")


def chunk_markdown(path, text, params=DEFAULT_PARAMS):
    """Cut one file's text into chunks.

    A heading starts a new chunk (a heading with nothing under it stays with
    the section that follows); a long section becomes windows of at most
    chunk_lines lines / chunk_chars characters that overlap by chunk_overlap
    lines; a single line longer than chunk_chars is cut into pieces that
    share its line number.  Blank lines never start or end a chunk.
    """
    return chunk_split_lines(path, indexed_lines(text), params)


def chunk_split_lines(path, lines, params=DEFAULT_PARAMS):
    """chunk_markdown for lines already split and masked."""
    chunks = []
    for start, end, trail in _sections(lines):
        for s, e, piece, text in _windows(lines, start, end, params):
            chunks.append(Chunk(path, len(chunks), s + 1, e, piece, " > ".join(trail), text,
                                content_hash(text)[:16]))
    return chunks


def _sections(lines):
    """(start, end, heading trail) of each section; end is exclusive.

    Headings inside fenced code blocks do not count.  A heading with no
    content under it joins the section that follows, so "# 2026-02-20"
    followed by "## 博客RSS配置" is one section headed "2026-02-20 > 博客RSS配置".
    """
    sections, trail, start_trail = [], [], []
    start, has_content, fence = 0, False, None
    for i, line in enumerate(lines):
        marker = pattern("fence").match(line) if line.lstrip(" ")[:1] in ("`", "~") else None
        if marker:
            run = marker.group(1)  # a fence closes with the same character, at least as many
            if fence is None:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip()[len(run):]:
                fence = None
            has_content = True
            continue
        heading = None if fence or line.lstrip(" ")[:1] != "#" else pattern("heading").match(line)
        if heading:
            if has_content:
                sections.append((start, i, start_trail))
                start, has_content = i, False
            level = len(heading.group(1))
            trail = [t for t in trail if t[0] < level] + [(level, (heading.group(2) or "").strip())]
            start_trail = [title for _, title in trail if title]
        elif line.strip():
            has_content = True
    sections.append((start, len(lines), start_trail))
    return sections


def _windows(lines, start, end, params):
    """Bounded, overlapping windows of lines[start:end]: (s, e_exclusive, piece, text)."""
    max_lines, overlap, max_chars = params.chunk_lines, params.chunk_overlap, params.chunk_chars
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    i = start
    while i < end:
        if len(lines[i]) > max_chars:  # one huge line: cut it, same line number
            for k, piece in enumerate(line_pieces(lines[i], max_chars), 1):
                yield i, i + 1, k, piece
            i = _next_content(lines, i + 1, end)
            continue
        j, size = i, 0
        while j < end and j - i < max_lines and len(lines[j]) <= max_chars \
                and (j == i or size + len(lines[j]) <= max_chars):
            size += len(lines[j]) + 1
            j += 1
        e = j
        while e > i + 1 and not lines[e - 1].strip():
            e -= 1
        yield i, e, 0, "\n".join(lines[i:e])
        if j >= end:
            break
        if len(lines[j]) > max_chars:
            i = j
        else:  # overlap, but never more than half the window
            i = _next_content(lines, max(i + 1, j - min(overlap, (j - i) // 2)), end)


def _next_content(lines, i, end):
    while i < end and not lines[i].strip():
        i += 1
    return i
