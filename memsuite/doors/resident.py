"""The resident process: the hooks' code loaded once, serving each hook
(hook_client.py) from a fresh fork of itself, so a hook no longer pays for
importing the suite and loading its word tables.

Each event is run in its own child, with the hook's own environment, working
folder and umask, exactly as the cold path runs it (doors/hooks.py): no state
is carried from one hook to the next, and two hooks never wait on each other.
The child says it took the request ('R'), sends a heartbeat ('.') while it
works, then '=', the exit code, and what the hook printed.

It is started by the first hook that finds none (hook_client.start_resident)
and goes away by itself: after IDLE_SECONDS without a hook, when the suite's
code it loaded changes on disk (an update, a moved checkout: the next hook
starts a fresh one), or when its socket is removed or taken over.
"""
import gc
import io
import os
import select
import signal
import stat
import sys
import threading
import time

from ..base.fileio import write_bytes_atomic
from .hook_client import PROTOCOL, private_folder, socket_path, wanted

IDLE_SECONDS = 600
READ_TIMEOUT = 2.0    # a client that does not send its whole request in this long is dropped
HEARTBEAT = 0.05      # seconds between heartbeats: well inside the client's WAIT_ALIVE
def serve(path):
    """Listen on path and serve hooks until idle, outdated or displaced."""
    import socket
    if not private_folder(os.path.dirname(path)) or _answers(path):
        return
    preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    staged = "%s.%d" % (path, os.getpid())
    _remove(staged)
    listener.bind(staged)
    listener.listen(16)
    if _answers(path):  # another came up while this one loaded: it serves
        _remove(staged)
        return
    os.rename(staged, path)  # in one step: a hook finds one socket or the other, never none
    mine = os.stat(path).st_ino
    _remove(path + ".starting")  # up: should it die, the next hook may start another at once
    served = 0
    _note_served(path, served)
    signal.signal(signal.SIGTERM, _leave)
    stamp = code_stamp()
    gc.freeze()  # the children share these pages instead of copying them when a collection touches them
    news, tell = os.pipe()     # a fork writes TAKEN when it takes a hook, SERVED once it answered, OUTDATED
    alive, lives = os.pipe()   # held open by this process only: a spare whose parent died sees it close
    spare, last = None, time.monotonic()
    try:
        while True:
            if spare is None:
                spare = _fork_spare(listener, stamp, tell, alive, lives, news)
            ready, _, _ = select.select([news], [], [], 5.0)
            if ready:
                said = os.read(news, 4096)
                if TAKEN in said:
                    spare, last = None, time.monotonic()
                if said.count(SERVED):
                    served += said.count(SERVED)
                    _note_served(path, served)
            if (OUTDATED in said if ready else time.monotonic() - last > IDLE_SECONDS) \
                    or not _still_mine(path, mine) or code_stamp() != stamp:
                return  # outdated, idle or displaced: the next hook runs alone and starts a fresh one
            if spare in _reap():  # forks that ended are collected, none left a zombie
                spare = None  # the spare died waiting: fork another
    finally:
        if _still_mine(path, mine):
            _remove(path)
            _remove(pid_path(path))
        if spare is not None:
            _kill(spare)


TAKEN, SERVED, OUTDATED = b"t", b"s", b"o"


def _fork_spare(listener, stamp, tell, alive, lives, news):
    """A child waiting for the next hook, forked before it comes, so a hook
    never waits for a fork.  Its pid, in this process; it never returns."""
    pid = os.fork()
    if pid:
        return pid
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.close(lives)
        os.close(news)
        ready, _, _ = select.select([listener, alive], [], [])
        if listener not in ready:
            os._exit(0)  # the resident went away
        conn, _ = listener.accept()
        os.write(tell, TAKEN)
        listener.close()
        if code_stamp() != stamp:
            os.write(tell, OUTDATED)
            os._exit(0)  # its code changed on disk: the client runs the hook itself
        if _child(conn):
            os.write(tell, SERVED)
    except BaseException:
        pass
    os._exit(0)


def _kill(pid):
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except OSError:
        pass


def resident_info():
    """Whether a resident serves the hooks of this copy of the suite run by
    this interpreter: {"state": "running", "off" or "none", "pid", "served",
    "socket"} (from its pid file: asking it would open a socket)."""
    if not wanted():
        return {"state": "off", "pid": None, "served": None, "socket": None}
    path = socket_path()
    pid, served = read_pid_file(pid_path(path)) if path else (None, None)
    try:
        running = pid is not None and stat.S_ISSOCK(os.stat(path).st_mode) and os.kill(pid, 0) is None
    except OSError:
        running = False
    return {"state": "running" if running else "none", "pid": pid if running else None,
            "served": served if running else None, "socket": path}


def with_resident(info):
    """A status report (app/status.py) with the resident's state added."""
    info["resident"] = resident_info()
    return info


def read_pid_file(path):
    """(pid, hooks served) from a resident's pid file, or (None, None)."""
    try:
        with open(path, "rb") as f:
            pid, served = (int(n) for n in f.read().split()[:2])
        return pid, served
    except (OSError, ValueError):
        return None, None


def _note_served(path, served):
    """Its pid and how many hooks it took, beside the socket (status reads them)."""
    write_bytes_atomic(pid_path(path), b"%d %d\n" % (os.getpid(), served), durable=False)


