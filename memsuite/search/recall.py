"""Recall with few tokens: token estimates, gists, timelines and context packs."""

from ..text.chinese import is_cjk
from ..text.citations import cite, parse_reference, ranges_overlap
from ..base.options import to_date
from .passages import TAIL_LINES
from .ranking import search
from ..base.records import StoreError, UsageError, record
from ..files.sources import safe_join


DEFAULT_BUDGET = 1500  # tokens of a context pack
PACK_HITS = 50         # hits a context pack chooses from
GIST_TOKENS = 20  # a compact hit's gist: about 80 characters of English, 20 of Chinese


# Recall that fits a budget: gists, timelines, context packs

def estimate_tokens(text):
    """Tokens a model reads for text, roughly: one per CJK character, one per
    four other characters (English words run three to five)."""
    cjk = sum(1 for c in text if is_cjk(c)) if not text.isascii() else 0
    return cjk + (len(text) - cjk + 3) // 4


def gist(text, tokens=GIST_TOKENS):
    """The start of text (one line, whitespace collapsed) within about
    `tokens` tokens, cut at a word where it can be."""
    flat = " ".join(text.split())
    if estimate_tokens(flat) <= tokens:
        return flat
    used, cut = 0, 0
    for i, c in enumerate(flat):
        used += 4 if is_cjk(c) else 1  # in quarter tokens
        if used > 4 * tokens:
            break
        cut = i + 1
    piece = flat[:cut]
    if " " in piece[len(piece) // 2:] and not is_cjk(flat[cut:cut + 1] or "a"):
        piece = piece[:piece.rindex(" ")]
    return piece.rstrip(" ,.;:，。；：、") + "…"


def sort_newest_first(hits):
    """Hits ordered by date, newest first (undated last), best first on a tie."""
    hits = sorted(hits, key=lambda h: -h.score)
    hits.sort(key=lambda h: h.date or "", reverse=True)  # stable: the score order stays within a day
    return hits


Entry = record("Entry", "id path start_line end_line date heading text anchor")
Entry.__doc__ = "A place in a timeline or context pack: its citation, lines, date, heading and text."


def timeline(store, anchor, before=3, after=3):
    """[Entry], oldest first: the memories around an anchor in time.  The
    anchor is a citation or chunk id (the chunks it covers), or a date (the
    chunks of the files dated that day).  Around it: `before` chunks that
    come earlier and `after` that come later, in the same file and then in
    the files of the days before and after (undated files have no place in
    time).  Chunks are shown without the lines an earlier one showed."""
    places = _time_ordered(store, anchor, before, after)
    if not places:
        raise StoreError("nothing dated is indexed in %s (timelines follow files such as "
                         "memory/2026-03-05.md)" % store.root)
    chosen, first, last = _anchor_positions(store, places, anchor)
    picked = range(max(0, first - before), min(len(places), last + after + 1))
    out, shown = [], set()
    for i in picked:
        c = places[i]
        lines = [(n, line) for n, line in zip(range(c.start_line, c.end_line + 1), c.text.split("\n"))
                 if (c.path, n) not in shown]
        if not lines:
            continue
        shown.update((c.path, n) for n, _ in lines)
        text = "\n".join(l for _, l in lines)
        prev = out[-1] if out else None
        if prev and prev.path == c.path and prev.heading == c.heading and prev.end_line + 1 == lines[0][0] \
                and len(lines) <= TAIL_LINES:  # a section's tail stays with it
            out[-1] = prev._replace(id=cite(c.path, prev.start_line, lines[-1][0]), end_line=lines[-1][0],
                                    text=prev.text + "\n" + text, anchor=prev.anchor or i in chosen)
            continue
        out.append(Entry(cite(c.path, lines[0][0], lines[-1][0]), c.path, lines[0][0], lines[-1][0],
                         c.date, c.heading, text, i in chosen))
    return out


def _time_ordered(store, anchor, before, after):
    """The chunks of the dated files around an anchor, oldest file first, in
    file order: the anchor's own files, then earlier and later files one at a
    time until `before` and `after` chunks are in (not the whole folder)."""
    dates = store.file_dates()
    order = sorted((p for p, d in dates.items() if d), key=lambda p: (dates[p], p))
    if _is_date(anchor):
        lo = next((i for i, p in enumerate(order) if dates[p] >= anchor), len(order))
        hi = next((i for i, p in enumerate(order) if dates[p] > anchor), len(order))
    else:
        path = _anchor_path(store, anchor)
        lo = order.index(path) if path in order else 0
        hi = lo + 1 if path in order else len(order)  # unknown: let _anchor_positions say why
    middle = [c for p in order[lo:hi] for c in store.chunks_of(p)]
    earlier, later = [], []
    while lo > 0 and len(earlier) < before:
        lo -= 1
        earlier[:0] = store.chunks_of(order[lo])
    while hi < len(order) and len(later) < after:
        later.extend(store.chunks_of(order[hi]))
        hi += 1
    return earlier + middle + later


def _is_date(anchor):
    import re
    return re.match(r"^\d{4}-\d{2}-\d{2}$", anchor) is not None


def _anchor_path(store, anchor):
    """The file a citation or chunk id names, checked to be in the folder."""
    try:
        path = parse_reference(anchor)[0]
    except ValueError as exc:
        raise UsageError(str(exc))
    path = path.replace("\\", "/")
    if path.startswith("./"):
        path = path[2:]
    safe_join(store.root, path)
    return path


def _anchor_positions(store, places, anchor):
    """(positions of the chunks an anchor names, first, last): the window
    around them is places[first - before:last + after + 1].  A date with no
    file of its own names none: the window is the days around it."""
    if _is_date(anchor):
        to_date(anchor)
        found = [i for i, c in enumerate(places) if c.date == anchor]
        if found:
            return set(found), min(found), max(found)
        later = next((i for i, c in enumerate(places) if c.date > anchor), len(places))
        return set(), later, later - 1
    path = _anchor_path(store, anchor)
    first, last = parse_reference(anchor)[1:]
    if first is None:
        raise UsageError("timeline needs a citation (file.md:5-9), a chunk id (file.md#2) or a date "
                         "(YYYY-MM-DD), not a whole file")
    found = [i for i, c in enumerate(places) if c.path == path and (
        c.ordinal == last if first == "#" else ranges_overlap(c.start_line, c.end_line, first, last))]
    if not found:
        dated = store.file_dates().get(path, "missing")
        if dated == "missing":
            raise StoreError("no memory file %r in the index" % path)
        if dated is None:
            raise StoreError("%s has no date (timelines follow dated files such as memory/2026-03-05.md)" % path)
        raise StoreError("nothing indexed at %s" % anchor)
    return set(found), min(found), max(found)


def context_pack(store, query, budget=1500, filters=None, params=None):
    """(markdown, [Entry]): the best passages for a query, whole lines only,
    each with its citation, within `budget` estimated tokens (see
    estimate_tokens), for an agent's prompt."""
    return pack(search(store, query, limit=PACK_HITS, filters=filters, params=params), query, budget)


def pack(hits, query, budget):
    """context_pack from hits: passages in rank order; one that does not fit
    whole is cut at a line, and the pack stops there."""
    header = "## Memories for: %s\n" % " ".join(query.split())
    used, entries, blocks = estimate_tokens(header), [], []
    for h in hits:
        title = "\n[%s] %s\n" % (h.id, h.heading) if h.heading else "\n[%s]\n" % h.id
        lines = h.text.split("\n")
        room = budget - used - estimate_tokens(title)
        kept = []
        for line in lines:
            cost = estimate_tokens(line) + 1
            if cost > room:
                break
            kept.append(line)
            room -= cost
        while kept and not kept[-1].strip():
            kept.pop()
        if not any(l.strip() for l in kept):
            break
        end = h.start_line + len(kept) - 1
        entry = Entry(cite(h.path, h.start_line, end), h.path, h.start_line, end, h.date,
                      h.heading, "\n".join(kept), False)
        block = title.replace(h.id, entry.id) + entry.text + "\n"
        used += estimate_tokens(block)
        entries.append(entry)
        blocks.append(block)
        if len(kept) < len(lines):
            break
    return header + "".join(blocks), entries
