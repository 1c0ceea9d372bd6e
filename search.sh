#!/bin/sh
# Thin wrapper: find this script's own folder (through symlinks) and run
# memory_search.main there, passing every argument through unchanged.  Importing
# (rather than running the file) lets Python reuse its compiled bytecode; where
# it cannot be written beside the scripts (a read-only folder, or
# PYTHONDONTWRITEBYTECODE set) it is kept in ~/.cache/memory-suite/pycache.
# -S skips site-packages (the suite needs only the standard library), which
# saves ~5 ms of every call's start-up.  gc.freeze() before the exit spares the
# collection Python runs at shutdown over every object the process made (~1.5 ms
# of a search); the memory goes back with the process anyway.  Objects left in
# reference cycles are not finalised then: the suite closes its files and
# indexes itself (with blocks, close()), never by a finaliser.
# MEMORY_INSTALL_DIR: where it was called from, before symlinks are followed
# (a skill folder symlinked into a workspace still finds that workspace).
# memsuite/python.sh picks the interpreter (MEMORY_PYTHON, else python3, or the
# one behind a version manager's shim).
case $0 in */*) here=${0%/*} here=${here:-/} ;; *) here=. ;; esac  # dirname, without running it: hooks pay for each process
MEMORY_INSTALL_DIR=$(cd "$here" && pwd) && export MEMORY_INSTALL_DIR
self=$0
while [ -L "$self" ]; do
    link=$(readlink "$self")
    case $self in */*) here=${self%/*} ;; *) here=. ;; esac
    case $link in /*) self=$link ;; *) self=$here/$link ;; esac
done
case $self in */*) here=${self%/*} here=${here:-/} ;; *) here=. ;; esac
DIR=$(cd "$here" && pwd -P) || exit 1
. "$DIR/memsuite/python.sh"
exec "$PY" -S -c 'import gc, os, sys; d = sys.path[0] = sys.argv.pop(1)
if sys.dont_write_bytecode or not os.access(d, os.W_OK):
    sys.dont_write_bytecode, sys.pycache_prefix = False, os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "memory-suite", "pycache")
from memory_search import main; code = main(sys.argv[1:]); gc.freeze(); sys.exit(code)' "$DIR" "$@"
