"""The index's state, as `search.sh status --json` and the MCP memory_status tool give it."""
import os
import sys
import time

from ..files.sources import is_session
from ..search.embeddings import embed_status
from ..text.markdown import unclosed_private


def status_report(store):
    """The index's state after a refresh, as `status --json` and the MCP
    memory_status tool give it."""
    store.refresh()
    info = store.status()
    info["stale"] = store.stale or bool(info["stale_files"])
    info["checked"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    info["embedding"] = embed_status(store, store.embed_report)
    info["watcher"] = store.heartbeat.watcher()
    info["python"] = interpreter_info()
    info["unclosed_private"] = unclosed_private_blocks(store)
    return info


def unclosed_private_blocks(store):
    """[{path, line}] of memory files with a <private> tag never closed."""
    found = []
    for rel in sorted(store.known_files()):
        if is_session(rel):
            continue
        try:
            with open(os.path.join(store.root, rel), "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            continue
        line = unclosed_private(text)
        if line is not None:
            found.append({"path": rel, "line": line})
    return found


def interpreter_info():
    """The interpreter running the suite and how long a bare start of it takes
    (a version-manager shim can add 80 ms to every call: set MEMORY_PYTHON)."""
    import subprocess
    started = time.perf_counter()
    try:
        subprocess.run([sys.executable, "-S", "-c", "pass"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=10)
        startup = round((time.perf_counter() - started) * 1000, 1)
    except (OSError, subprocess.SubprocessError):
        startup = None
    return {"executable": sys.executable, "version": sys.version.split()[0], "startup_ms": startup,
            "wrapper_python": os.environ.get("MEMORY_PYTHON") or "python3"}
