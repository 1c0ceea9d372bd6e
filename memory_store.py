"""Where memories are kept: files, chunks, the one tokenizer, and the index.

The Markdown files are the source of truth; the index can always be rebuilt
from them, and nothing here writes to them except `append_memory` (the
`add` command).  Sections, top to bottom:

  parameters    Params: every tunable number, in one record
  analysis      the one tokenizer (index and queries), Porter stemmer, the
                vector-channel features, and the one BM25 formula
  sources       the memory folder, which files count, reading them safely
  chunking      heading-aware, bounded, overlapping chunks with exact lines
  records       what the index stores and returns (named records)
  backends      SQLite + FTS5 (default) and JSON files (fallback), one
                contract (see "The backend contract" below)
  MemoryStore   picks the backend, keeps it fresh, recovers from damage
  writing       appending a memory to a Markdown file, safely
  command line  option parsing, JSON output and errors shared by the CLIs

It knows nothing about ranking beyond BM25 itself (memory_search.py ranks).
"""
import math
import os
import re
import sys
import time
import unicodedata
from collections import Counter
from operator import itemgetter

__all__ = [
    "Params", "DEFAULT_PARAMS", "StoreError", "UsageError", "record",
    "tokenize", "index_terms", "stem", "is_cjk", "term_spans", "fold", "term_grams",
    "bm25_idf", "bm25_weight", "log_tf",
    "resolve_memory_dir", "discover", "read_memory_lines", "safe_join", "split_lines",
    "mask_private", "file_date", "parse_reference", "is_heading", "chunk_markdown",
    "cite", "Chunk", "StoredChunk", "SyncReport", "Filters", "MemoryStore", "append_memory",
]

# --------------------------------------------------------------------------
# Records: named tuples, built cheaply
# --------------------------------------------------------------------------

def record(name, fields, defaults=()):
    """A named tuple class, as collections.namedtuple makes: built by
    position or keyword, fields as attributes, _fields, _make, _replace,
    _asdict, equality and pickling of a tuple.  namedtuple spends ~0.1 ms
    building each class, and a CLI call's start-up builds two dozen; this
    takes a fifth of that.  defaults fill the rightmost fields."""
    fields = tuple(fields.split() if isinstance(fields, str) else fields)
    index = {f: i for i, f in enumerate(fields)}
    defaults = tuple(defaults)
    size = len(fields)

    def __new__(cls, *args, **kw):
        if kw or len(args) != size:
            args = _record_values(name, fields, index, defaults, args, kw)
        return tuple.__new__(cls, args)

    def _make(cls, values):
        values = tuple(values)
        if len(values) != size:
            raise TypeError("%s expects %d values, got %d" % (name, size, len(values)))
        return tuple.__new__(cls, values)

    def _replace(self, **kw):
        values = list(self)
        for key, value in kw.items():
            if key not in index:
                raise ValueError("%s has no field %r" % (name, key))
            values[index[key]] = value
        return tuple.__new__(type(self), values)

    namespace = {
        "__slots__": (), "__doc__": "%s(%s)" % (name, ", ".join(fields)), "_fields": fields,
        "__module__": sys._getframe(1).f_globals.get("__name__", "__main__"),
        "__new__": __new__, "_make": classmethod(_make), "_replace": _replace,
        "_asdict": lambda self: dict(zip(fields, self)),
        "__getnewargs__": lambda self: tuple(self),
        "__repr__": lambda self: "%s(%s)" % (name, ", ".join("%s=%r" % pair for pair in zip(fields, self))),
    }
    for i, field in enumerate(fields):
        namespace[field] = _field_getter(i, "field %d of %s" % (i, name))
    return type(name, (tuple,), namespace)


try:  # namedtuple's own fast field accessor (CPython 3.8+)
    from _collections import _tuplegetter as _field_getter
except ImportError:  # other Pythons
    def _field_getter(i, doc):
        return property(itemgetter(i), doc=doc)


def _record_values(name, fields, index, defaults, args, kw):
    if len(args) > len(fields):
        raise TypeError("%s takes %d fields, got %d" % (name, len(fields), len(args)))
    missing = object()
    values = list(args) + [missing] * (len(fields) - len(args))
    for key, value in kw.items():
        if key not in index:
            raise TypeError("%s got an unexpected field %r" % (name, key))
        if index[key] < len(args):
            raise TypeError("%s got two values for %r" % (name, key))
        values[index[key]] = value
    first_default = len(fields) - len(defaults)
    for i, value in enumerate(values):
        if value is missing:
            if i < first_default:
                raise TypeError("%s is missing field %r" % (name, fields[i]))
            values[i] = defaults[i - first_default]
    return tuple(values)


# --------------------------------------------------------------------------
# Parameters: every tunable number in one record.  Tests and the benchmark
# pass their own Params instead of patching module globals.  The fields in
# INDEX_PARAMS shape what is stored; the index records them (with the
# tokenizer's version) and is rebuilt, with a message, when they change.
# --------------------------------------------------------------------------

_PARAM_DEFAULTS = [
    # chunking (stored in the index)
    ("chunk_lines", 6),          # a chunk holds at most this many lines...
    ("chunk_overlap", 2),        # ...overlapping the previous one by this many...
    ("chunk_chars", 1000),       # ...and at most this many characters
    ("heading_weight", 1.0),     # BM25 weight of the heading trail (the body's is 1.0)
    # ranking (memory_search); chosen by measurement, see bench/ and the README
    ("weight_keyword", 0.7),     # hybrid = w * keyword + (1 - w) * vector
    ("keyword_scale", 1.5),      # keyword score = 1 - exp(-scale * bm25 / sum of idf)
    ("gram_weight", 0.3),        # weight of character trigrams in the vector channel
    ("candidate_pool", 50),      # BM25 candidates the other channels re-score
    ("rerank_depth", 20),        # the best hits get the proximity bonus...
    ("proximity_weight", 0.15),  # ...worth this much (scores renormalised to [0, 1])
    ("date_weight", 0.1),        # bonus for a file dated on a day the query names
    ("score_floor", 0.05),       # by default hits scoring under this are not shown...
    ("relative_floor", 0.15),    # ...nor those under this share of the best hit
    ("function_weight", 0.1),    # a query's Chinese function words (什么时候, 是谁, 的) count this much...
    ("cross_weight", 0.3),       # ...a bigram across a function word's edge (频什 in 视频什么) this much
    ("unigram_weight", 1.0),     # ...and a single Chinese character of a longer word this much
    ("word_cohesion", 1.0),      # two characters recurring with this PMI are one word...
    ("longer_word_share", 0.2),  # ...so 李明 inside 李明轩 counts this much of 李明
    ("semantic_weight", 0.3),    # with an embedding provider: its share of an English query's score...
    ("semantic_weight_cjk", 0.0),  # ...and of a Chinese one (all-MiniLM-L6-v2 does not read Chinese)
    ("regional_weight", 0.9),    # a query word's other regional spelling (資料庫 / 数据库)...
    ("synonym_weight", 0.5),     # ...and its everyday synonyms count this much of the word
    ("merge_gap", 0),            # hits this close (0: touching) become one passage...
    ("merge_max_lines", 10),     # ...of at most this many lines...
    ("merge_min_share", 0.8),    # ...when the later hit scores this share of the first
    ("max_query_terms", 64),     # the rarest terms of a very long query
    ("probe_postings", 5000),    # FTS5 is asked for the rarest terms, up to this many postings
    ("fuzzy_prefix", 4),         # an unknown word also asks for words starting with 4 letters
    ("background_scan_chunks", 20000),  # above this, check the folder beside the query
    # linker
    ("common_entity_share", 0.2),  # entities in more chunks than this say little
    ("same_day_weight", 0.25),     # bonus for a related memory of the same day or file
]
Params = record("Params", [name for name, _ in _PARAM_DEFAULTS], [value for _, value in _PARAM_DEFAULTS])
Params.__doc__ = "Tunable numbers (see _PARAM_DEFAULTS for what each means)."
DEFAULT_PARAMS = Params()
INDEX_PARAMS = ("chunk_lines", "chunk_overlap", "chunk_chars", "heading_weight")
# Bump when tokenize(), index_terms() or render_transcript() change what they return:
# the index's keyword rows are deleted by re-deriving their terms, so an index
# must never outlive the tokenizer that built it (tests/test_tokenizer.py
# pins the output for a probe text).
TOKENIZER_VERSION = 7


def index_settings(params):
    """What an index built with these parameters depends on, as one string
    (the tokenizer's version, the size of its Chinese table, the chunking)."""
    parts = ["tokenizer=%d" % TOKENIZER_VERSION, "zh-table=%d" % zh_table_stamp()]
    parts += ["%s=%r" % (name, getattr(params, name)) for name in INDEX_PARAMS]
    return " ".join(parts)


def settings_change(old, new):
    """A short description of what differs between two index_settings strings."""
    before = dict(p.split("=", 1) for p in (old or "").split() if "=" in p)
    after = dict(p.split("=", 1) for p in new.split() if "=" in p)
    changed = ["%s %s -> %s" % (k, before.get(k, "?"), after[k]) for k in after if before.get(k) != after[k]]
    return ", ".join(changed) or "settings changed"


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

class StoreError(Exception):
    """A problem a user can act on; the message is one line, no traceback."""


class UsageError(Exception):
    """Bad arguments or input from the caller (exit code 2 on the command line)."""


class IndexDamaged(Exception):
    """The index file is unreadable or not ours.  Raised only where damage is
    checked (opening the index, or SQLite reporting a corrupt file); the store
    then moves the index aside and rebuilds it.  Any other exception is a bug
    and is raised as it is, with the index left alone."""


# --------------------------------------------------------------------------
# Analysis: the one tokenizer used for indexing and for queries.
# --------------------------------------------------------------------------

# Runs of letters and digits, joined by connectors inside codes (KX-4471).
# CJK characters count as letters here and are split out afterwards.
_RUN_RE = re.compile(r"[^\W_]+(?:[-_.:/@+][^\W_]+)*")
_CONNECTORS_TO_SPACE = str.maketrans("-_.:/@+", "       ")
# CJK stretches found in UTF-8 bytes: a str class of the CJK ranges costs
# ~2 ms to compile (every process would pay it), this one ~0.2 ms.  CJK is
# U+3040-U+D7FF (kana, Han, Yi, Hangul...), U+F900-U+FAFF and U+20000-U+33FFF.
_LAZY_PATTERNS = {
    "cjk_bytes": (rb"((?:\xe3[\x81-\xbf][\x80-\xbf]|[\xe4-\xed][\x80-\xbf][\x80-\xbf]"
                  rb"|\xef[\xa4-\xab][\x80-\xbf]|\xf0[\xa0-\xb3][\x80-\xbf][\x80-\xbf])+)", 0),
    "date": (r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)", 0),
    "line_break": (r"\r\n|\r|\n", 0),
    "private": (r"<\s*private(?:\s[^>]*)?>.*?(?:<\s*/\s*private\s*>|\Z)", re.S | re.I),
    "heading": (r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$", 0),
    "fence": (r"^ {0,3}(`{3,}|~{3,})", 0),
    # digit groups joined by single dashes, dots or spaces; an optional +country
    # code, or an (area code) first: +86 138 0013 8000, (021) 6234-5678
    "number": (r"(?<![\w.+-])(\+)?(?:\((\d{1,5})\) ?)?(\d+(?:[-. ]\d+)*)(?![\w-])", re.A),
    "iso_date": (r"\d{4}-\d{2}-\d{2}", 0),
    # what agents wrap around injected text: <system-reminder>...</system-reminder>, <command-name>
    "agent_tags": (r"<(system-reminder|command-[a-z-]+|local-command-[a-z-]+)>.*?</\1>", re.S),
}
_compiled = {}


def _pattern(name):
    """A regular expression of _LAZY_PATTERNS, compiled on first use: compiling
    them all would cost every cold query milliseconds most never need."""
    found = _compiled.get(name)
    if found is None:
        found = _compiled[name] = re.compile(*_LAZY_PATTERNS[name])
    return found
CJK_CLASS = "\u3040-\ud7ff\uf900-\ufaff\U00020000-\U00033fff"  # the same, for str patterns

# Common English words that carry no meaning for search; dropping them keeps
# postings short and lets BM25 weigh the words that matter.
STOPWORDS = frozenset("""
a about above after again against all am an and any are aren't as at be because
been before being below between both but by can could couldn't did didn't do does
doesn't doing don't down during each few for from further had hadn't has hasn't have
haven't having he he'd he'll he's her here here's hers herself him himself his how
how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more most
mustn't my myself no nor not of off on once only or other ought our ours ourselves
out over own same shan't she she'd she'll she's should shouldn't so some such than
that that's the their theirs them themselves then there there's these they they'd
they'll they're they've this those through to too under until up very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while
who who's whom why why's with won't would wouldn't you you'd you'll you're you've your
yours yourself yourselves s t d ll m re ve just also
""".split())


ZH_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "zh-variants.txt")
_zh = {}


def zh_table_stamp():
    """A checksum of the Chinese table (0 if missing): part of an index's
    settings, since folding depends on it."""
    import zlib
    try:
        with open(ZH_TABLE, "rb") as f:
            return zlib.crc32(f.read())
    except OSError:
        return 0


def zh_tables():
    """(character map for str.translate, {regional word: mainland word}) from
    data/zh-variants.txt (derived from OpenCC's dictionaries), read on first
    use; empty if the file is missing."""
    if not _zh:
        chars, words = {}, {}
        try:
            with open(ZH_TABLE, encoding="utf-8") as f:
                lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
            chars = str.maketrans(lines[0], lines[1])
            words = dict(line.split(" ", 1) for line in lines[2:] if " " in line)
        except (OSError, IndexError, ValueError):
            pass  # no table: traditional and simplified are then told apart
        _zh.update(chars=chars, words=words)
    return _zh["chars"], _zh["words"]


# Chinese words that carry grammar, questions or time rather than a topic
# (the counterpart of STOPWORDS): a query gives its weight to its other
# words, and the linker lists none of them as entities.
ZH_FUNCTION_WORDS = frozenset("""
什么时候 什么 为什么 怎么样 怎么 怎样 哪里 哪儿 哪个 哪些 哪家 在哪 在哪里 是谁 是什么 多少 几点 几个
几号 几月 几天 多久 多长 有没有 是不是 能不能 要不要 会不会 的话 还是 或者 以及 然后 因为 所以
但是 可是 不过 如果 虽然 已经 一下 一点 一些 一个 这个 那个 这些 那些 这里 那里 这样 那样 自己
我们 你们 他们 她们 它们 大家 上次 下次 这次 那次 最近 之前 之后 以前 以后 现在 当时 今天 明天
昨天 前天 后天 今年 去年 明年 上周 下周 这周 本周 上个月 下个月 这个月 早上 上午 中午 下午 晚上
今晚 昨晚 时候 可以 应该 需要 可能 一直 一起 还有 就是 只是 也是 都是 不是 没有 一定 非常 特别
比较 其实 当然 怎么办 叫什么 干什么 做什么 去哪 去哪里 哪天 哪一天 谁的 给谁 和谁 跟谁
""".split())
ZH_FUNCTION_CHARS = frozenset("的了吗呢吧啊呀么哦嗯之其")
# Characters that attach to words without forming one with them (particles,
# pronouns, common verbs): 李明说 is 李明 + 说, never a longer name.
ZH_FREE_CHARS = frozenset("的了是在和与及或等就也还又很太更最把被将对从向为以于让给着过"
                          "我你他她它们这那哪些个不没有要会能可想去来到说看问叫跟带"
                          "啊吧呢吗呀哦嗯么之其所而且但并则即每各该此至约第")


def function_spans(run):
    """For each character of a CJK run (folded), whether it lies in a
    function word (longest match first) or is a function character."""
    marked, i = [False] * len(run), 0
    while i < len(run):
        for size in (4, 3, 2):
            if i + size <= len(run) and run[i:i + size] in ZH_FUNCTION_WORDS:
                marked[i:i + size] = [True] * size
                i += size
                break
        else:
            marked[i] = run[i] in ZH_FUNCTION_CHARS
            i += 1
    return marked


def binds(pair, dfs, n_docs, threshold):
    """Whether two CJK characters recur together as one word does in this
    folder: the pair is in two chunks or more, and its pointwise mutual
    information, log(N df(ab) / (df(a) df(b))) from document frequencies,
    reaches threshold (李明轩: 明轩 binds; 李明说: 明说 does not); a doubled
    character binds when a fifth of its chunks hold it doubled (王娟娟)."""
    df = dfs.get(pair, 0)
    if df < 2 or set(pair) & ZH_FREE_CHARS:
        return False
    if pair[0] == pair[1]:  # a doubled character (娟娟): bound when it is often doubled
        return df >= 0.2 * dfs.get(pair[0], 1)
    return math.log(float(n_docs) * df / (dfs.get(pair[0], 1) * dfs.get(pair[1], 1))) >= threshold


