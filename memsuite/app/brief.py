"""The SessionStart brief: a budgeted, cited digest of the memory folder
(the checkpoint of this session after a compaction, the most useful part of
MEMORY.md, the last days' notes), framed as notes to consult.  A session that
already holds some lines (a resumed or compacted one) is sent only the others.
A MEMORY.md line the newest daily note about the same thing says otherwise
about is marked with that note's date and line (search/supersede.py)."""
import os
import re

from ..text.markdown import is_heading
from ..search.recall import line_key
from ..search.results import estimate_tokens
from ..search.supersede import changed_later
from ..base.records import StoreError
from ..files.sources import read_memory_lines
from ..text.redact import redact_start

MAX_CHARS = 9500       # Claude Code shows about 10,000 characters of hook output whole
RECENT_FILES = 4       # daily files the brief looks at, newest first
LATER_FILES = 60       # daily files, newest first, read for changes to MEMORY.md's lines
LINE_CHARS = 2000      # of a longer line the brief reads its start (it shows 300 characters)
_DAILY = re.compile(r"^(\d{4}-\d{2}-\d{2})[^/]*\.md$")


def _tokens(text):
    return estimate_tokens(text)


def _lines(root, rel):
    try:
        lines = read_memory_lines(root, rel)  # private blocks masked
    except StoreError:
        return []
    # the brief goes out unasked: no secret in it; a line is shown 300 characters at most, so a
    # longer one is redacted from its start only (a 1 MB line costs what a line of LINE_CHARS does)
    return [redact_start(line, LINE_CHARS) for line in lines]


def _visible(line):
    s = line.strip()
    return bool(s) and s != "[private]" and not s.startswith("<!--")


def _clip(line, limit=300):
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _block(rel, picked, lines):
    """'[rel:a-b]' then the picked lines (0-based indexes, ascending, contiguous or not)."""
    out, run = [], []
    for i in picked + [None]:
        if run and (i is None or i != run[-1] + 1 and any(_visible(lines[j]) for j in range(run[-1] + 1, i))):
            out.append("[%s:%d-%d]" % (rel, run[0] + 1, run[-1] + 1))
            out.extend(_clip(lines[j]) for j in run if _visible(lines[j]) or lines[j].startswith("#"))
            run = []
        if i is not None:
            run.append(i)
    return "\n".join(out)


def unheld(lines, picked, held):
    """The picked line indexes without the lines whose text the session
    holds (keys of line_key), and without headings left with no line below."""
    if not held:
        return picked
    kept = [i for i in picked if is_heading(lines[i]) or line_key(lines[i]) not in held]
    return [i for k, i in enumerate(kept) if not is_heading(lines[i])
            or k + 1 < len(kept) and not is_heading(lines[kept[k + 1]])]


def render(pieces, held=()):
    """(text, ranges, keys) of a part's pieces [(rel, lines, picked)]: its
    blocks, their line ranges and the keys of their lines, without the lines
    the session holds."""
    texts, ranges, keys = [], [], []
    for rel, lines, picked in pieces:
        picked = unheld(lines, picked, held)
        if picked:
            texts.append(_block(rel, picked, lines))
            ranges += _ranges(rel, picked)
            keys += [line_key(lines[i]) for i in picked if not is_heading(lines[i])]
    return "\n\n".join(texts), ranges, keys


def memory_md_part(root, budget):
    """[(rel, lines, picked)]: the most useful part of MEMORY.md within
    budget tokens: the whole file when it fits, else every section's heading
    with its first lines (as many per section as fit), so every topic is
    represented; when not even one line per section fits, the first sections
    with their first line (a heading alone tells nothing)."""
    lines = _marked(root, _lines(root, "MEMORY.md"))
    if not lines:
        return []
    fits = lambda picked: _tokens(_block("MEMORY.md", picked, lines)) <= budget
    whole = [i for i, line in enumerate(lines) if _visible(line)]
    if fits(whole):
        return [("MEMORY.md", lines, whole)] if whole else []
    sections = _sections(lines)
    best = None
    for per in range(1, max(len(body) for _, body in sections) + 1):
        picked = _first_lines(sections, per)
        if not fits(picked):
            break
        best = picked
        if all(len(body) <= per for _, body in sections):
            break
    if best is None:
        best = []
        for section in sections:  # in order, each that still fits (a long one does not hide the rest)
            picked = sorted(best + _first_lines([section], 1))
            if fits(picked):
                best = picked
    return [("MEMORY.md", lines, best)] if best else []


