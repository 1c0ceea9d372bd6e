#!/usr/bin/env python3
"""Write data/zh-common-words.txt from jieba's dictionary.

jieba (https://github.com/fxsjy/jieba, MIT License, Copyright (c) 2013 Sun
Junyi) ships dict.txt, a list of Chinese words with their frequency in a
large general corpus and a part-of-speech tag; the PyPI package jieba
carries it (jieba/dict.txt).  This script keeps its everyday words of two
to four characters: frequency MIN_FREQ or more (LONGER_FREQ for three or
four), folded to simplified characters, proper nouns left out (tags nr, ns,
nt, nz: 招商, 淘宝 name something).  The linker
reads the result to tell a folder's own two-character terms (飞书, 闲鱼,
mostly missing from a general dictionary or rare in it) from the words
everybody writes (周末, 同事, 需求); it never needs jieba itself.

Usage: python3 data/make-zh-common-words.py JIEBA_DICT_TXT > data/zh-common-words.txt
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from memsuite.text.chinese import fold  # noqa: E402

MIN_FREQ = 10
LONGER_FREQ = 50
PROPER = ("nr", "ns", "nt", "nz")

HEADER = """\
# zh-common-words.txt: everyday Chinese words of two to four characters, one
# line each, sorted; derived by data/make-zh-common-words.py from jieba
# 0.42.1's dict.txt (https://github.com/fxsjy/jieba): two-character words of
# frequency %d or more, longer ones of %d or more, folded to simplified
# characters, proper nouns left out.
#
# jieba is under the MIT License:
# Copyright (c) 2013 Sun Junyi
# Permission is hereby granted, free of charge, to any person obtaining a copy
# of this software and associated documentation files (the "Software"), to deal
# in the Software without restriction, including without limitation the rights
# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
# copies of the Software, and to permit persons to whom the Software is
# furnished to do so, subject to the following conditions:
# The above copyright notice and this permission notice shall be included in
# all copies or substantial portions of the Software.
# THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
# IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
# FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
# AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
# LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
# OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
# THE SOFTWARE."""


def common_words(path):
    words = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and 2 <= len(parts[0]) <= 4 \
                    and int(parts[1]) >= (MIN_FREQ if len(parts[0]) == 2 else LONGER_FREQ) \
                    and (len(parts) < 3 or parts[2] not in PROPER):
                words.add(fold(parts[0]))
    return sorted(w for w in words if 2 <= len(w) <= 4)


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: make-zh-common-words.py JIEBA_DICT_TXT > data/zh-common-words.txt")
    print(HEADER % (MIN_FREQ, LONGER_FREQ))
    for word in common_words(argv[1]):
        print(word)


if __name__ == "__main__":
    main(sys.argv)
