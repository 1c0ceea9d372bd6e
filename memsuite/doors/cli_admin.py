"""search.sh add, status, sync and reindex.sh: writing notes and looking after the index."""
import sys
import time

from ..app.commands import add_result, embedding_store, status_result
from ..store.memory_store import store_for
from ..base.display import human_bytes, plural
from ..base.options import no_words
from ..base.jsonout import print_json
from ..base.records import StoreError, UsageError
from ..files.sources import NO_MEMORY_FOLDER, is_suite_folder, resolve_memory_dir
from ..search.results import problems_json


def cmd_add(args):
    if not args.words:
        raise UsageError("add needs the note: search.sh add \"what to remember\" (or add - to read it "
                         "from standard input)")
    if is_suite_folder(resolve_memory_dir(args.dir)):  # say so before opening (and indexing) anything
        raise StoreError(NO_MEMORY_FOLDER)
    text = sys.stdin.read() if args.words == ["-"] else " ".join(args.words)
    with store_for(args) as store:
        doc = add_result(store, text, args.heading, args.tags, args.file, args.request)
    if args.json:
        print_json(doc)
    else:
        sys.stdout.write("%s %s%s\n" % ("already added:" if doc.get("repeated") else "added", doc["id"],
                                         " (new file)" if doc["created"] else ""))
    return 0


def cmd_status(args):
    no_words(args)
    with embedding_store(args) as store:
        from .resident import with_resident  # here: add and sync never need it
        info = with_resident(status_result(store))
    if args.json:
        print_json(info)
        return 0
    backend = info["backend"]
    if info["fallback_reason"]:
        backend += " (fallback: %s)" % info["fallback_reason"]
    watcher = info["watcher"]
    rows = [("memory folder", info["memory_dir"]), ("backend", backend),
            ("FTS5 available", "yes" if info["fts5"] else "no"), ("index", info["index_path"]),
            ("index size", human_bytes(info["index_bytes"])),
            ("files", "%s (%s)" % (info["files"], info["files_rule"])),
            ("chunks", info["chunks"]), ("last change", info["last_sync"] or "never"),
            ("last checked", info["checked"] + " (now)"),
            ("watch", "none" if not watcher else "pid %d, %s" % (
                watcher["pid"], "checking every %gs" % watcher["interval"] if watcher["fresh"]
                else "not running" if not watcher["alive"] else "not heard from since %s" % time.strftime(
                    "%H:%M:%S", time.localtime(watcher["checked"])))),
            ("python", _python_line(info["python"])),
            ("hooks", _resident_line(info["resident"])),
            ("embedding", _embedding_line(info["embedding"])),
            ("stale files", ", ".join(info["stale_files"]) or "none"),
            ("problem files", "none" if not info["problem_files"] else "")]
    pg = info.get("postgres")
    if pg:  # the shared server: which driver runs, where (never credentials), which namespaces
        rows[2:3] = [("driver", pg["driver"]), ("server", pg["server"]), ("namespace", pg["namespace"]),
                     ("searches", pg["reads"]),
                     ("namespaces", ", ".join("%s (%d files)" % (n["namespace"], n["files"])
                                              for n in pg["namespaces"]) or "none")]
    for label, value in rows:
        sys.stdout.write("%-15s %s\n" % (label + ":", value))
    for p in info["problem_files"]:
        sys.stdout.write("  %s (%s)%s\n" % (p["path"], p["issue"], ": " + p["fix"] if p.get("fix") else ""))
    for p in info["unclosed_private"]:
        sys.stdout.write("warning: %s: <private> at line %d is never closed: everything after it is "
                         "hidden from search, and add refuses this file\n" % (p["path"], p["line"]))
    for line in info["install_problems"]:
        sys.stdout.write("warning: %s\n" % line)
    if is_suite_folder(info["memory_dir"]):  # (the suite's own folder stands in: nothing of yours is indexed)
        sys.stdout.write("warning: %s\n" % NO_MEMORY_FOLDER)
    return 0


def cmd_doctor(args):
    """Every problem found, one line each with its fix; exit 1 when there is one."""
    from ..app.status import doctor_problems
    no_words(args)
    if is_suite_folder(resolve_memory_dir(args.dir)):  # nothing to open: say so, never index the suite
        problems = doctor_problems(None)
    else:
        with store_for(args) as store:
            problems = doctor_problems(store)
    if args.json:
        print_json({"problems": problems})
    else:
        sys.stdout.write("".join("problem: %s\n" % p for p in problems) or "no problems found\n")
    return 1 if problems else 0


def _python_line(p):
    """The interpreter, and what a call of the wrappers costs: a bare start
    and a default query in a new process (what a hook pays each turn)."""
    ms = lambda v: "%.0f ms" % v if v else "?"  # noqa: E731
    return "%s %s, starts in %s, a query costs %s%s" % (
        p["executable"], p["version"], ms(p["startup_ms"]), ms(p["query_ms"]),
        "" if p["timed"] == p["executable"] else " (as the wrappers run it: %s)" % p["timed"])


def _resident_line(r):
    if r["state"] == "running":
        return "served by the resident process (pid %d, %d hooks so far)" % (r["pid"], r["served"])
    if r["state"] == "off":
        return "each in a process of its own (no resident process: MEMORY_RESIDENT=0, or a system without fork)"
    return "each in a process of its own until one starts the resident process"


def _embedding_line(e):
    skipped = "; ".join("%s: %s" % kv for kv in e["skipped"].items())
    if not e["provider"]:
        return "off" + (" (%s)" % skipped if skipped else " (set MEMORY_EMBED or --embed to turn it on)")
    line = "%s, %s, %s dimensions, %d of %d texts embedded" % (e["provider"], e["model"], e["dim"],
                                                                e.get("embedded", 0), e.get("texts", 0))
    line += (", Chinese queries too" if e.get("multilingual")
             else ", Chinese queries lexical only (MEMORY_EMBED_MULTILINGUAL)")
    return line + (" (last error: %s)" % e["last_error"] if e.get("last_error") else "")


def _progress(store):
    """A line on a terminal's stderr while a long embedding run goes on (None elsewhere)."""
    if not sys.stderr.isatty():
        return None
    total = store.embeddings.counts(store.embedder.key)[1]
    return lambda done: sys.stderr.write("\rembedding: %d texts (of %d)..." % (done, total))


def cmd_sync(args):
    no_words(args)
    with embedding_store(args) as store:
        report = store.sync()
        count = store.chunk_count()
        if store.embedder is not None:
            store.fill_vectors(progress=_progress(store))
    if args.json:
        print_json({"added": report.added, "updated": report.updated, "removed": report.removed,
                    "unchanged": len(report.unchanged), "chunks": count,
                    "problems": problems_json(report.problems)})
        return 0
    sys.stdout.write("synced: %d added, %d updated, %d removed, %d unchanged; %s\n"
                     % (len(report.added), len(report.updated), len(report.removed),
                        len(report.unchanged), plural(count, "chunk")))
    for p, i in report.problems:
        sys.stdout.write("  skipped or flagged: %s (%s)\n" % (p, i))
    return 0


def cmd_reindex(args):
    no_words(args)
    with store_for(args) as store:
        if args.check:
            changed, removed, _ = store.stale_files()
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
    if args.json:
        print_json({"files": len(report.added), "chunks": count, "backup": backup,
                    "problems": problems_json(report.problems)})
    else:
        sys.stdout.write("rebuilt: %s, %s%s\n" % (
            plural(len(report.added), "file"), plural(count, "chunk"),
            ("; backup: %s" % backup) if backup else ""))
    return 0
