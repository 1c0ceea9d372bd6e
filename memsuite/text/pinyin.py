"""Common Chinese characters in pinyin, and back: 王 is wang, wang is 王, 汪, 望...

data/zh-pinyin.txt (derived from CC-CEDICT by data/make-zh-pinyin.py) reads
the common characters in pinyin, a surname's reading first; it is compiled
once (compiled.py) into a sorted table read both ways: a character to its
readings, LATIN + a syllable to its characters, the commonest first.
search/names.py reads names with it, links/same.py an entity's spelling."""
import os

from ..base.compiled import SortedLines, compiled_mapped
from .chinese import SUITE_DIR

TABLE_FILE = os.path.join(SUITE_DIR, "data", "zh-pinyin.txt")
TABLE = "zh-pinyin-1"  # the compiled table's name: a new one when its shape changes
LATIN = "~"            # the table's keys for a syllable: LATIN + the syllable


def reading(word, table=None):
    """A Chinese word in Latin letters, its characters' first readings
    ("wang lei"), or "" when a character has none (table: pinyin_table(),
    given by a caller reading many words)."""
    table = table or pinyin_table()
    parts = []
    for c in word:
        fields = table.get(c)
        if not fields:
            return ""
        parts.append(fields[0].split()[0])
    return " ".join(parts)


def pinyin_table():
    """The readings as a SortedLines table (compiled once per copy of the file)."""
    return SortedLines(compiled_mapped(TABLE, [TABLE_FILE], lambda: _table_bytes(TABLE_FILE)))


def _table_bytes(path):
    """Sorted lines: 'character<TAB>readings' and '~syllable<TAB>characters',
    the commonest characters first."""
    lines, sounds = {}, {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or "\t" not in line:
                    continue
                char, readings = line.rstrip("\n").split("\t", 1)
                lines[char] = readings
                for syllable in readings.split():
                    sounds.setdefault(LATIN + syllable, []).append(char)
    except OSError:
        pass
    lines.update((key, " ".join(chars)) for key, chars in sounds.items())
    out = sorted(("%s\t%s" % kv).encode("utf-8", "surrogatepass") for kv in lines.items())
    return b"\n".join(out) + b"\n" if out else b""
