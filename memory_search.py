#!/usr/bin/env python3
"""How memories are found: query analysis, the two channels, the hybrid merge,
snippets, output formatting, and the `search.sh` / `reindex.sh` CLI.

Channels (both over the terms of memory_store.tokenize):
  keyword  BM25 from SQLite FTS5 (or the JSON backend's identical formula);
           it also supplies the candidate pool.
  vector   hand-written TF-IDF cosine (SMART lnc.ltc: log tf, idf on the query
           side only, cosine-normalised) over terms *and* character trigrams
           of Latin words, so it forgives typos and word forms BM25 misses.
Each score is mapped to [0, 1] without reference to the other hits, so a
score means the same thing from query to query, then merged by weight.
"""
import math
import os
import sys
from collections import Counter, namedtuple

import memory_store as store_mod
from memory_store import Filters, StoreError, tokenize

# Defaults chosen by measurement on ../shared/eval-data (see bench/ and README).
WEIGHT_KEYWORD = 0.7   # hybrid = WEIGHT_KEYWORD * keyword + (1 - WEIGHT_KEYWORD) * vector
KEYWORD_SCALE = 1.5    # keyword score = 1 - exp(-KEYWORD_SCALE * bm25 / sum(idf))
CANDIDATE_POOL = 50    # BM25 candidates the vector channel re-scores
RERANK_DEPTH = 20      # the best hits get a bonus for holding the query in one line...
PROXIMITY_WEIGHT = 0.15  # ...worth this much (scores are renormalised to [0, 1])
DATE_WEIGHT = 0.1      # bonus for a file dated on a day (or month) the query names
MERGE_GAP = 0          # hits this close (0: adjacent or overlapping) become one passage...
MERGE_MAX_LINES = 10   # ...of at most this many lines,
MERGE_MIN_SHARE = 0.8  # ...when the later hit scores at least this share of the first
MAX_QUERY_TERMS = 64   # the rarest terms of a very long query
PROBE_POSTINGS = 5000  # FTS5 is asked for the rarest terms, up to this many postings
FUZZY_PREFIX = 4       # an unknown word also asks for words starting with its first 4 letters
DEFAULT_LIMIT = 5
BACKGROUND_SCAN_CHUNKS = 20000  # above this, check the folder in a thread beside the query
SNIPPET_CHARS = 220

Hit = namedtuple("Hit", "id path start_line end_line heading date score keyword vector snippet text")
Hit.__doc__ = "One search result; lines are 1-based and inclusive, scores in [0, 1]."


class UsageError(Exception):
    """Bad arguments: exit code 2."""


# --------------------------------------------------------------------------
# Query analysis
# --------------------------------------------------------------------------

