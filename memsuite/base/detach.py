"""Going on in the background: a grandchild in a session of its own, for work
no one waits for (a hook's capture, the resident process's start)."""
import os
import sys


def detach():
    """Go on in a grandchild in a session of its own, stdio on /dev/null,
    while the hook's own process returns at once (a client waits for it and
    for its stdout to close: Codex gives SessionEnd 3 s).  True in the
    grandchild, False in the hook's process, None where there is no fork
    (then the work is done here)."""
    if not hasattr(os, "fork"):
        return None
    sys.stdout.flush()
    pid = os.fork()
    if pid:
        os.waitpid(pid, 0)  # the first child exits at once: no zombie is left
        return False
    try:
        os.setsid()
        if os.fork():
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        if null > 2:
            os.close(null)
    except OSError:
        os._exit(0)
    return True
