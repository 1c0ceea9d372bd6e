"""Backups of the index before a rebuild: a copy renamed into place when
complete, the last few kept."""
import os
import time

BACKUPS_KEPT = 3


def back_up(store):
    """Copy the index into <index folder>/backups (the last BACKUPS_KEPT are kept);
    the copy's path, or None when there is nothing to copy or the copy failed."""
    if not store.index_dir or not any(os.path.exists(p) for p in store.backend.files_on_disk()[:1]):
        return None
    folder = os.path.join(store.index_dir, "backups")
    os.makedirs(folder, exist_ok=True)
    now = time.time()
    name = "%s-%06d-%s" % (time.strftime("%Y%m%d-%H%M%S", time.localtime(now)),
                           int(now % 1 * 1e6), store.backend.filename)
    dest = os.path.join(folder, name)
    partial = os.path.join(folder, ".partial-" + name)  # renamed when complete
    try:
        store.backend.backup_to(partial)
        os.replace(partial, dest)
    except Exception as exc:
        if os.path.exists(partial):
            os.unlink(partial)
        store.warn("could not back up the index (%s); rebuilding anyway" % exc)
        return None
    _prune(folder, store.backend.filename)
    return dest


def _prune(folder, filename):
    """Keep the last BACKUPS_KEPT backups.  A copy still being written (by a
    rebuild running beside this one) is not a backup to prune; one left by a
    rebuild killed over a day ago is."""
    names = os.listdir(folder)
    olds = sorted(n for n in names if n.endswith(filename) and not n.startswith(".partial-"))
    left = [n for n in names if n.startswith(".partial-") and _older_than(os.path.join(folder, n), 86400)]
    for old in olds[:-BACKUPS_KEPT] + left:
        try:
            os.unlink(os.path.join(folder, old))
        except OSError:
            pass  # (another rebuild pruned it first)


def _older_than(path, seconds):
    try:
        return time.time() - os.path.getmtime(path) > seconds
    except OSError:
        return False