def fts5_idf(n_docs, df):
    """FTS5's BM25 idf (never below a tiny positive floor)."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return idf if idf > 0 else 1e-6


Query = namedtuple("Query", "terms unknown dfs n_docs")
Query.__doc__ = ("An analysed query: its terms known to the index (repetitions kept), its Latin "
                 "words the index has never seen (typos, compounds), their document frequencies, "
                 "and the number of chunks.")


def analyse_query(store, query):
    """Analyse a query against the index.  An unknown word made of two known
    ones ("roadtrip") is read as both; other unknown words are kept for the
    trigram channel ("Feedley" still meets "Feedly").  Very long queries keep
    only their MAX_QUERY_TERMS rarest distinct terms."""
    if not query or not query.strip():
        raise UsageError("empty query")
    terms = tokenize(query)
    n_docs = store.chunk_count()
    if not terms or not n_docs:
        return Query([], [], {}, n_docs)
    distinct = list(dict.fromkeys(terms))[:4 * MAX_QUERY_TERMS]
    dfs = store.doc_freqs(distinct)
    unknown = [t for t in distinct if not dfs.get(t) and store_mod.cached_grams(t)]
    parts = _compound_parts(store, unknown, dfs)
    terms = [p for t in terms for p in parts.get(t, (t,))]
    known = sorted({t for t in terms if dfs.get(t)}, key=lambda t: (dfs[t], t))[:MAX_QUERY_TERMS]
    keep = set(known)
    return Query([t for t in terms if t in keep], [t for t in unknown if t not in parts], dfs, n_docs)


def _compound_parts(store, words, dfs):
    """{word: (left, right)} for unknown words that are two known words joined."""
    splits = {w: [(w[:i], w[i:]) for i in range(3, len(w) - 2)] for w in words if len(w) >= 6}
    pieces = sorted({p for pairs in splits.values() for pair in pairs for p in pair})
    if not pieces:
        return {}
    dfs.update(store.doc_freqs(pieces))
    found = {}
    for word, pairs in splits.items():
        both = [pair for pair in pairs if dfs.get(pair[0]) and dfs.get(pair[1])]
        if both:  # the split whose rarer half is commonest: the likeliest reading
            found[word] = max(both, key=lambda pair: min(dfs[pair[0]], dfs[pair[1]]))
    return found


# --------------------------------------------------------------------------
# The two channels and the merge
# --------------------------------------------------------------------------

def probe_terms(distinct, dfs):
    """The terms worth asking the inverted index for: the rarest, as long as
    their postings stay within PROBE_POSTINGS (once there are enough for a
    pool).  FTS5 scores every chunk a term matches, so a term in a quarter of
    a big index costs tens of milliseconds while a chunk holding only it
    would rank below the chunks holding the rarer terms anyway.  Every query
    term still counts in the score of the candidates found."""
    probe, postings = [], 0
    for term in sorted(distinct, key=lambda t: (dfs[t], t)):
        if probe and postings >= CANDIDATE_POOL and postings + dfs[term] > PROBE_POSTINGS:
            break
        probe.append(term)
        postings += dfs[term]
    return probe


def _holding_many(store, distinct, dfs, filters, tries=3):
    """Chunks holding all the query's terms (else all but the rarest, ...).
    They rank high whatever the terms' frequency, and asking FTS5 for them is
    cheap: it scores only the intersection."""
    ranked = sorted(distinct, key=lambda t: (dfs[t], t))
    found = {}
    for skip in range(min(tries, len(ranked) - 1)):
        found.update(store.keyword(ranked[skip:], CANDIDATE_POOL, filters, require_all=True))
        if len(found) >= CANDIDATE_POOL // 2:
            break
    return found


def keyword_channel(store, terms, dfs, n_docs, filters, unknown=()):
    """Candidates and their keyword scores: ({key: ChunkRow}, {key: term counts},
    {key: score in [0, 1]}).

    FTS5 ranks chunks by BM25 over the query's rarer terms and returns the
    best CANDIDATE_POOL; their BM25 over all the query's terms (FTS5's own
    formula) is then mapped to [0, 1] by 1 - exp(-KEYWORD_SCALE x bm25 / sum
    of idf), about 0.78 for a chunk holding every term once."""
    distinct = list(dict.fromkeys(terms))
    probe = probe_terms(distinct, dfs) if distinct else []
    # an unknown word brings in the chunks with words sharing its first letters
    # ("feedlei" -> feed*); the trigram channel then tells them apart
    prefixes = sorted({w[:FUZZY_PREFIX] for w in unknown if len(w) > FUZZY_PREFIX})
    found = dict(store.keyword(probe, CANDIDATE_POOL, filters, prefixes=prefixes))
    if len(probe) < len(distinct):
        found.update(_holding_many(store, distinct, dfs, filters))
    rows = store.fetch(list(found))
    counts = {key: _term_counts(row) for key, row in rows.items()}
    idf = {t: fts5_idf(n_docs, dfs[t]) for t in distinct}
    scale = sum(idf.values()) or 1.0
    avg_len = (store.total_terms() / float(n_docs)) or 1.0
    k1, b = store_mod.BM25_K1, store_mod.BM25_B
    scores = {}
    for key, (body, head, length) in counts.items():
        norm = k1 * (1 - b + b * length / avg_len)
        bm25 = 0.0
        for t, w in idf.items():
            tf = body.get(t, 0) + store_mod.HEADING_WEIGHT * head.get(t, 0)
            if tf:
                bm25 += w * tf * (k1 + 1) / (tf + norm)
        scores[key] = 1.0 - math.exp(-KEYWORD_SCALE * bm25 / scale)
    return rows, counts, scores


def _term_counts(row):
    """(body term counts, heading term counts, length in terms) of a stored chunk."""
    body = Counter(row.body.split())
    head = Counter(row.head.split()) if row.head else Counter()
    return body, head, sum(body.values()) + sum(head.values())


def query_vector(terms, store, dfs, n_docs):
    """ltc query weights {feature: weight} of unit length: log tf x idf for
    terms, GRAM_WEIGHT x idf for the trigrams of its Latin words."""
    counts, grams = store_mod.vector_features(terms)
    gram_dfs = store.doc_freqs(sorted(grams)) if grams else {}
    weights = {}
    for term, n in counts.items():
        if dfs.get(term):
            weights[term] = store_mod.log_tf(n) * math.log(1 + n_docs / dfs[term])
    for gram, df in gram_dfs.items():
        weights[gram] = store_mod.GRAM_WEIGHT * math.log(1 + n_docs / df)
    norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
    return {f: w / norm for f, w in weights.items()}


def vector_channel(rows, counts, qvec):
    """{key: cosine} of each candidate row against the query vector."""
    qterms = [f for f in qvec if f[0] != "#"]
    qgrams = [(f[1:], w) for f, w in qvec.items() if f[0] == "#"]  # "#onf" -> "onf"
    log_tf = store_mod.log_tf
    scores = {}
    for key, row in rows.items():
        body, head, _ = counts[key]
        dot = sum(qvec[t] * log_tf(body.get(t, 0) + head.get(t, 0)) for t in qterms
                  if t in body or t in head)
        if qgrams:  # a trigram is in the chunk iff it is a substring of its ^word$ list
            words = row.words
            dot += store_mod.GRAM_WEIGHT * sum(w for g, w in qgrams if g in words)
        scores[key] = min(1.0, dot / row.norm)
    return scores


def proximity(body, idf, total):
    """How much of the query a single line of the chunk holds (idf-weighted,
    0-1): words that meet in one line answer better than words scattered over
    six.  body is the stored terms, one line per text line."""
    best = 0.0
    for line in body.split("\n"):
        if line:
            best = max(best, sum(idf.get(t, 0.0) for t in set(line.split())))
    return best / total if total else 0.0


_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), 1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH = r"(?P<mon>%s)\.?" % "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})",
    r"(?P<y>\d{4})\s*年\s*(?P<m>\d{1,2})\s*月(?:\s*(?P<d>\d{1,2})\s*[日号])?",
    r"(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b",
    r"\b" + _MONTH + r",?\s+(?P<y>\d{4})\b",
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r"\b",
    r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?\b",
    r"\b(?:in|during|since|of|early|late|mid)\s+" + _MONTH + r"\b",
]


def query_dates(query):
    """Dates a query names, as (year, month, day) with None for parts not given:
    '2026-02-19', '19 February 2026', 'February 2026', 'in June', '2月19日'."""
    import re
    found, taken = [], []
    text = query.lower()
    if not any(c.isdigit() for c in text) and not set(re.split(r"[^a-z]+", text)) & _MONTHS.keys():
        return found  # the common case: skip compiling the patterns
    for pattern in _DATE_PATTERNS:
        for m in re.finditer(pattern, text):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            parts = m.groupdict()
            month = _MONTHS.get(parts.get("mon")) if parts.get("mon") else int(parts["m"])
            day = int(parts["d"]) if parts.get("d") else None
            year = int(parts["y"]) if parts.get("y") else None
            if 1 <= month <= 12 and (day is None or 1 <= day <= 31):
                found.append((year, month, day))
                taken.append((m.start(), m.end()))
    return found


def date_matches(date, wanted):
    """Whether a chunk's YYYY-MM-DD date fits one of the (year, month, day) wanted."""
    if not date or not wanted:
        return False
    y, m, d = int(date[:4]), int(date[5:7]), int(date[8:10])
    return any((wy is None or wy == y) and wm == m and (wd is None or wd == d) for wy, wm, wd in wanted)


