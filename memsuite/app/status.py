"""The index's state, as `search.sh status --json` and the MCP memory_status tool give it."""
import os
import sys
import time

from ..files.sources import encoding_fix, is_session
from ..search.embeddings import embed_status
from ..text.markdown import unclosed_private


def status_report(store):
    """The index's state after a refresh, as `status --json` and the MCP
    memory_status tool give it."""
    fresh = store.refresh()
    info = store.status()
    info["stale"] = fresh.stale or bool(info["stale_files"])
    info["checked"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    info["embedding"] = embed_status(store, store.embed_report)
    info["watcher"] = store.heartbeat.watcher()
    info["python"] = interpreter_info()
    info["unclosed_private"] = unclosed_private_blocks(store)
    for problem in info["problem_files"]:  # a note in another encoding: which, and how to convert it
        fix = None if is_session(problem["path"]) else encoding_fix(
            os.path.join(store.root, problem["path"]), problem["issue"])
        if fix:
            problem["fix"] = fix
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
    """The interpreter running the suite, and how long a bare start takes of
    what the wrappers run (MEMORY_PYTHON, else python3 on the PATH: a
    version-manager shim there can add 100 ms to every call, which timing
    sys.executable would never show)."""
    import shutil
    import subprocess
    wrapper = os.environ.get("MEMORY_PYTHON") or "python3"
    timed = shutil.which(wrapper) or sys.executable
    started = time.perf_counter()
    try:
        subprocess.run([timed, "-S", "-c", "pass"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=10, check=True)
        startup = round((time.perf_counter() - started) * 1000, 1)
    except (OSError, subprocess.SubprocessError):
        startup = None
    return {"executable": sys.executable, "version": sys.version.split()[0], "startup_ms": startup,
            "wrapper_python": wrapper, "timed": timed}