def fold(text):
    """Text as the tokenizer reads it: NFKC (full-width ＳＤＫ -> SDK), lower
    case, traditional Chinese characters as simplified (帳號 -> 账号), one
    character for one, so offsets into the text stay valid."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).lower().translate(zh_tables()[0])


def analyse(text):
    """The first stage of the tokenizer: text as space-separated units,
    Latin words as their terms (case-folded, stop words dropped, Porter
    stems; a code such as KX-4471 whole and in parts), each CJK run as it
    is, and numbers written in groups also as their digits (number_units).
    The index stores these units beside each line, so a query never stems a
    candidate's words again; expand() makes the terms."""
    folded = fold(text)
    extra = number_units(folded) if len(folded) - len(folded.translate(_NO_DIGITS)) >= 7 else []
    if folded.isascii():
        return " ".join([t for w in _RUN_RE.findall(folded) for t in _cached_word_terms(w)] + extra)
    units = []
    for i, part in enumerate(_split_cjk(folded)):
        if i % 2:
            units.append(part)
        elif part:
            for w in _RUN_RE.findall(part):
                units.extend(_cached_word_terms(w))
    return " ".join(units + extra)


_NO_DIGITS = str.maketrans("", "", "0123456789")


def number_units(text):
    """Extra units for the phone and account numbers in text, so that the
    ways people write one number meet: digit groups (138-0013-8000, 138 0013
    8000, (021) 6234-5678, +86 138 0013 8000) also as their digits alone
    (13800138000, and without the country or area code), and any number of
    7+ digits also by its last four (尾号 8000).  Dates are left alone."""
    out = []
    for m in _pattern("number").finditer(text):
        plus, area, rest = m.group(1), m.group(2), m.group(3)
        groups = ([area] if area else []) + re.findall(r"\d+", rest)
        digits = "".join(groups)
        if len(digits) < 7 or _pattern("iso_date").fullmatch(m.group(0).strip()):
            continue
        if len(groups) > 1:
            out.append(digits)
        if (plus or area) and len(groups) > 1:
            local = "".join(groups[1:])
            out.append(local)
            if plus:
                out.append("0" + local)  # national form with the trunk prefix: +886 912... = 0912...
        out.append(digits[-4:])
    return out


def expand(units, unigrams=True):
    """The second stage: terms from analysed units.  A CJK run becomes its
    character bigrams plus (with unigrams) its characters; a one-character
    run is its own term (十三香 -> 十三 三香 十 三 香)."""
    if units.isascii():
        return units.split()
    out = []
    for unit in units.split():
        if _is_cjk_char(unit[0]):
            out.extend(_cjk_terms(unit, unigrams))
        else:
            out.append(unit)
    return out


def tokenize(text):
    """Split text into the terms that score it, the same way for documents
    and queries (analyse, then expand).

    - Latin words are case-folded, stop words dropped, the rest Porter-stemmed
      (so "configure" and "configuration" meet).
    - Codes joined by - _ . : / @ + (KX-4471, 2026-03-15, config.toml) are kept
      whole, and their parts are added too, so "4471" still finds "KX-4471".
    - CJK runs become character bigrams plus unigrams.
    """
    return expand(analyse(text))


def index_terms(text):
    """The terms the keyword index stores for text: tokenize() without the
    unigrams of CJK runs, but for each run's last character.  Unigrams are
    half of a Chinese index and never find a passage worth showing on their
    own; ranking still scores them."""
    return expand(analyse(text), False)


def _split_cjk(run):
    """[other, cjk, other, cjk, ..., other]: a run cut at its CJK stretches."""
    return [part.decode("utf-8", "surrogatepass")
            for part in _pattern("cjk_bytes").split(run.encode("utf-8", "surrogatepass"))]


def _is_cjk_char(c):
    return "\u3040" <= c <= "\ud7ff" or "\uf900" <= c <= "\ufaff" or "\U00020000" <= c <= "\U00033fff"


def is_cjk(text):
    """Whether text is made of CJK characters only (the tokenizer's CJK runs)."""
    return bool(text) and all(_is_cjk_char(c) for c in text)


def term_spans(text):
    """(start, end, is_cjk) of every word and CJK stretch in text, as tokenize
    sees them (text already folded); used to highlight matches."""
    for m in _RUN_RE.finditer(text):
        run, pos = m.group(), m.start()
        if run.isascii():
            yield pos, m.end(), False
            continue
        for i, part in enumerate(_split_cjk(run)):
            if i % 2:
                yield pos, pos + len(part), True
            else:
                for w in _RUN_RE.finditer(part):
                    yield pos + w.start(), pos + w.end(), False
            pos += len(part)


def _cjk_terms(run, unigrams=True):
    """Bigrams and unigrams of a CJK run; for the index (unigrams False) the
    bigrams and the last character, so that every character starts a term
    (a query for one character asks for the terms starting with it)."""
    if len(run) == 1:
        return [run]
    bigrams = list(map(_concat, run, run[1:]))
    return bigrams + (list(run) if unigrams else [run[-1]])


def _concat(a, b):
    return a + b


def _memo(cache, key, compute, limit=300000):
    """cache[key], computed once; the cache is emptied when it grows past limit."""
    value = cache.get(key)
    if value is None:
        if len(cache) > limit:
            cache.clear()
        value = cache[key] = compute(key)
    return value


_WORD_CACHE = {}  # word -> its terms; words repeat, and stemming is the slow part


def _cached_word_terms(word):
    return _memo(_WORD_CACHE, word, _word_terms)


def _word_terms(word):
    if word.isalnum():
        return () if word in STOPWORDS else (stem(word),)
    terms = [word]  # the whole code, unstemmed
    parts = word.translate(_CONNECTORS_TO_SPACE).split()
    for part in parts:
        if len(part) > 1 and part not in STOPWORDS:
            terms.append(stem(part))
    if _is_joinable_code(word):  # AK20260422-0318 is also typed AK202604220318
        terms.append("".join(parts))
    return tuple(terms)


def _is_joinable_code(word):
    """A code of letters and digits joined by - or _ only (not a date, file or
    address), which people also write without the joins."""
    return (not any(c in word for c in ".:/@+") and any(c.isdigit() for c in word)
            and any(c.isalpha() for c in word))


# --- Porter stemmer (M.F. Porter, 1980), for lower-case ASCII words ---------

def stem(word):
    """Reduce an English word to its Porter stem; other words pass unchanged."""
    if len(word) <= 2 or not word.isascii() or not word.isalpha():
        return word
    w = _step1ab(word)
    w = _step1c(w)
    w = _replace_suffix(w, _STEP2, 0)
    w = _replace_suffix(w, _STEP3, 0)
    w = _step4(w)
    return _step5(w)


def _is_consonant(w, i):
    c = w[i]
    if c in "aeiou":
        return False
    if c == "y":
        return i == 0 or not _is_consonant(w, i - 1)
    return True


def _measure(s):
    """m in Porter's [C](VC)^m[V]: how many vowel-consonant runs s has."""
    m, i, n = 0, 0, len(s)
    while i < n and _is_consonant(s, i):
        i += 1
    while i < n:
        while i < n and not _is_consonant(s, i):
            i += 1
        if i >= n:
            break
        while i < n and _is_consonant(s, i):
            i += 1
        m += 1
    return m


def _has_vowel(s):
    return any(not _is_consonant(s, i) for i in range(len(s)))


def _ends_double_consonant(s):
    return len(s) >= 2 and s[-1] == s[-2] and _is_consonant(s, len(s) - 1)


def _ends_cvc(s):
    return (len(s) >= 3 and _is_consonant(s, len(s) - 3)
            and not _is_consonant(s, len(s) - 2)
            and _is_consonant(s, len(s) - 1) and s[-1] not in "wxy")


def _step1ab(w):
    if w.endswith("sses") or w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
        return w
    for suffix in ("ed", "ing"):
        if w.endswith(suffix) and _has_vowel(w[:-len(suffix)]):
            w = w[:-len(suffix)]
            if w.endswith(("at", "bl", "iz")):
                return w + "e"
            if _ends_double_consonant(w) and w[-1] not in "lsz":
                return w[:-1]
            if _measure(w) == 1 and _ends_cvc(w):
                return w + "e"
            return w
    return w


def _step1c(w):
    if w.endswith("y") and _has_vowel(w[:-1]):
        return w[:-1] + "i"
    return w


_STEP2 = (("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
          ("izer", "ize"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
          ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
          ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
          ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"), ("logi", "log"))
_STEP3 = (("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"),
          ("ical", "ic"), ("ful", ""), ("ness", ""))
_STEP4 = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
          "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize")
_STEP2 = tuple(sorted(_STEP2, key=lambda p: -len(p[0])))
_STEP3 = tuple(sorted(_STEP3, key=lambda p: -len(p[0])))
_STEP4 = tuple(sorted(_STEP4, key=len, reverse=True))


def _replace_suffix(w, rules, min_measure):
    for suffix, replacement in rules:
        if w.endswith(suffix):
            base = w[:-len(suffix)]
            return base + replacement if _measure(base) > min_measure else w
    return w


def _step4(w):
    for suffix in _STEP4:
        if w.endswith(suffix):
            base = w[:-len(suffix)]
            if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
                return base
            return w
    return w


def _step5(w):
    if w.endswith("e"):
        base = w[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _ends_cvc(base)):
            w = base
    if w.endswith("ll") and _measure(w) > 1:
        w = w[:-1]
    return w


# --- vector-channel features ----------------------------------------------
# The TF-IDF channel sees each term (log tf) plus, for Latin words, the
# character trigrams they contain ("#con", "#onf", ...; present or not) at a
# lower weight, so it also matches typos, compounds and word forms the
# stemmer misses ("roadtrip" vs "road trip", "Feedley" vs "Feedly").  BM25
# sees whole terms only; that difference is what the hybrid is for.

def term_grams(term):
    """Character trigrams of a Latin word term (with ^/$ boundary marks)."""
    if len(term) < 4 or not term.isascii() or not term.isalpha():
        return ()
    padded = "^" + term + "$"
    return tuple("#" + padded[i:i + 3] for i in range(len(padded) - 2))


_GRAM_CACHE = {}


def cached_grams(term):
    return _memo(_GRAM_CACHE, term, term_grams)


def features(terms):
    """The distinct features of some terms: the terms and their trigrams.
    Document frequencies count these."""
    found = set(terms)
    for term in list(found):
        found.update(cached_grams(term))
    return found


_LOG_TF = [0.0] + [1.0 + math.log(n) for n in range(1, 64)]


def log_tf(n):
    """1 + ln(n), the sublinear term frequency of SMART 'l' weighting (0 for 0)."""
    if n.__class__ is int and n < 64:
        return _LOG_TF[n]
    return 1.0 + math.log(n) if n > 0 else 0.0


# --- BM25: the one formula (FTS5's), used by both backends and the ranking -

BM25_K1, BM25_B = 1.2, 0.75  # FTS5's built-in constants


def bm25_idf(n_docs, df):
    """FTS5's BM25 idf, never below a tiny positive floor."""
    idf = math.log((n_docs - df + 0.5) / (df + 0.5))
    return idf if idf > 0 else 1e-6


def bm25_weight(tf, idf, length, avg_length):
    """One term's BM25 contribution to a document of `length` terms."""
    return idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / avg_length))


# --------------------------------------------------------------------------
# Sources: the memory folder and the files in it.
# --------------------------------------------------------------------------

SUITE_DIR = os.path.dirname(os.path.abspath(__file__))
INDEX_DIRNAME = ".memory"
# The suite's own files, skipped when the scripts sit inside the memory folder.
SUITE_SKIP = frozenset(["README.md", "SKILL.md", "CHANGELOG.md", "LICENSE.md",
                        "tests", "examples", "bench", "docs", "data"])

SourceFile = record("SourceFile", "path abspath size mtime_ns")
SourceFile.__doc__ = "A Markdown file found in the memory folder (path is relative, '/'-separated)."


def resolve_memory_dir(arg=None):
    """The memory folder: --dir, else $MEMORY_DIR, else the workspace the
    suite is installed in (see enclosing_workspace; the wrappers say in
    $MEMORY_INSTALL_DIR where they were called from, so a symlinked install
    counts too), else the suite's own folder."""
    if arg is not None and not arg.strip():
        raise StoreError("the memory folder given is empty (--dir '')")
    installed = os.environ.get("MEMORY_INSTALL_DIR")
    raw = (arg or os.environ.get("MEMORY_DIR") or (installed and enclosing_workspace(installed))
           or enclosing_workspace(os.path.realpath(SUITE_DIR)) or SUITE_DIR)
    path = os.path.abspath(os.path.expanduser(raw))
    if not os.path.isdir(path):
        problem = "is not a folder" if os.path.exists(path) else "not found"
        raise StoreError("memory folder %s: %s" % (problem, raw))
    return os.path.realpath(path)


def enclosing_workspace(folder, levels=3):
    """The agent workspace a skill folder is installed in: the nearest of the
    folder and its three parents that holds MEMORY.md or memory/, or whose
    workspace/ does (OpenClaw keeps its skills in ~/.openclaw/skills and its
    memory in ~/.openclaw/workspace).  None if there is none."""
    here = os.path.abspath(folder)  # not realpath: a symlinked install looks where it is linked
    for _ in range(levels + 1):
        for candidate in (here, os.path.join(here, "workspace")):
            if os.path.isfile(os.path.join(candidate, "MEMORY.md")) or \
                    os.path.isdir(os.path.join(candidate, "memory")):
                return candidate
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return None