def search(store, query, limit=DEFAULT_LIMIT, mode="hybrid", min_score=0.0, filters=None):
    """Rank the memory's chunks for a query: [Hit], best first.

    BM25 picks the candidates, the TF-IDF cosine re-scores them, the best
    RERANK_DEPTH get a bonus for holding the query in one line, and hits that
    touch in the same file are merged into one passage."""
    if mode not in ("hybrid", "keyword", "vector"):
        raise UsageError("unknown mode %r (use hybrid, keyword or vector)" % mode)
    terms, unknown, dfs, n_docs = analyse_query(store, query)
    if not terms and not unknown:
        return []
    rows, counts, keyword = keyword_channel(store, terms, dfs, n_docs, filters, unknown)
    vector = vector_channel(rows, counts, query_vector(terms + unknown, store, dfs, n_docs)) \
        if mode != "keyword" else {}
    w = {"hybrid": WEIGHT_KEYWORD, "keyword": 1.0, "vector": 0.0}[mode]
    merged = {k: w * keyword.get(k, 0.0) + (1 - w) * vector.get(k, 0.0) for k in rows}
    order = sorted(rows, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))
    if mode == "hybrid":
        order = _rerank(order, rows, merged, terms, dfs, n_docs, query_dates(query))
    return _passages(order, rows, merged, keyword, vector, set(terms), limit, min_score)


