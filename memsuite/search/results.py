"""What a search returns: ranked chunks joined into passages, repeats of
better hits scaled down, each hit's best lines and highlights, and the
objects every door (CLI --json, MCP, hooks) renders."""
import math
import re
from collections import Counter

from ..base.patterns import pattern
from ..base.records import StoreError, UsageError, record
from ..files.sources import cited_path, is_session, read_memory_lines, safe_join
from ..text.chinese import fold, is_cjk
from ..text.citations import cite, parse_reference, ranges_overlap
from ..text.markdown import content_lines
from ..text.tokenizer import expand, term_spans, tokenize


TAIL_LINES = 2  # a section this much longer than a chunk is shown whole

Hit = record("Hit", "id path start_line end_line heading date score keyword vector snippet text semantic",
             defaults=(None,))
Hit.__doc__ = ("One search result: lines are 1-based and inclusive, scores in [0, 1], snippet "
               "the best lines, text all of the cited lines; semantic the embedding similarity "
               "(None when no embedding provider runs).")


def changed_mark(hit, earlier):
    """"(earlier, DATE; newer: ID)" for a hit a later one says otherwise of
    (earlier: {hit id: newer hit id}, supersede.py), else "": search, the
    context pack and the prompt hook mark it alike."""
    newer = earlier.get(hit.id) if earlier else None
    return "(earlier, %s; newer: %s)" % (hit.date or "undated", newer) if newer else ""


class Hits(list):
    """A search's hits, best first, and the channels that scored them
    (keyword, vector, semantic): what the search used, and how fresh its
    index was, travel with its answer."""

    stale = False  # the index could not be brought up to date (ranking.search with sync)
    checked = None  # what a watcher vouched for instead of this process's own look
    evidence = 1.0  # what a chat turn's scores were multiplied by (ranking.topic_evidence)
    analysed = None  # the query as ranking analysed it (ranking.analyse_query), for the prompt hook's gate
    ranked = None  # (the candidates' keys in the order ranked, their scores, their StoredChunks)...
    features = None  # ...and a function giving their features (search/features.py; bench/ltr_dump.py)

    def like(self, hits):
        """These hits' search (channels, marks, freshness...) with other hits."""
        out = self.__class__(hits)
        out.__dict__.update(self.__dict__)
        return out

    def __init__(self, hits=(), channels=(), repeats=(), earlier=None):
        list.__init__(self, hits)
        self.channels = list(channels)
        self.repeats = set(repeats)  # ids of hits that only repeat better ones (near-duplicates, below)
        self.earlier = dict(earlier or {})  # {hit id: id of a newer hit saying otherwise} (supersede.py)


def sort_newest_first(hits):
    """Hits ordered by date, newest first (undated last), best first on a tie."""
    hits = sorted(hits, key=lambda h: -h.score)
    hits.sort(key=lambda h: h.date or "", reverse=True)  # stable: the score order stays within a day
    return hits


# Passages: touching hits in one file become one

def build_passages(order, rows, merged, keyword, vector, params, min_score, semantic=None):
    """Hits in rank order, each line shown once.  A candidate that touches a
    better hit in the same file (within merge_gap lines, at most
    merge_max_lines together) and scores at least merge_min_share of it joins
    it as one passage; otherwise it keeps only its lines no better hit shows
    (or is dropped if none are left in one piece).  All candidates are
    considered before the list is cut, so a hit's lines do not depend on --limit."""
    hits = []
    for key in order:
        row, score = rows[key], merged[key]
        if score < min_score or score <= 0:
            break
        placed = False
        for i, hit in enumerate(hits):
            if hit.path != row.path:
                continue
            start, end = min(hit.start_line, row.start_line), max(hit.end_line, row.end_line)
            touching = ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line,
                                                params.merge_gap + 1)
            # the rest of a short section (an overlapping chunk under the same heading,
            # the two no longer than a chunk and a tail) always joins; a neighbour
            # only if it scores nearly as well
            tail = ranges_overlap(row.start_line, row.end_line, hit.start_line, hit.end_line) and \
                row.heading == hit.heading and end - start + 1 <= params.chunk_lines + TAIL_LINES
            if touching and end - start + 1 <= params.merge_max_lines and \
                    (tail or score >= params.merge_min_share * hit.score):
                hits[i] = _merged(hit, row, start, end)
                placed = True
                break
        if placed:
            continue
        span = _unshown(row, [h for h in hits if h.path == row.path])
        if span is None:
            continue
        text = "\n".join(row.text.split("\n")[span[0] - row.start_line:span[1] - row.start_line + 1]) \
            if span != (row.start_line, row.end_line) else row.text
        hits.append(Hit(None, row.path, span[0], span[1],
                        row.heading, row.date, round(score, 4), round(keyword.get(key, 0.0), 4),
                        round(vector.get(key, 0.0), 4), "", text,
                        round(semantic.get(key, 0.0), 4) if semantic else None))
    return [h._replace(id=cite(h.path, h.start_line, h.end_line)) for h in hits]