def _marked(root, lines):
    """MEMORY.md's lines, each that the newest daily note about the same
    thing says otherwise followed by that note's date and citation."""
    if not lines:
        return lines
    notes = [(name[:10], "memory/" + name, _lines(root, "memory/" + name)) for name in _daily_names(root)[:LATER_FILES]]
    for i, (date, rel, number) in changed_later(lines, notes).items():
        lines[i] = "%s (changed by a later note, %s: %s:%d)" % (lines[i], date, rel, number)
    return lines


def _daily_names(root):
    """The daily files' names, newest first."""
    try:
        return sorted((n for n in os.listdir(os.path.join(root, "memory")) if _DAILY.match(n)), reverse=True)
    except OSError:
        return []


def _sections(lines):
    """[(heading index or None, [its visible lines' indexes])] of a file, in order."""
    starts = [i for i, l in enumerate(lines) if is_heading(l)]
    if not starts or starts[0] != 0:
        starts.insert(0, None)  # the lines above the first heading
    out = []
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        first = 0 if s is None else s + 1
        out.append((s, [i for i in range(first, end) if _visible(lines[i])]))
    return out


def _first_lines(sections, per):
    """Sorted indexes: each section's first per lines, under its heading (a section with none is left out)."""
    picked = []
    for head, body in sections:
        if body:
            picked += ([] if head is None else [head]) + body[:per]
    return sorted(picked)


def _ranges(rel, picked):
    out = []
    for i in picked:
        if out and out[-1][2] == i:
            out[-1][2] = i + 1
        else:
            out.append([rel, i + 1, i + 1])
    return out


def recent_part(root, budget, skip=()):
    """[(rel, lines, picked)]: the newest daily files' last lines within
    budget tokens, newest file first."""
    pieces, used = [], 0
    for name in _daily_names(root)[:RECENT_FILES]:
        rel = "memory/" + name
        if rel in skip:
            continue
        lines = _lines(root, rel)
        shown = [i for i, l in enumerate(lines) if _visible(l)]
        picked = _last_lines(lines, shown, min(budget - used, max(budget // 2, 120)))  # the day's latest
        if not picked:
            continue
        above = next((i for i in range(picked[0] - 1, -1, -1) if is_heading(lines[i])), None)
        if above is not None and not is_heading(lines[picked[0]]) and lines[above].startswith("## "):
            picked.insert(0, above)  # the section the day's last lines belong to
        pieces.append((rel, lines, picked))
        used += _tokens(_block(rel, picked, lines))
        if used >= budget - 40:
            break
    return pieces


def checkpoint_part(root, rel, budget):
    """[(rel, lines, picked)]: this session's captured block (its last lines first when long)."""
    lines = _lines(root, rel) if rel else []
    shown = [i for i, l in enumerate(lines) if _visible(l) and not l.startswith("# ")]
    picked = _last_lines(lines, shown, budget)
    return [(rel, lines, picked)] if picked else []


def _last_lines(lines, shown, room):
    """The last of the shown line numbers that fit in room tokens, in order."""
    picked, cost = [], 0
    for i in reversed(shown):
        c = _tokens(lines[i]) + 1
        if cost + c > room:
            break
        picked.insert(0, i)
        cost += c
    return picked


def build(root, budget=1500, checkpoint=None, wrap=None, held=(), own=None):
    """(text, [(path, first, last)], [line keys]) of the brief, or ("", [], []).
    held: the line_key of every line the session already has.  The brief is
    chosen as for a fresh session, then those lines are left out: a resumed
    session is sent what changed since, or nothing.  own: the captured
    files its conversation holds (its own, a fork's parent's): left out."""
    parts, ranges, keys = [], [], []
    left = budget - 120  # the framing
    sections = []
    if checkpoint:
        pieces = checkpoint_part(root, checkpoint, int(left * 0.4))
        sections.append(("## This session before compaction\n", pieces))
        left -= _tokens(render(pieces)[0])
    pieces = memory_md_part(root, int(left * 0.55))
    sections.append(("## Long-term notes (MEMORY.md)\n", pieces))
    left -= _tokens(render(pieces)[0])
    sections.append(("## Recent days\n", recent_part(root, left, skip=(checkpoint,) + tuple(own or ()))))
    for title, pieces in sections:
        text, r, k = render(pieces, held)
        if text:
            parts.append(title + text)
            ranges += r
            keys += k
    if not parts:
        return "", [], []
    body = "\n\n".join(parts)
    text = wrap(body) if wrap else body
    while len(text) > MAX_CHARS and "\n" in body:  # a hard cap, whatever the estimate said
        body = body[:body.rindex("\n")]
        text = wrap(body) if wrap else body
    return text, ranges, keys
