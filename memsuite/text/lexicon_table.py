"""The English-Chinese lexicon as a table read both ways, with no model.

data/en-zh-lexicon.txt (derived from CC-CEDICT, CC BY-SA 4.0, and ECDICT,
MIT, by data/make-en-zh-lexicon.py) lists everyday Chinese words with a few
short English senses, the commonest words first, and the everyday English
that CC-CEDICT lacks (妈妈: mom), read from Chinese to English only.  It is
compiled once (compiled.py) into a sorted table (memory-mapped): an English
word (LATIN + its first term) to the first ZH_PER_SENSE Chinese words that
have it as a sense, earlier senses first; a Chinese word to its senses.
search/lexicon.py translates a query's words with it, links/same.py an
entity's spelling."""
import os

from ..base.compiled import SortedLines, compiled_mapped
from .chinese import SUITE_DIR
from .params import TOKENIZER_VERSION
from .tokenizer import tokenize

LEXICON = os.path.join(SUITE_DIR, "data", "en-zh-lexicon.txt")
LATIN = "~"  # the table's keys for English words: LATIN + the phrase's first term
ZH_PER_SENSE = 3  # an English word reaches at most this many Chinese words
MAX_PLACE = 99  # a sense's place for a two-word sense's last word: after every sense of its own
TABLE = "en-zh-lexicon-6"  # the compiled table's name: a new one when its shape changes


def lexicon_table():
    """The lexicon as a SortedLines table (compiled once per copy of the file)."""
    return SortedLines(compiled_mapped(TABLE, [LEXICON], lambda: _table_bytes(read_lexicon(LEXICON)),
                                       depends=(TOKENIZER_VERSION,)))  # its English terms are tokenize()'s


def read_lexicon(path):
    """[(Chinese word, [English sense, ...], [everyday sense, ...])] in the
    file's order (commonest first).  Everyday senses (ECDICT's: 妈妈, mom)
    are read from Chinese to English only."""
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                fields = line.rstrip("\n").split("\t") + [""]  # the everyday column is optional
                if len(fields) >= 3:
                    rows.append((fields[0], _senses(fields[1]), _senses(fields[2])))
    except OSError:
        pass
    return rows


def _senses(field):
    return [s.strip() for s in field.split(";") if s.strip()]


def english_to_chinese(rows):
    """{English sense as its terms (a tuple): [Chinese word, ...]}: the words
    having it as an earlier sense first, then the commoner, at most
    ZH_PER_SENSE (meeting and meet are one sense: their terms are), a noun
    among them (_with_a_noun).  A noun no sense has alone reaches the words
    of the two-word senses it ends (mall: 商场, shopping mall)."""
    ranked, heads = {}, {}
    for rank, (word, senses, _) in enumerate(rows):
        for place, sense in enumerate(senses):
            verb = sense.startswith("to ")  # (tokenize drops the "to")
            terms = tuple(sorted(set(tokenize(sense))))
            if terms:
                ranked.setdefault(terms, {}).setdefault(word, (place, rank, word, verb))
            if len(terms) == 2 and not verb and len(word) > 1:  # shopping mall: a mall too
                heads.setdefault((tokenize(sense)[-1],), {}).setdefault(word, (MAX_PLACE, rank, word, False))
    for terms, found in heads.items():
        mine = ranked.setdefault(terms, {})
        if all(key[-1] for key in mine.values()):  # only for a noun no sense has alone
            for word, key in found.items():
                mine.setdefault(word, key)
    return {terms: _with_a_noun(sorted(found.values())) for terms, found in ranked.items()}


def _with_a_noun(keys):
    """The first ZH_PER_SENSE words of keys (place, rank, word, verb), the
    first noun among them when the first few are all verbs (phone: 致电 and
    来电, to phone, then 手机, cell phone)."""
    first = keys[:ZH_PER_SENSE]
    noun = next((key for key in keys if not key[-1]), None)
    if noun is not None and noun not in first:
        first[-1] = noun
    return [key[2] for key in first]


def _read_from_chinese(row):
    """A Chinese word's senses as its translations: its own, then its everyday ones."""
    _, senses, everyday = row
    return senses + everyday


def _table_bytes(rows):
    """Sorted lines: 'word<TAB>sense; sense' for Chinese words and
    '~term<TAB>phrase<TAB>中文 中文...' for English ones, keyed by their first term."""
    lines = {row[0]: "; ".join(_read_from_chinese(row)) for row in rows}
    latin = {}
    for terms, chinese in english_to_chinese(rows).items():
        for term in terms:  # found from any of its terms (all must be in the query)
            latin.setdefault(LATIN + term, []).extend([" ".join(terms), " ".join(chinese)])
    lines.update((key, "\t".join(fields)) for key, fields in latin.items())
    out = sorted(("%s\t%s" % kv).encode("utf-8", "surrogatepass") for kv in lines.items())
    return b"\n".join(out) + b"\n" if out else b""
