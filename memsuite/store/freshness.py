"""Keeping answers fresh: the policy every door uses (sync before answering,
or answer from the last good index and say it is stale), the stat pass
beside a query on a large index, and the heartbeat of `search.sh watch`,
which vouches for the folder so other processes skip their own check."""
import os
import time

from ..base.records import StoreError, record

Freshness = record("Freshness", "stale checked", defaults=(False, None))
Freshness.__doc__ = ("What bringing the index up to date found, returned with the answer: stale "
                     "(it could not be; the answer comes from the last good index) and checked "
                     "(what a watcher vouched for, and when; None when this process looked itself).")


def refresh(store):
    """Sync before answering; if the index cannot be written (another process
    busy, a full disk), warn and answer from the last good index.  Returns
    a Freshness."""
    checked = store.heartbeat.checked_for_us()
    stale = False
    if checked is None:
        try:
            store.sync()
        except StoreError as exc:
            store.warn("warning: %s; answers may be stale" % exc)
            stale = True
    else:
        catch_up_with_watcher(store, checked)
    if store.embedder is not None:
        store.fill_vectors()
    return Freshness(stale, checked)


def catch_up_with_watcher(store, checked):
    """Look at what a live watcher looks at every interval (its recent
    files; the folders' times, which move when a file is added or
    removed), so a note written since its last look is found now."""
    from .watched import changed_since_watch
    try:
        changed = changed_since_watch(store)
        if changed is None:
            store.sync()
        elif changed:
            store.sync(only=changed)
        checked["recent_files_seconds_ago"] = 0.0
    except StoreError:
        pass  # the watcher is writing: what it writes is what this search would have


def answer_fresh(store, answer):
    """(answer(), Freshness): answer() computed on an up-to-date index.  A
    small index is refreshed first; on a large one the stat pass runs in a
    thread while answer() runs on the index as it is, and answer() runs again
    only if something changed (rarely)."""
    if store.chunk_count() < store.params.background_scan_chunks or store.heartbeat.is_fresh() \
            or store.embedder is not None:
        fresh = refresh(store)
        return answer(), fresh
    scan = BackgroundScan(store)
    result = answer()
    try:
        if scan.finish():
            result = answer()
        return result, Freshness()
    except StoreError as exc:
        store.warn("warning: %s; answers may be stale" % exc)
        return result, Freshness(stale=True)


class BackgroundScan:
    """A sync's stat pass running beside the caller (see answer_fresh)."""

    def __init__(self, store):
        import threading
        self.store, self.result = store, None
        self.thread = threading.Thread(target=self._scan, daemon=True)
        self.thread.start()

    def _scan(self):
        try:
            self.result = self.store.discover()
        except BaseException as exc:  # handed to finish(), in the caller's thread
            self.result = exc

    def finish(self):
        """Wait for the scan; sync what changed.  True if the index changed."""
        self.thread.join()
        if isinstance(self.result, BaseException):
            raise self.result
        found, _ = self.result
        if self.store.reflects(found):
            return False
        self.store.sync(scan=self.result)
        return True


class Heartbeat:
    """`search.sh watch` checks the folder every few seconds and says so in a
    small file beside the index; while it is alive and recent, other
    processes trust it and skip their own check (a stat of every file)."""

    FILENAME = "watch.heartbeat"

    def __init__(self, index_dir, root):
        self.path = os.path.join(index_dir, self.FILENAME) if index_dir else None
        self.root = root

    def beat(self, interval, every_file=None):
        """Say that this process (a watcher) checked the folder just now: its
        recent files, and every file at time every_file (default: now)."""
        from ..base.fileio import write_bytes_atomic  # only a watcher beats
        if self.path:
            now = time.time()
            line = "%d %s %r %s %r\n" % (os.getpid(), interval, now, self._folder(), every_file or now)
            write_bytes_atomic(self.path, line.encode("utf-8"), durable=False)  # a lost heartbeat only means a scan

    def _folder(self):
        import zlib
        return "%08x" % zlib.crc32(os.path.realpath(self.root).encode("utf-8", "surrogatepass"))

    def stop(self):
        watcher = self.watcher()
        if watcher and watcher["pid"] == os.getpid():
            os.unlink(self.path)

    def watcher(self):
        """{pid, interval, checked, every_file, alive, fresh} of the watcher of
        this folder (checked: when it last looked at the recent files; every_file:
        at all of them), or None."""
        if not self.path:
            return None
        try:
            with open(self.path, encoding="utf-8") as f:
                pid, interval, checked, folder, every_file = f.read().split()
            pid, interval, checked, every_file = int(pid), float(interval), float(checked), float(every_file)
        except (OSError, TypeError, ValueError):
            return None
        if folder != self._folder():
            return None  # a watcher of another folder sharing this index folder
        alive = process_alive(pid)
        return {"pid": pid, "interval": interval, "checked": checked, "every_file": every_file, "alive": alive,
                "fresh": alive and time.time() - checked <= 2 * interval + 0.5}

    def is_fresh(self):
        """Whether another process, a live watcher, checked the folder just now."""
        return _vouches(self.watcher())

    def checked_for_us(self):
        """What a live watcher checked for us ({by, recent_files_seconds_ago,
        every_file_seconds_ago}: it looks at every file less often than at
        the recent ones), or None when this process must check itself."""
        watcher, now = self.watcher(), time.time()
        if not _vouches(watcher):
            return None
        return {"by": "watch", "recent_files_seconds_ago": round(now - watcher["checked"], 1),
                "every_file_seconds_ago": round(now - watcher["every_file"], 1)}


def _vouches(watcher):
    """Whether a watcher (Heartbeat.watcher()) is another process, alive and recent."""
    return bool(watcher and watcher["fresh"] and watcher["pid"] != os.getpid())


def process_alive(pid):
    if os.name == "nt":  # os.kill(pid, 0) would signal the process there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists, owned by someone else
    return True