def _rerank(order, rows, merged, terms, dfs, n_docs, dates):
    """Bonuses for the best hits: the query in one line (proximity), and a
    file dated on a day the query names (kept in [0, 1] by renormalising)."""
    idf = {t: math.log(1 + n_docs / dfs[t]) for t in set(terms)}
    total = sum(idf.values())
    scale = 1 + PROXIMITY_WEIGHT + (DATE_WEIGHT if dates else 0.0)
    for i, key in enumerate(order):
        score = merged[key]
        if i < RERANK_DEPTH:
            score += PROXIMITY_WEIGHT * proximity(rows[key].body, idf, total)
        if date_matches(rows[key].date, dates):
            score += DATE_WEIGHT
        merged[key] = score / scale
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))


def _passages(order, rows, merged, keyword, vector, qterms, limit, min_score):
    """Hits in rank order, each line shown once.  A candidate that touches a
    better hit in the same file (within MERGE_GAP lines, at most
    MERGE_MAX_LINES together) and scores at least MERGE_MIN_SHARE of it joins
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
            touching = row.start_line <= hit.end_line + MERGE_GAP + 1 and \
                row.end_line >= hit.start_line - MERGE_GAP - 1
            if touching and end - start + 1 <= MERGE_MAX_LINES and score >= MERGE_MIN_SHARE * hit.score:
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
        hits.append(Hit(store_mod.chunk_id(row.path, row.ordinal), row.path, span[0], span[1],
                        row.heading, row.date, round(score, 4), round(keyword.get(key, 0.0), 4),
                        round(vector.get(key, 0.0), 4), row.body, text))  # body: snippet stand-in
    # make_snippet uses the stored terms per line, and cuts the text again if a merge grew it
    return [h._replace(snippet=make_snippet(h.text, qterms, h.snippet)) for h in hits[:limit]]


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
    """A hit grown by a neighbouring chunk: named after (id, heading) the chunk
    where the passage now starts, scored as the better of the two."""
    if row.start_line < hit.start_line:
        hit = hit._replace(id=store_mod.chunk_id(row.path, row.ordinal), heading=row.heading)
    return hit._replace(start_line=start, end_line=end, text=_joined_text(hit, row))


def _joined_text(hit, row):
    """The text of two merged line ranges (each line once, gaps left empty)."""
    lines = {}
    for start, text in ((hit.start_line, hit.text), (row.start_line, row.text)):
        for i, line in enumerate(text.split("\n")):
            lines.setdefault(start + i, line)
    return "\n".join(lines.get(n, "") for n in range(min(lines), max(lines) + 1))


# --------------------------------------------------------------------------
# Snippets and highlighting
# --------------------------------------------------------------------------

def display_terms(qterms):
    """The query terms worth showing as matches: a Chinese unigram only
    counts when the query has no bigram (else 配置 would light up every 置)."""
    has_bigram = any(len(t) == 2 and store_mod.is_cjk(t) for t in qterms)
    return {t for t in qterms if not (has_bigram and len(t) == 1 and store_mod.is_cjk(t))}


def match_spans(text, qterms):
    """Character spans of text whose terms are query terms (for highlighting)."""
    qterms = display_terms(qterms)
    spans = []
    folded = text.lower() if text.isascii() else _fold(text)
    for start, end, cjk in store_mod.term_spans(folded):
        run = folded[start:end]
        if not cjk:
            if set(tokenize(run)) & qterms:
                spans.append((start, end))
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
                spans.append((start + i, start + j))
                i = j
            else:
                i += 1
    return spans


def _fold(text):
    """Lower-case per character so offsets still line up with the original."""
    import unicodedata
    return "".join((unicodedata.normalize("NFKC", c).lower() or c)[:1] for c in text)


def make_snippet(text, qterms, body=None, width=SNIPPET_CHARS):
    """The chunk's most relevant line and the one after it, cut to about
    `width` characters.  body (the stored terms, a line per text line) saves
    tokenizing the text again."""
    lines = text.split("\n")
    terms = body.split("\n") if body is not None else [" ".join(tokenize(l)) for l in lines]
    if len(terms) != len(lines):  # a piece of one long line
        terms = [" ".join(tokenize(l)) for l in lines]
    shown = display_terms(qterms)
    candidates = [i for i, l in enumerate(lines) if l.strip() and not store_mod.is_heading(l)] or \
        [i for i, l in enumerate(lines) if l.strip()]
    if not candidates:
        return ""

    def rank(i):
        found = set(terms[i].split())
        return len(found & shown), len(found & qterms), -i
    best = max(candidates, key=rank)
    picked = [lines[best].strip()]
    following = [i for i in candidates if i > best][:1]
    picked += [lines[i].strip() for i in following]
    snippet = " ".join(picked)
    if len(snippet) <= width:
        return snippet
    spans = match_spans(snippet, qterms)
    start = max(0, (spans[0][0] if spans else 0) - width // 4)
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


# --------------------------------------------------------------------------
# Output: the one place that prints results, errors and JSON
# --------------------------------------------------------------------------

def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def pad(text, width):
    """Left-align text in a column, counting wide (CJK) characters as two."""
    import unicodedata
    shown = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - shown)


def print_json(obj):
    sys.stdout.write(to_json(obj) + "\n")


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                 "\b": "\\b", "\f": "\\f"}
_JSON_ESCAPES.update({chr(i): "\\u%04x" % i for i in range(32) if chr(i) not in _JSON_ESCAPES})
_JSON_ESCAPES.update({"\u2028": "\\u2028", "\u2029": "\\u2029"})


def to_json(obj):
    """JSON text of plain data (what json.dumps(obj, ensure_ascii=False) gives).
    Written out because importing the json package costs ~2.5 ms of every
    agent call's start-up."""
    if isinstance(obj, str):
        return '"' + "".join(_JSON_ESCAPES.get(c, c) for c in obj) + '"' \
            if any(c in _JSON_ESCAPES for c in obj) else '"' + obj + '"'
    if obj is None:
        return "null"
    if obj is True or obj is False:
        return "true" if obj else "false"
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
            return "null"
        return repr(obj)
    if isinstance(obj, dict):
        return "{" + ", ".join(to_json(str(k)) + ": " + to_json(v) for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in obj) + "]"
    return to_json(str(obj))