def pid_path(path):
    """Where the resident serving path keeps its pid (for status, and tests)."""
    return path + ".pid"


def _leave(signum, frame):
    raise SystemExit(0)


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def preload():
    """Import what the hooks use, then run a brief and a recall over a
    throwaway folder: what they load or compile on first use (word tables,
    patterns, sqlite3) is then in place before the first fork."""
    import shutil
    import tempfile
    # what the hooks import as they run (their own imports are lazy)
    from . import hooks  # noqa: F401
    from ..app import brief, capture  # noqa: F401
    from ..files import transcripts  # noqa: F401
    from ..search import context, crosslingual, features, supersede  # noqa: F401
    from ..store import freshness  # noqa: F401
    saved, stdio, folder = dict(os.environ), (sys.stdin, sys.stdout, sys.stderr), tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(folder, "memory"))
        with open(os.path.join(folder, "memory", "2026-01-02.md"), "w", encoding="utf-8") as f:
            f.write("# 2026-01-02\n\n- Warm-up: the blog's RSS feed moved to /feed.xml.\n- 博客的RSS配置改到了 feed.xml。\n")
        os.environ.update(MEMORY_DIR=folder, HOME=folder, XDG_CACHE_HOME=os.path.join(folder, "cache"))
        for event in ("SessionStart", "UserPromptSubmit"):
            payload = '{"hook_event_name": "%s", "session_id": "warm-up", "prompt": "RSS 配置 feed"}' % event
            run_hook(None, [], payload.encode("utf-8"))
    finally:
        sys.stdin, sys.stdout, sys.stderr = stdio
        os.environ.clear()
        os.environ.update(saved)
        shutil.rmtree(folder, ignore_errors=True)


def code_stamp():
    """(file, size, mtime) of every module of the suite this process loaded."""
    stamp = []
    for name, module in sorted(sys.modules.items()):
        where = getattr(module, "__file__", None) if name.startswith("memsuite") else None
        if where:
            try:
                st = os.stat(where)
                stamp.append((where, st.st_size, st.st_mtime_ns))
            except OSError:
                stamp.append((where, None, None))
    return stamp


def _answers(path):
    """Another resident is serving there already."""
    import socket
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _still_mine(path, inode):
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _reap():
    """The pids of children that have ended (collected, so none is left a zombie)."""
    ended = set()
    try:
        while True:
            pid = os.waitpid(-1, os.WNOHANG)[0]
            if not pid:
                break
            ended.add(pid)
    except ChildProcessError:
        pass
    return ended


# --- one hook, in a child ------------------------------------------------------------

def _child(conn):
    """Run one hook in this fork and send its answer: True once it is sent (or,
    for a detached hook, taken)."""
    from .hooks import detaches
    conn.settimeout(READ_TIMEOUT)
    request = read_request(conn)
    if request is None:
        return False
    argv, data = request
    if detaches(argv, data):  # SessionEnd, Stop with --detach: the client goes at once, as the cold path does
        conn.sendall(b"D")
        conn.close()
        conn = None
    else:
        conn.sendall(b"R")
    _answer(conn, *run_hook(conn, [a for a in argv if a != "--detach"], data))
    return True


def read_request(conn):
    """(argv, stdin bytes), with this process's environment, folder and umask
    set to the hook's; None for a request that is not one."""
    got = b""
    while b"\n" not in got:
        chunk = conn.recv(65536)
        if not chunk or len(got) > 64:
            return None
        got += chunk
    sizes, rest = got.split(b"\n", 1)
    n_head, n_data = (int(n) for n in sizes.split())
    while len(rest) < n_head + n_data:
        chunk = conn.recv(1 << 20)
        if not chunk:
            return None
        rest += chunk
    fields, data = rest[:n_head].split(b"\0"), rest[n_head:n_head + n_data]
    protocol, cwd, mask, argc = fields[:4]
    if protocol != PROTOCOL:
        return None
    argc = int(argc)
    argv = [os.fsdecode(a) for a in fields[4:4 + argc]]
    os.environ.clear()
    for item in fields[4 + argc:]:
        key, _, value = item.partition(b"=")
        if key:
            os.environb[key] = value
    if hasattr(time, "tzset"):
        time.tzset()  # the hook's TZ: its dates, its capture's day
    os.chdir(cwd)
    os.umask(int(mask))
    return argv, data


def run_hook(conn, argv, data):
    """(exit code, stdout bytes, stderr bytes) of the hook, heartbeats sent meanwhile."""
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="replace")
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="replace")
    done = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(conn, done), daemon=True) if conn else None
    if beat:
        beat.start()
    from .hooks import main as hook_main
    try:
        code = hook_main(argv)
    finally:
        done.set()
        if beat:
            beat.join()
        sys.stdout.flush()
        sys.stderr.flush()
    return code or 0, out.getvalue(), err.getvalue()


def _heartbeat(conn, done):
    """A byte every HEARTBEAT while the hook runs.  When the client has given up
    (it runs the hook itself now), this fork stops at once, so the hook is
    not done twice over: its writes are atomic, and its locks go with it."""
    while not done.wait(HEARTBEAT):
        try:
            conn.sendall(b".")
        except OSError:
            os._exit(0)


def _answer(conn, code, out, err):
    if conn is not None:
        conn.sendall(b"=" + bytes([code & 255]) + b"%d %d\n" % (len(out), len(err)) + out + err)
        conn.close()
