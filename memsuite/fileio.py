"""One atomic write and one lock, for every file the suite writes."""
import os


def write_bytes_atomic(path, data):
    """Write to a temporary file, then move it into place: never half a file."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path, data):
    import json
    write_bytes_atomic(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class _FileLock:
    """An exclusive lock on '<path>.lock' for writers (no-op where unsupported)."""

    def __init__(self, path):
        self.path = (path + ".lock") if path else None
        self.fd = None

    def __enter__(self):
        if self.path:
            try:
                import fcntl
            except ImportError:
                return self
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def _lock(f):
    try:
        import fcntl
    except ImportError:  # no locking on this platform: appends are still whole writes
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)


def _unlock(f):
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_UN)
