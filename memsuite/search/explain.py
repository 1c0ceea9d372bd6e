"""Hits that explain themselves (search.sh --explain, memory_search's explain):
for each hit, the query terms it matched after folding, synonyms and
expansions, each channel's score, what the re-ranking added, and why the
weaker hits were cut.  Computed beside a search, from its answer: the ranking
itself is not changed by asking."""
import sys

from .ranking import analyse_query, search, semantic_share
from ..text.tokenizer import tokenize

# How many more hits than asked for are looked at to say why they were cut.
CUT_SHOWN = 5


def explain(store, query, hits, limit, mode, min_score, filters, params=None, context=None):
    """({hit id: explanation}, [cut hit]): what each hit matched and scored,
    and the next weaker hits with the reason each was left out.  context:
    the conversation the search was given (its terms matched say so)."""
    params = params or store.params
    from .dates import asked_dates, on_asked_day, today_of
    asked = asked_dates(query, today_of(filters.today if filters else None))
    q = analyse_query(store, query, params, context)
    own = set(q.base)
    talked = set(q.weights) - set(analyse_query(store, query, params).weights) if context else set()
    share = _semantic_share(store, query, hits, params)
    w = {"hybrid": params.weight_keyword, "keyword": 1.0, "vector": 0.0}[mode or "hybrid"]
    factor = _recency(store, params)
    evidence = getattr(hits, "evidence", 1.0)  # a chat turn's scores, scaled by its topic words
    explained = {}
    for h in hits:
        held = set(tokenize(h.text))
        matched = [{"term": t, "weight": round(q.weights[t], 3), "from": "query" if t in own else
                    "conversation" if t in talked else "expansion"}
                   for t in sorted(q.weights, key=lambda t: (-q.weights[t], t)) if t in held]
        base = (1 - share) * (w * h.keyword + (1 - w) * h.vector) + share * (h.semantic or 0.0)
        explained[h.id] = {
            "matched": matched,
            "missing": sorted(t for t in own if t not in held and len(t) > 1),
            "channels": dict({"keyword": round(h.keyword, 4), "vector": round(h.vector, 4)},
                             **({"semantic": round(h.semantic, 4)} if h.semantic is not None else {})),
            "merged": round(base, 4),
            "rerank": round(h.score / factor(h.date) / evidence - base, 4),  # the one-line and date bonuses, renormalised
        }
        if evidence != 1.0:
            explained[h.id]["chat_turn"] = round(evidence, 4)
        if asked.spans:  # a question naming days by relative dates: is the hit of them?
            explained[h.id]["asked_day"] = on_asked_day(asked, h.date, h.text, h.heading or "")
        if params.recent_half_life > 0:  # --recent: the share of its score the hit kept for its age
            explained[h.id]["recency"] = round(factor(h.date), 4)
        if h.id in getattr(hits, "repeats", ()):  # its lines repeat a better hit's: it kept duplicate_share
            explained[h.id]["repeat"] = params.duplicate_share
            explained[h.id]["rerank"] = round(h.score / factor(h.date) / evidence / params.duplicate_share - base, 4)
    return explained, _cut(store, query, hits, limit, mode, min_score, filters, params, context)


def dates_read(query, filters=None):
    """The days a query was read to name, as the ranking reads them:
    '2026-11-25', '2026-11-16..2026-11-22' (last week), '*-02-19' (no year given)."""
    from .dates import asked_dates, today_of
    asked = asked_dates(query, today_of(filters.today if filters else None))
    out = ["%s-%s%s" % (y or "*", "%02d" % m, "-%02d" % d if d else "") for y, m, d in asked.absolute]
    out += [str(a) if a == b else "%s..%s" % (a, b) for a, b in asked.spans]
    return out


def _recency(store, params):
    """date -> the recency factor --recent gave a hit of that date (1.0 without it)."""
    if params.recent_half_life <= 0:
        return lambda date: 1.0
    from .recency import recency_factor, reference_day
    reference = reference_day(store.file_dates())
    return lambda date: recency_factor(date, reference, params)


def _semantic_share(store, query, hits, params):
    """The semantic channel's share of the merge, as the ranking gave it."""
    if not any(h.semantic is not None for h in hits):
        return 0.0
    return semantic_share(store, query, params)


def _cut(store, query, hits, limit, mode, min_score, filters, params, context=None):
    """The hits a search with no cut would have shown next, and why each was
    left out: under --min-score, under score_floor, under relative_floor of
    the best, or past --limit."""
    shown = {h.id for h in hits}
    every = search(store, query, (limit or 5) + CUT_SHOWN, mode or "hybrid", 0.0, filters, params, context=context)
    best = every[0].score if every else 0.0
    out = []
    for h in every:
        if h.id in shown:
            continue
        if min_score is not None and h.score < min_score:
            why = "under --min-score %g" % min_score
        elif min_score is None and h.score < params.score_floor * getattr(every, "evidence", 1.0):
            why = "under the floor %g" % (params.score_floor * getattr(every, "evidence", 1.0))
        elif min_score is None and h.score < params.relative_floor * best:
            why = "under %d%% of the best hit (%.3f)" % (round(100 * params.relative_floor), best)
        else:
            why = "past --limit %d" % (limit or 5)
        out.append({"id": h.id, "score": round(h.score, 4), "why": why})
    return out[:CUT_SHOWN]


def print_explained(hits, explained, cut, dates=()):
    """The explanation as text, after the hits it explains."""
    out = sys.stdout
    out.write("\nwhy these hits:\n")
    if dates:
        out.write("dates read: %s\n" % ", ".join(dates))
    for i, h in enumerate(hits, 1):
        e = explained[h.id]
        terms = " ".join("%s%s" % (m["term"], "" if m["weight"] == 1 else "(%g%s)" % (
            m["weight"], " conversation" if m["from"] == "conversation" else "")) for m in e["matched"])
        out.write("%d. %s  %s\n" % (i, h.id, "  ".join("%s %.2f" % kv for kv in e["channels"].items())
                                    + "  merged %.2f  rerank %+.2f" % (e["merged"], e["rerank"])
                                    + ("  recency x%.2f" % e["recency"] if "recency" in e else "")
                                    + ("  chat turn x%.2f" % e["chat_turn"] if "chat_turn" in e else "")
                                    + ("  repeats a better hit x%.2f" % e["repeat"] if "repeat" in e else "")
                                    + {True: "  of the day asked", False: "  of another day"}.get(e.get("asked_day"), "")))
        lexical = e["channels"]["keyword"] or e["channels"]["vector"]
        out.write("   matched: %s\n" % (terms or ("(trigrams or prefixes only)" if lexical or not e["channels"].get("semantic")
                                               else "(no query word: by meaning alone, the semantic channel)")))
        if e["missing"]:
            out.write("   not in it: %s\n" % " ".join(e["missing"]))
    for c in cut:
        out.write("cut: %s %.2f (%s)\n" % (c["id"], c["score"], c["why"]))
