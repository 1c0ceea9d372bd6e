"""Recall with few tokens: timelines, context packs,
and the prompt hook's choice of what to send."""
import math
import re

from ..text.chinese import is_cjk, is_cjk_char
from ..text.citations import cite, parse_reference, ranges_overlap
from ..base.options import to_date
from .results import GIST_TOKENS, TAIL_LINES, changed_mark, estimate_tokens, gist
from .ranking import ANSWER_CUT, analyse_query, search, several_sentences, topic_parts
from ..text.markdown import is_heading
from ..text.tokenizer import tokenize
from ..base.records import StoreError, UsageError, record
from ..files.sources import cited_path, safe_join


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
    path = cited_path(store.root, path)
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
        mark = changed_mark(h, getattr(hits, "earlier", None))
        title = "\n[%s]%s\n" % (h.id, "".join(" " + part for part in (h.heading, mark) if part))
        lines = h.text.split("\n")
        room = budget - used - estimate_tokens(title)
        kept = []
        for line in lines:
            cost = estimate_tokens(line) + 1
            if cost > room:
                break
            kept.append(line)
            room -= cost
        while kept and (not kept[-1].strip() or kept[-1].lstrip().startswith("#")):
            kept.pop()  # (a heading cut from what it heads says nothing)
        if not kept:
            break
        end = h.start_line + len(kept) - 1
        entry = Entry(cite(h.path, h.start_line, end), h.path, h.start_line, end, h.date,
                      h.heading, "\n".join(kept), False)
        block = title.replace(h.id, entry.id, 1) + entry.text + "\n"
        used += estimate_tokens(block)
        entries.append(entry)
        blocks.append(block)
        if len(kept) < len(lines):
            break
    return header + "".join(blocks), entries


# The prompt hook's recall: when to speak, and what to send within a budget

RECALL_CUT = ANSWER_CUT  # the one calibrated "this answers it" line (search/ranking.py; bench/calibration.py)
RECALL_FLOOR = 0.15     # once the best hit passes the cut, others down to this score fill the budget
                        # (bench/autorecall.py, tuning personas: 0.15 cites more sessions than 0.2 or 0.25)
QUESTION_WORDS = 10     # a question's content words: longer prompts' scores are raised to compare with its cut
LENGTH_EXPONENT = 0.5   # how much (bench/autorecall.py, RealMem tuning personas)
UNKNOWN_FULL_CHUNKS = 200  # a memory this big knows the everyday words: below it, unknown words count less
COVER_NEUTRAL = 0.32    # a long turn's best hit holding this share of its topic leaves its scores as they are
COVER_EXPONENT = 0.3    # how much more or less of it raises or lowers them (bench/autorecall.py, tuning personas)
THIN_WORDS = 6          # a prompt of at most this many content words may be searched with its conversation (RealMem tuning personas)
SUBJECT_BOOST = 0.15    # a question whose best hit holds its subject: scores raised by up to this share (LoCoMo tuning half)
LINE_SHARE = 0.04       # the budget's share of one line (20 tokens at 500): a longer one is cut to its best sentences
MIN_LINE_TOKENS = 16    # ... but never less than a short sentence
WHOLE_LINES = 2         # the best lines go whole (the answer is often the part a cut drops)...
WHOLE_SHARE = 0.2       # ... when within this share of the budget (100 tokens at 500)
SCORE_POWER = 2         # a line's worth: (its hit's score ** this) x the share of the prompt's words it holds
REPLY_SHARE = 0.5       # the line after one holding the prompt's words is worth this share of it (the reply)
SENT_CITED = 3          # hits the session holds whole that a recall still cites (not sends) as answering it
_SENTENCE = r"(?:[^.!?。！？;；]|[.!?](?![.!?]{0,8}(?:\s|$)))*(?:[.!?]+(?=\s|$)|[。！？;；]+|$)"  # (e.g. stays in); compiled on first use


def content_words(text):
    """How many content words text has: its distinct terms, a CJK bigram
    counting half (a Chinese word is about two of them), lone CJK characters
    not at all."""
    terms = set(tokenize(text))
    return sum(0.5 if is_cjk(t[0]) else 1.0 for t in terms if not (len(t) == 1 and is_cjk(t)))


def length_factor(query):
    """How much a prompt's scores are raised for its length.  A hit's
    score is the share of what the query asks that it holds, so a 60-word
    turn still scores lower than a 6-word question for the same match (its
    chat words no longer count against it, its other words do); scores are
    raised by (words / QUESTION_WORDS) ** LENGTH_EXPONENT, never lowered."""
    return max(1.0, content_words(query) / QUESTION_WORDS) ** LENGTH_EXPONENT