def _unshown(row, hits):
    """The (first, last) lines of row that no hit shows, if they are one piece."""
    if row.start_line == row.end_line and row.text.count("\n") == 0:
        shown = any(h.start_line <= row.start_line <= h.end_line for h in hits)
        return None if shown else (row.start_line, row.end_line)
    free = [n for n in range(row.start_line, row.end_line + 1)
            if not any(h.start_line <= n <= h.end_line for h in hits)]
    if not free or free[-1] - free[0] + 1 != len(free):
        return None
    return free[0], free[-1]


def _merged(hit, row, start, end):
    """A hit grown by a neighbouring chunk: headed as the chunk where the
    passage now starts, scored as the better of the two."""
    if row.start_line < hit.start_line:
        hit = hit._replace(heading=row.heading)
    return hit._replace(start_line=start, end_line=end, text=_joined_text(hit, row))


def _joined_text(hit, row):
    """The text of two merged line ranges (each line once, gaps left empty)."""
    lines = {}
    for start, text in ((hit.start_line, hit.text), (row.start_line, row.text)):
        for i, line in enumerate(text.split("\n")):
            lines.setdefault(start + i, line)
    return "\n".join(lines.get(n, "") for n in range(min(lines), max(lines) + 1))


# Near-duplicates: a hit whose every line holding the query
# repeats (nearly word for word) a line a better hit of another file already
# shows adds nothing for the reader, and keeps duplicate_share of its score.
#
# Daily logs repeat themselves ("standup: pipeline green, Anna reviews the
# notes" every morning); without this, ten copies of one line can fill a token
# budget before the one note that answers.  Lines are compared as sets of their
# index terms, times and dates left out (they differ between copies), by
# Jaccard similarity of at least duplicate_similarity; a prefix filter keeps it
# to the few pairs that can be that similar (rarest terms first).

def demote_duplicates(order, candidates, merged, query, params, min_score=None):
    """Scale down (in place) the merged score of each candidate that only
    repeats better ones; return the candidates re-sorted, best first, and
    the (path, rounded score) of those scaled down (to name their hits).
    Only candidates that can be shown are looked at: those at min_score and
    above, or by default above the floors ranking.search applies."""
    best = merged[order[0]] if order else 0.0
    least = min_score if min_score is not None else max(params.score_floor, params.relative_floor * best)
    shown = [k for k in order if merged[k] >= least and merged[k] > 0]
    lines = _query_lines(shown, candidates, set(query.weights))
    rarity = Counter()
    for chunk in lines.values():
        for _, sig in chunk:
            rarity.update(sig)
    seen = _LineIndex(params.duplicate_similarity)
    repeats = set()
    for key in shown:
        path = candidates[key].row.path
        # rarest first, then alphabetically (sorted twice: no Python key function per term)
        chunk = [(at, sorted(sorted(sig), key=rarity.__getitem__)) for at, sig in lines[key]]
        if chunk and all(seen.repeats(sig, (path, at)) for at, sig in chunk):
            merged[key] *= params.duplicate_share
            repeats.add((path, round(merged[key], 4)))
            continue
        for at, sig in chunk:
            seen.add(sig, (path, at))
    rows = {k: c.row for k, c in candidates.items()}
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal)), repeats


def _query_lines(order, candidates, terms):
    """{key: [(line number, signature)]} of each candidate's lines holding a query term."""
    out = {}
    for key in order:
        c = candidates[key]
        out[key] = [(c.row.start_line + n, sig) for n, line in enumerate(c.lines)
                    if not terms.isdisjoint(line) for sig in (_signature(line),) if sig]
    return out


# A time or date term: 09:30, 09:30-10:15, 2026-01-05, 3pm, 5th.  Each form
# is compiled on first use, and only for a term holding what it needs (a
# cold query pays ~2 ms to compile all three).
_WHEN_FORMS = ((":", r"\d{1,2}:\d{2}(:\d{2})?(-\d{1,2}:\d{2}(:\d{2})?)?"), ("-", r"\d{4}-\d{2}-\d{2}"))
_ORDINAL_ENDS = ("am", "pm", "st", "nd", "rd", "th")
_UNITS = frozenset("年月日号点时分秒")  # 3月14日, 9点: a number before one is part of a date or time
_MONTHS = frozenset("jan feb mar apr mai jun jul aug sep sept oct nov dec januari februari march april june "
                    "juli august septemb octob novemb decemb".split())  # as the tokenizer stems them


