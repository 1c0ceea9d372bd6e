"""Recall with few tokens: timelines, context packs,
and the prompt hook's choice of what to send."""
import re

from ..text.chinese import is_cjk
from ..text.citations import cite, parse_reference, ranges_overlap
from ..base.options import to_date
from .results import GIST_TOKENS, TAIL_LINES, estimate_tokens, gist
from .ranking import ANSWER_CUT, search
from ..text.markdown import is_heading
from ..text.tokenizer import tokenize
from ..base.records import StoreError, UsageError, record
from ..files.sources import safe_join


DEFAULT_BUDGET = 1500  # tokens of a context pack
PACK_HITS = 50         # hits a context pack chooses from


# Recall that fits a budget: timelines, context packs

def line_key(line):
    """A short fingerprint of a line's text, whitespace collapsed: what a
    session's state keeps of each line it was sent (the line's number may
    move when a file is edited; its text says whether it changed)."""
    import hashlib
    return hashlib.sha1(" ".join(line.split()).encode("utf-8", "replace")).hexdigest()[:12]


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


# The prompt hook's recall: when to speak, and what to send within a budget

RECALL_CUT = ANSWER_CUT  # the one calibrated "this answers it" line (search/ranking.py; bench/calibration.py)
RECALL_FLOOR = 0.2      # once the best hit passes the cut, others down to this score fill the budget
RECALL_FIRST = 0.3      # the budget's share the best hit may take when the next one scores as well...
LEAD_POWER = 4          # ...times (its score / the next one's) ** this (bench/hooks.py, bench/autorecall.py: tuning)
RECALL_SHARE = 0.08     # the budget's share of any other hit (about a sentence at 500 tokens): several are cited
QUESTION_WORDS = 10     # a question's content words: longer prompts' scores are raised to compare with its cut
LENGTH_EXPONENT = 0.4   # how much (bench/autorecall.py, RealMem tuning personas)
_SENTENCE = r"[^.!?。！？;；]*(?:[.!?]+(?=\s|$)|[。！？;；]+|$)"  # compiled when a hook first cuts a line


def content_words(text):
    """How many content words text has: its distinct terms, a CJK bigram
    counting half (a Chinese word is about two of them), lone CJK characters
    not at all."""
    terms = set(tokenize(text))
    return sum(0.5 if is_cjk(t[0]) else 1.0 for t in terms if not (len(t) == 1 and is_cjk(t)))


def length_factor(query):
    """What a prompt's scores are multiplied by before the cut.  A hit's
    score is the share of the query's words it holds, so a 60-word turn
    scores lower than a 6-word question for the same match; scores are
    raised by (words / QUESTION_WORDS) ** LENGTH_EXPONENT, never lowered."""
    return max(1.0, content_words(query) / QUESTION_WORDS) ** LENGTH_EXPONENT


def choose(hits, query, cut=RECALL_CUT, floor=RECALL_FLOOR, skip_paths=()):
    """The hits worth injecting for a prompt: none unless the best scores at
    least `cut` (the line absent topics stay below, scores made comparable
    across prompt lengths by length_factor); then every hit scoring at least
    `floor` the same way, outside skip_paths."""
    factor = length_factor(query)
    if not hits or hits[0].score * factor < cut:
        return []
    return [h for h in hits if h.score * factor >= floor and h.path not in skip_paths]


def unheld(hits, held):
    """The hits without the lines the session holds (line_key): a hit partly
    sent before still gives its other lines, as one piece per run of them."""
    if not held:
        return list(hits)
    out = []
    for h in hits:
        lines = h.text.split("\n")
        fresh = [not l.strip() or line_key(l) not in held for l in lines] + [False]
        start = None
        for i, ok in enumerate(fresh):
            if ok and start is None:
                start = i
            elif not ok and start is not None:
                if any(l.strip() and not is_heading(l) for l in lines[start:i]):  # not a heading alone
                    out.append(h._replace(text="\n".join(lines[start:i]), start_line=h.start_line + start,
                                          end_line=h.start_line + i - 1))
                start = None
    return out