Topic = record("Topic", "known unseen scale")
Topic.__doc__ = ("A prompt's topic words (ranking.topic_parts) weighed by idf: {term the index holds: "
                 "weight}, the weight of all the words no note holds, and how much those count "
                 "(a small memory has not seen many everyday words yet).")


def prompt_topic(store, query, analysed=None):
    """The Topic of a prompt in this memory: its topic words (no chat
    filler, frame or function words) weighted by idf, a word the index
    never saw weighing most.  A memory of fewer than UNKNOWN_FULL_CHUNKS
    chunks counts its unseen words in proportion to its size.  analysed:
    the query as its search analysed it (Hits.analysed), not done again."""
    q = analysed or analyse_query(store, query, store.params)
    if not q.n_docs:
        return Topic({}, 0.0, 0.0)
    own, unseen = topic_parts(q)
    known = {t: math.log(1 + q.n_docs / q.dfs[t]) for t in own}
    return Topic(known, math.log(1 + q.n_docs) * len(unseen), min(1.0, q.n_docs / float(UNKNOWN_FULL_CHUNKS)))


def unknown_share(topic):
    """The share of a prompt's Topic that no note of this memory holds.
    Another person's chat turn is mostly about things this memory never
    saw, and matches it only on its everyday words.  0.0 for an empty
    memory or a prompt without topic words."""
    total = sum(topic.known.values()) + topic.unseen
    return topic.unseen / total * topic.scale if total else 0.0


def covered_share(topic, hit):
    """The share of a prompt's Topic a hit holds (its words no note holds
    count against it); None for a prompt without topic words."""
    total = sum(topic.known.values()) + topic.unseen
    if not total:
        return None
    words = _hit_words(hit)
    return sum(w for t, w in topic.known.items() if t in words) / total


def holds_subject(topic, hit):
    """Whether a hit holds the prompt's subject: the rarest of its topic
    words the memory knows."""
    if not topic.known:
        return False
    return max(topic.known, key=lambda t: (topic.known[t], t)) in _hit_words(hit)


def _hit_words(hit):
    return set(tokenize(hit.text)) | set(tokenize(hit.heading or ""))


def gate_factor(query, topic=None, best=None):
    """What a prompt's scores are multiplied by before the cut, for its
    Topic and best hit.  A turn of more than QUESTION_WORDS content words:
    length_factor, times the share of its topic the memory holds (1 -
    unknown_share: the length forgives a turn for words no hit holds, not
    for words the memory has never seen), times (the share its best hit
    holds / COVER_NEUTRAL) ** COVER_EXPONENT: another person's turn matches
    this memory on a few everyday words, a turn it can answer on much of
    its topic; the same for a short turn of several sentences ("Understood.
    3 litres it is for today."), its length factor 1.  A question: 1, or
    up to 1 + SUBJECT_BOOST when its best hit holds its subject, as much
    as the memory knows its topic (a question
    about what the memory knows is often answered by a hit just under the
    cut; its one unknown word is as often a paraphrase or a typo: never
    below 1)."""
    factor = length_factor(query)
    if topic is None or best is None:
        return factor
    known = 1.0 - unknown_share(topic)
    if factor > 1.0 or several_sentences(query):  # a short chat turn is no question either
        covered = covered_share(topic, best)
        cover = 1.0 if covered is None else (covered / COVER_NEUTRAL) ** COVER_EXPONENT
        return factor * known * cover
    return 1.0 + SUBJECT_BOOST * known if holds_subject(topic, best) else 1.0


Talk = record("Talk", "text topic")
Talk.__doc__ = "A prompt with the user's turns before it (context.spoken_with), and its Topic in this memory."


def talk_of(store, query, turns):
    """The Talk of a prompt and its conversation, or None without one."""
    from .context import spoken_with
    text = spoken_with(query, turns or ())
    if text == " ".join(query.split()):
        return None
    return Talk(text, prompt_topic(store, text))


def choose(hits, query, cut=RECALL_CUT, floor=RECALL_FLOOR, skip_paths=(), topic=None, talk=None):
    """The hits worth injecting for a prompt: none unless the best scores at
    least `cut` (the line absent topics stay below, scores made comparable
    across prompt lengths by gate_factor; topic is the prompt's
    prompt_topic, without which only its length counts); then every hit
    scoring at least `floor` the same way, outside skip_paths.  talk: the
    prompt with its conversation (talk_of), judged as one long turn: a
    prompt may speak when its conversation is about what the best hit
    holds, as a stranger's long turn may not."""
    if not hits:
        return []
    # the hook's own length gate stands in for search's evidence factor
    factor = gate_factor(query, topic, hits[0])
    if talk is not None:
        factor = max(factor, gate_factor(talk.text, talk.topic, hits[0]))
    factor /= getattr(hits, "evidence", 1.0)
    if hits[0].score * factor < cut:
        return []
    kept = [h for h in hits if h.score * factor >= floor and h.path not in skip_paths]
    return hits.like(kept) if hasattr(hits, "like") else kept