def report_error(message, code, as_json=False, prog="search"):
    """One line on stderr (and a JSON error object on stdout with --json)."""
    message = " ".join(str(message).split())
    sys.stderr.write("%s: error: %s\n" % (prog, message))
    if as_json:
        print_json({"error": message})
    return code


def hit_json(hit):
    return {"id": hit.id, "path": hit.path, "start_line": hit.start_line, "end_line": hit.end_line,
            "heading": hit.heading, "score": hit.score, "snippet": hit.snippet,
            "scores": {"keyword": hit.keyword, "vector": hit.vector}}


def print_hits(hits, query, colour):
    if not hits:
        sys.stdout.write("No memories match %r.\n" % query)
        return
    qterms = set(tokenize(query))
    dim, bold, off = ("\033[2m", "\033[1m", "\033[0m") if colour else ("", "", "")
    for i, hit in enumerate(hits, 1):
        where = "%s:%d-%d" % (hit.path, hit.start_line, hit.end_line)
        heading = ("  " + dim + hit.heading + off) if hit.heading else ""
        sys.stdout.write("%d. %.2f  %s%s%s%s\n" % (i, hit.score, bold, where, off, heading))
        sys.stdout.write("   %s\n" % highlight(hit.snippet, qterms, colour))


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------

# A small option parser instead of argparse: argparse costs ~10 ms per
# process to import and build, a third of an agent's cold-start budget.

Opt = namedtuple("Opt", "flags dest metavar convert help")
Opt.__doc__ = "An option: metavar None means a flag (no value)."


def _date(value):
    import datetime
    import re
    try:
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", value):
            raise ValueError
        datetime.date(*map(int, value.split("-")))
    except (ValueError, TypeError):
        raise UsageError("not a date (YYYY-MM-DD): %r" % value)
    return value


def _positive_int(value):
    try:
        n = int(value)
    except ValueError:
        raise UsageError("not a whole number: %r" % value)
    if n < 1:
        raise UsageError("must be 1 or more: %r" % value)
    return n


def _unit_score(value):
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number: %r" % value)
    if not 0.0 <= x <= 1.0:
        raise UsageError("must be between 0 and 1: %r" % value)
    return x


def _choice(*names):
    def convert(value):
        if value not in names:
            raise UsageError("%r is not one of: %s" % (value, ", ".join(names)))
        return value
    return convert


def _folder(value):
    if not value.strip():
        raise UsageError("empty folder name")
    return value