def file_date(path):
    """The YYYY-MM-DD in a file's name (else its folders), or None."""
    name = path.rsplit("/", 1)[-1]
    for candidate in (name, path):
        for m in _pattern("date").finditer(candidate):
            y, mo, d = (int(g) for g in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return m.group(0)
    return None


def split_lines(text):
    """Lines as an editor numbers them: \\n, \\r\\n and lone \\r all end a line."""
    if "\r" not in text:  # the common case, without a regular expression
        lines = text.split("\n")
    else:
        lines = _pattern("line_break").split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the newline at the end of the last line
    return lines


def mask_private(text):
    """Replace each line of a <private>...</private> block by [private], keeping
    every line break as it was (\n, \r\n or \r), so line numbers stay exact."""
    if "private" not in text.lower():
        return text
    return _pattern("private").sub(lambda m: "".join(
        "[private]" + brk for brk in _pattern("line_break").findall(m.group(0)) + [""]), text)


def read_source(abspath):
    """Read a Markdown file, or a session transcript (.jsonl) as its
    conversation: (text, issue).

    issue is None, 'invalid-utf8' (read with replacement characters),
    'binary' or 'unreadable' (text is None for those two).
    """
    try:
        with open(abspath, "rb") as f:
            data = f.read()
    except OSError:
        return None, "unreadable"
    if b"\0" in data[:8192]:
        return None, "binary"
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text, issue = data.decode("utf-8"), None
    except UnicodeDecodeError:
        text, issue = data.decode("utf-8", errors="replace"), "invalid-utf8"
    if abspath.endswith(".jsonl"):
        return render_transcript(text), issue
    return text, issue


# --- session transcripts: a second, optional source -------------------------

SESSIONS_PREFIX = "sessions/"  # how transcripts are cited: sessions/<file>.jsonl:first-last


def render_transcript(text):
    """An agent's session transcript (JSON Lines, as OpenClaw and Claude Code
    write them) as text with the same line numbers: each user or assistant
    message is one line, 'user: ...' or 'assistant: ...'; tool calls, tool
    results, thinking and everything else are blank lines."""
    import json
    out = []
    for line in split_lines(text):
        try:
            record = json.loads(line) if line.strip() else None
        except ValueError:
            record = None
        out.append(_transcript_line(record) if isinstance(record, dict) else "")
    return "\n".join(out)


def _transcript_line(record):
    message = record.get("message") if isinstance(record.get("message"), dict) else record
    role = message.get("role") or record.get("type")
    if role not in ("user", "assistant") or record.get("isMeta") or record.get("isSidechain"):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        parts = [content]
    elif isinstance(content, list):
        parts = [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    else:
        parts = []
    text = mask_private(" ".join(p for p in parts if isinstance(p, str)))  # before any tag goes
    text = " ".join(_pattern("agent_tags").sub(" ", text).split())
    return "%s: %s" % (role, text) if text else ""


def transcript_date(abspath):
    """The day a transcript starts (its first timestamp), or None."""
    import json
    try:
        with open(abspath, encoding="utf-8", errors="replace") as f:
            for _, line in zip(range(50), f):
                try:
                    stamp = json.loads(line).get("timestamp")
                except (ValueError, AttributeError):
                    continue
                if isinstance(stamp, str) and _pattern("date").match(stamp):
                    return stamp[:10]
    except OSError:
        pass
    return None


def discover_sessions(folder):
    """The transcripts (*.jsonl) under a sessions folder, as SourceFiles cited
    sessions/<path>."""
    files = []
    for dirpath, dirnames, names in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(names):
            if name.endswith(".jsonl") and not name.startswith("."):
                full = os.path.join(dirpath, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                rel = os.path.relpath(full, folder).replace(os.sep, "/")
                files.append(SourceFile(SESSIONS_PREFIX + rel, full, st.st_size, st.st_mtime_ns))
    return files


def is_session(path):
    return path.startswith(SESSIONS_PREFIX) and path.endswith(".jsonl")


def content_hash(data):
    import hashlib  # lazy: costs milliseconds at start-up, needed only on change
    return hashlib.sha1(data.encode("utf-8", "surrogatepass")).hexdigest()


def discover(root, index_dir=None, folders=None):
    """Every memory file under root: (files, problems).

    Skips hidden files and folders, the index folder, the suite's own files
    when the suite lives inside root, other agent skills (folders holding a
    SKILL.md), symlinked folders (no loops), and symlinked files that lead
    outside root.  One stat per Markdown file:
    this runs before every command.  A dict passed as folders receives the
    modification time of every folder read ({path: mtime_ns}): a file added
    or removed changes its folder's.
    """
    import stat as stat_mod
    files, problems = [], []
    index_dir = os.path.realpath(index_dir) if index_dir else None
    suite = os.path.realpath(SUITE_DIR)
    root_prefix = root.rstrip(os.sep) + os.sep
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            if folders is not None:
                folders[folder] = os.stat(folder).st_mtime_ns
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            problems.append((prefix.rstrip("/") or ".", "unreadable"))
            continue
        at_suite = folder == suite
        if folder != root and any(e.name == "SKILL.md" for e in entries) and not at_suite:
            continue  # an agent skill installed in the workspace, not memories
        subfolders = []
        for entry in entries:
            name = entry.name
            if name.startswith(".") or (at_suite and name in SUITE_SKIP):
                continue
            rel = prefix + name
            if not _encodable(name):  # undecodable bytes in the name: cannot be stored or cited
                problems.append((rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                                 "bad-filename"))
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.path != index_dir:
                        subfolders.append((entry.path, rel + "/"))
                    continue
                if not name.lower().endswith(".md"):
                    continue
                if entry.is_symlink() and not os.path.realpath(entry.path).startswith(root_prefix):
                    problems.append((rel, "symlink-outside"))
                    continue
                st = entry.stat()
            except OSError:
                problems.append((rel, "unreadable"))
                continue
            if stat_mod.S_ISREG(st.st_mode):
                files.append(SourceFile(rel, entry.path, st.st_size, st.st_mtime_ns))
        stack.extend(reversed(subfolders))
    return files, problems


def stat_sources(root, paths):
    """SourceFiles of the given memory files (relative paths) that still exist,
    checked as discover checks them."""
    import stat as stat_mod
    out = []
    root_prefix = root.rstrip(os.sep) + os.sep
    for rel in paths:
        full = os.path.join(root, *rel.split("/"))
        try:
            st = os.stat(full)
            if os.path.islink(full) and not os.path.realpath(full).startswith(root_prefix):
                continue
        except OSError:
            continue
        if stat_mod.S_ISREG(st.st_mode):
            out.append(SourceFile(rel, full, st.st_size, st.st_mtime_ns))
    return out


def _encodable(name):
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def check_memory_path(root, rel):
    """The absolute path of a memory file named by a path inside root, or
    StoreError: only what the index would read (no hidden or non-Markdown
    files, nothing outside root)."""
    parts = rel.replace("\\", "/").split("/")
    if any(p.startswith(".") and p not in (".", "..") for p in parts) or not rel.lower().endswith(".md"):
        raise StoreError("not a memory file (a .md file outside hidden folders): %s" % rel)
    return safe_join(root, rel)


def read_memory_lines(root, rel, sessions_dir=None):
    """All lines of a memory file named by a path inside root, or of a
    transcript cited sessions/... (private blocks masked)."""
    if is_session(rel.replace("\\", "/")):
        if not sessions_dir:
            raise StoreError("%s is a session transcript; give the sessions folder (--sessions or "
                             "MEMORY_SESSIONS_DIR)" % rel)
        full = safe_join(os.path.realpath(sessions_dir), rel.replace("\\", "/")[len(SESSIONS_PREFIX):])
    else:
        full = check_memory_path(root, rel)
    if not os.path.isfile(full):
        raise StoreError("no such file in the memory folder: %s" % rel)
    text, issue = read_source(full)
    if text is None:
        raise StoreError("cannot read %s (%s)" % (rel, issue))
    return split_lines(mask_private(text))


def safe_join(root, rel):
    """Resolve a user-given path inside root, or raise StoreError.

    Refuses absolute paths, '..' and symlinks that lead outside the folder.
    """
    if not rel or "\0" in rel:
        raise StoreError("empty or invalid path")
    norm = rel.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm) or ".." in norm.split("/"):
        raise StoreError("path is outside the memory folder: %s" % rel)
    full = os.path.realpath(os.path.join(root, *norm.split("/")))
    if full != root and not full.startswith(root.rstrip(os.sep) + os.sep):
        raise StoreError("path is outside the memory folder: %s" % rel)
    return full


# --------------------------------------------------------------------------
# Chunking
# --------------------------------------------------------------------------

Chunk = record("Chunk", "path ordinal start_line end_line piece heading text hash")
Chunk.__doc__ = ("A bounded piece of one file. Lines are 1-based and inclusive; piece is 0, or "
                 "k >= 1 for the k-th slice of a line too long for one chunk; heading is the "
                 "trail of enclosing headings joined by ' > '; hash identifies its text.")



def cite(path, start_line, end_line):
    """A citation, 'path:first-last': what results print, what their id is,
    and what get, related and timeline accept (besides 'path#n', a chunk)."""
    return "%s:%d-%d" % (path, start_line, end_line)


def parse_reference(text):
    """A place in a memory file as results print it: 'f.md' -> (f.md, None, None);
    'f.md:31-44' or 'f.md:31' -> (f.md, 31, 44); 'f.md#5' -> (f.md, '#', 5).
    A malformed line range or chunk number raises ValueError."""
    m = re.match(r"^(.+\.(?:md|jsonl))([:#])(.*)$", text, re.I | re.S)
    if not m:
        return text, None, None
    path, mark, rest = m.groups()
    if mark == "#":
        if not rest.isdigit():
            raise ValueError("bad chunk id %r (use file.md#N)" % text)
        return path, "#", int(rest)
    r = re.match(r"^(\d+)(?:-(\d+))?$", rest)
    if not r:
        raise ValueError("bad line range %r (use file.md:FIRST-LAST)" % text)
    first, last = int(r.group(1)), int(r.group(2) or r.group(1))
    if first < 1 or last < first:
        raise ValueError("line range %r ends before it starts" % text if last < first
                         else "lines start at 1: %r" % text)
    return path, first, last


def is_heading(line):
    """Whether a line is a Markdown ATX heading ('## Title', not '#tag')."""
    return line.lstrip(" ")[:1] == "#" and _pattern("heading").match(line) is not None


def ranges_overlap(a_start, a_end, b_start, b_end, gap=0):
    """Whether two line ranges overlap, or lie within gap lines of each other."""
    return a_start <= b_end + gap and b_start <= a_end + gap


def content_lines(lines):
    """Indexes of the lines worth showing: not blank, not headings (if any
    such line exists; else the non-blank ones)."""
    shown = [i for i, l in enumerate(lines) if l.strip() and not is_heading(l)]
    return shown or [i for i, l in enumerate(lines) if l.strip()]


def chunk_markdown(path, text, params=DEFAULT_PARAMS):
    """Cut one file's text into chunks.

    A heading starts a new chunk (a heading with nothing under it stays with
    the section that follows); a long section becomes windows of at most
    chunk_lines lines / chunk_chars characters that overlap by chunk_overlap
    lines; a single line longer than chunk_chars is cut into pieces that
    share its line number.  Blank lines never start or end a chunk.
    """
    return chunk_split_lines(path, split_lines(mask_private(text)), params)


def chunk_split_lines(path, lines, params=DEFAULT_PARAMS):
    """chunk_markdown for lines already split and masked."""
    chunks = []
    for start, end, trail in _sections(lines):
        for s, e, piece, text in _windows(lines, start, end, params):
            chunks.append(Chunk(path, len(chunks), s + 1, e, piece, " > ".join(trail), text,
                                content_hash(text)[:16]))
    return chunks


def _sections(lines):
    """(start, end, heading trail) of each section; end is exclusive.

    Headings inside fenced code blocks do not count.  A heading with no
    content under it joins the section that follows, so "# 2026-02-20"
    followed by "## 博客RSS配置" is one section headed "2026-02-20 > 博客RSS配置".
    """
    sections, trail, start_trail = [], [], []
    start, has_content, fence = 0, False, None
    for i, line in enumerate(lines):
        marker = _pattern("fence").match(line) if line.lstrip(" ")[:1] in ("`", "~") else None
        if marker:
            run = marker.group(1)  # a fence closes with the same character, at least as many
            if fence is None:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip()[len(run):]:
                fence = None
            has_content = True
            continue
        heading = None if fence or line.lstrip(" ")[:1] != "#" else _pattern("heading").match(line)
        if heading:
            if has_content:
                sections.append((start, i, start_trail))
                start, has_content = i, False
            level = len(heading.group(1))
            trail = [t for t in trail if t[0] < level] + [(level, (heading.group(2) or "").strip())]
            start_trail = [title for _, title in trail if title]
        elif line.strip():
            has_content = True
    sections.append((start, len(lines), start_trail))
    return sections


def _windows(lines, start, end, params):
    """Bounded, overlapping windows of lines[start:end]: (s, e_exclusive, piece, text)."""
    max_lines, overlap, max_chars = params.chunk_lines, params.chunk_overlap, params.chunk_chars
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    i = start
    while i < end:
        if len(lines[i]) > max_chars:  # one huge line: cut it, same line number
            for k, piece in enumerate(line_pieces(lines[i], max_chars), 1):
                yield i, i + 1, k, piece
            i = _next_content(lines, i + 1, end)
            continue
        j, size = i, 0
        while j < end and j - i < max_lines and len(lines[j]) <= max_chars \
                and (j == i or size + len(lines[j]) <= max_chars):
            size += len(lines[j]) + 1
            j += 1
        e = j
        while e > i + 1 and not lines[e - 1].strip():
            e -= 1
        yield i, e, 0, "\n".join(lines[i:e])
        if j >= end:
            break
        if len(lines[j]) > max_chars:
            i = j
        else:  # overlap, but never more than half the window
            i = _next_content(lines, max(i + 1, j - min(overlap, (j - i) // 2)), end)


def line_pieces(line, max_chars):
    """A line too long for one chunk, cut into pieces of max_chars."""
    return [line[k:k + max_chars] for k in range(0, len(line), max_chars)]


def _next_content(lines, i, end):
    while i < end and not lines[i].strip():
        i += 1
    return i


# --------------------------------------------------------------------------
# Records: what the index stores and returns
# --------------------------------------------------------------------------

StoredChunk = record("StoredChunk", "key path ordinal start_line end_line heading date text hash "
                                    "units head_units length norm_terms n_grams")
StoredChunk.__doc__ = ("A chunk as the index returns it: key is the backend's row key, text the "
                       "chunk's lines as written (private blocks masked), date the file's; units "
                       "the analysed units of each line (a tuple) and head_units its heading's; "
                       "length its index terms (BM25's length); norm_terms and n_grams make its "
                       "vector length (see vector_norm).")
FileState = record("FileState", "size mtime_ns hash")
FileState.__doc__ = "What the index remembers of a file: its stat and content hash."
SyncReport = record("SyncReport", "added updated removed unchanged problems")
SyncReport.__doc__ = "What a sync did: lists of paths, and (path, issue) pairs."
Filters = record("Filters", "since until path_glob dated_only source", defaults=(None, None, None, False, None))
Filters.__doc__ = ("Which files a search may return: dates (YYYY-MM-DD), a path glob, dated only, "
                   "and the source ('memory' or 'sessions'; None for both).")

BLOCK_LINES = 8  # the index keeps each file's lines once, in compressed blocks of lines


def glob_matches(pattern, path):
    """--path semantics: a glob (* ? [..]); without wildcards, a file or folder prefix."""
    if not any(c in pattern for c in "*?["):
        p = pattern.strip("/")
        return path == p or path.startswith(p + "/")
    import fnmatch
    return fnmatch.fnmatchcase(path, pattern)


def passes(filters, date, path):
    """Whether a file (its date, or None, and path) passes the filters.  The
    one definition: the JSON backend calls it, SQLite calls it from SQL."""
    if filters is None:
        return True
    if filters.source and (filters.source == "sessions") != is_session(path):
        return False
    if date is None:
        if filters.dated_only:
            return False
    else:
        if filters.since and date < filters.since:
            return False
        if filters.until and date > filters.until:
            return False
    return not filters.path_glob or glob_matches(filters.path_glob, path)


def has_filters(filters):
    return filters is not None and any(filters)


def plan_sync(known, found):
    """Compare stored files {path: FileState} with found SourceFiles.

    Returns (changed, removed, unchanged): changed are SourceFiles whose size
    or mtime differ (the caller hashes them), removed are stored paths gone.
    """
    changed, unchanged = [], []
    seen = set()
    for f in found:
        seen.add(f.path)
        old = known.get(f.path)
        if old and old.size == f.size and old.mtime_ns == f.mtime_ns:
            unchanged.append(f.path)
        else:
            changed.append(f)
    removed = [p for p in known if p not in seen]
    return changed, removed, unchanged


# --- preparing a file for the index ----------------------------------------

ChunkTerms = record("ChunkTerms", "body head length features norm_terms n_grams")
ChunkTerms.__doc__ = ("What the index keeps of a chunk's terms: body and head are its index terms "
                      "(space-joined, for the keyword index), length how many; features the "
                      "distinct terms and trigrams (document frequencies count them); norm_terms "
                      "the sum of squared log tf and n_grams the trigram count (its vector length).")
IndexedChunk = record("IndexedChunk", "chunk units head_units terms")
IndexedChunk.__doc__ = "A Chunk with its lines' analysed units, its heading's, and its ChunkTerms."
AnalysedFile = record("AnalysedFile", "digest issue lines units chunks df date")
AnalysedFile.__doc__ = ("A file ready for the index: its hash, any read issue, its masked lines and "
                        "their analysed units, its IndexedChunks, how many of its chunks hold each "
                        "feature, and its date.  chunks is None when the content still has the "
                        "known hash (touched, not changed).")


def chunk_terms(line_units, head_units, expanded=None):
    """ChunkTerms from a chunk's analysed units.  Deleting a chunk from the
    keyword index repeats what was inserted, derived again from the stored
    units, so this must stay a pure function of its arguments.  expanded, a
    dict shared by the chunks of one file, expands each line once (chunks
    overlap)."""
    cache = {} if expanded is None else expanded
    if len(cache) > 512:  # overlap only ever reuses the last chunk's lines
        cache.clear()
    counts, body = Counter(), []
    for units in line_units:
        terms = cache.get(units)
        if terms is None:
            terms = cache[units] = (expand(units), expand(units, False))
        counts.update(terms[0])
        body.extend(terms[1])
    head = expand(head_units, False)
    counts.update(expand(head_units))
    grams = set()
    for t in counts:
        grams.update(cached_grams(t))
    norm_terms = sum(log_tf(n) ** 2 for n in counts.values())
    return ChunkTerms(" ".join(body), " ".join(head), len(body) + len(head),
                      grams.union(counts), norm_terms, len(grams))


def vector_norm(norm_terms, n_grams, gram_weight):
    """A chunk's vector length: log-tf terms, trigrams at gram_weight."""
    return math.sqrt(norm_terms + gram_weight * gram_weight * n_grams) or 1.0


def analyse_file(f, df=None, known_hash=None, params=DEFAULT_PARAMS):
    """Read, chunk and analyse one SourceFile (in a worker process for big
    syncs); df counts the chunks holding each feature (pass a Counter to add
    to it).  A file whose content still has known_hash is not analysed."""
    text, issue = read_source(f.abspath)
    df = Counter() if df is None else df
    date = transcript_date(f.abspath) if is_session(f.path) else file_date(f.path)
    if text is None:
        return AnalysedFile(None, issue, [], [], [], df, date)
    digest = content_hash(text)
    if digest == known_hash:
        return AnalysedFile(digest, issue, None, None, None, df, date)
    lines = split_lines(mask_private(text))
    units = [analyse(line) for line in lines]
    out, expanded, headings = [], {}, {}
    for chunk in chunk_split_lines(f.path, lines, params):
        line_units = chunk_units(units, chunk, params)
        head_units = headings.get(chunk.heading)
        if head_units is None:
            head_units = headings[chunk.heading] = analyse(chunk.heading)
        terms = chunk_terms(line_units, head_units, expanded)
        out.append(IndexedChunk(chunk, line_units, head_units, terms))
        df.update(terms.features)
    return AnalysedFile(digest, issue, lines, units, out, df, date)


def chunk_text(lines, start_line, end_line, piece, params):
    """A stored chunk's text from its file's lines (the inverse of chunking)."""
    if piece:
        return line_pieces(lines[start_line - 1], params.chunk_chars)[piece - 1]
    return "\n".join(lines[start_line - 1:end_line])


def chunk_units(units, chunk, params):
    """A chunk's analysed units, one per line, from its file's (a piece of a
    long line is analysed on its own)."""
    if chunk.piece:
        return (analyse(chunk.text),)
    return tuple(units[chunk.start_line - 1:chunk.end_line])


def _quiet_worker():
    """A worker's errors reach the parent through the pool; its own stderr would
    only print broken-pipe tracebacks if the parent were killed."""
    sys.stderr = open(os.devnull, "w")


def _analyse_batch(tasks, params):
    """Worker task: several (SourceFile, known hash), with one document-frequency
    Counter for all of them (merging one Counter per file in the parent cost
    seconds)."""
    df = Counter()
    results = [analyse_file(f, df, known, params)._replace(df=None) for f, known in tasks]
    return results, df


PARALLEL_BYTES = 4 * 1024 * 1024  # changed Markdown above this is analysed in parallel
PARALLEL_BATCH = 32               # files handed out at a time (bounds memory)


def _pipelined(pool, tasks, in_flight, params):
    """Batches of (file, known hash) through the pool, in order, with a bounded
    number in flight so results never pile up in memory."""
    from collections import deque
    batches = iter([tasks[i:i + PARALLEL_BATCH] for i in range(0, len(tasks), PARALLEL_BATCH)])
    pending = deque()
    for batch in batches:
        pending.append((batch, pool.apply_async(_analyse_batch, (batch, params))))
        if len(pending) >= in_flight:
            break
    while pending:
        batch, result = pending.popleft()
        results, df = result.get()
        following = next(batches, None)
        if following is not None:
            pending.append((following, pool.apply_async(_analyse_batch, (following, params))))
        for (f, _), analysed in zip(batch, results):
            yield f, analysed
        yield None, df  # the batch's document frequencies


def analyse_files(tasks, params=DEFAULT_PARAMS, parallel_bytes=None):
    """(SourceFile, AnalysedFile) for each (SourceFile, known hash), in order;
    across worker processes when there is enough to do and more than one core,
    else in this process.  From workers, each batch ends with (None, Counter):
    the batch's document frequencies, which its AnalysedFiles leave out."""
    workers = min(os.cpu_count() or 1, 4)
    threshold = PARALLEL_BYTES if parallel_bytes is None else parallel_bytes
    if workers > 1 and sum(f.size for f, _ in tasks) > threshold:
        try:
            import multiprocessing
            methods = multiprocessing.get_all_start_methods()
            # never fork: the parent holds an open SQLite transaction
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            pool = ctx.Pool(workers, initializer=_quiet_worker)
        except (ImportError, OSError, ValueError):
            pool = None  # no process support here (some sandboxes): analyse serially
        if pool is not None:
            with pool:
                for item in _pipelined(pool, tasks, workers * 2, params):
                    yield item
            return
    for f, known in tasks:
        yield f, analyse_file(f, known_hash=known, params=params)


def _batched(values, size=500):
    """values in lists of at most size (SQLite limits the parameters of a statement)."""
    values = list(values)
    for i in range(0, len(values), size):
        yield values[i:i + size]


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%S")


# --------------------------------------------------------------------------
# The backend contract
# --------------------------------------------------------------------------
# A backend keeps, for each memory file: its stat, content hash, read issue,
# date and masked text; for each chunk: file, ordinal, line range, piece,
# heading trail and text hash; a keyword index over the chunks' index_terms
# (body and heading columns, BM25 as FTS5 computes it); the document
# frequency of every feature (scoring terms and trigrams); the totals BM25
# needs; its metadata (schema version, settings, times); and the linker's
# tables (LinkTables).  Both backends implement:
#
#   open() / close()           open() raises IndexDamaged for a file that is
#                              unreadable or not an index of ours, and starts
#                              afresh (with a warning) when the index was
#                              built by another schema or other settings
#   known_files()              {path: FileState}
#   file_issues()              [(path, issue)]
#   chunk_count(), total_terms()
#   doc_freqs(terms)           {term: df} for the terms the index holds
#   keyword(terms, limit, filters, require_all, prefixes) -> [(key, bm25)]
#   fetch(keys)                {key: StoredChunk}
#   chunks_of(path)            [StoredChunk] in order
#   file_dates()               {path: date or None}
#   writer(rebuild)            a context manager: remove(path), put(file,
#                              AnalysedFile), touch(file), count_features(df);
#                              all or nothing
#   snapshot()                 a context manager: every read inside it sees
#                              one committed index, whatever writers commit
#                              meanwhile (a rebuild renumbers files and chunks)
#   links                      LinkTables
#   stats(), files_on_disk(), backup_to(path), meta(key), set_meta(key, value)
#
# Errors: IndexDamaged as above (the store moves the files aside and
# rebuilds); StoreError for what a user can act on; anything else is a bug.
# --------------------------------------------------------------------------

SCHEMA_VERSION = 8
BUSY_TIMEOUT_MS = 10000
FTS_TOKENCHARS = "-_.:/@+"  # connectors the tokenizer keeps inside codes

_SQLITE_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, size INTEGER,
                   mtime_ns INTEGER, hash TEXT, issue TEXT, date TEXT, headings BLOB);
CREATE TABLE blocks(id INTEGER PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE chunks(id INTEGER PRIMARY KEY, file INTEGER NOT NULL, ordinal INTEGER NOT NULL,
                    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, piece INTEGER NOT NULL,
                    heading INTEGER NOT NULL, hash TEXT, length INTEGER NOT NULL,
                    norm_terms REAL NOT NULL, n_grams INTEGER NOT NULL);
CREATE UNIQUE INDEX chunks_by_file ON chunks(file, ordinal);
CREATE VIRTUAL TABLE fts USING fts5(body, head, content='',
    tokenize="unicode61 remove_diacritics 0 tokenchars '{tokenchars}'");
INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(1.0, {heading_weight})');
CREATE VIRTUAL TABLE fts_vocab USING fts5vocab(fts, 'row');
CREATE TABLE terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
"""
_SQLITE_TABLES = ("meta", "files", "blocks", "chunks", "fts", "fts_vocab", "terms")


def _df_from_keyword_index(feature):
    """Whether the keyword index itself counts a feature's chunks (FTS5 knows
    the document frequency of the terms it holds); the rest (CJK unigrams,
    trigrams) are counted in the terms table."""
    return not feature.startswith("#") and not (len(feature) == 1 and _is_cjk_char(feature))
_CHUNK_COLUMNS = ("c.id, f.path, c.ordinal, c.start_line, c.end_line, c.heading, f.date, c.hash, "
                  "f.headings, c.length, c.norm_terms, c.n_grams, c.file, c.piece")
_BLOCK_KEY = 1 << 24  # a block's row id: file id * _BLOCK_KEY + block number


def _pack_block(lines, units):
    """BLOCK_LINES lines and their analysed units, compressed together: a CJK
    run repeats the text, so zlib stores it almost for free."""
    import zlib
    data = "\n".join(lines) + "\0" + "\n".join(units)
    return zlib.compress(data.encode("utf-8", "surrogatepass"), 6)


def _unpack_block(blob):
    """(lines, units) of a block."""
    import zlib
    text, units = zlib.decompress(blob).decode("utf-8", "surrogatepass").rsplit("\0", 1)
    return text.split("\n"), units.split("\n")


def _pack_headings(pairs):
    """A file's distinct heading trails with their units, stored once per file
    (a chunk names its trail by position)."""
    import zlib
    return zlib.compress("\n".join("%s\0%s" % pair for pair in pairs).encode("utf-8", "surrogatepass"), 6)


def _unpack_headings(blob):
    import zlib
    return [tuple(item.split("\0")) for item in zlib.decompress(blob).decode("utf-8", "surrogatepass").split("\n")]


def sqlite_unavailable_reason():
    """None when sqlite3 with FTS5 works here, else why not."""
    try:
        import sqlite3
    except ImportError:
        return "the sqlite3 module is not available"
    try:
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
        conn.close()
    except Exception:
        return "this SQLite (%s) has no FTS5" % sqlite3.sqlite_version
    return None


class NoFts5(Exception):
    """This SQLite cannot do full-text search: use the JSON backend."""


class SqliteBackend:
    """The default index: one SQLite file, WAL mode, one transaction per sync."""

    name = "sqlite-fts5"
    filename = "index.sqlite3"

    def __init__(self, index_dir, params=DEFAULT_PARAMS, warn=None):
        import sqlite3
        self.sqlite3 = sqlite3
        self.path = os.path.join(index_dir, self.filename) if index_dir else ":memory:"
        self.params = params
        self.settings = index_settings(params)
        self.warn = warn or (lambda msg: None)
        self.conn = None
        self.links = SqliteLinks(self)
        self.vectors = SqliteVectors(self)

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        try:
            conn = self.sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000.0,
                                        isolation_level=None, check_same_thread=False)
        except self.sqlite3.OperationalError as exc:
            raise StoreError("cannot open the index %s: %s" % (self.path, exc))
        self.conn = conn
        try:
            conn.execute("PRAGMA busy_timeout=%d" % BUSY_TIMEOUT_MS)
            version, settings = self._stamp()
            if version != SCHEMA_VERSION or settings != self.settings:
                if version is not None:
                    why = ("its format is from another version of the suite" if version != SCHEMA_VERSION
                           else "its settings changed (%s)" % settings_change(settings, self.settings))
                    self.warn("rebuilding the index: %s" % why)
                _retry_while_locked(self._create_schema, self.sqlite3)
            self._check_tables()
            conn.execute("PRAGMA synchronous=NORMAL")
        except self.sqlite3.DatabaseError as exc:
            self.close()
            if "fts5" in str(exc).lower():
                raise NoFts5(str(exc))
            if self.is_corruption(exc):
                raise IndexDamaged(str(exc))
            raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def is_corruption(self, exc):
        """Whether an SQLite error means the file itself is damaged (not busy, not a bug)."""
        if not isinstance(exc, self.sqlite3.DatabaseError):
            return False
        msg = str(exc).lower()
        return any(w in msg for w in ("malformed", "not a database", "file is encrypted", "corrupt"))

    def files_on_disk(self):
        return [self.path + s for s in ("", "-wal", "-shm")] if self.path != ":memory:" else []

    def _stamp(self):
        """(schema version, settings) recorded in the index; (None, None) for an empty
        file.  A file with tables but no stamp of ours is not our index: damaged."""
        try:
            rows = dict(self.conn.execute(
                "SELECT key, value FROM meta WHERE key IN ('schema_version', 'settings')"))
        except self.sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
            tables = self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise IndexDamaged("not a memory index (no meta table)")
            return None, None
        if "schema_version" not in rows:
            raise IndexDamaged("not a memory index (no schema version)")
        return int(rows["schema_version"]), rows.get("settings")

    def _check_tables(self):
        present = {name for name, in self.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        missing = [t for t in _SQLITE_TABLES if t not in present]
        if missing:
            raise IndexDamaged("the index lacks its %s table" % missing[0])
        self.conn.execute("SELECT rowid FROM fts LIMIT 0")  # fails here if this SQLite has no FTS5

    def _create_schema(self):
        conn = self.conn
        if self.path != ":memory:":
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")  # takes effect in a new file
            conn.execute("PRAGMA journal_mode=WAL")
        with _WriteTransaction(conn):
            version, settings = self._stamp()
            if version == SCHEMA_VERSION and settings == self.settings:  # another process won the race
                return
            _drop_everything(conn)
            schema = _SQLITE_SCHEMA.format(tokenchars=FTS_TOKENCHARS, heading_weight=self.params.heading_weight)
            for statement in schema.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany("INSERT INTO meta VALUES(?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("settings", self.settings),
                ("chunk_count", "0"), ("total_terms", "0"), ("created", _now()), ("last_sync", "")])

    # --- reads -------------------------------------------------------------
    def meta(self, key):
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key, value):
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (key, value))

    def known_files(self):
        return {p: FileState(s, m, h) for p, s, m, h in
                self.conn.execute("SELECT path, size, mtime_ns, hash FROM files")}

    def file_dates(self):
        return dict(self.conn.execute("SELECT path, date FROM files"))

    def chunk_count(self):
        return int(self.meta("chunk_count") or 0)

    def total_terms(self):
        """Index terms in all chunks: BM25's average length is this / chunks."""
        return int(self.meta("total_terms") or 0)

    def doc_freqs(self, terms):
        out = {}
        indexed = [t for t in terms if _df_from_keyword_index(t)]
        counted = [t for t in terms if not _df_from_keyword_index(t)]
        for table, column, wanted in (("fts_vocab", "doc", indexed), ("terms", "df", counted)):
            for part in _batched(wanted):
                out.update(self.conn.execute("SELECT term, %s FROM %s WHERE term IN (%s)"
                                             % (column, table, ",".join("?" * len(part))), part))
        return out

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """BM25 over the FTS5 index: [(key, score)], score positive, best first.
        Chunks holding any of the terms (or words starting with a prefix), or
        with require_all, every term."""
        phrases = ['"%s"' % t.replace('"', '""') for t in terms]
        phrases += ['"%s"*' % p.replace('"', '""') for p in prefixes]
        if not phrases:
            return []
        match = (" AND " if require_all else " OR ").join(phrases)
        sql = "SELECT fts.rowid, -fts.rank FROM fts"
        args = [match]
        if has_filters(filters):
            self.conn.create_function("passes", 2, lambda date, path: passes(filters, date, path))
            sql += " JOIN chunks c ON c.id = fts.rowid JOIN files f ON f.id = c.file " \
                   "WHERE fts MATCH ? AND passes(f.date, f.path)"
        else:
            sql += " WHERE fts MATCH ?"
        return self.conn.execute(sql + " ORDER BY fts.rank LIMIT ?", args + [limit]).fetchall()

    def fetch(self, keys):
        """{key: StoredChunk} for the given keys."""
        rows = []
        with self.snapshot():  # chunk rows and their blocks from one commit
            for part in _batched(keys):
                rows.extend(self.conn.execute(
                    "SELECT %s FROM chunks c JOIN files f ON f.id = c.file WHERE c.id IN (%s)"
                    % (_CHUNK_COLUMNS, ",".join("?" * len(part))), part))
            return {r[0]: r for r in self._with_text(rows)}

    def chunks_of(self, path):
        with self.snapshot():
            rows = self.conn.execute("SELECT %s FROM chunks c JOIN files f ON f.id = c.file WHERE f.path=? "
                                     "ORDER BY c.ordinal" % _CHUNK_COLUMNS, (path,)).fetchall()
            return self._with_text(rows)

    def snapshot(self):
        """Reads inside see one committed index (a read transaction); nests."""
        return _ReadTransaction(self.conn)

    def _with_text(self, rows):
        """StoredChunks for chunk rows, their lines and units read from the file's blocks."""
        wanted = {}
        for r in rows:
            first, last = (r[3] - 1) // BLOCK_LINES, (r[4] - 1) // BLOCK_LINES
            lo, hi = wanted.get(r[12], (first, last))
            wanted[r[12]] = (min(lo, first), max(hi, last))
        lines, headings = {}, {}
        for file_id, (lo, hi) in wanted.items():
            base = file_id * _BLOCK_KEY
            for key, blob in self.conn.execute("SELECT id, data FROM blocks WHERE id BETWEEN ? AND ?",
                                               (base + lo, base + hi)):
                first = (key - base) * BLOCK_LINES + 1
                for i, line in enumerate(zip(*_unpack_block(blob))):
                    lines[(file_id, first + i)] = line
        out = []
        for (key, path, ordinal, start, end, heading, date, digest, trails, length, norm_terms,
             n_grams, file_id, piece) in rows:
            if file_id not in headings:
                headings[file_id] = _unpack_headings(trails)
            heading, head_units = headings[file_id][heading]
            if piece:
                text = line_pieces(lines.get((file_id, start), ("", ""))[0], self.params.chunk_chars)[piece - 1]
                units = (analyse(text),)
            else:
                got = [lines.get((file_id, n), ("", "")) for n in range(start, end + 1)]
                text, units = "\n".join(g[0] for g in got), tuple(g[1] for g in got)
            out.append(StoredChunk(key, path, ordinal, start, end, heading, date, text, digest,
                                   units, head_units, length, norm_terms, n_grams))
        return out

    def file_issues(self):
        return list(self.conn.execute(
            "SELECT path, issue FROM files WHERE issue IS NOT NULL ORDER BY path"))

    def stats(self):
        n_files = self.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": n_files, "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self.meta("last_sync") or None, "schema_version": SCHEMA_VERSION}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        """The one way to change the index: a transaction (see _SqliteWriter)."""
        return _SqliteWriter(self, rebuild)

    def backup_to(self, dest):
        target = self.sqlite3.connect(dest)
        try:
            self.conn.backup(target)
        finally:
            target.close()


class _ReadTransaction:
    """A read transaction on a connection (none for None); an inner one
    joins the outer."""

    def __init__(self, conn):
        self.conn, self.began = conn, False

    def __enter__(self):
        if self.conn is not None and not self.conn.in_transaction:
            self.conn.execute("BEGIN")
            self.began = True
        return self

    def __exit__(self, *exc):
        try:
            if self.began and self.conn.in_transaction:
                self.conn.execute("COMMIT")
        except Exception:  # the store closed or replaced the connection meanwhile (recovery)
            pass
        return False


class _WriteTransaction:
    """BEGIN IMMEDIATE (waits for, then excludes, other writers) ... COMMIT;
    ROLLBACK when the block or the COMMIT fails."""

    def __init__(self, conn):
        self.conn = conn

    def __enter__(self):
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, *exc):
        try:
            if exc_type is None:
                self.conn.execute("COMMIT")
        finally:
            if self.conn.in_transaction:  # the block failed, or the COMMIT did
                self.conn.execute("ROLLBACK")
        return False


class _SqliteWriter:
    """One write transaction over the index, fed file by file so a big build
    never holds more than one file's analysis in memory.  BEGIN IMMEDIATE
    waits for (and then excludes) other writers; readers keep seeing the last
    committed index until COMMIT, and an error rolls everything back."""

    def __init__(self, backend, rebuild):
        self.backend, self.conn, self.rebuild = backend, backend.conn, rebuild
        self.df_delta, self.terms_delta = Counter(), 0

    def __enter__(self):
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        if self.rebuild:
            conn.execute("INSERT INTO fts(fts) VALUES('delete-all')")
            for table in ("chunks", "blocks", "files", "terms"):
                conn.execute("DELETE FROM %s" % table)
            conn.execute("UPDATE meta SET value='0' WHERE key='total_terms'")
        self.next_chunk = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        self.next_file = (conn.execute("SELECT max(id) FROM files").fetchone()[0] or 0) + 1
        return self

    def known_files(self):
        return self.backend.known_files()

    def remove(self, path):
        """Remove a file: its chunks' keyword rows are deleted by repeating
        exactly what was indexed, derived again from the stored text."""
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
        if row is None:
            return
        expanded = {}
        for chunk in self.backend.chunks_of(path):
            terms = chunk_terms(chunk.units, chunk.head_units, expanded)
            conn.execute("INSERT INTO fts(fts, rowid, body, head) VALUES('delete', ?, ?, ?)",
                         (chunk.key, terms.body, terms.head))
            self.df_delta.subtract(terms.features)
            self.terms_delta -= terms.length
        conn.execute("DELETE FROM chunks WHERE file=?", (row[0],))
        conn.execute("DELETE FROM blocks WHERE id BETWEEN ? AND ?", (row[0] * _BLOCK_KEY, (row[0] + 1) * _BLOCK_KEY - 1))
        conn.execute("DELETE FROM files WHERE id=?", (row[0],))

    def put(self, f, analysed):
        """Replace a file's chunks with an AnalysedFile; its chunks are written in
        batches, so a huge file never sits in memory as SQL rows too."""
        self.remove(f.path)
        conn = self.conn
        file_id, self.next_file = self.next_file, self.next_file + 1
        trails = {}
        for item in analysed.chunks:
            trails.setdefault(item.chunk.heading, (len(trails), item.head_units))
        conn.execute("INSERT INTO files VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                     (file_id, f.path, f.size, f.mtime_ns, analysed.digest, analysed.issue, analysed.date,
                      _pack_headings([(trail, units) for trail, (_, units) in trails.items()])))
        lines, units = analysed.lines, analysed.units
        conn.executemany("INSERT INTO blocks VALUES(?, ?)", (
            (file_id * _BLOCK_KEY + b, _pack_block(lines[b * BLOCK_LINES:(b + 1) * BLOCK_LINES],
                                                   units[b * BLOCK_LINES:(b + 1) * BLOCK_LINES]))
            for b in range((len(lines) + BLOCK_LINES - 1) // BLOCK_LINES)))
        chunk_rows, fts_rows = [], []
        for item in analysed.chunks:
            c, t = item.chunk, item.terms
            chunk_rows.append((self.next_chunk, file_id, c.ordinal, c.start_line, c.end_line, c.piece,
                               trails[c.heading][0], c.hash, t.length, t.norm_terms, t.n_grams))
            fts_rows.append((self.next_chunk, t.body, t.head))
            self.next_chunk += 1
            self.terms_delta += t.length
            if len(chunk_rows) >= 1000:
                self._insert(chunk_rows, fts_rows)
        self._insert(chunk_rows, fts_rows)
        if analysed.df is not None:
            self.df_delta.update(analysed.df)

    def _insert(self, chunk_rows, fts_rows):
        self.conn.executemany("INSERT INTO chunks VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk_rows)
        self.conn.executemany("INSERT INTO fts(rowid, body, head) VALUES(?, ?, ?)", fts_rows)
        del chunk_rows[:], fts_rows[:]

    def count_features(self, df):
        """Document frequencies of a batch of files put() without theirs."""
        self.df_delta.update(df)

    def touch(self, f):
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (f.size, f.mtime_ns, f.path))

    def __exit__(self, exc_type, exc, tb):
        conn = self.conn
        if exc_type is not None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        try:
            self._apply_df()
            count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            total = self.backend.total_terms() + self.terms_delta
            conn.executemany("UPDATE meta SET value=? WHERE key=?",
                             [(str(count), "chunk_count"), (str(total), "total_terms"), (_now(), "last_sync")])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._release_free_pages()
        return False

    def _release_free_pages(self):
        """Give back the pages a big change freed (FTS5 merges leave many)."""
        free = self.conn.execute("PRAGMA freelist_count").fetchone()[0]
        if free > 64 and free * 10 > self.conn.execute("PRAGMA page_count").fetchone()[0]:
            try:
                for _ in range(free):  # Python's sqlite3 frees one page per call
                    self.conn.execute("PRAGMA incremental_vacuum")
            except self.backend.sqlite3.OperationalError:
                pass  # busy: the next sync tries again

    def _apply_df(self):
        changes = [(n, t) for t, n in self.df_delta.items() if n and not _df_from_keyword_index(t)]
        self.conn.executemany("INSERT OR IGNORE INTO terms VALUES(?, 0)", [(t,) for _, t in changes])
        self.conn.executemany("UPDATE terms SET df = df + ? WHERE term = ?", changes)
        self.conn.execute("DELETE FROM terms WHERE df <= 0")


def _retry_while_locked(fn, sqlite3, seconds=BUSY_TIMEOUT_MS / 1000.0):
    """Run fn, retrying while another process holds the database: switching
    to WAL mode can report 'locked' at once instead of waiting."""
    deadline = time.time() + seconds
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.time() > deadline:
                raise
            time.sleep(0.05)


def _drop_everything(conn):
    """Drop every table of an older schema (virtual tables first: they own shadows)."""
    listing = "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
    for name, in conn.execute(listing + " AND sql LIKE 'CREATE VIRTUAL%'").fetchall():
        conn.execute('DROP TABLE IF EXISTS "%s"' % name.replace('"', '""'))
    for name, in conn.execute(listing).fetchall():
        conn.execute('DROP TABLE IF EXISTS "%s"' % name.replace('"', '""'))


# --------------------------------------------------------------------------
# JSON backend: the same information in plain files, for Pythons without
# sqlite3 or FTS5 (or MEMORY_BACKEND=json).  A query reads only what it
# needs:
#   index.json          the files and chunk records (small: no text)
#   text-<gen>.txt      each file's masked lines and their units; index.json
#                       holds each file's byte range, so a chunk's text is
#                       one seek and read
#   terms-<gen>.txt     one sorted line per feature, "term<TAB>df<TAB>postings"
#                       (postings "key:body_tf:head_tf ..."), looked up by
#                       binary search in a memory map, never parsed whole
# BM25 is FTS5's formula, so both backends rank alike.  A write creates the
# next generation's files, then replaces index.json, which names them, then
# removes the old ones: a reader never mixes generations (it retries when a
# writer removed its generation under it).
# --------------------------------------------------------------------------

JSON_CHUNK_FIELDS = ("key", "path", "ordinal", "start_line", "end_line", "piece", "heading", "head_units",
                     "hash", "length", "norm_terms", "n_grams")
JsonChunk = record("JsonChunk", JSON_CHUNK_FIELDS)
JsonChunk.__doc__ = "A chunk record of the JSON index (the fields of StoredChunk it stores)."


class SortedLines:
    """Lines "key<TAB>..." sorted by key, in a bytes-like buffer (a memory
    map, or bytes): found by binary search, so a lookup reads a few lines."""

    def __init__(self, buf):
        self.buf = buf

    def _bounds(self, pos):
        """(start, end) of the line holding byte pos."""
        buf = self.buf
        start = buf.rfind(b"\n", 0, pos) + 1
        end = buf.find(b"\n", pos)
        return start, (len(buf) if end < 0 else end)

    def _key(self, start, end):
        tab = self.buf.find(b"\t", start, end)
        return self.buf[start:tab if tab >= 0 else end]

    def lower_bound(self, key):
        """The offset of the first line whose key is >= key."""
        lo, hi = 0, len(self.buf)
        while lo < hi:
            start, end = self._bounds((lo + hi) // 2)
            if start < lo:  # the middle fell in a line before lo: move to the next line
                start, end = self._bounds(lo)
            if self._key(start, end) < key:
                lo = end + 1
            else:
                hi = start
        return lo

    def get(self, key):
        """The fields of the line with this key (after it), or None."""
        key = key.encode("utf-8", "surrogatepass")
        at = self.lower_bound(key)
        if at >= len(self.buf):
            return None
        start, end = self._bounds(at)
        if self._key(start, end) != key:
            return None
        return self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")[1:]

    def starting_with(self, prefix):
        """[(key, fields)] of the lines whose key starts with prefix."""
        prefix_bytes = prefix.encode("utf-8", "surrogatepass")
        at, out = self.lower_bound(prefix_bytes), []
        while at < len(self.buf):
            start, end = self._bounds(at)
            if not self.buf[start:end].startswith(prefix_bytes):
                break
            key, *fields = self.buf[start:end].decode("utf-8", "surrogatepass").split("\t")
            out.append((key, fields))
            at = end + 1
        return out


def _map_file(path):
    """A read-only memory map of a file (bytes for an empty one)."""
    import mmap
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""


class JsonBackend:
    name = "json"
    filename = "index.json"

    def __init__(self, index_dir, params=DEFAULT_PARAMS, warn=None):
        self.index_dir = index_dir
        self.path = os.path.join(index_dir, self.filename) if index_dir else None
        self.params = params
        self.settings = index_settings(params)
        self.warn = warn or (lambda msg: None)
        self.data = None
        self.links = JsonLinks(self)
        self.vectors = JsonVectors(self)

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        for attempt in range(50):
            data = self._load_index()
            try:
                terms, texts = self._map_generation(data["generation"])
                break
            except FileNotFoundError:  # a writer replaced it just now: read index.json again
                time.sleep(0.02)
        else:
            raise IndexDamaged("the files of index generation %d are missing" % data["generation"])
        self._install(data, terms, texts)

    def _map_generation(self, generation):
        if not generation:
            return b"", b""
        return _map_file(self._generation_path("terms", generation)), \
            _map_file(self._generation_path("text", generation))

    def _install(self, data, terms, texts):
        """Make data (a loaded or just written index) the one this backend reads."""
        self.data, self._terms, self._texts = data, SortedLines(terms), texts
        self._chunks = [JsonChunk._make(row) for row in data["chunks"]]
        self._by_key = self._by_path = None
        self._lines = {}
        self._avg = None

    def _load_index(self):
        fresh = {"schema_version": SCHEMA_VERSION, "settings": self.settings, "created": _now(),
                 "last_sync": None, "generation": 0, "next_key": 1, "total_terms": 0, "files": {},
                 "chunk_fields": list(JSON_CHUNK_FIELDS), "chunks": []}
        if not self.path or not os.path.exists(self.path):
            return fresh
        import json
        try:
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
        except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
            raise IndexDamaged("not valid JSON (%s)" % exc)
        problem = _json_index_problem(data)
        if problem:
            raise IndexDamaged(problem)
        if data["schema_version"] != SCHEMA_VERSION or data.get("settings") != self.settings:
            why = ("its format is from another version of the suite" if data["schema_version"] != SCHEMA_VERSION
                   else "its settings changed (%s)" % settings_change(data.get("settings"), self.settings))
            if not getattr(self, "_said_rebuilding", False):  # once, though the writer reads it again
                self.warn("rebuilding the index: %s" % why)
                self._said_rebuilding = True
            return fresh
        return data

    def _generation_path(self, kind, generation):
        return os.path.join(self.index_dir, "%s-%d.txt" % (kind, generation))

    def close(self):
        for buf in (getattr(self, "_texts", None), getattr(getattr(self, "_terms", None), "buf", None)):
            if hasattr(buf, "close"):
                buf.close()
        self.data = None

    def is_corruption(self, exc):
        return False

    def files_on_disk(self):
        if not self.path:
            return []
        generation = self.data["generation"] if self.data else 0
        extra = [self._generation_path(k, generation) for k in ("terms", "text")] if generation else []
        return [self.path] + extra

    # --- reads -------------------------------------------------------------
    def meta(self, key):
        return self.data.get("meta", {}).get(key)

    def set_meta(self, key, value):
        """Metadata of the JSON index is written with the next sync."""
        self.data.setdefault("meta", {})[key] = value

    def known_files(self):
        return {p: FileState(v["size"], v["mtime_ns"], v["hash"]) for p, v in self.data["files"].items()}

    def file_dates(self):
        return {p: v["date"] for p, v in self.data["files"].items()}

    def chunk_count(self):
        return len(self._chunks)

    def total_terms(self):
        return self.data["total_terms"]

    def doc_freqs(self, terms):
        out = {}
        for t in terms:
            fields = self._terms.get(t) if "\n" not in t and "\t" not in t else None
            if fields:
                out[t] = int(fields[0])
        return out

    def _postings(self, phrase):
        """{key: (body tf, head tf)} of a term, or of every term starting with prefix + '*'."""
        if "\n" in phrase or "\t" in phrase:
            return {}
        if phrase.endswith("*"):
            out = {}
            for _, fields in self._terms.starting_with(phrase[:-1]):
                for key, (b, h) in _parse_postings(fields[1]).items():
                    ob, oh = out.get(key, (0, 0))
                    out[key] = (ob + b, oh + h)
            return out
        fields = self._terms.get(phrase)
        return _parse_postings(fields[1]) if fields else {}

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        phrases = [self._postings(t) for t in terms] + [self._postings(p + "*") for p in prefixes]
        if not phrases:
            return []
        chunks = self._chunk_index()
        n = len(self._chunks)
        avg = self._avg_length()
        scores = {}
        for postings in phrases:
            if not postings:
                continue
            idf = bm25_idf(n, len(postings))
            for key, (body_tf, head_tf) in postings.items():
                chunk = chunks[key]
                tf = body_tf + self.params.heading_weight * head_tf
                scores[key] = scores.get(key, 0.0) + bm25_weight(tf, idf, chunk.length, avg)
        if require_all:
            holding = set.intersection(*(set(p) for p in phrases))
            scores = {k: v for k, v in scores.items() if k in holding}
        if has_filters(filters):
            dates = self.file_dates()
            scores = {k: v for k, v in scores.items() if passes(filters, dates[chunks[k].path], chunks[k].path)}
        ranked = sorted(scores, key=lambda k: (-scores[k], k))[:limit]
        return [(k, scores[k]) for k in ranked]

    def _avg_length(self):
        if self._avg is None:
            self._avg = (sum(c.length for c in self._chunks) / float(len(self._chunks))) if self._chunks else 1.0
        return self._avg or 1.0

    def _chunk_index(self):
        if self._by_key is None:
            self._by_key = {c.key: c for c in self._chunks}
        return self._by_key

    def _file_lines(self, path):
        """(lines, units) of a file."""
        if path not in self._lines:
            start, size = self.data["files"][path]["at"]
            self._lines[path] = _split_file_text(bytes(self._texts[start:start + size]))
        return self._lines[path]

    def _stored(self, c):
        return _json_stored(c, self._file_lines(c.path), self.data["files"][c.path]["date"], self.params)

    def fetch(self, keys):
        index = self._chunk_index()
        return {k: self._stored(index[k]) for k in keys if k in index}

    def snapshot(self):
        """A loaded generation never changes under its reader (writers make a
        new one), so every read already sees one index."""
        return _ReadTransaction(None)

    def chunks_of(self, path):
        if self._by_path is None:
            by_path = {}
            for c in self._chunks:
                by_path.setdefault(c.path, []).append(c)
            self._by_path = by_path
        return [self._stored(c) for c in sorted(self._by_path.get(path, []), key=lambda c: c.ordinal)]

    def file_issues(self):
        return sorted((p, v["issue"]) for p, v in self.data["files"].items() if v["issue"])

    def stats(self):
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": len(self.data["files"]), "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self.data.get("last_sync"), "schema_version": SCHEMA_VERSION}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        return _JsonWriter(self, rebuild)

    def backup_to(self, dest):
        """One self-contained file: index.json with the terms and texts inside."""
        import json
        with open(dest, "w", encoding="utf-8") as f:
            json.dump(dict(self.data, terms=bytes(self._terms.buf).decode("utf-8", "surrogatepass"),
                           texts=bytes(self._texts).decode("utf-8", "surrogatepass")), f, ensure_ascii=False)


def _file_text(lines, units):
    """How the JSON index keeps a file: its lines, NUL, their units."""
    return ("\n".join(lines) + "\0" + "\n".join(units)).encode("utf-8", "surrogatepass")


def _split_file_text(data):
    text, units = data.decode("utf-8", "surrogatepass").rsplit("\0", 1)
    return text.split("\n"), units.split("\n")


def _json_stored(c, file_lines, date, params):
    """A StoredChunk from a JSON chunk record and its file's (lines, units)."""
    lines, units = file_lines
    text = chunk_text(lines, c.start_line, c.end_line, c.piece, params)
    line_units = (analyse(text),) if c.piece else tuple(units[c.start_line - 1:c.end_line])
    return StoredChunk(c.key, c.path, c.ordinal, c.start_line, c.end_line, c.heading, date, text, c.hash,
                       line_units, c.head_units, c.length, c.norm_terms, c.n_grams)


def _parse_postings(text):
    out = {}
    for item in text.split():
        key, b, h = item.split(":")
        out[int(key)] = (int(b), int(h))
    return out


def _json_index_problem(data):
    """Why a loaded index.json is not an index of ours, or None."""
    if not isinstance(data, dict):
        return "not a memory index (a JSON %s)" % type(data).__name__
    need = {"schema_version": int, "settings": str, "generation": int, "next_key": int,
            "total_terms": int, "files": dict, "chunks": list, "chunk_fields": list}
    for key, kind in need.items():
        if not isinstance(data.get(key), kind):
            if data.get("schema_version") != SCHEMA_VERSION and isinstance(data.get("schema_version"), int):
                return None  # another version's index: rebuilt, not damaged
            return "not a memory index (%s missing or wrong)" % key
    if data["chunk_fields"] != list(JSON_CHUNK_FIELDS):
        return "unknown chunk fields"
    for path, entry in data["files"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), list) \
                or not all(k in entry for k in ("size", "mtime_ns", "hash", "issue", "date")):
            return "bad file record for %s" % path
    for row in data["chunks"]:
        if not isinstance(row, list) or len(row) != len(JSON_CHUNK_FIELDS) or row[1] not in data["files"]:
            return "bad chunk record"
    return None


class _JsonWriter:
    """Changes to the JSON index, under an exclusive lock file so two writers
    never interleave, written at the end: nothing on error."""

    def __init__(self, backend, rebuild):
        self.backend, self.rebuild = backend, rebuild
        self.lock = _FileLock(backend.path)

    def __enter__(self):
        self.lock.__enter__()
        try:
            self.backend.open()  # read again under the lock: another writer may have gone first
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        backend = self.backend
        data = backend.data
        self.files = {p: dict(v) for p, v in data["files"].items()}
        self.texts = {}  # path -> (lines, units) of files put now
        self.chunks = {c.key: c for c in backend._chunks}
        self.terms = _parse_terms(bytes(backend._terms.buf))  # {term: [df, postings text or dict]}
        self.next_key, self.total = data["next_key"], data["total_terms"]
        if self.rebuild:
            self.files, self.chunks, self.terms, self.total = {}, {}, {}, 0
        return self

    def known_files(self):
        return {p: FileState(v["size"], v["mtime_ns"], v["hash"]) for p, v in self.files.items()}

    def _postings(self, term):
        entry = self.terms.setdefault(term, [0, {}])
        if not isinstance(entry[1], dict):
            entry[1] = _parse_postings(entry[1])
        return entry[1]

    def _file_lines(self, path):
        return self.texts[path] if path in self.texts else self.backend._file_lines(path)

    def remove(self, path):
        if path not in self.files:
            return
        entry, file_lines = self.files.pop(path), self._file_lines(path)
        self.texts.pop(path, None)
        expanded = {}
        for key in [k for k, c in self.chunks.items() if c.path == path]:
            c = self.chunks.pop(key)
            stored = _json_stored(c, file_lines, entry["date"], self.backend.params)
            terms = chunk_terms(stored.units, stored.head_units, expanded)
            for term in set(terms.body.split()) | set(terms.head.split()):
                self._postings(term).pop(key, None)
            for feature in terms.features:
                self.terms.setdefault(feature, [0, ""])[0] -= 1
            self.total -= terms.length

    def put(self, f, analysed):
        self.remove(f.path)
        self.files[f.path] = {"size": f.size, "mtime_ns": f.mtime_ns, "hash": analysed.digest,
                              "issue": analysed.issue, "date": analysed.date, "at": None}
        self.texts[f.path] = (analysed.lines, analysed.units)
        for item in analysed.chunks:
            c, t, key = item.chunk, item.terms, self.next_key
            self.next_key += 1
            self.chunks[key] = JsonChunk(key, c.path, c.ordinal, c.start_line, c.end_line, c.piece,
                                         c.heading, item.head_units, c.hash, t.length, t.norm_terms, t.n_grams)
            body, head = Counter(t.body.split()), Counter(t.head.split())
            for term in set(body) | set(head):
                self._postings(term)[key] = (body.get(term, 0), head.get(term, 0))
            self.total += t.length
        if analysed.df is not None:
            self.count_features(analysed.df)

    def count_features(self, df):
        for feature, n in df.items():
            self.terms.setdefault(feature, [0, ""])[0] += n

    def touch(self, f):
        entry = self.files.get(f.path)
        if entry:
            entry["size"], entry["mtime_ns"] = f.size, f.mtime_ns

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self._commit()
        finally:
            self.lock.__exit__(None, None, None)
        return False

    def _commit(self):
        backend = self.backend
        texts, offset = [], 0
        for path in sorted(self.files):
            blob = _file_text(*self._file_lines(path))
            self.files[path]["at"] = [offset, len(blob)]
            texts.append(blob)
            offset += len(blob)
        data = dict(backend.data, files=self.files, next_key=self.next_key, total_terms=self.total,
                    last_sync=_now(), generation=backend.data["generation"] + 1,
                    chunks=[list(c) for c in sorted(self.chunks.values(), key=lambda c: (c.path, c.ordinal))])
        lines = []
        for term, (df, postings) in self.terms.items():
            if isinstance(postings, dict):
                postings = " ".join("%d:%d:%d" % (k, b, h) for k, (b, h) in sorted(postings.items()))
            if df > 0 or postings:
                lines.append(("%s\t%d\t%s" % (term, max(df, 0), postings)).encode("utf-8", "surrogatepass"))
        lines.sort(key=lambda line: line[:line.index(b"\t")])
        terms_data, text_data = b"\n".join(lines), b"".join(texts)
        if not backend.path:
            backend._install(data, terms_data, text_data)
            return
        generation = data["generation"]
        for kind, payload in (("terms", terms_data), ("text", text_data)):
            write_bytes_atomic(backend._generation_path(kind, generation), payload)
        write_json_atomic(backend.path, data)
        backend.close()
        backend._install(data, *backend._map_generation(generation))
        keep = {os.path.basename(backend._generation_path(k, generation)) for k in ("terms", "text")}
        for name in os.listdir(backend.index_dir):  # older generations
            if name.endswith(".txt") and name.startswith(("terms-", "text-")) and name not in keep:
                try:
                    os.unlink(os.path.join(backend.index_dir, name))
                except OSError:
                    pass


def _parse_terms(data):
    terms = {}
    for line in data.decode("utf-8", "surrogatepass").split("\n"):
        if line:
            term, df, postings = line.split("\t")
            terms[term] = [int(df), postings]
    return terms


def write_bytes_atomic(path, data):
    """Write to a temporary file, then move it into place: never half a file."""
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path, data):
    import json
    write_bytes_atomic(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


class _FileLock:
    """An exclusive lock on '<path>.lock' for writers (no-op where unsupported)."""

    def __init__(self, path):
        self.path = (path + ".lock") if path else None
        self.fd = None

    def __enter__(self):
        if self.path:
            try:
                import fcntl
            except ImportError:
                return self
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


# --------------------------------------------------------------------------
# Link tables: the linker's entity mentions, kept beside the chunks.  A
# mention row is (path, ordinal, key, kind, spelling, count); entity counts
# and spellings are aggregates of those rows, kept up to date by adding a
# file's new rows and subtracting its old ones.  The linker extracts; the
# store keeps.  Their version (the extractor's, plus the index settings that
# number the chunks) is checked on open: a change, or a damaged link table,
# empties the link tables alone, and the linker fills them again.
# --------------------------------------------------------------------------

class LinkDelta:
    """Aggregate changes from mention rows added (sign +1) or removed (sign -1).

    Co-occurrence is not stored: every pair of entities in a chunk would be
    quadratic (1.6 million rows for 668 CMRC chunks), while lookups and
    pictures only need pairs among a few entities, cheap to count from the
    mentions when asked."""

    def __init__(self):
        self.entities = {}        # key -> [chunks, files, mentions]
        self.spellings = Counter()  # (key, spelling, kind) -> count

    def add(self, rows, sign):
        in_chunk, in_file = set(), set()
        for path, ordinal, key, kind, spelling, n in rows:
            in_chunk.add((key, path, ordinal))
            in_file.add((key, path))
            self.entities.setdefault(key, [0, 0, 0])[2] += sign * n
            self.spellings[(key, spelling, kind)] += sign * n
        for key, _, _ in in_chunk:
            self.entities.setdefault(key, [0, 0, 0])[0] += sign
        for key, _ in in_file:
            self.entities.setdefault(key, [0, 0, 0])[1] += sign


_LINK_SCHEMA = """
CREATE TABLE link_meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE link_files(path TEXT PRIMARY KEY, hash TEXT) WITHOUT ROWID;
CREATE TABLE link_mentions(path TEXT, ordinal INTEGER, key TEXT, kind TEXT, spelling TEXT,
                           count INTEGER, PRIMARY KEY(path, ordinal, key, kind, spelling)) WITHOUT ROWID;
CREATE INDEX link_mentions_by_key ON link_mentions(key);
CREATE TABLE link_entities(key TEXT PRIMARY KEY, chunks INTEGER, files INTEGER,
                           mentions INTEGER) WITHOUT ROWID;
CREATE TABLE link_spellings(key TEXT, spelling TEXT, kind TEXT, count INTEGER,
                            PRIMARY KEY(key, spelling, kind)) WITHOUT ROWID;
"""
_LINK_TABLES = ("link_meta", "link_files", "link_mentions", "link_entities", "link_spellings")


class SqliteLinks:
    """Link tables inside the SQLite index; one transaction per change."""

    def __init__(self, backend):
        self.backend = backend

    @property
    def conn(self):  # the backend's current connection (recovery may have replaced it)
        return self.backend.conn

    def ensure(self, version):
        """Make the link tables exist with this version; empty them otherwise."""
        version = "%s %s" % (version, self.backend.settings)
        if self._version() == version:
            return
        with _WriteTransaction(self.conn) as conn:
            if self._version() != version:
                for table in _LINK_TABLES:
                    conn.execute("DROP TABLE IF EXISTS %s" % table)
                for statement in _LINK_SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute("INSERT INTO link_meta VALUES('version', ?)", (version,))

    def _version(self):
        present = {n for n, in self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'link\\_%' ESCAPE '\\'")}
        if not all(t in present for t in _LINK_TABLES):
            return None  # missing or damaged: made again
        row = self.conn.execute("SELECT value FROM link_meta WHERE key='version'").fetchone()
        return row[0] if row else None

    def known_files(self):
        return dict(self.conn.execute("SELECT path, hash FROM link_files"))

    def apply(self, changes):
        """changes: [(path, new hash or None if removed, new mention rows)]."""
        with _WriteTransaction(self.conn) as conn:
            delta = LinkDelta()
            for path, digest, rows in changes:
                old = conn.execute("SELECT path, ordinal, key, kind, spelling, count FROM link_mentions "
                                   "WHERE path=?", (path,)).fetchall()
                delta.add(old, -1)
                delta.add(rows, +1)
                conn.execute("DELETE FROM link_mentions WHERE path=?", (path,))
                conn.executemany("INSERT INTO link_mentions VALUES(?, ?, ?, ?, ?, ?)", rows)
                if digest is None:
                    conn.execute("DELETE FROM link_files WHERE path=?", (path,))
                else:
                    conn.execute("INSERT OR REPLACE INTO link_files VALUES(?, ?)", (path, digest))
            self._apply_delta(delta)

    def _apply_delta(self, delta):
        conn = self.conn
        ent = [(k, c, f, m) for k, (c, f, m) in delta.entities.items() if c or f or m]
        conn.executemany("INSERT OR IGNORE INTO link_entities VALUES(?, 0, 0, 0)", [(e[0],) for e in ent])
        conn.executemany("UPDATE link_entities SET chunks=chunks+?, files=files+?, mentions=mentions+? "
                         "WHERE key=?", [(c, f, m, k) for k, c, f, m in ent])
        conn.execute("DELETE FROM link_entities WHERE chunks <= 0")
        sp = [(k, s, kind, n) for (k, s, kind), n in delta.spellings.items() if n]
        conn.executemany("INSERT OR IGNORE INTO link_spellings VALUES(?, ?, ?, 0)", [r[:3] for r in sp])
        conn.executemany("UPDATE link_spellings SET count=count+? WHERE key=? AND spelling=? AND kind=?",
                         [(n, k, s, kind) for k, s, kind, n in sp])
        conn.execute("DELETE FROM link_spellings WHERE count <= 0")

    # --- reads ---
    def entity_rows(self):
        return self.conn.execute("SELECT key, chunks, files, mentions FROM link_entities").fetchall()

    def spelling_rows(self):
        return self.conn.execute("SELECT key, spelling, kind, count FROM link_spellings").fetchall()

    def mentions_of(self, keys):
        """[(key, path, ordinal, count)] of every chunk mentioning one of the keys."""
        out = []
        for part in _batched(keys):
            out.extend(self.conn.execute(
                "SELECT key, path, ordinal, sum(count) FROM link_mentions WHERE key IN (%s) "
                "GROUP BY key, path, ordinal" % ",".join("?" * len(part)), part))
        return out

    def mentions_in(self, path, ordinal=None):
        sql = "SELECT key, path, ordinal, sum(count) FROM link_mentions WHERE path=?"
        args = [path]
        if ordinal is not None:
            sql += " AND ordinal=?"
            args.append(ordinal)
        return self.conn.execute(sql + " GROUP BY key, path, ordinal", args).fetchall()

    def keys_in_chunks(self, refs):
        """{(path, ordinal): set of keys} for the given chunks."""
        out = {}
        wanted = set(refs)
        for path in {p for p, _ in wanted}:
            for key, ordinal in self.conn.execute(
                    "SELECT DISTINCT key, ordinal FROM link_mentions WHERE path=?", (path,)):
                if (path, ordinal) in wanted:
                    out.setdefault((path, ordinal), set()).add(key)
        return out


class JsonLinks:
    """The same information in `links.json` (for the JSON backend).  Only the
    mention rows are stored; the aggregates are made on load, which suits
    the small folders the JSON backend is meant for."""

    filename = "links.json"

    def __init__(self, backend):
        self.backend = backend
        self.files, self.rows = {}, {}

    @property
    def path(self):
        return os.path.join(self.backend.index_dir, self.filename) if self.backend.index_dir else None

    def ensure(self, version):
        version = "%s %s" % (version, self.backend.settings)
        self.version, self.files, self.rows = version, {}, {}
        if self.path and os.path.exists(self.path):
            import json
            try:
                with open(self.path, encoding="utf-8") as f:
                    data = json.load(f)
                if data.get("version") == version:
                    self.files = dict(data["files"])
                    self.rows = {p: [tuple(r) for r in rs] for p, rs in data["mentions"].items()}
            except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
                self.files, self.rows = {}, {}  # damaged: the linker fills it again
        self._aggregate()

    def known_files(self):
        return dict(self.files)

    def apply(self, changes):
        for path, digest, rows in changes:
            self.rows.pop(path, None)
            self.files.pop(path, None)
            if digest is not None:
                self.files[path] = digest
                self.rows[path] = [tuple(r) for r in rows]
        if self.path:
            write_json_atomic(self.path, {"version": self.version, "files": self.files, "mentions": self.rows})
        self._aggregate()

    def _aggregate(self):
        delta = LinkDelta()
        for rows in self.rows.values():
            delta.add(rows, +1)
        self._entities = [(k, c, f, m) for k, (c, f, m) in delta.entities.items() if c > 0]
        self._spellings = [(k, s, kind, n) for (k, s, kind), n in delta.spellings.items() if n > 0]
        by_key = {}
        for path, rows in self.rows.items():
            for _, ordinal, key, _, _, n in rows:
                chunks = by_key.setdefault(key, Counter())
                chunks[(path, ordinal)] += n
        self._by_key = by_key

    def entity_rows(self):
        return list(self._entities)

    def spelling_rows(self):
        return list(self._spellings)

    def mentions_of(self, keys):
        return [(k, p, o, n) for k in keys for (p, o), n in self._by_key.get(k, {}).items()]

    def mentions_in(self, path, ordinal=None):
        out = Counter()
        for _, o, key, _, _, n in self.rows.get(path, []):
            if ordinal is None or o == ordinal:
                out[(key, o)] += n
        return [(k, path, o, n) for (k, o), n in out.items()]

    def keys_in_chunks(self, refs):
        wanted = set(refs)
        out = {}
        for path in {p for p, _ in wanted}:
            for _, o, key, _, _, _ in self.rows.get(path, []):
                if (path, o) in wanted:
                    out.setdefault((path, o), set()).add(key)
        return out


# --------------------------------------------------------------------------
# Vectors of an optional embedding provider, kept beside the chunks: float32
# values keyed by (model, text hash), so an unchanged chunk is never embedded
# twice and another model embeds afresh.  Made on first use only.
# --------------------------------------------------------------------------

def pack_vector(values):
    import array
    return array.array("f", values).tobytes()


def unpack_vector(blob):
    import array
    out = array.array("f")
    out.frombytes(blob)
    return out


class SqliteVectors:
    """The vectors table inside the SQLite index."""

    def __init__(self, backend):
        self.backend = backend
        self.ready = False

    @property
    def conn(self):
        return self.backend.conn

    def ensure(self):
        if not self.ready:
            self.conn.execute("CREATE TABLE IF NOT EXISTS vectors(id INTEGER PRIMARY KEY, model TEXT NOT NULL, "
                              "hash TEXT NOT NULL, vec BLOB NOT NULL)")
            self.conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS vectors_by_key ON vectors(model, hash)")
            self.conn.execute("CREATE INDEX IF NOT EXISTS chunks_by_hash ON chunks(hash)")
            self.ready = True

    def missing(self, model, limit):
        """[StoredChunk] of chunks whose text has no vector of this model (one per text)."""
        self.ensure()
        keys = [k for k, in self.conn.execute(
            "SELECT min(c.id) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model=? "
            "AND v.hash=c.hash) GROUP BY c.hash LIMIT ?", (model, limit))]
        return list(self.backend.fetch(keys).values())

    def counts(self, model):
        """(texts with a vector of this model, texts indexed)."""
        self.ensure()
        have = self.conn.execute("SELECT count(*) FROM vectors v WHERE v.model=? AND EXISTS (SELECT 1 FROM "
                                 "chunks c WHERE c.hash=v.hash)", (model,)).fetchone()[0]
        total = self.conn.execute("SELECT count(DISTINCT hash) FROM chunks").fetchone()[0]
        return have, total

    def put(self, model, rows):
        """Store [(hash, packed vector)] in one transaction."""
        self.ensure()
        with _WriteTransaction(self.conn) as conn:
            conn.executemany("INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES(?, ?, ?)",
                             [(model, h, v) for h, v in rows])

    def get(self, model, hashes):
        """{hash: packed vector}."""
        self.ensure()
        out = {}
        for part in _batched(hashes):
            out.update(self.conn.execute("SELECT hash, vec FROM vectors WHERE model=? AND hash IN (%s)"
                                         % ",".join("?" * len(part)), [model] + part))
        return out

    def every(self, model):
        """[(hash, packed vector)] of every indexed text (for a nearest-neighbour scan)."""
        self.ensure()
        return self.conn.execute("SELECT v.hash, v.vec FROM vectors v WHERE v.model=? AND EXISTS "
                                 "(SELECT 1 FROM chunks c WHERE c.hash=v.hash)", (model,)).fetchall()

    def keys_of(self, hashes):
        """{hash: [chunk keys]}."""
        self.ensure()
        out = {}
        for part in _batched(hashes):
            for key, digest in self.conn.execute("SELECT id, hash FROM chunks WHERE hash IN (%s)"
                                                 % ",".join("?" * len(part)), part):
                out.setdefault(digest, []).append(key)
        return out

    def forget_others(self, keep_model):
        """Drop the vectors of other models and of texts no longer indexed."""
        self.ensure()
        with _WriteTransaction(self.conn) as conn:
            conn.execute("DELETE FROM vectors WHERE model != ? OR NOT EXISTS (SELECT 1 FROM chunks c "
                         "WHERE c.hash = vectors.hash)", (keep_model,))


class JsonVectors:
    """The same in vectors.json: {model: {hash: base64 of float32 values}}."""

    filename = "vectors.json"

    def __init__(self, backend):
        self.backend = backend
        self.data = None

    @property
    def path(self):
        return os.path.join(self.backend.index_dir, self.filename) if self.backend.index_dir else None

    def _load(self):
        if self.data is None:
            self.data = {}
            if self.path and os.path.exists(self.path):
                import json
                try:
                    with open(self.path, encoding="utf-8") as f:
                        loaded = json.load(f)
                    if isinstance(loaded, dict):
                        self.data = loaded
                except (ValueError, UnicodeDecodeError):
                    self.data = {}  # damaged: embedded again
        return self.data

    def _save(self):
        if self.path:
            write_json_atomic(self.path, self.data)

    def _hashes(self):
        return {c.hash: c.key for c in self.backend._chunks}

    def missing(self, model, limit):
        have = self._load().get(model, {})
        keys = [k for h, k in self._hashes().items() if h not in have][:limit]
        return list(self.backend.fetch(keys).values())

    def counts(self, model):
        hashes = self._hashes()
        return sum(1 for h in self._load().get(model, {}) if h in hashes), len(hashes)

    def put(self, model, rows):
        import base64
        self._load().setdefault(model, {}).update((h, base64.b64encode(v).decode("ascii")) for h, v in rows)
        self._save()

    def get(self, model, hashes):
        import base64
        have = self._load().get(model, {})
        return {h: base64.b64decode(have[h]) for h in hashes if h in have}

    def every(self, model):
        hashes = self._hashes()
        return list(self.get(model, [h for h in self._load().get(model, {}) if h in hashes]).items())

    def keys_of(self, hashes):
        wanted, out = set(hashes), {}
        for c in self.backend._chunks:
            if c.hash in wanted:
                out.setdefault(c.hash, []).append(c.key)
        return out

    def forget_others(self, keep_model):
        hashes = self._hashes()
        self.data = {keep_model: {h: v for h, v in self._load().get(keep_model, {}).items() if h in hashes}}
        self._save()


# --------------------------------------------------------------------------
# MemoryStore: the one entry point for the other modules.
# --------------------------------------------------------------------------

BACKUPS_KEPT = 3


class _BackgroundScan:
    """A sync's stat pass running beside the caller (see MemoryStore.answer_fresh)."""

    def __init__(self, store):
        import threading
        self.store, self.result = store, None
        self.thread = threading.Thread(target=self._scan, daemon=True)
        self.thread.start()

    def _scan(self):
        try:
            self.result = self.store.discover()
        except BaseException as exc:  # handed to finish(), in the caller's thread
            self.result = exc

    def finish(self):
        """Wait for the scan; sync what changed.  True if the index changed."""
        self.thread.join()
        if isinstance(self.result, BaseException):
            raise self.result
        found, _ = self.result
        store = self.store
        changed, removed, _ = plan_sync(store.known_files(), found)
        if not changed and not removed:
            return False
        store._recovering(store._sync, scan=self.result, resync=False)
        return True


def write_failure(exc, index_dir):
    """A StoreError for failures a user can act on (busy, full, read-only), else None."""
    msg = str(exc).lower()
    if "locked" in msg or "busy" in msg:
        return StoreError("the index is busy: another process is updating it (try again)")
    if any(w in msg for w in ("full", "readonly", "read-only", "unable to open", "disk i/o")):
        hint = " (is the disk full?)" if "i/o" in msg or "full" in msg else ""
        return StoreError("cannot write the index in %s: %s%s; the old index is unchanged"
                          % (index_dir, exc, hint))
    return None


def _sessions_dir(arg):
    """The sessions folder: the argument, else $MEMORY_SESSIONS_DIR, else None (off)."""
    raw = arg or os.environ.get("MEMORY_SESSIONS_DIR")
    if not raw:
        return None
    path = os.path.realpath(os.path.expanduser(raw))
    if not os.path.isdir(path):
        raise StoreError("sessions folder not found: %s" % raw)
    return path


def _restricted(known, only):
    """known files, or only those among them named in only."""
    return known if only is None else {p: v for p, v in known.items() if p in set(only)}


def _process_alive(pid):
    if os.name == "nt":  # os.kill(pid, 0) would signal the process there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # it exists, owned by someone else
    return True


def locate_index_dir(root):
    """Where the index lives: MEMORY_INDEX_DIR, else <root>/.memory, else a
    per-user cache folder keyed by root's path (for read-only folders), else
    None (in memory only)."""
    explicit = os.environ.get("MEMORY_INDEX_DIR")
    if explicit:
        if _writable_dir(explicit):
            return explicit
        raise StoreError("index folder is not writable: %s" % explicit)
    for where in (lambda: os.path.join(root, INDEX_DIRNAME), lambda: user_cache_dir(root)):
        path = where()  # the cache path costs a hashlib import: only when needed
        if _writable_dir(path):
            return path
    return None


def user_cache_dir(root=None):
    """$XDG_CACHE_HOME/memory-suite (default ~/.cache/...), or its folder for
    the index of a memory folder (keyed by the folder's path)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if root is None:
        return os.path.join(base, "memory-suite")
    import hashlib
    key = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(base, "memory-suite", key)


def _writable_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


class _Recovering:
    """A backend part (the link tables) whose calls recover from a damaged index."""

    def __init__(self, store, part):
        self._store, self._part = store, part

    def __getattr__(self, name):
        # looked up at each call: recovery may have replaced the backend's connection
        return lambda *args: self._store._recovering(
            lambda: getattr(getattr(self._store.backend, self._part), name)(*args))


class EmbedError(Exception):
    """An embedding provider failed or answered wrongly (one line)."""


def embedding_text(chunk):
    """What an embedding provider is given for a chunk: its heading trail and text."""
    return "%s\n%s" % (chunk.heading, chunk.text) if chunk.heading else chunk.text


def check_vector(values, dim):
    """values as floats, if they are a vector of dim finite numbers; else EmbedError."""
    try:
        floats = [float(v) for v in values]
    except (TypeError, ValueError):
        raise EmbedError("a vector holds something that is not a number")
    if len(floats) != dim:
        raise EmbedError("a vector has %d dimensions, the model's have %d" % (len(floats), dim))
    if not all(math.isfinite(v) for v in floats):
        raise EmbedError("a vector holds NaN or infinity")
    return floats


class MemoryStore:
    """A memory folder and its index.

    >>> store = MemoryStore("~/notes")      # doctest: +SKIP
    >>> store.refresh()                     # cheap when nothing changed
    """

    def __init__(self, root=None, backend=None, index_dir=None, warn=None, params=None, sessions=None):
        self.root = resolve_memory_dir(root)
        self.sessions_dir = _sessions_dir(sessions)
        self.params = params or DEFAULT_PARAMS
        self.warn = warn or (lambda msg: sys.stderr.write("memory: %s\n" % msg))
        if index_dir and not _writable_dir(index_dir):
            raise StoreError("index folder is not writable: %s" % index_dir)
        self.index_dir = index_dir or locate_index_dir(self.root)
        requested = (backend or os.environ.get("MEMORY_BACKEND") or "auto").lower()
        if requested not in ("auto", "sqlite", "json"):
            raise StoreError("unknown backend %r (use auto, sqlite or json)" % requested)
        self.fallback_reason = None
        self.last_report = None
        self.stale = False  # True when the last refresh could not update the index
        self.embedder = None  # an embedding provider (memory_search.make_embedder), or None: off
        self.embed_report = {"requested": "off", "provider": None, "model": None, "dim": None, "skipped": {}}
        self.embed_error = None  # why the last use of the embedder failed, or None
        self.channels = []  # the channels the last search used
        if requested != "json":
            reason = self._open_sqlite()
            if reason is None:
                return
            if requested == "sqlite":
                raise StoreError("SQLite backend unavailable: " + reason)
            self.fallback_reason = reason
        self.backend = JsonBackend(self.index_dir, self.params, self.warn)
        self._open_backend()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _open_sqlite(self):
        """Open the SQLite index; None, or why SQLite with FTS5 cannot be used here.
        (No separate FTS5 probe: opening the index shows whether FTS5 works.)"""
        try:
            self.backend = SqliteBackend(self.index_dir, self.params, self.warn)
        except ImportError:
            return "the sqlite3 module is not available"
        existed = [p for p in self.backend.files_on_disk() if os.path.exists(p)]
        try:
            self._open_backend()
        except (NoFts5, self.backend.sqlite3.OperationalError) as exc:
            if not isinstance(exc, NoFts5) and "fts5" not in str(exc).lower():
                raise
            self.backend.close()
            for path in self.backend.files_on_disk():  # leave no SQLite file behind
                if path not in existed and os.path.exists(path):
                    os.unlink(path)
            return "this SQLite (%s) has no FTS5" % self.backend.sqlite3.sqlite_version
        return None

    def _open_backend(self):
        try:
            self.backend.open()
        except IndexDamaged as exc:
            self._quarantine(exc)
            self.backend.open()

    # --- what is indexed ------------------------------------------------------
    def discover(self, folders=None):
        """(files, problems): the memory files, and the transcripts of the
        sessions folder when one is set (see discover, discover_sessions)."""
        files, problems = discover(self.root, self.index_dir, folders)
        if self.sessions_dir:
            files += discover_sessions(self.sessions_dir)
        return files, problems

    def _stat(self, paths):
        memory = [p for p in paths if not is_session(p)]
        found = stat_sources(self.root, memory)
        if self.sessions_dir:
            found += [f for f in discover_sessions(self.sessions_dir) if f.path in set(paths)]
        return found

    def read_lines(self, rel):
        """All lines of a memory file or cited transcript (private blocks masked)."""
        return read_memory_lines(self.root, rel, self.sessions_dir)

    # --- recovery ----------------------------------------------------------
    def _recovering(self, fn, *args, **kwargs):
        """Run fn; if the index turns out to be damaged (and only then), move it
        aside, index the folder again, and run fn once more.  resync=False for
        fn that sync themselves."""
        resync = kwargs.pop("resync", True)
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not isinstance(exc, IndexDamaged) and not self.backend.is_corruption(exc):
                raise
            damage = exc
        self._quarantine(damage)
        self.backend.open()
        if resync:
            self._sync()
        return fn(*args, **kwargs)

    def _quarantine(self, exc):
        self.backend.close()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        moved = None
        for path in self.backend.files_on_disk():
            if os.path.exists(path):
                target = "%s.damaged-%s" % (path, stamp)
                os.replace(path, target)
                moved = moved or target
        self.warn("index was damaged (%s); moved it to %s and rebuilt it from the Markdown"
                  % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__, moved or "nowhere"))

    # --- keeping the index fresh -------------------------------------------
    def sync(self, only=None, scan=None):
        """Bring the index up to date with the folder; cheap when nothing changed.
        With only (relative paths), look at those files alone; with scan (what
        discover returned), at what it found.  Raises StoreError when the
        index cannot be written."""
        return self._recovering(self._sync, only=only, scan=scan, resync=False)

    def refresh(self):
        """The freshness policy every door uses (CLI, MCP server, watch):
        sync before answering; if the index cannot be written (another process
        busy, a full disk), warn and answer from the last good index, with
        self.stale set.  Returns self.stale."""
        if not self.watcher_is_fresh():  # else `search.sh watch` checked the folder a moment ago
            try:
                self.sync()
                self.stale = False
            except StoreError as exc:
                self.warn("warning: %s; answers may be stale" % exc)
                self.stale = True
        else:
            self.stale = False
        if self.embedder is not None:
            self.fill_vectors()
        return self.stale

    # --- vectors of the embedding provider ---------------------------------------
    EMBED_BATCH = 64

    def fill_vectors(self, progress=None, limit=None):
        """Embed the indexed texts that have no vector of the embedder's model
        yet, a batch at a time (each batch is kept as soon as it is done).  A
        provider that fails (down, killed, bad vectors) stops the filling
        with a warning: the keyword index is unaffected and a later call goes
        on where this one stopped.  Returns how many texts were embedded."""
        embedder, done = self.embedder, 0
        model = embedder.key
        self.embed_error = None
        while limit is None or done < limit:
            chunks = self.vectors.missing(model, self.EMBED_BATCH)
            if not chunks:
                break
            try:
                vectors = embedder.embed([embedding_text(c) for c in chunks])
                rows = [(c.hash, pack_vector(check_vector(v, embedder.dim))) for c, v in zip(chunks, vectors)]
                if len(vectors) != len(chunks):
                    raise EmbedError("%s returned %d vectors for %d texts"
                                     % (embedder.name, len(vectors), len(chunks)))
            except EmbedError as exc:
                self.embed_error = str(exc)
                self.warn("warning: embedding stopped (%s); the keyword search goes on without it" % exc)
                break
            self.vectors.put(model, rows)
            done += len(rows)
            if progress:
                progress(done)
        return done

    def answer_fresh(self, answer):
        """answer() computed on an up-to-date index.  A small index is
        refreshed first; on a large one the stat pass runs in a thread while
        answer() runs on the index as it is, and answer() runs again only if
        something changed (rarely)."""
        if self.chunk_count() < self.params.background_scan_chunks or self.watcher_is_fresh() \
                or self.embedder is not None:
            self.refresh()
            return answer()
        scan = _BackgroundScan(self)
        result = answer()
        try:
            if scan.finish():
                result = answer()
            self.stale = False
        except StoreError as exc:
            self.warn("warning: %s; answers may be stale" % exc)
            self.stale = True
        return result

    def rebuild(self):
        """Back up the index (keeping the last few), then rebuild it from scratch."""
        backup = self._backup()
        report = self._recovering(self._sync, rebuild=True, resync=False)
        return report, backup

    def _sync(self, rebuild=False, scan=None, only=None):
        if only is not None:
            found, problems = self._stat(only), []
        else:
            found, problems = scan or self.discover()
        if not rebuild:
            changed, removed, unchanged = plan_sync(_restricted(self.backend.known_files(), only), found)
            if not changed and not removed:
                self.last_report = SyncReport([], [], [], sorted(unchanged), sorted(problems))
                return self.last_report
        try:
            report = self._write_changes(found, list(problems), rebuild, only)
        except OSError as exc:
            raise StoreError("cannot write the index in %s: %s" % (self.index_dir, exc.strerror or exc))
        except (IndexDamaged, StoreError):
            raise
        except Exception as exc:
            if self.backend.is_corruption(exc):
                raise
            raise write_failure(exc, self.index_dir) or exc
        self.last_report = report
        return report

    def _write_changes(self, found, problems, rebuild, only=None):
        """Apply what changed, one file at a time, in one transaction."""
        added, updated, touched = [], [], []
        with self.backend.writer(rebuild) as w:
            known = {} if rebuild else _restricted(w.known_files(), only)  # again, now that we hold the lock
            changed, removed, unchanged = plan_sync(known, found)
            for path in removed:
                w.remove(path)
            tasks = [(f, known[f.path].hash if f.path in known else None) for f in changed]
            for f, analysed in analyse_files(tasks, self.params):
                if f is None:
                    w.count_features(analysed)
                    continue
                if analysed.issue:
                    problems.append((f.path, analysed.issue))
                if analysed.chunks is None:
                    w.touch(f)  # same content, new mtime
                    touched.append(f.path)
                    continue
                w.put(f, analysed)
                (updated if f.path in known else added).append(f.path)
        return SyncReport(sorted(added), sorted(updated), sorted(removed),
                          sorted(unchanged + touched), sorted(problems))

    # --- a watcher's heartbeat -------------------------------------------------
    # `search.sh watch` checks the folder every few seconds and says so in a
    # small file beside the index; while it is alive and recent, other
    # processes trust it and skip their own check (a stat of every file).

    HEARTBEAT = "watch.heartbeat"

    def _heartbeat_path(self):
        return os.path.join(self.index_dir, self.HEARTBEAT) if self.index_dir else None

    def beat(self, interval):
        """Say that this process (a watcher) checked the folder just now."""
        path = self._heartbeat_path()
        if path:
            tmp = "%s.tmp-%d" % (path, os.getpid())
            with open(tmp, "w") as f:
                f.write("%d %s %r\n" % (os.getpid(), interval, time.time()))
            os.replace(tmp, path)  # no fsync: a lost heartbeat only means a scan

    def stop_beating(self):
        path = self._heartbeat_path()
        if path and self.watcher() and self.watcher()["pid"] == os.getpid():
            os.unlink(path)

    def watcher(self):
        """{pid, interval, checked, alive, fresh} of the watcher of this folder, or None."""
        path = self._heartbeat_path()
        try:
            with open(path) as f:
                pid, interval, checked = f.read().split()
            pid, interval, checked = int(pid), float(interval), float(checked)
        except (OSError, TypeError, ValueError):
            return None
        alive = _process_alive(pid)
        return {"pid": pid, "interval": interval, "checked": checked, "alive": alive,
                "fresh": alive and time.time() - checked <= 2 * interval + 0.5}

    def watcher_is_fresh(self):
        found = self.watcher() if self.index_dir else None
        return bool(found and found["fresh"] and found["pid"] != os.getpid())

    def stale_files(self):
        """What a sync would change, without writing: (changed, removed, skipped)
        paths, skipped being (path, issue) pairs discovery passed over."""
        found, skipped = self.discover()
        changed, removed, _ = plan_sync(self.known_files(), found)
        return [f.path for f in changed], removed, skipped

    def _backup(self):
        if not self.index_dir or not any(os.path.exists(p) for p in self.backend.files_on_disk()[:1]):
            return None
        folder = os.path.join(self.index_dir, "backups")
        os.makedirs(folder, exist_ok=True)
        now = time.time()
        name = "%s-%06d-%s" % (time.strftime("%Y%m%d-%H%M%S", time.localtime(now)),
                               int(now % 1 * 1e6), self.backend.filename)
        dest = os.path.join(folder, name)
        partial = os.path.join(folder, ".partial-" + name)  # renamed when complete
        try:
            self.backend.backup_to(partial)
            os.replace(partial, dest)
        except Exception as exc:
            if os.path.exists(partial):
                os.unlink(partial)
            self.warn("could not back up the index (%s); rebuilding anyway" % exc)
            return None
        olds = sorted(n for n in os.listdir(folder) if n.endswith(self.backend.filename))
        for old in olds[:-BACKUPS_KEPT]:
            os.unlink(os.path.join(folder, old))
        return dest

    # --- reads -------------------------------------------------------------
    @property
    def backend_name(self):
        return self.backend.name

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """[(key, BM25)] best first: chunks holding any of the terms (all, with
        require_all), or words starting with one of the prefixes."""
        return self._recovering(self.backend.keyword, terms, limit, filters, require_all, prefixes)

    def fetch(self, keys):
        """{key: StoredChunk}."""
        return self._recovering(self.backend.fetch, keys)

    def snapshot(self):
        """A context manager: the reads inside it (a whole search) see one
        committed index, even while another process syncs or rebuilds."""
        return self.backend.snapshot()

    def chunks_of(self, path):
        """[StoredChunk] of one file, in order."""
        return self._recovering(self.backend.chunks_of, path)

    def doc_freqs(self, terms):
        """{feature: number of chunks holding it}, for the features the index holds."""
        return self._recovering(self.backend.doc_freqs, terms)

    def known_files(self):
        """{path: FileState} of every indexed file."""
        return self._recovering(self.backend.known_files)

    def file_dates(self):
        """{path: YYYY-MM-DD or None} of every indexed file."""
        return self._recovering(self.backend.file_dates)

    def chunk_count(self):
        return self._recovering(self.backend.chunk_count)

    def total_terms(self):
        return self._recovering(self.backend.total_terms)

    def links(self, version):
        """The link tables for an extractor version (emptied when it changes)."""
        self._recovering(self.backend.links.ensure, version)
        return _Recovering(self, "links")

    @property
    def vectors(self):
        """The stored vectors of embedding providers (see SqliteVectors)."""
        return _Recovering(self, "vectors")

    def status(self):
        """The index's state: backend, size, files, problems, what is stale."""
        stats = self._recovering(self.backend.stats)
        changed, removed, skipped = self.stale_files()
        issues = sorted(set(self.backend.file_issues()) | set(skipped))
        on_disk = self.backend.files_on_disk()
        return dict(stats, **{
            "memory_dir": self.root,
            "backend": self.backend.name,
            "fts5": sqlite_unavailable_reason() is None,
            "fallback_reason": self.fallback_reason,
            "index_path": on_disk[0] if on_disk else ":memory:",
            "stale_files": sorted(changed + removed),
            "problem_files": [{"path": p, "issue": i} for p, i in issues],
        })

    def close(self):
        self.backend.close()


# --------------------------------------------------------------------------
# Writing memories: the one place that changes a user's Markdown, and only
# by appending to the end of a file.
# --------------------------------------------------------------------------

Added = record("Added", "path start_line end_line created")
Added.__doc__ = "Where append_memory wrote: the file, the 1-based lines of the new note, a new file?"


def append_memory(root, text, heading=None, tags=(), path=None, today=None):
    """Append a note to a memory file: by default today's daily log
    memory/YYYY-MM-DD.md (local date), made with a '# YYYY-MM-DD' heading
    when missing.  A one-line note becomes a bullet ('- ...'); longer text is
    kept as written; tags go at its end (#tag); a heading comes first as
    '## heading'.  Earlier lines are never changed (a missing newline at the
    end of the file is added); writers take an exclusive lock on the file,
    so notes from processes adding at once never interleave.  Raises
    UsageError for an empty note or a bad tag, StoreError for a path outside
    the folder or a file that cannot be written."""
    lines = [l.rstrip() for l in split_lines(text.strip("\n"))] if text else []
    if not any(l.strip() for l in lines):
        raise UsageError("the note is empty")
    for tag in tags:
        if not tag.strip("#") or any(c.isspace() for c in tag):
            raise UsageError("bad tag %r (one word, no spaces)" % tag)
    if heading is not None and (not heading.strip() or "\n" in heading or "\r" in heading):
        raise UsageError("the heading must be one non-empty line")
    date = today or time.strftime("%Y-%m-%d")
    rel = (path or "memory/%s.md" % date).replace("\\", "/")
    if rel.startswith("./"):
        rel = rel[2:]
    full = check_memory_path(root, rel)
    if len(lines) == 1 and not lines[0].lstrip().startswith(("-", "*", "#", ">", "|")):
        lines = ["- " + lines[0].strip()]
    if tags:
        lines[-1] += " " + " ".join("#" + t.lstrip("#") for t in tags)
    entry = (["## " + heading.strip()] if heading else []) + lines
    try:
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "a+b") as f:
            _lock(f)
            try:
                return _append_locked(f, rel, full, entry, date, path is None)
            finally:
                _unlock(f)
    except OSError as exc:
        raise StoreError("cannot write %s: %s" % (rel, exc.strerror or exc))


def _append_locked(f, rel, full, entry, date, daily):
    """Write entry at the end of the open, locked file; the Added lines."""
    f.seek(0)
    old = f.read()
    newline = b"\r\n" if b"\r\n" in old[-4096:] else b"\n"
    if not old:
        lines, before = (["# %s" % date, ""] if daily else []) + entry, 0
    else:
        before = len(split_lines(old.decode("utf-8", "replace")))
        lines = ([""] if old.strip() else []) + entry  # a blank line between notes
    data = newline.join(l.encode("utf-8", "surrogateescape") for l in lines) + newline
    if old and not old.endswith((b"\n", b"\r")):
        data = newline + data  # end the last line first; its text stays as it was
    f.write(data)
    f.flush()
    os.fsync(f.fileno())
    first = before + len(lines) - len(entry) + 1
    return Added(rel, first, first + len(entry) - 1, not old)


def _lock(f):
    try:
        import fcntl
    except ImportError:  # no locking on this platform: appends are still whole writes
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)


def _unlock(f):
    try:
        import fcntl
    except ImportError:
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_UN)


# --------------------------------------------------------------------------
# Command line: what search.sh, reindex.sh and link.sh share.  A small
# option parser instead of argparse (argparse costs ~10 ms per process to
# import and build, a third of an agent's cold-start budget), JSON written
# by hand (importing json costs ~2.5 ms), one error reporter.
# --------------------------------------------------------------------------

Opt = record("Opt", "flags dest metavar convert help repeat", defaults=(False,))
Opt.__doc__ = "An option: metavar None means a flag (no value); repeat collects every value in a list."


def to_date(value):
    import datetime
    try:
        if not re.match(r"^\d{4}-\d{2}-\d{2}$", value):
            raise ValueError
        datetime.date(*map(int, value.split("-")))
    except (ValueError, TypeError):
        raise UsageError("not a date (YYYY-MM-DD): %r" % value)
    return value


def to_positive_int(value):
    try:
        n = int(value)
    except ValueError:
        raise UsageError("not a whole number: %r" % value)
    if n < 1:
        raise UsageError("must be 1 or more: %r" % value)
    return n


def to_count(value):
    """A whole number, 0 allowed."""
    try:
        n = int(value)
    except ValueError:
        raise UsageError("not a whole number: %r" % value)
    if n < 0:
        raise UsageError("must be 0 or more: %r" % value)
    return n


def to_seconds(value):
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number of seconds: %r" % value)
    if not 0.05 <= x <= 3600:
        raise UsageError("must be between 0.05 and 3600 seconds: %r" % value)
    return x


def to_unit_score(value):
    try:
        x = float(value)
    except ValueError:
        raise UsageError("not a number: %r" % value)
    if not 0.0 <= x <= 1.0:
        raise UsageError("must be between 0 and 1: %r" % value)
    return x


def to_choice(*names):
    def convert(value):
        if value not in names:
            raise UsageError("%r is not one of: %s" % (value, ", ".join(names)))
        return value
    return convert


def to_folder(value):
    if not value.strip():
        raise UsageError("empty folder name")
    return value


COMMON_OPTS = [
    Opt(("--dir",), "dir", "DIR", to_folder, "memory folder (default: $MEMORY_DIR, else the workspace "
                                              "the suite sits in)"),
    Opt(("--json",), "json", None, None, "print one JSON object"),
    Opt(("--backend",), "backend", "NAME", to_choice("auto", "sqlite", "json"),
        "index backend: auto (default), sqlite or json"),
    Opt(("--sessions",), "sessions", "DIR", to_folder,
        "also index agent transcripts (*.jsonl) in DIR ($MEMORY_SESSIONS_DIR)"),
]


class Args(dict):
    """Parsed options, read as attributes; a name no option defines is an
    AttributeError (a misspelling must not read as 'not given')."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("no option named %r" % name)


def parse_args(argv, opts, takes_words=True):
    """Options and positional words (args.words).  '--' ends options; --opt=value works."""
    by_flag = {f: o for o in opts for f in o.flags}
    args = Args({o.dest: ([] if o.repeat else False if o.metavar is None else None) for o in opts})
    args["help"] = False
    args["words"] = words = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            words.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        if arg in ("-h", "--help"):
            args["help"] = True
            continue
        flag, eq, inline = arg.partition("=")
        opt = by_flag.get(flag)
        if opt is None:
            hint = (" (to search for text that starts with '-', put -- before it: -- %s)" % arg
                    if takes_words else "")
            raise UsageError("unknown option %s%s" % (flag, hint))
        if opt.metavar is None:
            if eq:
                raise UsageError("%s takes no value" % flag)
            args[opt.dest] = True
            continue
        if not eq:
            if i >= len(argv):
                raise UsageError("%s needs a value (%s)" % (flag, opt.metavar))
            inline = argv[i]
            i += 1
        try:
            value = opt.convert(inline)
        except UsageError as exc:
            raise UsageError("%s: %s" % (flag, exc))
        if opt.repeat:
            args[opt.dest].append(value)
        else:
            args[opt.dest] = value
    return args


def format_help(usage, description, opts, epilog=""):
    import textwrap
    lines = ["usage: " + usage, ""] + textwrap.wrap(description, 88) + ["", "options:"]
    for o in opts:
        left = ", ".join(o.flags) + ("" if o.metavar is None else " " + o.metavar)
        wrapped = textwrap.wrap(o.help, 88 - 25) or [""]
        lines.append("  %-22s %s" % (left, wrapped[0]))
        lines.extend(" " * 25 + more for more in wrapped[1:])
    lines.append("  %-22s %s" % ("-h, --help", "show this help"))
    return "\n".join(lines) + ("\n\n" + epilog if epilog else "") + "\n"


Command = record("Command", "opts usage description handler takes_words epilog", defaults=(True, ""))
Command.__doc__ = ("A subcommand: its options, usage line, description, handler(args) -> exit code, "
                   "whether it takes words, and what its help ends with (examples).")


def split_subcommand(argv, commands):
    """(subcommand or None, the other arguments).  The first word that is not
    an option (or an option's value) picks the subcommand; after '--' all is words."""
    takes_value = {f for c in commands.values() for o in c.opts if o.metavar for f in o.flags}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("-"):
            i += 2 if arg in takes_value else 1
            continue
        if arg in commands:
            return arg, argv[:i] + argv[i + 1:]
        break
    return None, argv


def run_cli(argv, commands, prog):
    """Shared CLI driver: parse, run, map errors to exit codes (0 ok, 1 runtime
    error, 2 usage error), one line on stderr; MEMORY_DEBUG=1 adds the traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # odd bytes in a query or a file never crash output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    as_json = "--json" in argv[:argv.index("--")] if "--" in argv else "--json" in argv
    try:
        name, rest = split_subcommand(argv, commands)
        command = commands[name]
        args = parse_args(rest, command.opts, command.takes_words)
        args["prog"] = prog
        if args.help:
            sys.stdout.write(format_help(command.usage, command.description, command.opts, command.epilog))
            return 0
        return command.handler(args)
    except UsageError as exc:
        return report_error("%s; see --help" % exc, 2, as_json, prog)
    except StoreError as exc:
        return report_error(exc, 1, as_json, prog)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for a user; say what broke
        if os.environ.get("MEMORY_DEBUG"):
            import traceback
            traceback.print_exc()
        return report_error("unexpected %s: %s (MEMORY_DEBUG=1 shows where)" % (type(exc).__name__, exc),
                            1, as_json, prog)


def report_error(message, code, as_json=False, prog="search"):
    """One line on stderr (and a JSON error object on stdout with --json)."""
    message = " ".join(str(message).split())
    sys.stderr.write("%s: error: %s\n" % (prog, message))
    if as_json:
        print_json({"error": message})
    return code


def cli_store(args):
    """The MemoryStore a command works on (--dir, --backend), its warnings
    prefixed with the command's name."""
    backend = args.backend or os.environ.get("MEMORY_BACKEND")
    if backend and backend.lower() not in ("auto", "sqlite", "json"):
        raise UsageError("MEMORY_BACKEND=%r is not one of: auto, sqlite, json" % backend)
    prog = args.get("prog", "memory")
    return MemoryStore(args.dir, backend=backend, warn=lambda msg: sys.stderr.write("%s: %s\n" % (prog, msg)),
                       sessions=args.get("sessions"))


def no_words(args):
    if args.words:
        raise UsageError("unexpected argument %r (to search for words that start with a command's "
                         "name, put -- before them: search.sh -- status report)" % args.words[0])


def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def pad(text, width):
    """Left-align text in a column, counting wide (CJK) characters as two."""
    shown = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return text + " " * max(0, width - shown)


def plural(n, word, words=None):
    """'1 file', '2 files'."""
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def human_bytes(n):
    if n < 1024:
        return "%d B" % n
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024.0
        if n < 1024 or unit == "GiB":
            return "%.1f %s" % (n, unit)


def print_json(obj):
    sys.stdout.write(to_json(obj) + "\n")


_JSON_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
                 "\b": "\\b", "\f": "\\f"}
_JSON_ESCAPES.update({chr(i): "\\u%04x" % i for i in range(32) if chr(i) not in _JSON_ESCAPES})
_JSON_ESCAPES.update({"\u2028": "\\u2028", "\u2029": "\\u2029"})


def to_json(obj):
    """JSON text of plain data (what json.dumps(obj, ensure_ascii=False) gives)."""
    if isinstance(obj, str):
        return '"' + "".join(_JSON_ESCAPES.get(c, c) for c in obj) + '"' \
            if any(c in _JSON_ESCAPES for c in obj) else '"' + obj + '"'
    if obj is None:
        return "null"
    if obj is True or obj is False:
        return "true" if obj else "false"
    if isinstance(obj, (int, float)):
        if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
            return "null"
        return repr(obj)
    if isinstance(obj, dict):
        return "{" + ", ".join(to_json(str(k)) + ": " + to_json(v) for k, v in obj.items()) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ", ".join(to_json(v) for v in obj) + "]"
    return to_json(str(obj))
