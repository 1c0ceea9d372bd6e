"""One function per command: the objects `--json` prints, the MCP tools return
and the hooks read, so the doors cannot drift apart.  Each takes a store (or a
folder) and plain arguments, and returns JSON-ready data."""
from ..text.citations import cite
from ..index.records import Filters
from ..search.passages import Hits
from ..search.ranking import DEFAULT_LIMIT, search
from ..search.recall import DEFAULT_BUDGET, context_pack, estimate_tokens, sort_newest_first, timeline
from ..base.records import StoreError
from ..search.results import compact_json, entry_json, hit_json
from ..files.sources import NO_MEMORY_FOLDER, is_suite_folder


def recent_params(store, recent=None):
    """The store's Params, with the half-life of --recent (days) when given."""
    return store.params._replace(recent_half_life=float(recent)) if recent else store.params


def run_search(store, query, limit=None, mode=None, min_score=None, filters=None, sort=None, recent=None):
    """The hits of search.sh QUERY / memory_search, on a fresh index; recent
    is --recent's half-life in days (None: no preference for newer notes)."""
    hits = search(store, query, limit or DEFAULT_LIMIT, mode or "hybrid", min_score,
                  filters or Filters(), recent_params(store, recent), sync=True)
    return Hits(sort_newest_first(hits), hits.channels, hits.repeats) if sort == "date" else hits


def search_result(store, query, limit=None, mode=None, min_score=None, filters=None, sort=None,
                  compact=False, hits=None, explain=False, recent=None):
    """search.sh QUERY --json / memory_search: the hits, with a note when the
    folder holds nothing to search (an agent must not read [] as 'no memories');
    with explain, what each hit matched and scored, and why weaker ones were cut."""
    if hits is None:
        hits = run_search(store, query, limit, mode, min_score, filters, sort, recent)
    doc = {"query": query, "backend": store.backend_name, "stale": store.stale, "channels": hits.channels,
           "results": [compact_json(h) if compact else hit_json(h) for h in hits]}
    if recent:
        doc["recent"] = {"half_life_days": float(recent)}
    if explain:
        from ..search.explain import dates_read, explain as explain_hits
        doc["dates"] = dates_read(query, filters)
        details, doc["cut"] = explain_hits(store, query, hits, limit, mode, min_score, filters or Filters(),
                                           recent_params(store, recent))
        for result in doc["results"]:
            result["explain"] = details[result["id"]]
    if store.checked_by:
        doc["checked"] = store.checked_by
    note = empty_note(store)
    if note and not hits:
        doc["note"] = note
    return doc


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
           "indexed": indexed}
    if request:
        doc.update(request=request, repeated=repeated)
    return doc


def timeline_result(store, anchor, before=None, after=None, full=False):
    store.refresh()
    entries = timeline(store, anchor, 3 if before is None else before, 3 if after is None else after)
    return {"anchor": anchor, "entries": [entry_json(e, full) for e in entries]}


def context_result(store, query, budget=None, filters=None):
    """(the Markdown pack, its JSON) of search.sh context / memory_context."""
    store.refresh()
    budget = budget or DEFAULT_BUDGET
    text, entries = context_pack(store, query, budget, filters)
    return text, {"query": query, "budget": budget, "tokens": estimate_tokens(text), "stale": store.stale,
                  "text": text, "entries": [entry_json(e) for e in entries]}


def status_result(store):
    """search.sh status --json / memory_status."""
    from .status import status_report
    info = status_report(store)
    note = empty_note(store)
    if note:
        info["note"] = note
    return info
