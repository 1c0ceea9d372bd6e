"""One function per command: the objects `--json` prints, the MCP tools return
and the hooks read, so the doors cannot drift apart.  Each takes a store (or a
folder) and the arguments as a door received them (a search: one SearchRequest),
checks them, and returns JSON-ready data."""
import os

from ..base.options import to_budget, to_choice, to_count, to_date, to_days, to_positive_int, to_unit_score
from ..base.records import StoreError, UsageError, record
from ..store.memory_store import store_for
from ..text.citations import cite
from ..text.markdown import is_heading
from ..text.params import DEFAULT_HALF_LIFE
from ..index.records import Filters
from ..search.ranking import DEFAULT_LIMIT, MODES, search
from ..search.results import compact_json, entry_json, estimate_tokens, hit_json, sort_newest_first
from ..files.sources import NO_MEMORY_FOLDER, is_suite_folder


# Every argument a door passes is checked here, once, with one message per
# mistake: the CLI and the MCP server cannot drift apart (a door converts only
# what its transport needs, such as a command line's strings).
RULES = {
    "limit": to_positive_int, "min_score": to_unit_score, "since": to_date, "until": to_date,
    "mode": to_choice(*MODES), "sort": to_choice("score", "date"), "source": to_choice("memory", "sessions", "all"),
    "half_life": to_days, "budget": to_budget, "before": to_count, "after": to_count, "today": to_date,
}


def checked(name, value):
    """value (as given, a string or a number) after its rule, or UsageError
    'name: what is wrong'."""
    if value is None or name not in RULES:
        return value
    try:
        return RULES[name](value if isinstance(value, str) else repr(value))
    except UsageError as exc:
        raise UsageError("%s: %s" % (name, exc))


SearchRequest = record("SearchRequest", "query limit mode min_score filters sort recent compact explain context",
                       [None])
SearchRequest.__doc__ = ("One search as a door asked for it, checked: limit, mode, min_score, filters "
                         "(Filters), sort ('score' or 'date'), recent (the half-life in days, or None), "
                         "how to answer (compact, explain), and the conversation before the query "
                         "(context: [Turn], or None).")


def search_request(query, limit=None, mode=None, min_score=None, since=None, until=None, path=None,
                   dated_only=False, source=None, sort=None, recent=False, half_life=None, compact=False,
                   explain=False, today=None, context=None):
    """The SearchRequest every door builds (search.sh, memory_search, the
    hooks): each argument checked by its rule, since not after until.
    context: the conversation before the query ([search.context.Turn])."""
    if not isinstance(query, str) or not query.strip():
        raise UsageError("query is empty")
    since, until = checked("since", since), checked("until", until)
    if since and until and since > until:
        raise UsageError("since %s is after until %s" % (since, until))
    source = checked("source", source)
    filters = Filters(since, until, path, bool(dated_only), None if source in (None, "all") else source,
                      checked("today", today))
    half_life = checked("half_life", half_life)
    return SearchRequest(query, checked("limit", limit) or DEFAULT_LIMIT, checked("mode", mode) or "hybrid",
                         checked("min_score", min_score), filters, checked("sort", sort),
                         half_life or (DEFAULT_HALF_LIFE if recent else None), bool(compact), bool(explain),
                         list(context) if context else None)


def recent_params(store, recent=None):
    """The store's Params, with the half-life of --recent (days) when given."""
    return store.params._replace(recent_half_life=float(recent)) if recent else store.params


def run_search(store, request, sync=True, feedback=True):
    """The hits of a SearchRequest, on a fresh index (sync=False: as it is);
    feedback=False: an unsure question is not searched again with its best
    hits' words (search/feedback.py)."""
    params = recent_params(store, request.recent)
    params = params if feedback and not request.explain else params._replace(feedback_docs=0)  # (explain: one search)
    hits = search(store, request.query, request.limit, request.mode, request.min_score, request.filters,
                  params, sync=sync, context=request.context)
    if request.sort == "date":
        hits[:] = sort_newest_first(hits)  # in place: what the search said of its index stays with it
    return hits


def explain_hits(store, request, hits):
    """({hit id: what it matched and scored}, [the weaker hits cut, and why])."""
    from ..search.explain import explain
    return explain(store, request.query, hits, request.limit, request.mode, request.min_score, request.filters,
                   recent_params(store, request.recent), request.context)


def search_result(store, request, hits=None):
    """search.sh QUERY --json / memory_search: the hits, with a note when the
    folder holds nothing to search (an agent must not read [] as 'no memories');
    with explain, what each hit matched and scored, and why weaker ones were cut."""
    if hits is None:
        hits = run_search(store, request)
    doc = {"query": request.query, "backend": store.backend_name, "stale": hits.stale, "channels": hits.channels,
           "results": [compact_json(h) if request.compact else hit_json(h) for h in hits]}
    for result in doc["results"]:  # an earlier statement of a fact a newer hit restates
        if result["id"] in hits.earlier:
            result["newer"] = hits.earlier[result["id"]]
    if request.recent:
        doc["recent"] = {"half_life_days": float(request.recent)}
    if request.explain:
        from ..search.explain import dates_read
        doc["dates"] = dates_read(request.query, request.filters)
        details, doc["cut"] = explain_hits(store, request, hits)
        for result in doc["results"]:
            result["explain"] = details[result["id"]]
    if hits.checked:
        doc["checked"] = hits.checked
    skipped = skipped_files(store)
    if skipped:
        doc["skipped"] = skipped
    note = empty_note(store) or no_sessions_note(store, request.filters)
    if note and not hits:
        doc["note"] = note
    return doc


