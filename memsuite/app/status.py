"""The index's state, as `search.sh status --json` and the MCP memory_status
tool give it, and the problems `search.sh doctor` lists with their fixes."""
import os
import sys
import time

from .clients import install_problems
from ..files.sources import NO_MEMORY_FOLDER, encoding_fix, is_session
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
    info["python"] = interpreter_info(store)
    info["unclosed_private"] = unclosed_private_blocks(store)
    info["install_problems"] = install_problems()
    add_encoding_fixes(store, info["problem_files"])
    return info


def add_encoding_fixes(store, problem_files):
    """A note in another encoding: which, and how to convert it ("fix")."""
    for problem in problem_files:
        fix = None if is_session(problem["path"]) else encoding_fix(
            os.path.join(store.root, problem["path"]), problem["issue"])
        if fix:
            problem["fix"] = fix


def doctor_problems(store):
    """Every problem found, one line each naming its fix: no memory folder
    (store None), the clients' install (Codex itself asked which of the
    suite's hooks it trusts), files the index skipped, <private> blocks
    never closed."""
    if store is None:
        return [NO_MEMORY_FOLDER] + install_problems(ask_codex=True)
    store.refresh()
    skipped = store.status()["problem_files"]
    add_encoding_fixes(store, skipped)
    return (install_problems(ask_codex=True)
            + ["%s %s%s" % (p["path"], "is indexed with \ufffd for its bytes that are not UTF-8" if p["issue"] == "invalid-utf8"
                            else "is not indexed (%s)" % p["issue"], ": " + p["fix"] if p.get("fix") else "") for p in skipped]
            + ["%s: <private> at line %d is never closed: close it, or everything after it stays hidden from search"
               % (p["path"], p["line"]) for p in unclosed_private_blocks(store)])


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


def interpreter_info(store=None):
    """The interpreter running the suite, and what a call costs of what the
    wrappers run (MEMORY_PYTHON, else python3 on the PATH or the interpreter
    behind its shim, memsuite/python.sh): a bare start, and with a store a
    default query in a new process (start-up, imports, opening the index,
    searching), which is what a hook pays each turn."""
    import shutil
    wrapper = os.environ.get("MEMORY_PYTHON") or os.environ.get("MEMORY_WRAPPER_PYTHON") or "python3"
    timed = shutil.which(wrapper) or sys.executable
    startup = _timed_ms([timed, "-S", "-c", "pass"])
    suite = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    query = None if store is None else _timed_ms(  # the wrapper itself, as a hook runs it
        ["/bin/sh", os.path.join(suite, "search.sh"), "--dir", store.root, "notes from last week"],
        dict(os.environ, MEMORY_INDEX_DIR=store.index_dir))
    return {"executable": sys.executable, "version": sys.version.split()[0], "startup_ms": startup,
            "query_ms": query, "wrapper_python": wrapper, "timed": timed}


def _timed_ms(argv, env=None):
    """Milliseconds a command takes, or None when it fails or hangs."""
    import subprocess
    started = time.perf_counter()
    try:
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10, check=True, env=env)
    except (OSError, subprocess.SubprocessError):
        return None
    return round((time.perf_counter() - started) * 1000, 1)
