"""Chinese names in Latin letters and back: 王磊 is Wang Lei, 小周 Xiao Zhou.

A bilingual user writes a person's name in one script in one note and in the
other in the next (a WeChat paste says 小周, an English line "Xiao Zhou:
+86 138 ..."), and asks in either.  The characters' pinyin (text/pinyin.py)
reads them both ways.  A Chinese question's name (two or three characters
from a surname, or 小/老/阿 before one) brings in its reading; a question's
Latin words that read as a name (a surname's syllable, then one or two more)
bring in the Chinese names of those sounds the index holds.  Both stand in
for the name as a translation does (lexicon_weight, ranking.analyse_query)."""
import re

from ..text.chinese import SURNAMES, ZH_FREE_CHARS, function_spans, is_cjk
from ..text.lexicon_table import lexicon_table
from ..text.params import DEFAULT_PARAMS
from ..text.pinyin import LATIN, pinyin_table, reading
PREFIXES = "小老阿"     # 小周, 老王, 阿杰: a name of one character after these
LATIN_PREFIXES = ("xiao", "lao")  # (阿's "a" is an English word more often than a name's)
SAME_SOUND = 40        # a syllable reaches at most this many characters, the commonest first
SYLLABLE_CAP = 6       # a Latin word is read as at most this many syllables (Xiaoling: xiao ling)
LONGEST_SYLLABLE = 6   # (zhuang, shuang)
NAMES_TRIED = 8        # a query's runs of Latin words read as names that are looked up, at most (a bound on a long prompt)


def readings_in(units, params=DEFAULT_PARAMS):
    """[(the name read in Latin letters, weight, the name)] for the names of
    a query's Chinese runs: two or three characters from a surname outside
    function words (王磊, 张伟明), or a prefix and a surname (小周, 老王),
    that the lexicon does not translate (周末 is a weekend, 高铁 a train)."""
    if not params.lexicon_weight:
        return []
    words = lexicon_table()
    out = {}
    for run in units.split():
        if not is_cjk(run[0]) or len(run) < 2:
            continue
        fn = function_spans(run)
        for i, c in enumerate(run[:-1]):
            if fn[i] or fn[i + 1]:
                continue
            if c in SURNAMES:
                third = i + 2 < len(run) and not fn[i + 2] and run[i + 2] not in ZH_FREE_CHARS
                sizes = (2, 3) if third else (2,)
            elif c in PREFIXES and run[i + 1] in SURNAMES:
                sizes = (2,)
            else:
                continue
            for size in sizes:
                word = run[i:i + size]
                latin = reading(word) if not words.get(word) else ""
                if latin:
                    out[latin, word] = None
    return [(latin, params.lexicon_weight, word) for latin, word in out]


def latin_words(query):
    """A query's Latin words as written, lower case, in order (not stemmed:
    Xiaoling is xiao ling, its stem xiaol no name)."""
    return [w.lower() for w in re.findall(r"[A-Za-z]+", query)]


def characters_in(store, words, params=DEFAULT_PARAMS):
    """[(a Chinese name the index holds, weight, the Latin words it reads as)]
    for the runs of a query's Latin words (latin_words: wang, lei) that read
    as a name: a surname's syllable (or xiao, lao) and one or two syllables
    more, in one word or two (Wang Xiaoling)."""
    if not params.lexicon_weight or len(words) < 2:
        return []
    table = pinyin_table()
    out, tried = {}, 0
    for i in range(len(words) - 1):
        first = words[i]
        heads = [c for c in _sounds(table, first) if c in SURNAMES or (first in LATIN_PREFIXES and c in PREFIXES)]
        if not heads:
            continue
        for tail in (words[i + 1:i + 1 + size] for size in (1, 2) if i + 1 + size <= len(words)):
            syllables = [s for w in tail for s in (_syllables(table, w) or [None])]
            if not syllables or None in syllables or len(syllables) > 2 or tried == NAMES_TRIED:
                continue
            tried += 1
            source = " ".join([first] + tail)
            for name in _held_names(store, table, heads, syllables):
                out[name, source] = None
    return [(name, params.lexicon_weight, source) for name, source in out]


def _held_names(store, table, heads, syllables):
    """The names of heads (first characters) and then the syllables' sounds
    whose every character pair the index holds, built a character at a
    time (only held pairs are extended: a syllable has dozens of sounds)."""
    names = list(heads)
    for syllable in syllables:
        names = [n + c for n in names for c in _sounds(table, syllable)
                 if not (n[-1] in PREFIXES and c not in SURNAMES)]  # (小 then a surname: 小周)
        if not names:
            return []
        held = store.doc_freqs(sorted({n[-2:] for n in names}))
        names = [n for n in names if held.get(n[-2:])]
    return names


def _sounds(table, syllable):
    """The characters read as a syllable, the commonest first (SAME_SOUND at
    most: a given name's character is seldom common, 磊 is lei's 14th)."""
    fields = table.get(LATIN + syllable)
    return fields[0].split()[:SAME_SOUND] if fields else []


def _syllables(table, word):
    """A Latin word as the pinyin syllables it is made of (xiaoling: xiao,
    ling), the longest first from the left, or None."""
    out, i = [], 0
    while i < len(word):
        for size in range(min(LONGEST_SYLLABLE, len(word) - i), 0, -1):
            if table.get(LATIN + word[i:i + size]):
                out.append(word[i:i + size])
                i += size
                break
        else:
            return None
        if len(out) > SYLLABLE_CAP:
            return None
    return out
