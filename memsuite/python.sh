# Sourced by the wrappers (search.sh, link.sh, reindex.sh): sets PY to the
# interpreter they run.  MEMORY_PYTHON wins.  Else python3 on the PATH, unless
# that is a version manager's shim (pyenv, asdf, mise: a script that picks a
# version, about half a second on every call): then the interpreter behind it,
# asked of the shim once and remembered in the user's cache as one line
# "shim<TAB>interpreter", checked on each call by its still being there (the
# suite needs only the standard library, so any version the shim gave will do).
PY=${MEMORY_PYTHON:-}
if [ -z "$PY" ]; then
    PY=$(command -v python3) || PY=python3
    case $PY in
        */shims/*)
            memory_cache=${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/memory-suite/python-behind-shim
            memory_shim='' memory_real=''
            [ -r "$memory_cache" ] && IFS='	' read -r memory_shim memory_real < "$memory_cache"
            if [ "$memory_shim" != "$PY" ] || [ ! -x "$memory_real" ]; then
                memory_real=$("$PY" -S -c 'import sys; print(sys.executable)' 2>/dev/null) || memory_real=''
                if [ -n "$memory_real" ] && [ -x "$memory_real" ] && mkdir -p "${memory_cache%/*}" 2>/dev/null; then
                    printf '%s\t%s\n' "$PY" "$memory_real" > "$memory_cache.$$" 2>/dev/null &&
                        mv -f "$memory_cache.$$" "$memory_cache" 2>/dev/null
                    rm -f "$memory_cache.$$" 2>/dev/null
                fi
            fi
            [ -n "$memory_real" ] && [ -x "$memory_real" ] && PY=$memory_real
            unset memory_cache memory_shim memory_real
            ;;
    esac
fi
MEMORY_WRAPPER_PYTHON=$PY && export MEMORY_WRAPPER_PYTHON
