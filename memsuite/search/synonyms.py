"""Synonyms and regional spellings: query-time expansions, weighted below the literal word.

The built-in groups (data/zh-synonyms.txt), the regional word pairs of
data/zh-variants.txt (资料库 <-> 数据库) and a user's own groups
(memory-synonyms.txt in the memory folder) are compiled once into sorted
word tables (compiled.py), so a query looks up only its own words.
"""
import os

from ..text.chinese import ZH_TABLE, fold, is_cjk, regional_words
from ..base.compiled import SortedLines, compiled
from ..text.params import DEFAULT_PARAMS, TOKENIZER_VERSION
from ..files.sources import SUITE_DIR
from ..text.tokenizer import tokenize

SYNONYMS_FILE = "memory-synonyms.txt"  # a user's own groups, in the memory folder
BUILTIN_SYNONYMS = os.path.join(SUITE_DIR, "data", "zh-synonyms.txt")
LATIN = "~"  # a table's keys for Latin words: LATIN + the word's first term


def expansions(units, root, params=DEFAULT_PARAMS):
    """[(word, weight, the query's word it stands for)]: the words a query's
    words may stand for.  A word of a CJK run (2-4 characters) brings in its
    regional spelling at regional_weight and its synonyms at synonym_weight;
    a Latin word, the synonyms listed for it (when all of its terms are in
    the query)."""
    runs = [u for u in units.split() if is_cjk(u[0])]
    latin = set(u for u in units.split() if not is_cjk(u[0]))
    user = os.path.join(root, SYNONYMS_FILE) if root else None
    has_user = bool(user) and os.path.exists(user)
    if not runs and not has_user:
        return []
    tables = [builtin_table()] + ([user_table(user)] if has_user else [])
    found = []
    for run in runs:
        for size in (4, 3, 2):
            for i in range(len(run) - size + 1):
                for table in tables:
                    source = run[i:i + size]
                    fields = table.get(source)
                    if fields:
                        found += [(w, params.regional_weight, source) for w in fields[0].split()]
                        found += [(w, params.synonym_weight, source) for w in fields[1].split()]
    for term in latin:
        for table in tables:
            fields = table.get(LATIN + term) or ()
            for word, others in zip(fields[::2], fields[1::2]):
                if set(tokenize(word)) <= latin:
                    found += [(w, params.synonym_weight, word) for w in others.split()]
    return found


def builtin_table():
    """The built-in synonym groups and regional spellings, as a SortedLines table."""
    def build():
        return _table_bytes(_groups(_read_lines(BUILTIN_SYNONYMS)), _regional_words())
    return SortedLines(compiled("zh-expansions", [BUILTIN_SYNONYMS, ZH_TABLE], build, depends=(TOKENIZER_VERSION,)))


def user_table(path):
    """A user's memory-synonyms.txt as a SortedLines table (compiled per file)."""
    def build():
        return _table_bytes(_groups(_read_lines(path)), {})
    import zlib
    name = "user-synonyms-%08x" % zlib.crc32(os.path.abspath(path).encode("utf-8", "surrogatepass"))
    return SortedLines(compiled(name, [path, ZH_TABLE], build, depends=(TOKENIZER_VERSION,)))


def _groups(lines):
    """{word: set of words it may stand for}: one group per line, words
    separated by spaces, all folded as the tokenizer folds them."""
    groups = {}
    for line in lines:
        words = [fold(w) for w in line.split()]
        for w in words:
            groups.setdefault(w, set()).update(x for x in words if x != w)
    return groups


def _regional_words():
    """{word: [its other regional spellings]}, both ways (资料库 <-> 数据库)."""
    regional = {}
    for a, b in regional_words().items():
        regional.setdefault(a, []).append(b)
        regional.setdefault(b, []).append(a)
    return regional


def _table_bytes(groups, regional):
    """Sorted lines: 'word<TAB>regional spellings<TAB>synonyms' for CJK words
    and '~term<TAB>word<TAB>synonyms...' for Latin words, keyed by their first term."""
    rows = {}
    for word in set(groups) | set(regional):
        if is_cjk(word[:1]):
            rows[word] = [" ".join(regional.get(word, ())), " ".join(sorted(groups.get(word, ())))]
    for word, others in groups.items():
        terms = tokenize(word)
        if not is_cjk(word[:1]) and terms:
            rows.setdefault(LATIN + terms[0], []).extend([word, " ".join(sorted(others))])
    lines = sorted("\t".join([key] + fields).encode("utf-8", "surrogatepass") for key, fields in rows.items())
    return b"\n".join(lines) + b"\n" if lines else b""


def _read_lines(path):
    if not path:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [l for l in (line.strip() for line in f) if l and not l.startswith("#")]
    except OSError:
        return []