def best_part(line, wanted, room):
    """The run of a line's sentences holding most of the wanted terms within
    room tokens (a line longer than a budget can still be cited), marked
    with … where it was cut; "" when not even a word fits."""
    spans = [m.span() for m in re.finditer(_SENTENCE, line) if m.group().strip()] or [(0, len(line))]
    hits = [len(wanted & set(tokenize(line[a:b]))) for a, b in spans]
    best = None
    for i in range(len(spans)):
        for j in range(i, len(spans)):
            piece = line[spans[i][0]:spans[j][1]].strip()
            if estimate_tokens(piece) + 2 > room:
                break
            key = (sum(hits[i:j + 1]), -i)
            if best is None or key > best[0]:
                best = (key, i, j)
    if best is None:  # one sentence too long: its start, at a word
        i = max(range(len(spans)), key=lambda k: (hits[k], -k))
        text = gist(line[spans[i][0]:], max(room - 2, 0))
        return "" if len(text) < 2 else ("…" if spans[i][0] else "") + text
    _, i, j = best
    return ("…" if i else "") + line[spans[i][0]:spans[j][1]].strip() + ("…" if j + 1 < len(spans) else "")


def pack_lines(hits, query, budget, first=RECALL_FIRST, share=RECALL_SHARE):
    """(markdown, [(path, first, last)], [line keys]): the hits in rank
    order, cited, within budget (estimated tokens): each as the line holding
    most of the query's terms and as many lines around it as fit in its room
    (first_room for the best hit, the `share` of the budget for every
    other, so several are cited; the citation comes on top, with the
    heading for the best hit only); a line too long for its room is cut to its best sentences."""
    wanted = set(tokenize(query))
    header = "## Memories for: %s\n" % gist(query, GIST_TOKENS)
    used, blocks, ranges, keys = estimate_tokens(header), [], [], []
    first, share = first_room(hits, first * budget, budget), int(share * budget)
    for k, h in enumerate(hits):
        block, a, b, shown = _fit(h, wanted, first if k == 0 else share, budget - used, heading=k == 0)
        if block:
            used += estimate_tokens(block)
            blocks.append(block)
            ranges.append((h.path, a, b))
            keys += [line_key(l) for l in shown if l.strip()]
        if budget - used < 40:
            break
    return header + "".join(blocks), ranges, keys


def first_room(hits, first, budget):
    """The room of the best hit in tokens: `first` times (its score / the
    next one's) ** LEAD_POWER, within budget: a hit that stands out is likelier to hold the
    answer than one among equals, where citing more of them does better."""
    if len(hits) < 2 or hits[1].score <= 0:
        return budget
    return int(min(budget, first * (hits[0].score / hits[1].score) ** LEAD_POWER))


def _fit(h, wanted, room, limit, heading=True):
    """(block, first, last, lines shown) of one hit: its best line and the
    nearest lines around it while they fit in room tokens, or its best line's
    best sentences; its citation (and heading) come on top, the whole
    within limit tokens; ("", 0, 0, []) when nothing fits."""
    lines = h.text.split("\n")
    best = max(range(len(lines)), key=lambda i: (len(wanted & set(tokenize(lines[i]))), -i))
    if not lines[best].strip():
        return "", 0, 0, []
    room = min(room, limit - estimate_tokens(_title(h, 0, len(lines) - 1, heading)))
    used = estimate_tokens(lines[best]) + 1
    if used > room:
        title = _title(h, best, best, heading)
        part = best_part(lines[best], wanted, room - 1)
        if not wanted & set(tokenize(part)):  # a piece without the prompt's words tells nothing
            return "", 0, 0, []
        return title + part + "\n", h.start_line + best, h.start_line + best, [lines[best]]
    lo, hi, grow = best, best + 1, True
    while grow:
        grow = False
        for i in (hi, lo - 1):  # the next line below, then above
            if 0 <= i < len(lines) and used + estimate_tokens(lines[i]) + 1 <= room:
                used += estimate_tokens(lines[i]) + 1
                lo, hi, grow = min(lo, i), max(hi, i + 1), True
    while not lines[lo].strip():
        lo += 1
    while not lines[hi - 1].strip():
        hi -= 1
    block = _title(h, lo, hi - 1, heading) + "\n".join(lines[lo:hi]) + "\n"
    return block, h.start_line + lo, h.start_line + hi - 1, lines[lo:hi]


def _title(h, lo, hi, heading=True):
    """The citation of a hit's lines lo..hi, and its heading when asked for."""
    return "\n[%s]%s\n" % (cite(h.path, h.start_line + lo, h.start_line + hi),
                            (" " + h.heading) if heading and h.heading else "")
