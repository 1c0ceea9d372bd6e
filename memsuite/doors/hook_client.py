"""search.sh hook, the quick way: hand the event to the resident process
(resident.py), which has the suite loaded already, and print its answer;
where there is none, or it does not answer in time, run the hook here (the
cold path, doors/hooks.py) and start one for the next hook.

Only the standard library's C modules are imported before the answer comes
back (no socket.py, no json: they pull in enum and re), so a hook served by
the resident costs little more than the interpreter's start.

A resident that is dead, stopped or wedged costs a hook at most WAIT_ALIVE
more: it must take the request, and then show it is still working, within
that; otherwise the hook runs here.  MEMORY_RESIDENT=0 turns it off.
"""
import os
import sys

from ..base.detach import detach

WAIT_ALIVE = 0.15  # seconds of silence after which the resident counts as gone: with the
                   # connect and the fallback, a stopped one costs a hook under 200 ms
RETRY_START = 60   # seconds before a resident that did not come up is started again
RETRY_HERE = 1.0   # a hook the resident lost later than this is not run again here (the client's limit is near)
MAX_STDIN = 8 << 20
PROTOCOL = b"memory-suite-hook-1"


def main(argv):
    """Run one hook event (argv after `hook`); 0, as the hook always returns."""
    argv = list(argv)
    data = _read_stdin()
    if wanted() and not set(argv) & {"-h", "--help"}:
        path = socket_path()
        answer = ask_resident(path, argv, data) if path else None
        if answer is not None:
            out, err, code = answer
            _write(sys.stdout, out)
            _write(sys.stderr, err)
            return code
        if path:
            start_resident(path)
    return run_here(argv, data)


def wanted():
    """A resident may serve the hooks: not turned off, and the system has
    fork and Unix sockets (not Windows: there every hook runs alone)."""
    return os.environ.get("MEMORY_RESIDENT", "1") != "0" and hasattr(os, "fork") and hasattr(os, "getuid")


def _read_stdin():
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None or sys.stdin.isatty():
        return b""
    return stream.read(MAX_STDIN)


def _write(stream, data):
    if data:
        stream.flush()
        getattr(stream, "buffer", stream).write(data)
        stream.flush()


def run_here(argv, data):
    """The cold path: the hook in this process, reading the bytes already read."""
    import io
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    from .hooks import main as hook_main
    return hook_main(argv)


# --- where the resident listens ------------------------------------------------

def socket_path():
    """The resident's socket for this copy of the suite and this interpreter,
    in a folder only this user can enter; None where there is no such folder."""
    import zlib
    code_dir = sys.path[0] or os.getcwd()
    # what the interpreter reads once at its start is part of the key: a hook with other locale
    # settings gets a resident of its own (the time zone is set again for each hook)
    startup = [os.environ.get(k, "") for k in ("LC_ALL", "LC_CTYPE", "LANG", "PYTHONUTF8", "PYTHONIOENCODING")]
    key = zlib.crc32(b"\0".join(os.fsencode(v) for v in [code_dir, sys.executable or "python3"] + startup))
    name = "hooks-%08x.sock" % key
    for folder in _folders():
        path = os.path.join(folder, name)
        if len(os.fsencode(path)) < 100 and private_folder(folder):
            return path
    return None


def _folders():
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        yield os.path.join(runtime, "memory-suite")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if os.path.isabs(cache):
        yield os.path.join(cache, "memory-suite", "run")
    yield os.path.join("/tmp", "memory-suite-%d" % os.getuid())


def private_folder(folder):
    """The folder exists (made if need be), is this user's and no one else's:
    a socket in it can be reached, or replaced, by this user alone."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o040000 and st.st_uid == os.getuid() and not st.st_mode & 0o077


# --- asking it -------------------------------------------------------------------

def request_bytes(argv, data):
    """The event as the resident reads it (resident.read_request): lengths, then
    NUL-separated fields (protocol, cwd, umask, argc, argv..., environment...), then stdin."""
    mask = os.umask(0o022)
    os.umask(mask)
    fields = [PROTOCOL, os.getcwdb(), b"%d" % mask, b"%d" % len(argv)] + [os.fsencode(a) for a in argv]
    fields += [k + b"=" + v for k, v in os.environb.items()]
    head = b"\0".join(fields)
    return b"%d %d\n" % (len(head), len(data)) + head + data


def ask_resident(path, argv, data):
    """(stdout, stderr, exit code) from the resident, or None where it did not
    serve the hook (none there, gone quiet, closed early): then it runs here.
    A detached hook (SessionEnd, Stop with --detach) is served once taken."""
    import _socket
    import time
    start = time.monotonic()
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(WAIT_ALIVE)  # connecting, sending and its first byte: WAIT_ALIVE in all
        conn.connect(path)
        conn.sendall(request_bytes(argv, data))
        conn.settimeout(max(0.01, start + WAIT_ALIVE - time.monotonic()))
        first = conn.recv(1)
        if first == b"D":
            return b"", b"", 0
        if first != b"R":
            return None
        conn.settimeout(WAIT_ALIVE)  # then at most WAIT_ALIVE between heartbeats
        got = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return _gone(start)  # it died before answering
            got += chunk
            done = got.find(b"=")
            if done >= 0:
                return _answer(conn, got[done + 1:])
            got = b""  # heartbeats: it is still working (as long as the client lets a hook run)
    except OSError:  # no resident, refused, silent for WAIT_ALIVE
        return _gone(start)
    finally:
        conn.close()


def _gone(start):
    """A resident lost mid-hook: None (run the hook here) while there is time
    left for that, else nothing injected (fail open)."""
    import time
    return None if time.monotonic() - start < RETRY_HERE else (b"", b"", 0)


def _answer(conn, got):
    """The result after '=': exit code byte, 'OUT ERR\\n' lengths, the bytes."""
    while b"\n" not in got[1:]:
        got += _more(conn)
    code, (sizes, rest) = got[0], got[1:].split(b"\n", 1)
    n_out, n_err = (int(n) for n in sizes.split())
    while len(rest) < n_out + n_err:
        rest += _more(conn)
    return rest[:n_out], rest[n_out:n_out + n_err], code


def _more(conn):
    chunk = conn.recv(65536)
    if not chunk:
        raise OSError("closed")
    return chunk


# --- starting it -----------------------------------------------------------------

def start_resident(path):
    """Start a resident for later hooks, in a session of its own with stdio on
    /dev/null, so this hook neither waits for it nor holds the client's pipes;
    at most once a minute (a resident that cannot start costs nothing more)."""
    marker = path + ".starting"
    try:
        import time
        if time.time() - os.stat(marker).st_mtime < RETRY_START:
            return
    except OSError:
        pass
    try:
        with open(marker, "wb"):
            pass
    except OSError:
        return
    if detach() is not True:
        return  # this hook goes on (or there is no fork)
    try:
        code = ("import sys; sys.path[0] = sys.argv.pop(1); sys.pycache_prefix = sys.argv.pop(1) or None; "
                "sys.dont_write_bytecode = False; from memsuite.doors.resident import serve; serve(sys.argv[1])")
        os.closerange(3, 65536)  # nothing of the hook's client (its pipes) is held for the resident's life
        os.execv(sys.executable, [sys.executable, "-S", "-c", code, sys.path[0], sys.pycache_prefix or "", path])
    except BaseException:
        pass
    os._exit(0)
