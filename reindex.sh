#!/bin/sh
# Thin wrapper: find this script's own folder (through symlinks) and run the
# Python module there with every argument passed through unchanged.
self=$0
while [ -L "$self" ]; do
    link=$(readlink "$self")
    case $link in /*) self=$link ;; *) self=$(dirname "$self")/$link ;; esac
done
DIR=$(cd "$(dirname "$self")" && pwd -P) || exit 1
PY=${MEMORY_PYTHON:-python3}
exec "$PY" "$DIR/memory_search.py" reindex "$@"
