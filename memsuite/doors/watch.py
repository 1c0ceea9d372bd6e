"""watch: keep the index fresh in the background, cheaply."""
import sys
import time

from ..app.commands import embedding_store
from ..base.display import plural
from ..base.options import no_words
from ..base.records import StoreError
from ..store.watched import folders_changed, remove_watched, save_watched, stats_of


# Watch: keep the index fresh for a long-running agent

HOT_SECONDS = 2 * 86400  # files changed this recently are checked every interval,
HOT_LIMIT = 200  # the newest this many of them (a folder copied today makes every file recent)
FULL_SCAN_SECONDS = (30.0, 300.0)  # every file is checked this often: from, backing off to when idle


def watch(store, interval=1.0, stop=None, log=None):
    """Keep store's index fresh until stop (a threading.Event) is set.

    Every `interval` seconds it stats the files changed in the last two days
    (the HOT_LIMIT newest), MEMORY.md and the folders' times
    (a file added or removed changes them); every 30 seconds, backing off to
    5 minutes while nothing changes, every file.  After each check it leaves
    a heartbeat beside the index, and the recent files as it saw them, so
    that searches meanwhile look at those alone, not at every file.  log(message) receives one line per sync that changed something."""
    import threading
    stop = stop or threading.Event()
    log = log or (lambda message: None)
    folders, hot, last_full, period, saved = {}, [], 0.0, FULL_SCAN_SECONDS[0], None
    while not stop.is_set():
        try:
            if time.time() - last_full >= period or folders_changed(folders):
                folders = {}
                scan = store.discover(folders)
                report = store.sync(scan=scan)
                hot = _hot_files(scan[0])
                wanted = set(hot)
                seen = [f for f in scan[0] if f.path in wanted]
                last_full = time.time()
                period = FULL_SCAN_SECONDS[0] if _changed(report) else min(2 * period, FULL_SCAN_SECONDS[1])
            else:
                seen = store.stat(hot)  # before the sync: it indexes these or newer
                report = store.sync(only=hot)
            if (stats_of(seen), folders) != saved:  # searches meanwhile look at these files too
                saved = (stats_of(seen), dict(folders))
                save_watched(store.index_dir, *saved)
            if _changed(report):
                period = FULL_SCAN_SECONDS[0]
                log("synced %s; %s" % (_report_text(report), plural(store.chunk_count(), "chunk")))
            store.heartbeat.beat(interval, last_full)
        except StoreError as exc:
            log("warning: %s; trying again" % exc)
        stop.wait(interval)
    store.heartbeat.stop()
    remove_watched(store.index_dir)


def _hot_files(found):
    """The files changed in the last two days, newest first, at most
    HOT_LIMIT of them, and MEMORY.md (the long-term file, edited at any time)."""
    recent = time.time() - HOT_SECONDS
    newest = sorted((f for f in found if f.mtime_ns / 1e9 >= recent), key=lambda f: f.mtime_ns, reverse=True)
    hot = [f.path for f in newest[:HOT_LIMIT]]
    return hot + [f.path for f in found if f.path.lower() == "memory.md" and f.path not in hot]


def _changed(report):
    return bool(report.added or report.updated or report.removed)


def _report_text(report):
    parts = []
    for label, paths in (("added", report.added), ("updated", report.updated), ("removed", report.removed)):
        if paths:
            parts.append("%s %s" % (label, ", ".join(paths[:3]) + (" and %d more" % (len(paths) - 3)
                                                                    if len(paths) > 3 else "")))
    return "; ".join(parts)


def cmd_watch(args):
    no_words(args)
    import signal
    import threading
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())  # finish the sync under way, then stop

    def log(message):
        if not args.quiet:
            sys.stderr.write("watch: %s %s\n" % (time.strftime("%H:%M:%S"), message))
            sys.stderr.flush()
    with embedding_store(args) as store:
        log("watching %s (Ctrl-C to stop)" % store.root)
        watch(store, args.interval or 1.0, stop, log)
        log("stopped")
    return 0