def recall_choice(search_with, store, query, turns, cut=RECALL_CUT, floor=RECALL_FLOOR, skip_paths=(), held=()):
    """(hits worth injecting for a prompt, {term: weight} its conversation
    adds to a line's worth or None).  search_with(turns): the hits of the
    prompt searched with those turns (None: alone).  turns: the conversation
    before the prompt, or a function giving it (read only when needed).
    The prompt is searched alone first: when it finds something the session
    does not hold, that is the answer, as it always was (reranking every
    prompt with its conversation lowered RealMem's cites and silence).  Only
    a thin prompt (at most THIN_WORDS content words: "Okay, Option 1 it
    is") that alone finds nothing new is searched again with its
    conversation, and judged as one long turn with it (talk_of), so a
    stranger's conversation, full of words this memory never saw, stays
    silent."""
    hits = search_with(None)
    topic = prompt_topic(store, query, hits.analysed) if hits else None
    chosen = choose(hits, query, cut, floor, skip_paths, topic)
    alone = (chosen, context_terms(hits.analysed, query) if hits else None)  # (its translations and synonyms)
    if unheld(chosen, held) or content_words(query) > THIN_WORDS:
        return alone
    turns = turns() if callable(turns) else turns
    if not turns:
        return alone
    hits = search_with(turns)
    talk = talk_of(store, query, turns) if hits else None
    talked = choose(hits, talk.text, cut, floor, skip_paths, talk.topic) if talk else []
    return (talked, context_terms(hits.analysed, query)) if talked else alone


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


def held_whole(hits, held):
    """The hits every line of which the session holds (line_key)."""
    return [h for h in hits if held and all(not l.strip() or line_key(l) in held for l in h.text.split("\n"))]


def best_part(line, wanted, room):
    """The run of a line's sentences holding most of the wanted terms within
    room tokens (a line longer than a budget can still be cited), marked
    with … where it was cut; "" when not even a word fits."""
    spans = [m.span() for m in re.finditer(_SENTENCE, line) if m.group().strip()] or [(0, len(line))]
    hits = [len(wanted & set(tokenize(line[a:b]))) for a, b in spans]
    size = _sizer(line)
    best = None
    for i in range(len(spans)):
        for j in range(i, len(spans)):
            if size(spans[i][0], spans[j][1]) + 2 > room:
                break
            key = (sum(hits[i:j + 1]), -i)
            if best is None or key > best[0]:
                best = (key, i, j)
    if best is None or (not best[0][0] and any(hits)):  # the sentence wanted is too long: its start, at a word
        i = max(range(len(spans)), key=lambda k: (hits[k], -k))
        text = gist(line[spans[i][0]:], max(room - 2, 0))
        return "" if len(text) < 2 else ("…" if spans[i][0] else "") + text
    _, i, j = best
    return ("…" if i else "") + line[spans[i][0]:spans[j][1]].strip() + ("…" if j + 1 < len(spans) else "")


def _sizer(line):
    """estimate_tokens of line[a:b] for any a, b, without measuring each piece
    again: where the line's CJK characters are is found once."""
    if line.isascii():
        return lambda a, b: (b - a + 3) // 4
    import bisect
    at = [i for i, c in enumerate(line) if is_cjk_char(c)]

    def size(a, b):
        cjk = bisect.bisect_left(at, b) - bisect.bisect_left(at, a)
        return cjk + (b - a - cjk + 3) // 4
    return size


def context_terms(analysed, query):
    """{term: weight} a search added to a prompt's own words (its
    conversation's, search/context.py): what else a line may hold of what
    the prompt is about."""
    own = set(tokenize(query))
    return {t: w for t, w in (analysed.weights if analysed else {}).items() if t not in own and w < 1.0}


