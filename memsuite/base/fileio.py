"""One atomic write and one lock, for every file the suite replaces (an index,
a note, a page, the hooks' state, the watcher's heartbeat); only an append
(the hooks' log) and a file no reader opens half-written (a backup's partial
copy, the index folder's .gitignore) are written directly.

Locks use flock where the platform has it (Linux, macOS), msvcrt.locking on
Windows, and elsewhere a lock file created with O_EXCL, so concurrent
writers never interleave on any platform.
"""
import os
import time

STALE_LOCK_SECONDS = 60  # an O_EXCL lock file this old was left by a writer that died
# On Windows a file another process holds open (a search reading it) cannot be
# replaced for that moment: try again for about a second before giving up.
REPLACE_TRIES = 40 if os.name == "nt" else 1


def write_bytes_atomic(path, data, keep_mode=False, durable=True):
    """Write to a temporary file, then move it into place: never half a file
    (on Windows, tried again for a moment while a reader holds the old one).
    keep_mode: the new file keeps the old one's permissions (a user's note);
    durable=False skips the fsync, for a file whose loss costs nothing."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        if keep_mode:
            try:
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            except OSError:
                pass
        _replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _replace(tmp, path):
    for attempt in range(REPLACE_TRIES):
        try:
            return os.replace(tmp, path)
        except PermissionError:
            if attempt == REPLACE_TRIES - 1:
                raise
            time.sleep(0.025)


def write_json_atomic(path, data, durable=True):
    import json
    write_bytes_atomic(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
                       durable=durable)


def _platform_lock():
    """(lock(fd), unlock(fd)) of this platform, or None where it has neither
    flock nor msvcrt.locking."""
    try:
        import fcntl
        return (lambda fd: fcntl.flock(fd, fcntl.LOCK_EX)), (lambda fd: fcntl.flock(fd, fcntl.LOCK_UN))
    except ImportError:
        pass
    try:
        import msvcrt
    except ImportError:
        return None

    def lock(fd):
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:  # the first byte stands for the whole file; LK_LOCK gives up after 10 s
                return msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
            except OSError:
                continue

    def unlock(fd):
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    return lock, unlock


class FileLock:
    """An exclusive lock on '<path>.lock', held by one writer at a time."""

    def __init__(self, path):
        self.path = (path + ".lock") if path else None
        self.fd = None
        self.exclusive_file = None

    def __enter__(self):
        if not self.path:
            return self
        native = _platform_lock()
        if native is None:
            self.exclusive_file = _create_exclusively(self.path + "-held")
            return self
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        native[0](self.fd)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            native = _platform_lock()
            try:
                native[1](self.fd)
            finally:
                os.close(self.fd)
                self.fd = None
        if self.exclusive_file:
            _remove_quietly(self.exclusive_file)
            self.exclusive_file = None


def _create_exclusively(path):
    """Wait until this process creates path (O_EXCL); a file older than
    STALE_LOCK_SECONDS is taken as left by a writer that died."""
    while True:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            return path
        except FileExistsError:
            try:
                if time.time() - os.stat(path).st_mtime > STALE_LOCK_SECONDS:
                    _remove_quietly(path)
                    continue
            except OSError:
                continue
            time.sleep(0.01)


def _remove_quietly(path):
    if path:
        try:
            os.unlink(path)
        except OSError:
            pass
