"""Snippets and highlights: the best lines of a hit, with the query's words marked."""

from ..text.chinese import fold, is_cjk
from ..text.markdown import content_lines
from ..text.tokenizer import term_spans, tokenize


SNIPPET_CHARS = 220


# Snippets and highlighting

def display_terms(qterms):
    """The query terms worth showing as matches: a Chinese unigram only
    counts when the query has no bigram (else 配置 would light up every 置)."""
    has_bigram = any(len(t) == 2 and is_cjk(t) for t in qterms)
    return {t for t in qterms if not (has_bigram and len(t) == 1 and is_cjk(t))}


def match_spans(text, qterms):
    """Character spans of text whose terms are query terms (for highlighting)."""
    qterms = display_terms(qterms)
    spans = []
    folded = text.lower() if text.isascii() else _fold_per_char(text)
    for start, end, cjk in term_spans(folded):
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


def _fold_per_char(text):
    """fold, one character at a time, so offsets still line up with the original."""
    return "".join((fold(c) or c)[:1] for c in text)


def make_snippet(text, qterms, width=SNIPPET_CHARS):
    """The chunk's most relevant line and the one after it, cut to about
    `width` characters."""
    lines = text.split("\n")
    shown = display_terms(qterms)
    candidates = content_lines(lines)
    if not candidates:
        return ""
    terms = {i: set(tokenize(lines[i])) for i in candidates}

    def rank(i):
        return len(terms[i] & shown), len(terms[i] & qterms), -i
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
