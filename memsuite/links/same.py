"""One entity in two scripts: 杭州 and Hangzhou, 王芳 and Wang Fang.

A bilingual folder names a place or a person in characters in one note and
in Latin letters in the next; the linker extracts each spelling as its own
entity, so `link.sh entity Hangzhou` missed the notes saying 杭州 and
`link.sh related` did not link them.  A Chinese name or place is the same
entity as a capitalised Latin one when the lexicon translates it so (杭州:
hangzhou) or its characters read so in pinyin (王芳: wang fang), the
Chinese one recurring (two chunks, as graph.entities asks of it).  SameKeys
reads the link tables with each such pair as one key: the one more often
mentioned (on a tie the Chinese)."""
from collections import defaultdict

from ..text.chinese import is_cjk
from ..text.lexicon_table import lexicon_table
from ..text.pinyin import pinyin_table, reading
from .entities import entity_key

CHINESE_KINDS = frozenset(("zhname", "zhplace", "place"))  # (place: a known place, 上海)
LATIN_KINDS = frozenset(("cap", "capstart", "name"))  # (written capitalised: Hangzhou, Wang Fang)


def same_keys(entity_rows, spelling_rows):
    """{a key: the key it is one entity with} for the pairs of keys of the
    two scripts that name one thing."""
    kinds, latin = defaultdict(set), set()
    for key, _, kind, _ in spelling_rows:
        if kind in CHINESE_KINDS:
            kinds[key].add(kind)
        elif kind in LATIN_KINDS and not is_cjk(key[:1]):
            latin.add(key)
    # (a Chinese one in two chunks at least, as graph.entities asks: looking up every one cost a large folder 0.1 s)
    chinese = [key for key, chunks, _, _ in entity_rows if chunks > 1 and key in kinds]
    if not latin or not chinese:
        return {}
    mentions = {key: n for key, _, _, n in entity_rows}
    tables = lexicon_table(), _reader(pinyin_table())
    out = {}
    for key in chinese:
        other = next((o for o in _other_script(key, kinds[key], tables) if o in latin and o not in out), None)
        if other:
            alias, kept = (key, other) if mentions[other] > mentions[key] else (other, key)
            out[alias] = kept
    return out


def _other_script(key, kinds, tables):
    """The keys a Chinese name or place may be written as in Latin letters:
    a place's lexicon senses (杭州: hangzhou) and its pinyin as one word
    (虹桥: hongqiao), a person's pinyin (王芳: wang fang).  tables: the
    lexicon and a character's reading."""
    lexicon, syllable = tables
    parts = [syllable(c) for c in key]
    spoken = " ".join(parts) if all(parts) else ""
    if "zhname" in kinds:
        return [spoken] if spoken else []
    row = lexicon.get(key)
    senses = [entity_key("name", s) for s in row[0].split("; ")] if row else []
    return senses + ([spoken.replace(" ", "")] if spoken else [])


def _reader(pinyin):
    """A character's reading, each read once (names share their characters)."""
    read = {}

    def syllable(c):
        if c not in read:
            read[c] = reading(c, pinyin)
        return read[c]
    return syllable


class SameKeys:
    """A link table (link_tables.py) read with each pair of same_keys as one
    key: its rows, counts and mentions are the pair's together."""

    def __init__(self, links):
        self.links = links
        self._rows = self._same = None

    def _tables(self):
        """(entity rows, spelling rows) as stored, read once per change."""
        if self._rows is None:
            self._rows = self.links.entity_rows(), self.links.spelling_rows()
        return self._rows

    def same(self):
        """{alias key: kept key}, worked out once per change of the tables."""
        if self._same is None:
            self._same = same_keys(*self._tables())
        return self._same

    def kept(self, key):
        """The key a key is read as (itself, or the other spelling's)."""
        return self.same().get(key, key)

    def known_files(self):
        return self.links.known_files()

    def apply(self, changes):
        self._rows = self._same = None
        return self.links.apply(changes)

    def entity_rows(self):
        """[(key, chunks, files, mentions)], a pair's counted together (a
        chunk naming both once: its chunks and files read from its mentions)."""
        same = self.same()
        rows = [row for row in self._tables()[0] if row[0] not in same]
        if not same:
            return rows
        kept = set(same.values())
        found = defaultdict(list)  # kept key: [(path, ordinal, count)] of the pair's mentions
        for key, path, ordinal, n in self.links.mentions_of(sorted(kept | set(same))):
            found[self.kept(key)].append((path, ordinal, n))
        return [row for row in rows if row[0] not in kept] + [
            (key, len({(p, o) for p, o, _ in refs}), len({p for p, _, _ in refs}), sum(n for _, _, n in refs))
            for key, refs in found.items()]

    def spelling_rows(self):
        return [(self.kept(key),) + tuple(rest) for key, *rest in self._tables()[1]]

    def mentions_of(self, keys):
        """[(key, path, ordinal, count)] of the chunks mentioning the keys or
        their other spellings, one row a chunk and key."""
        wanted = set(keys)
        asked = wanted | {alias for alias, kept in self.same().items() if kept in wanted}
        return self._merged(self.links.mentions_of(sorted(asked)))

    def mentions_in(self, path, ordinal=None):
        return self._merged(self.links.mentions_in(path, ordinal))

    def keys_in_chunks(self, refs):
        return {ref: {self.kept(k) for k in keys} for ref, keys in self.links.keys_in_chunks(refs).items()}

    def _merged(self, rows):
        counts = {}
        for key, path, ordinal, n in rows:
            ref = (self.kept(key), path, ordinal)
            counts[ref] = counts.get(ref, 0) + n
        return [ref + (n,) for ref, n in counts.items()]