COMMON_OPTS = [
    Opt(("--dir",), "dir", "DIR", _folder, "memory folder (default: $MEMORY_DIR, else the suite's folder)"),
    Opt(("--json",), "json", None, None, "print one JSON object"),
    Opt(("--backend",), "backend", "NAME", _choice("auto", "sqlite", "json"),
        "index backend: auto (default), sqlite or json"),
]
SEARCH_OPTS = COMMON_OPTS + [
    Opt(("--limit", "-n"), "limit", "N", _positive_int, "how many results (default 5)"),
    Opt(("--min-score",), "min_score", "X", _unit_score, "leave out results scoring below X (0-1)"),
    Opt(("--since",), "since", "DATE", _date, "only files dated on or after DATE (YYYY-MM-DD)"),
    Opt(("--until",), "until", "DATE", _date, "only files dated on or before DATE"),
    Opt(("--dated-only",), "dated_only", None, None, "leave out undated files such as MEMORY.md"),
    Opt(("--path",), "path", "GLOB", str, "only paths matching GLOB, or under a folder"),
    Opt(("--mode",), "mode", "MODE", _choice("hybrid", "keyword", "vector"),
        "hybrid (default), keyword (BM25) or vector (TF-IDF)"),
    Opt(("--related",), "related", None, None,
        "also list memories linked to the top hits by shared entities (see link.sh)"),
]
GET_OPTS = COMMON_OPTS + [
    Opt(("--from",), "start", "N", _positive_int, "first line (1-based)"),
    Opt(("--lines",), "lines", "M", _positive_int, "how many lines (default: the cited range, else up to 200)"),
    Opt(("--plain",), "plain", None, None, "print the lines without line numbers"),
]
REINDEX_OPTS = COMMON_OPTS + [
    Opt(("--check",), "check", None, None, "only report what is stale; change nothing"),
]


class Args(dict):
    """Parsed options; read them as attributes."""
    __getattr__ = dict.get


def parse_args(argv, opts, words_name="words"):
    """Options and positional words.  '--' ends options; --opt=value works."""
    by_flag = {f: o for o in opts for f in o.flags}
    args = Args({o.dest: (False if o.metavar is None else None) for o in opts})
    args[words_name] = words = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            words.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        if arg in ("-h", "--help"):
            args["help"] = True
            continue
        flag, eq, inline = arg.partition("=")
        opt = by_flag.get(flag)
        if opt is None:
            raise UsageError("unknown option %s" % flag)
        if opt.metavar is None:
            if eq:
                raise UsageError("%s takes no value" % flag)
            args[opt.dest] = True
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError("%s needs a value (%s)" % (flag, opt.metavar))
            inline = argv[i]
            i += 1
        try:
            args[opt.dest] = opt.convert(inline)
        except UsageError as exc:
            raise UsageError("%s: %s" % (flag, exc))
    return args


def format_help(usage, description, opts, epilog=""):
    lines = ["usage: " + usage, "", description, "", "options:"]
    for o in opts:
        left = ", ".join(o.flags) + ("" if o.metavar is None else " " + o.metavar)
        lines.append("  %-22s %s" % (left, o.help))
    lines.append("  %-22s %s" % ("-h, --help", "show this help"))
    return "\n".join(lines) + ("\n\n" + epilog if epilog else "") + "\n"


SEARCH_HELP = """subcommands:
  search.sh get PATH [--from N] [--lines M]  print lines of a memory file; PATH may be
                                            a citation 'file.md:31-44' or an id 'file.md#5'
  search.sh status [--json]                 backend, files, chunks, index size, problems
  search.sh sync [--json]                   bring the index up to date without searching
  search.sh reindex [--check]               back up the index and rebuild it (= reindex.sh)

examples:
  search.sh "博客RSS配置"
  search.sh "configure RSS feed" --limit 3 --json
  search.sh 京都 机票 --since 2026-02-01 --path "memory/*"
  search.sh -- status                       search for the word "status" itself

exit codes: 0 ok (also when nothing matches), 1 runtime error, 2 usage error.
environment: MEMORY_DIR (memory folder), MEMORY_BACKEND (auto|sqlite|json),
MEMORY_INDEX_DIR (index location), NO_COLOR (no colour)."""


def open_store(args):
    backend = args.backend or os.environ.get("MEMORY_BACKEND")
    if backend and backend.lower() not in ("auto", "sqlite", "json"):
        raise UsageError("MEMORY_BACKEND=%r is not one of: auto, sqlite, json" % backend)
    return store_mod.MemoryStore(args.dir, backend=backend)


def sync_quietly(store, prog="search"):
    """Sync before reading; if the index cannot be written, read it as it is."""
    try:
        store.sync()
        return False
    except StoreError as exc:
        sys.stderr.write("%s: warning: %s; results may be stale\n" % (prog, exc))
        return True


