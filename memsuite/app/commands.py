"""One function per command: the objects `--json` prints, the MCP tools return
and the hooks read, so the doors cannot drift apart.  Each takes a store (or a
folder) and plain arguments, and returns JSON-ready data."""
from ..text.citations import cite
from ..text.markdown import is_heading
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
        from ..search.explain import explain as explain_hits
        details, doc["cut"] = explain_hits(store, query, hits, limit, mode, min_score, filters or Filters(),
                                           recent_params(store, recent))
        for result in doc["results"]:
            result["explain"] = details[result["id"]]
    if store.checked_by:
        doc["checked"] = store.checked_by
    skipped = skipped_files(store)
    if skipped:
        doc["skipped"] = skipped
    note = empty_note(store) or no_sessions_note(store, filters)
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


def timeline_result(store, anchor, before=None, after=None, full=False):
    store.refresh()
    entries = timeline(store, anchor, 3 if before is None else before, 3 if after is None else after)
    return {"anchor": anchor, "entries": [entry_json(e, full) for e in entries]}


def context_result(store, query, budget=None, filters=None):
    """(the Markdown pack, its JSON) of search.sh context / memory_context."""
    store.refresh()
    budget = budget or DEFAULT_BUDGET
    text, entries = context_pack(store, query, budget, filters)
    doc = {"query": query, "budget": budget, "tokens": estimate_tokens(text), "stale": store.stale,
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