def _signature(terms):
    """A line's terms as a set, times and dates left out (copies of a line
    differ there: 09:30 and its parts 09 and 30, 2026-01-05, 3pm, 3月14日,
    Jan 5); other numbers count (a price, a count, an order number: a line
    that changed only there states another fact)."""
    terms = list(terms)
    if not any([t[0].isdigit() for t in terms]):
        return set(terms)  # what is left out starts with a digit: most lines have none
    when = {t for t in terms if t[0].isdigit() and _is_when(t)}
    parts = {p for t in when for p in re.findall(r"\d+", t)}
    out = set()
    for i, t in enumerate(terms):
        if t in when or t in parts:
            continue
        if t.isdigit() and len(t) <= 2 and ((i + 1 < len(terms) and terms[i + 1] in _UNITS)
                                            or (i and terms[i - 1] in _MONTHS)
                                            or (i + 1 < len(terms) and terms[i + 1] in _MONTHS)):
            continue
        out.add(t)
    return out


def _is_when(term):
    if term.endswith(_ORDINAL_ENDS) and re.fullmatch(r"\d{1,2}(am|pm|st|nd|rd|th)", term):
        return True
    return any(mark in term and re.fullmatch(form, term) for mark, form in _WHEN_FORMS)


class _LineIndex:
    """Lines already shown, found by the first terms of their signatures
    (two sets this similar share one of the first few terms of each, in any
    one order of the terms: rarest first keeps the lists short)."""

    def __init__(self, least):
        self.least = least
        self.lines = []
        self.by_term = {}

    def _prefix(self, sig):
        return sig[:len(sig) - int(math.ceil(self.least * len(sig) - 1e-9)) + 1]

    def add(self, sig, where):
        self.lines.append((set(sig), where))
        for t in self._prefix(sig):
            self.by_term.setdefault(t, []).append(len(self.lines) - 1)

    def repeats(self, sig, where):
        """Whether a shown line of another file is this similar to sig (lines
        of one file alike are a list, or overlapping chunks: passages above)."""
        mine = set(sig)
        for i in {i for t in self._prefix(sig) for i in self.by_term.get(t, ())}:
            theirs, place = self.lines[i]
            if place[0] != where[0] and len(mine & theirs) >= self.least * len(mine | theirs):
                return True
        return False


SNIPPET_CHARS = 220


# Snippets and highlighting

def display_terms(qterms):
    """The query terms worth showing as matches: a Chinese unigram only
    counts when the query has no bigram (else 配置 would light up every 置)."""
    has_bigram = any(len(t) == 2 and is_cjk(t) for t in qterms)
    return {t for t in qterms if not (has_bigram and len(t) == 1 and is_cjk(t))}


def match_spans(text, qterms):
    """Character spans of text whose terms are query terms (for highlighting)."""
    return list(_spans_in_order(text, qterms))


def _spans_in_order(text, qterms):
    """match_spans, one span at a time, in text order (a snippet needs only
    the first: each word after it would be stemmed for nothing)."""
    qterms = display_terms(qterms)
    folded = text.lower() if text.isascii() else _fold_per_char(text)
    for start, end, cjk in term_spans(folded):
        run = folded[start:end]
        if not cjk:
            if set(tokenize(run)) & qterms:
                yield start, end
            continue
        marked = [False] * len(run)
        for i in range(len(run)):
            if run[i:i + 2] in qterms and i + 1 < len(run):
                marked[i] = marked[i + 1] = True
            elif run[i] in qterms:
                marked[i] = True
        i = 0
        while i < len(run):
            if marked[i]:
                j = i
                while j < len(run) and marked[j]:
                    j += 1
                yield start + i, start + j
                i = j
            else:
                i += 1


def _fold_per_char(text):
    """fold, one character at a time, so offsets still line up with the original."""
    return "".join((fold(c) or c)[:1] for c in text)


