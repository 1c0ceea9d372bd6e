"""Synonyms and regional spellings: query-time expansions, weighted below the literal word."""
import os

from .chinese import fold, is_cjk, zh_tables
from .params import DEFAULT_PARAMS
from .sources import SUITE_DIR
from .tokenizer import tokenize


# --- synonyms and regional spellings -------------------------------------------

SYNONYMS_FILE = "memory-synonyms.txt"  # a user's own groups, in the memory folder
_synonym_cache = {}


def synonym_groups(root):
    """{word: set of words it may stand for}: the built-in everyday Chinese
    groups (data/zh-synonyms.txt) and the user's own (memory-synonyms.txt in
    the memory folder), one group per line, words separated by spaces, all
    folded as the tokenizer folds them (traditional, full-width, case)."""
    user = os.path.join(root, SYNONYMS_FILE) if root else None
    try:
        stamp = os.stat(user).st_mtime_ns if user else None
    except OSError:
        stamp = None
    key = (user, stamp)
    if key not in _synonym_cache:
        groups = {}
        for path in (os.path.join(SUITE_DIR, "data", "zh-synonyms.txt"), user if stamp else None):
            for line in _read_lines(path):
                words = [fold(w) for w in line.split()]
                for w in words:
                    groups.setdefault(w, set()).update(x for x in words if x != w)
        _synonym_cache.clear()
        _synonym_cache[key] = groups
    return _synonym_cache[key]


def _read_lines(path):
    if not path:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [l for l in (line.strip() for line in f) if l and not l.startswith("#")]
    except OSError:
        return []


def expansions(units, root, params=DEFAULT_PARAMS):
    """[(word, weight)]: the words a query's words may stand for.  A word of a
    CJK run (2-4 characters) brings in its regional spelling at
    regional_weight and its synonyms at synonym_weight; a Latin word, the
    synonyms a user listed for it."""
    runs = [u for u in units.split() if is_cjk(u[0])]
    latin = set(u for u in units.split() if not is_cjk(u[0]))
    if not runs and not os.path.exists(os.path.join(root or "", SYNONYMS_FILE)):
        return []
    regional = _regional_words()
    groups = synonym_groups(root)
    found = []
    for run in runs:
        for size in (4, 3, 2):
            for i in range(len(run) - size + 1):
                word = run[i:i + size]
                found += [(w, params.regional_weight) for w in regional.get(word, ())]
                found += [(w, params.synonym_weight) for w in groups.get(word, ())]
    for word, others in groups.items():
        if not is_cjk(word[:1]) and set(tokenize(word)) <= latin and tokenize(word):
            found += [(w, params.synonym_weight) for w in others]
    return found


_regional = {}


def _regional_words():
    """{word: [its other regional spellings]}, both ways (资料库 <-> 数据库)."""
    if not _regional:
        for a, b in zh_tables()[1].items():
            _regional.setdefault(a, []).append(b)
            _regional.setdefault(b, []).append(a)
    return _regional