def cmd_search(args):
    query = " ".join(args.words)
    if not query.strip():
        raise UsageError("empty query (try: search.sh \"what to find\")")
    if args.since and args.until and args.since > args.until:
        raise UsageError("--since %s is after --until %s" % (args.since, args.until))
    store = open_store(args)
    try:
        filters = Filters(args.since, args.until, args.path, args.dated_only)

        def run():
            return search(store, query, args.limit or DEFAULT_LIMIT, args.mode or "hybrid",
                          args.min_score or 0.0, filters)
        if store.chunk_count() < BACKGROUND_SCAN_CHUNKS:
            stale = sync_quietly(store)  # a small folder: a stat pass takes a millisecond
            hits = run()
        else:
            # Search the index as it is while the folder is checked for changes
            # in a thread; search again only if something changed (rarely).
            scan = store.start_scan()
            hits = run()
            stale = False
            try:
                if scan.finish():
                    hits = run()
            except StoreError as exc:
                sys.stderr.write("search: warning: %s; results may be stale\n" % exc)
                stale = True
        related = linked_memories(store, hits) if args.related else None
        if not hits and not store.chunk_count():
            sys.stderr.write("search: note: nothing is indexed in %s; point --dir or MEMORY_DIR at "
                             "the folder that holds your notes\n" % store.root)
        if args.json:
            doc = {"query": query, "backend": store.backend.name, "stale": stale,
                   "results": [hit_json(h) for h in hits]}
            if related is not None:
                import memory_linker
                doc["related"] = [memory_linker.related_json(r, related_to=via) for r, via in related]
            print_json(doc)
        else:
            print_hits(hits, query, use_colour())
            if related:
                print_related(related)
    finally:
        store.close()
    return 0


def linked_memories(store, hits, limit=3):
    """[(Related, hit id)]: memories sharing entities with the top hits."""
    import memory_linker  # only loaded for --related
    graph = memory_linker.LinkGraph(store)
    try:
        graph.sync()
    except StoreError as exc:
        sys.stderr.write("search: warning: %s; related memories may be stale\n" % exc)
    return graph.related_to_hits(hits, limit)


def print_related(related):
    sys.stdout.write("\nRelated (shared entities):\n")
    for r, via in related:
        sys.stdout.write("   %.2f  %s:%d-%d  %s  (via %s, linked to %s)\n"
                         % (r.score, r.path, r.start_line, r.end_line, r.heading, ", ".join(r.shared[:4]), via))


MAX_GET_LINES = 200


def cmd_get(args):
    if len(args.words) != 1:
        raise UsageError("get takes one PATH (got %d)" % len(args.words))
    try:
        path, first, last = store_mod.parse_reference(args.words[0])
    except ValueError as exc:
        raise UsageError(str(exc))
    if path.startswith("./"):
        path = path[2:]
    if first == "#":
        first, last = chunk_lines(args, path, last)
    lines = store_mod.read_memory_lines(store_mod.resolve_memory_dir(args.dir), path)
    start = args.start or first or 1
    if start > max(len(lines), 1):
        raise StoreError("%s has %d lines; line %d is past the end" % (path, len(lines), start))
    if args.lines:
        end = start + args.lines - 1
    elif args.start is None and last is not None:
        end = last
    else:
        end = start + MAX_GET_LINES - 1
    end = min(end, len(lines))
    chosen = lines[start - 1:end]
    if args.json:
        print_json({"path": path, "start_line": start, "end_line": end,
                    "total_lines": len(lines), "lines": chosen})
        return 0
    for n, line in enumerate(chosen, start):
        sys.stdout.write(line + "\n" if args.plain else "%6d  %s\n" % (n, line))
    if end < len(lines) and not args.lines and last is None:
        sys.stderr.write("search: showing lines %d-%d of %d; use --from/--lines for more\n"
                         % (start, end, len(lines)))
    return 0


def chunk_lines(args, path, ordinal):
    """The line range of chunk 'path#ordinal' in the current index."""
    store = open_store(args)
    try:
        store_mod.safe_join(store.root, path)
        sync_quietly(store)
        keys = store.chunk_keys(path.replace("\\", "/"), ordinal)
        if not keys:
            raise StoreError("no chunk %s#%d (ids change when a file changes; search again)"
                             % (path, ordinal))
        row = store.fetch(keys)[keys[0]]
        return row.start_line, row.end_line
    finally:
        store.close()


def no_words(args):
    if args.words:
        raise UsageError("unexpected argument %r (to search for words that start with a command's "
                         "name, put -- before them: search.sh -- status report)" % args.words[0])


def cmd_status(args):
    no_words(args)
    store = open_store(args)
    try:
        stale = sync_quietly(store)
        info = store.status()
        info["stale"] = stale or bool(info["stale_files"])
    finally:
        store.close()
    if args.json:
        print_json(info)
        return 0
    backend = info["backend"]
    if info["fallback_reason"]:
        backend += " (fallback: %s)" % info["fallback_reason"]
    rows = [("memory folder", info["memory_dir"]), ("backend", backend),
            ("FTS5 available", "yes" if info["fts5"] else "no"), ("index", info["index_path"]),
            ("index size", _human_bytes(info["index_bytes"])), ("files", info["files"]),
            ("chunks", info["chunks"]), ("last sync", info["last_sync"] or "never"),
            ("stale files", ", ".join(info["stale_files"]) or "none"),
            ("problem files", "none" if not info["problem_files"] else "")]
    for label, value in rows:
        sys.stdout.write("%-15s %s\n" % (label + ":", value))
    for p in info["problem_files"]:
        sys.stdout.write("  %s (%s)\n" % (p["path"], p["issue"]))
    return 0