def pack_lines(hits, query, budget, line_share=LINE_SHARE, power=SCORE_POWER, reply=REPLY_SHARE, sent=(),
               extra=None, earlier=None):
    """(markdown, [(path, first, last)], [line keys]): the best lines of the
    hits within budget (estimated tokens), best first, whatever hit they
    are in: a line is worth (its hit's score ** power) x the share of the
    prompt's words it holds (the line after such a line, its reply, `reply`
    of that).  The WHOLE_LINES best go whole when within WHOLE_SHARE of the
    budget; every other line takes at most line_share of it (at least
    MIN_LINE_TOKENS; a longer one is cut to its best sentences), so the
    lines of several sessions fit; what is left then goes to the cut
    lines, best first.  Shown in
    rank order, each run of lines under its citation (the best hit's with
    its heading).  sent: hits the session already holds whole, cited on
    one line first (at most SENT_CITED) so the agent knows they answer this
    prompt too.  extra: {term: weight} the line's worth counts beside the
    prompt's own words (each 1.0): its conversation's.  earlier: {hit id:
    newer hit id} (search's Hits.earlier): such a hit's citation says so."""
    weights = dict(extra or {})
    marks = {k: changed_mark(h, earlier) for k, h in enumerate(hits)}
    weights.update((t, 1.0) for t in tokenize(query))
    wanted = set(weights)
    header = "## Memories for: %s\n" % gist(query, GIST_TOKENS)
    if sent:
        header += "Already in this session: %s\n" % " ".join(
            "[%s]" % cite(h.path, h.start_line, h.end_line) for h in sent[:SENT_CITED])
    used = estimate_tokens(header)
    cap = max(int(line_share * budget), MIN_LINE_TOKENS)
    picked = {}  # {hit rank: {line index: text shown}}
    for n, (_, k, i) in enumerate(_worth(hits, weights, power, reply)):
        if budget - used < 12:  # not even a citation and a word fit
            break
        line = hits[k].text.split("\n")[i]
        room = max(cap, int(WHOLE_SHARE * budget)) if n < WHOLE_LINES else cap
        text = line if estimate_tokens(line) + 1 <= room else best_part(line, wanted, cap - 1)
        if text != line and not wanted & set(tokenize(text)):  # a piece without the prompt's words tells nothing
            continue
        cost = estimate_tokens(text) + 1 + _title_cost(hits, picked, k, i, marks[k])
        if used + cost <= budget:
            used += cost
            picked.setdefault(k, {})[i] = text
    _widen(hits, picked, wanted, budget - used)
    blocks, ranges, keys = [], [], []
    for k in sorted(picked):
        for n, run in enumerate(_runs(sorted(picked[k]))):
            h = hits[k]
            blocks.append(_title(h, run[0], run[-1], k == 0 and n == 0, marks[k]) +
                          "\n".join(picked[k][i] for i in run) + "\n")
            ranges.append((h.path, h.start_line + run[0], h.start_line + run[-1]))
            keys += [line_key(h.text.split("\n")[i]) for i in run]
    return header + "".join(blocks), ranges, keys


def _worth(hits, weights, power, reply):
    """[(worth, hit rank, line index)] of every line holding a wanted word
    ({term: weight}) or replying to one, best first (on a tie, the earlier
    line, then the better hit: equal hits each give their first lines
    before their others)."""
    out = []
    total = float(sum(weights.values())) or 1.0
    for k, h in enumerate(hits):
        lines = h.text.split("\n")
        held = [sum(weights.get(t, 0.0) for t in set(tokenize(l))) / total if l.strip() and not is_heading(l)
                else 0.0 for l in lines]
        for i, share in enumerate(held):
            if i and lines[i].strip() and not is_heading(lines[i]):
                share = max(share, reply * held[i - 1])
            if share > 0:
                out.append((h.score ** power * share, k, i))
    out.sort(key=lambda w: (-w[0], w[2], w[1]))
    return out


def _title_cost(hits, picked, k, i, mark=""):
    """Tokens of the citation a line adds: none when it joins a run of lines
    already picked in its hit; the best hit's first citation brings its heading."""
    mine = picked.get(k, {})
    if i - 1 in mine or i + 1 in mine:
        return 0
    return estimate_tokens(_title(hits[k], i, i + 9, k == 0 and not mine, mark))


def _widen(hits, picked, wanted, room):
    """Give what the budget has left to the lines cut to fit LINE_SHARE, best
    line first: a single long answer is still shown as much as the budget allows."""
    for k in sorted(picked):
        for i, text in sorted(picked[k].items()):
            line = hits[k].text.split("\n")[i]
            if text == line or room < 4:
                continue
            wider = line if estimate_tokens(line) + 1 <= estimate_tokens(text) + room else \
                best_part(line, wanted, estimate_tokens(text) + room - 1)
            grown = estimate_tokens(wider) - estimate_tokens(text)
            if 0 < grown <= room:  # (a sentence's best run is measured by its parts: check the whole)
                room -= grown
                picked[k][i] = wider


def _runs(indexes):
    """Sorted line indexes as runs of neighbours: [1, 2, 5] -> [[1, 2], [5]]."""
    runs = []
    for i in indexes:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _title(h, lo, hi, heading=True, mark=""):
    """The citation of a hit's lines lo..hi, its heading when asked for, and
    its mark when a later hit says otherwise (changed_mark)."""
    return "\n[%s]%s%s\n" % (cite(h.path, h.start_line + lo, h.start_line + hi),
                              (" " + h.heading) if heading and h.heading else "", (" " + mark) if mark else "")
