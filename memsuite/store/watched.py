"""What a watcher looks at every interval (its recent files as it last saw
them, and the folders' times), kept beside its heartbeat, so that a search
while it runs looks at the same few files itself: a note written a moment
ago by another program is found by the next search, not after the
watcher's next look."""
import json
import os

from ..base.fileio import write_json_atomic

WATCHED = "watch.files"


def stats_of(found):
    """{path: [size, mtime_ns]} of SourceFiles."""
    return {f.path: [f.size, f.mtime_ns] for f in found}


def save_watched(index_dir, files, folders):
    """Record the watcher's recent files ({path: [size, mtime_ns]}, as stat
    saw them before the sync that indexed them) and {folder: mtime_ns}."""
    if not index_dir:
        return
    write_json_atomic(os.path.join(index_dir, WATCHED), {"files": files, "folders": folders}, durable=False)


def load_watched(index_dir):
    """(files, folders) a watcher recorded, or None."""
    try:
        with open(os.path.join(index_dir, WATCHED), encoding="utf-8") as f:
            data = json.load(f)
        return dict(data["files"]), dict(data["folders"])
    except (OSError, TypeError, ValueError, KeyError):
        return None


def remove_watched(index_dir):
    try:
        os.unlink(os.path.join(index_dir, WATCHED))
    except (OSError, TypeError):
        pass


def folders_changed(folders):
    """Whether a folder's time moved (a file was added or removed there)."""
    for folder, mtime in folders.items():
        try:
            if os.stat(folder).st_mtime_ns != mtime:
                return True
        except OSError:
            return True
    return False


def changed_since_watch(store):
    """The recent files that changed since the watcher last saw them ([] when
    none did), or None when a folder changed or nothing was recorded (then
    only a look at every file tells)."""
    watched = load_watched(store.index_dir)
    if watched is None or folders_changed(watched[1]):
        return None
    files = watched[0]
    now = stats_of(store.stat(list(files)))
    return [p for p in files if now.get(p) != files[p]]