def _human_bytes(n):
    if n < 1024:
        return "%d B" % n
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024.0
        if n < 1024 or unit == "GiB":
            return "%.1f %s" % (n, unit)


def problems_json(problems):
    return [{"path": p, "issue": i} for p, i in problems]


def cmd_sync(args):
    no_words(args)
    store = open_store(args)
    try:
        report = store.sync()
        count = store.chunk_count()
    finally:
        store.close()
    if args.json:
        print_json({"added": report.added, "updated": report.updated, "removed": report.removed,
                    "unchanged": len(report.unchanged), "chunks": count,
                    "problems": problems_json(report.problems)})
        return 0
    sys.stdout.write("synced: %d added, %d updated, %d removed, %d unchanged; %d chunks\n"
                     % (len(report.added), len(report.updated), len(report.removed),
                        len(report.unchanged), count))
    for p, i in report.problems:
        sys.stdout.write("  skipped or flagged: %s (%s)\n" % (p, i))
    return 0


def cmd_reindex(args):
    no_words(args)
    store = open_store(args)
    try:
        if args.check:
            changed, removed = store.stale()
            if args.json:
                print_json({"stale": bool(changed or removed), "changed": changed, "removed": removed})
            elif changed or removed:
                for p in changed:
                    sys.stdout.write("changed or new: %s\n" % p)
                for p in removed:
                    sys.stdout.write("removed: %s\n" % p)
            else:
                sys.stdout.write("index is up to date\n")
            return 0
        report, backup = store.rebuild()
        count = store.chunk_count()
    finally:
        store.close()
    if args.json:
        print_json({"files": len(report.added), "chunks": count, "backup": backup,
                    "problems": problems_json(report.problems)})
    else:
        sys.stdout.write("rebuilt: %d files, %d chunks%s\n" % (
            len(report.added), count, ("; backup: %s" % backup) if backup else ""))
    return 0


# name -> (options, usage, description, handler)
COMMANDS = {
    None: (SEARCH_OPTS, "search.sh [options] QUERY...",
           "Search the Markdown memory folder (hybrid BM25 + TF-IDF), with citations.", cmd_search),
    "get": (GET_OPTS, "search.sh get PATH [--from N] [--lines M] [--json]",
            "Print lines of a memory file (never outside the memory folder).", cmd_get),
    "status": (COMMON_OPTS, "search.sh status [--json]", "Show the index's state.", cmd_status),
    "sync": (COMMON_OPTS, "search.sh sync [--json]", "Bring the index up to date.", cmd_sync),
    "reindex": (REINDEX_OPTS, "reindex.sh [--check] [--json] [--dir DIR] [--backend NAME]",
                "Back up the index (the last 3 are kept) and rebuild it from the Markdown. "
                "--check changes nothing and exits 0 either way; with --json it says "
                "\"stale\": true or false.", cmd_reindex),
}


def split_subcommand(argv, commands):
    """(subcommand or None, the other arguments).  The first word that is not
    an option (or an option's value) picks the subcommand; after '--' all is query."""
    takes_value = {f for opts, _, _, _ in commands.values() for o in opts if o.metavar for f in o.flags}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("-"):
            i += 2 if arg in takes_value else 1
            continue
        if arg in commands:
            return arg, argv[:i] + argv[i + 1:]
        break
    return None, argv


def run_cli(argv, commands, prog, main_help=""):
    """Shared CLI driver (memory_linker uses it too): parse, run, map errors to exit codes."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # odd bytes in a query or a file never crash output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    as_json = "--json" in argv[:argv.index("--")] if "--" in argv else "--json" in argv
    try:
        name, rest = split_subcommand(argv, commands)
        opts, usage, description, handler = commands[name]
        args = parse_args(rest, opts)
        if args.help:
            sys.stdout.write(format_help(usage, description, opts, main_help if name is None else ""))
            return 0
        return handler(args)
    except UsageError as exc:
        return report_error("%s; see --help" % exc, 2, as_json, prog)
    except StoreError as exc:
        return report_error(exc, 1, as_json, prog)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for a user; say what broke
        return report_error("unexpected %s: %s" % (type(exc).__name__, exc), 1, as_json, prog)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = "reindex" if argv[:1] == ["reindex"] else "search"
    return run_cli(argv, COMMANDS, prog, SEARCH_HELP)


if __name__ == "__main__":
    sys.exit(main())