def make_snippet(text, qterms, width=SNIPPET_CHARS, analysed=None):
    """The chunk's most relevant line and the one after it, cut to about
    `width` characters.  analysed: {line: its units as the index stores
    them}, for lines the search has read (tokenizing them again is most of a
    snippet's cost)."""
    lines = text.split("\n")
    shown = display_terms(qterms)
    candidates = content_lines(lines)
    if not candidates:
        return ""
    analysed = analysed or {}
    terms = {i: set(expand(analysed[lines[i]]) if lines[i] in analysed else tokenize(lines[i])) for i in candidates}

    def rank(i):
        return len(terms[i] & shown), len(terms[i] & qterms), -i
    best = max(candidates, key=rank)
    picked = [lines[best].strip()]
    following = [i for i in candidates if i > best][:1]
    picked += [lines[i].strip() for i in following]
    snippet = " ".join(picked)
    if len(snippet) <= width:
        return snippet
    first = next(_spans_in_order(snippet, qterms), None)
    start = max(0, (first[0] if first else 0) - width // 4)
    return ("…" if start else "") + snippet[start:start + width] + "…"


def highlight(text, qterms, colour):
    """Mark query terms: ANSI bold yellow on a terminal, «…» otherwise."""
    spans = match_spans(text, qterms)
    if not spans:
        return text
    on, off = ("\033[1;33m", "\033[0m") if colour else ("«", "»")
    out, last = [], 0
    for s, e in spans:
        out.append(text[last:s] + on + text[s:e] + off)
        last = e
    return "".join(out) + text[last:]


# Gists: the start of a line within a few tokens

GIST_TOKENS = 20  # a compact hit's gist: about 80 characters of English, 20 of Chinese


def estimate_tokens(text):
    """Tokens a model reads for text, roughly: one per CJK character, one per
    four other characters (English words run three to five)."""
    if text.isascii():
        return (len(text) + 3) // 4
    cjk = len(pattern("cjk_char_bytes").findall(text.encode("utf-8", "surrogatepass")))
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


# Output: the one place that renders results

def compact_json(hit):
    return {"id": hit.id, "date": hit.date, "score": hit.score, "gist": gist(hit.snippet)}


def hit_json(hit):
    scores = {"keyword": hit.keyword, "vector": hit.vector}
    if hit.semantic is not None:
        scores["semantic"] = hit.semantic
    return {"id": hit.id, "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line,
            "heading": hit.heading, "score": hit.score, "snippet": hit.snippet, "scores": scores,
            "source": "sessions" if is_session(hit.path) else "memory"}


def gist_text(text):
    """The lines of a chunk worth a gist (no blank lines or headings)."""
    lines = text.split("\n")
    return " ".join(lines[i].strip() for i in content_lines(lines))


def entry_json(e, full=True):
    out = {"id": e.id, "path": e.path, "start_line": e.start_line, "end_line": e.end_line,
           "date": e.date, "heading": e.heading, "anchor": e.anchor}
    if full:
        out["text"] = e.text
    else:
        out["gist"] = gist(gist_text(e.text))
    return out


MAX_GET_LINES = 200


def read_cited(root, reference, start=None, count=None, store=None):
    """The lines a reference names, as JSON-ready data: a citation
    ('file.md:31-44'), a chunk ('file.md#5', which needs the store) or a file
    (its first MAX_GET_LINES lines); start and count choose other lines.
    Only memory files inside root (no '..', no symlink out, no index)."""
    try:
        path, first, last = parse_reference(reference)
    except ValueError as exc:
        raise UsageError(str(exc))
    path = cited_path(root, path)
    if first == "#":
        first, last = _chunk_lines(store, path, last)
    lines = store.read_lines(path) if store is not None else read_memory_lines(root, path)
    begin = start or first or 1
    if begin > max(len(lines), 1):
        raise StoreError("%s has %d lines; line %d is past the end" % (path, len(lines), begin))
    if count:
        end = begin + count - 1
    elif start is None and last is not None:
        end = last
    else:
        end = begin + MAX_GET_LINES - 1
    end = min(end, len(lines))
    return {"path": path, "start_line": begin, "end_line": end, "total_lines": len(lines),
            "lines": lines[begin - 1:end]}


def _chunk_lines(store, path, ordinal):
    """The line range of chunk 'path#ordinal' in the current index."""
    if store is None:
        raise UsageError("a chunk id (file.md#N) needs the index; cite lines instead (file.md:5-9)")
    safe_join(store.root, path)
    store.refresh()
    chunks = [c for c in store.chunks_of(path.replace("\\", "/")) if c.ordinal == ordinal]
    if not chunks:
        raise StoreError("no chunk %s#%d (ids change when a file changes; search again)" % (path, ordinal))
    return chunks[0].start_line, chunks[0].end_line


def problems_json(problems):
    return [{"path": p, "issue": i} for p, i in problems]