def no_sessions_note(store, filters):
    """Why --source sessions finds nothing when no sessions folder is set, or None."""
    if filters and filters.source == "sessions" and not store.sessions_dir:
        return ("--source sessions searches only session transcripts, and no sessions folder is set "
                "(--sessions DIR or MEMORY_SESSIONS_DIR)")
    return None


def skipped_files(store):
    """[{path, issue}] of the notes a search cannot see: another encoding
    (gbk, utf-16), binary or unreadable (search.sh status says how to fix)."""
    return [{"path": p, "issue": i} for p, i in store.backend.file_issues() if i != "invalid-utf8"]


def empty_note(store):
    """Why a search can find nothing at all, or None: no memory folder was
    found, or the folder holds no indexed note."""
    if is_suite_folder(store.root):
        return NO_MEMORY_FOLDER
    if not store.chunk_count():
        return ("nothing is indexed in %s (no Markdown notes there yet); point --dir or MEMORY_DIR "
                "at the folder that holds your notes" % store.root)
    return None


def add_result(store, text, heading=None, tags=(), path=None, request=None):
    """search.sh add --json / memory_add: where the note went.  The saved note
    is the success: an index too busy to update now only means "indexed":
    false (the next search indexes it).  A request key already used returns
    the first answer again, so a client that retries never doubles a note."""
    from ..files.notes import add_once
    added, repeated = add_once(store.root, store.index_dir, request, text, heading, tags, path)
    indexed = True
    if not repeated:
        try:
            store.sync(only=[added.path])  # the next search finds it at once
        except StoreError as exc:
            store.warn("warning: %s; the note is saved and will be indexed later" % exc)
            indexed = False
    doc = {"id": cite(added.path, added.start_line, added.end_line), "path": added.path,
           "start_line": added.start_line, "end_line": added.end_line, "created": added.created,
           "heading": added.heading, "indexed": indexed}
    if request:
        doc.update(request=request, repeated=repeated)
    return doc


def timeline_entries(store, anchor, before=None, after=None):
    """search.sh timeline / memory_timeline: the entries around anchor (3 each side by default)."""
    from ..search.recall import timeline  # loaded only by the commands that recall: a search never needs it
    before, after = checked("before", before), checked("after", after)
    store.refresh()
    return timeline(store, anchor, 3 if before is None else before, 3 if after is None else after)


def timeline_result(store, anchor, before=None, after=None, full=False):
    entries = timeline_entries(store, anchor, before, after)
    return {"anchor": anchor, "entries": [entry_json(e, full) for e in entries]}


def context_result(store, query, budget=None, since=None, until=None, path=None, dated_only=False, today=None):
    """(the Markdown pack, its JSON) of search.sh context / memory_context."""
    filters = search_request(query, since=since, until=until, path=path, dated_only=dated_only, today=today).filters
    from ..search.recall import DEFAULT_BUDGET, context_pack
    budget = checked("budget", budget) or DEFAULT_BUDGET
    fresh = store.refresh()
    text, entries = context_pack(store, query, budget, filters)
    doc = {"query": query, "budget": budget, "tokens": estimate_tokens(text), "stale": fresh.stale,
           "text": text, "entries": [entry_json(e) for e in entries]}
    if not any(l.strip() and not is_heading(l) for e in entries for l in e.text.split("\n")):
        doc["note"] = _no_passage_note(store, query, budget, filters)  # headings alone answer nothing
    return text, doc


def _no_passage_note(store, query, budget, filters):
    """Why a pack holds no passage: nothing matched, or the budget has no
    room for the best one's first line (and the budget that would)."""
    best = search(store, query, 1, filters=filters or Filters())
    if not best:
        return empty_note(store) or "no memory matches the query"
    lines = best[0].text.split("\n")
    upto = next((i for i, l in enumerate(lines) if l.strip() and not is_heading(l)), len(lines) - 1)
    need = estimate_tokens("## Memories for: %s\n\n[%s] %s\n" % (" ".join(query.split()), best[0].id,
                                                                  best[0].heading or "")) + 2 + sum(
        estimate_tokens(l) + 1 for l in lines[:upto + 1])  # a pack keeps a passage's lines from its first
    return "a budget of %d tokens has no room for the best passage (%s); try --budget %d" % (
        budget, best[0].id, max(need, budget + 1))


def status_result(store):
    """search.sh status --json / memory_status."""
    from .status import status_report
    info = status_report(store)
    note = empty_note(store)
    if note:
        info["note"] = note
    return info


# The store a door works on, with an embedding provider

def embedding_store(args):
    """store_for with the embedding provider --embed or MEMORY_EMBED asks for
    (a provider asked for by name that cannot run is said once on stderr)."""
    store = store_for(args)
    if (args.get("embed") or os.environ.get("MEMORY_EMBED") or "off").lower() == "off":
        return store  # the default: the provider code is never loaded
    try:
        from ..search.embeddings import make_embedder
        store.use_embedder(*make_embedder(args.get("embed")))
    except BaseException:
        store.close()
        raise
    report = store.embed_report
    if store.embedder is None and report["requested"] != "off":  # auto too: say it fell back, and why
        reasons = "; ".join("%s: %s" % kv for kv in report["skipped"].items())
        store.warn("%s: embeddings off (%s); keyword search only"
                   % ("note" if report["requested"] == "auto" else "warning", reasons))
    return store
