"""Where memories are kept: files, chunks, the one tokenizer, and the index.

The Markdown files are the source of truth; everything here can be rebuilt
from them and nothing here ever writes to them.  Sections, top to bottom:

  analysis   the one tokenizer (index and queries), Porter stemmer, and the
             vector-channel features derived from its terms
  sources    the memory folder, which files count, reading them safely
  chunking   heading-aware, bounded, overlapping chunks with exact line ranges
  backends   SQLite + FTS5 (default) and JSON (fallback), same interface
  MemoryStore  picks the backend, syncs incrementally, recovers from damage

It knows nothing about ranking beyond the raw channel scores
(memory_search.py merges them).
"""
import math
import os
import re
import sys
import time
import unicodedata
from collections import Counter, namedtuple

# --------------------------------------------------------------------------
# Analysis: the one tokenizer used for indexing and for queries.
# --------------------------------------------------------------------------

# Han ideographs (incl. extension A, compatibility, and the supplementary
# planes), kana and hangul are "CJK": written without spaces, so they are cut
# into overlapping character bigrams instead of words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f"
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF),
               (0xF900, 0xFAFF), (0x20000, 0x3134F))
# Runs of letters and digits, joined by connectors inside codes (KX-4471).
# CJK characters count as letters here and are split out afterwards: a regex
# class of the CJK ranges costs milliseconds to compile, so it is built only
# for text that is not ASCII (every process pays the compile; see tokenize).
_RUN_RE = re.compile(r"[^\W_]+(?:[-_.:/@+][^\W_]+)*")
_CONNECTORS = re.compile(r"[-_.:/@+]")
_cjk_split = None  # re.compile("([CJK]+)").split, made on first use

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


def tokenize(text):
    """Split text into index terms, the same way for documents and queries.

    - Latin words are case-folded, stop words dropped, the rest Porter-stemmed
      (so "configure" and "configuration" meet).
    - Codes joined by - _ . : / @ + (KX-4471, 2026-03-15, config.toml) are kept
      whole, and their parts are added too, so "4471" still finds "KX-4471".
    - CJK runs become character bigrams plus unigrams; a one-character run is
      its own token (十三香 -> 十三 三香 十 三 香).
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    out = []
    for run in _RUN_RE.findall(text.lower()):
        if run.isascii():
            out.extend(_cached_word_terms(run))
        else:
            _add_mixed_run(run, out)
    return out


def _split_cjk(run):
    """[other, cjk, other, cjk, ...]: a run cut at its CJK stretches.  Short
    runs (queries) are cut character by character; long ones (documents) by a
    regex compiled on first use (compiling it costs ~2 ms)."""
    global _cjk_split
    if len(run) < 64:
        out = [""]
        for c in run:
            if _is_cjk_char(c) == (len(out) % 2 == 0):  # same kind as the last stretch
                out[-1] += c
            else:
                out.append(c)
        return out
    if _cjk_split is None:
        _cjk_split = re.compile("([" + _CJK + "]+)").split
    return _cjk_split(run)


def _is_cjk_char(c):
    o = ord(c)
    return any(lo <= o <= hi for lo, hi in _CJK_RANGES)


def term_spans(text):
    """(start, end, is_cjk) of every word and CJK stretch in text, as tokenize
    sees them (text already lower-cased); used to highlight matches."""
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


def _add_mixed_run(run, out):
    """A run holding non-ASCII letters: CJK stretches become bigrams, the rest words."""
    for i, part in enumerate(_split_cjk(run)):
        if i % 2:
            out.extend(_cjk_terms(part))
        elif part:
            for word in _RUN_RE.findall(part):
                out.extend(_cached_word_terms(word))


def _memo(cache, key, compute, limit=300000):
    """cache[key], computed once; the cache is emptied when it grows past limit."""
    value = cache.get(key)
    if value is None:
        if len(cache) > limit:
            cache.clear()
        value = cache[key] = compute(key)
    return value


def _cached_word_terms(word):
    return _memo(_WORD_CACHE, word, _word_terms)


_WORD_CACHE = {}  # word -> its terms; words repeat, and stemming is the slow part


def is_cjk(text):
    """Whether text is made of CJK characters only (the tokenizer's CJK runs)."""
    return bool(text) and all(_is_cjk_char(c) for c in text)


def _cjk_terms(run):
    if len(run) == 1:
        return [run]
    return list(map(_concat, run, run[1:])) + list(run)  # bigrams, then unigrams


def _concat(a, b):
    return a + b


def _word_terms(word):
    if word.isalnum():
        return () if word in STOPWORDS else (stem(word),)
    terms = [word]  # the whole code, unstemmed
    for part in _CONNECTORS.split(word):
        if len(part) > 1 and part not in STOPWORDS:
            terms.append(stem(part))
    return tuple(terms)


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


# --- vector-channel features --------------------------------------------
# The TF-IDF channel sees each term (log tf) plus, for Latin words, the
# character trigrams they contain ("#con", "#onf", ...; present or not) at a
# lower weight, so it also matches typos, compounds and word forms the
# stemmer misses ("roadtrip" vs "road trip", "Feedley" vs "Feedly").  BM25
# sees whole terms only; that difference is what the hybrid is for.

GRAM_WEIGHT = 0.3


def term_grams(term):
    """Character trigrams of a Latin word term (with ^/$ boundary marks)."""
    if len(term) < 4 or not term.isascii() or not term.isalpha():
        return ()
    padded = "^" + term + "$"
    return tuple("#" + padded[i:i + 3] for i in range(len(padded) - 2))


_GRAM_CACHE = {}


def cached_grams(term):
    return _memo(_GRAM_CACHE, term, term_grams)


def vector_features(terms):
    """(term counts, set of trigrams): the vector channel's view of some terms."""
    counts = Counter(terms)
    grams = set()
    cache = _GRAM_CACHE
    for term in counts:  # inlined cached_grams: this loop is hot while indexing
        found = cache.get(term)
        if found is None:
            found = cached_grams(term)
        if found:
            grams.update(found)
    return counts, grams


_LOG_TF = [0.0] + [1.0 + math.log(n) for n in range(1, 64)]
_LOG_TF_SQUARED = [w * w for w in _LOG_TF]


def log_tf(n):
    """1 + ln(n), the sublinear term frequency of SMART 'l' weighting."""
    return _LOG_TF[n] if n < 64 else 1.0 + math.log(n)


def vector_norm(counts, grams):
    """Euclidean length of a chunk's vector: log-tf terms, trigrams at GRAM_WEIGHT."""
    squares = _LOG_TF_SQUARED
    total = sum(squares[n] if n < 64 else log_tf(n) ** 2 for n in counts.values())
    return math.sqrt(total + GRAM_WEIGHT * GRAM_WEIGHT * len(grams)) or 1.0


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

class StoreError(Exception):
    """A problem a user can act on; the message is one line, no traceback."""


# --------------------------------------------------------------------------
# Sources: the memory folder and the files in it.
# --------------------------------------------------------------------------

SUITE_DIR = os.path.dirname(os.path.abspath(__file__))
INDEX_DIRNAME = ".memory"
# The suite's own files, skipped when the scripts sit inside the memory folder.
SUITE_SKIP = frozenset(["README.md", "SKILL.md", "CHANGELOG.md", "LICENSE.md",
                        "tests", "examples", "bench", "docs"])
DATE_RE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PRIVATE = re.compile(r"<\s*private(?:\s[^>]*)?>.*?(?:<\s*/\s*private\s*>|\Z)", re.S | re.I)

SourceFile = namedtuple("SourceFile", "path abspath size mtime_ns")
SourceFile.__doc__ = "A Markdown file found in the memory folder (path is relative, '/'-separated)."


def resolve_memory_dir(arg=None):
    """The memory folder: --dir, else $MEMORY_DIR, else the suite's folder."""
    if arg is not None and not arg.strip():
        raise StoreError("the memory folder given is empty (--dir '')")
    raw = arg or os.environ.get("MEMORY_DIR") or SUITE_DIR
    path = os.path.abspath(os.path.expanduser(raw))
    if not os.path.isdir(path):
        problem = "is not a folder" if os.path.exists(path) else "not found"
        raise StoreError("memory folder %s: %s" % (problem, raw))
    return os.path.realpath(path)


def file_date(path):
    """The YYYY-MM-DD in a file's name (else its folders), or None."""
    name = path.rsplit("/", 1)[-1]
    for candidate in (name, path):
        for m in DATE_RE.finditer(candidate):
            y, mo, d = (int(g) for g in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return m.group(0)
    return None


def split_lines(text):
    """Lines as an editor numbers them: \\n, \\r\\n and lone \\r all end a line."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()  # the newline at the end of the last line
    return lines


def mask_private(text):
    """Replace each line of a <private>...</private> block by [private], keeping
    every line break as it was (\n, \r\n or \r), so line numbers stay exact."""
    if "private" not in text.lower():
        return text
    return _PRIVATE.sub(lambda m: "".join(
        "[private]" + brk for brk in _LINE_BREAK.findall(m.group(0)) + [""]), text)


def read_source(abspath):
    """Read a Markdown file: (text, issue).

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
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), "invalid-utf8"


def content_hash(data):
    import hashlib  # lazy: costs milliseconds at start-up, needed only on change
    return hashlib.sha1(data.encode("utf-8", "surrogatepass")).hexdigest()


def discover(root, index_dir=None):
    """Every memory file under root: (files, problems).

    Skips hidden files and folders, the index folder, the suite's own files
    when the suite lives inside root, symlinked folders (no loops), and
    symlinked files that lead outside root.  One stat per Markdown file:
    this runs before every command.
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
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            problems.append((prefix.rstrip("/") or ".", "unreadable"))
            continue
        at_suite = folder == suite
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


def _encodable(name):
    try:
        name.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def read_memory_lines(root, rel):
    """All lines of a memory file named by a path inside root (private blocks
    masked).  Only what the index would read: no hidden or non-Markdown files."""
    parts = rel.replace("\\", "/").split("/")
    if any(p.startswith(".") and p not in (".", "..") for p in parts) or not rel.lower().endswith(".md"):
        raise StoreError("not a memory file (a .md file outside hidden folders): %s" % rel)
    full = safe_join(root, rel)
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

CHUNK_MAX_LINES = 6
CHUNK_OVERLAP = 2
CHUNK_MAX_CHARS = 1000

Chunk = namedtuple("Chunk", "path ordinal start_line end_line heading text hash")
Chunk.__doc__ = ("A bounded piece of one file. Lines are 1-based and inclusive; heading is "
                 "the trail of enclosing headings joined by ' > '; hash identifies its text.")

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def chunk_id(path, ordinal):
    return "%s#%d" % (path, ordinal)


def parse_reference(text):
    """A place in a memory file as results print it: 'f.md' -> (f.md, None, None);
    'f.md:31-44' or 'f.md:31' -> (f.md, 31, 44); 'f.md#5' -> (f.md, '#', 5).
    A malformed line range or chunk number raises ValueError."""
    m = re.match(r"^(.+\.md)([:#])(.*)$", text, re.I | re.S)
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
    return _HEADING.match(line) is not None


def chunk_markdown(path, text, max_lines=None, overlap=None, max_chars=None):
    """Cut one file's text into chunks.

    A heading starts a new chunk (a heading with nothing under it stays with
    the section that follows); a long section becomes windows of at most
    max_lines lines / max_chars characters that overlap by `overlap` lines;
    a single line longer than max_chars is cut into pieces that share its
    line number.  Blank lines never start or end a chunk.
    """
    max_lines = max_lines or CHUNK_MAX_LINES
    overlap = CHUNK_OVERLAP if overlap is None else overlap
    max_chars = max_chars or CHUNK_MAX_CHARS
    lines = split_lines(mask_private(text))
    chunks = []
    for start, end, trail in _sections(lines):
        for s, e, piece in _windows(lines, start, end, max_lines, overlap, max_chars):
            chunks.append(Chunk(path, len(chunks), s + 1, e, " > ".join(trail), piece,
                                content_hash(piece)[:16]))
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
        marker = _FENCE.match(line)
        if marker:
            run = marker.group(1)  # a fence closes with the same character, at least as many
            if fence is None:
                fence = run
            elif run[0] == fence[0] and len(run) >= len(fence) and not line.strip()[len(run):]:
                fence = None
            has_content = True
            continue
        heading = None if fence else _HEADING.match(line)
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


def _windows(lines, start, end, max_lines, overlap, max_chars):
    """Bounded, overlapping windows of lines[start:end]: (s, e_exclusive, text)."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    i = start
    while i < end:
        if len(lines[i]) > max_chars:  # one huge line: cut it, same line number
            line = lines[i]
            for k in range(0, len(line), max_chars):
                yield i, i + 1, line[k:k + max_chars]
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
        yield i, e, "\n".join(lines[i:e])
        if j >= end:
            break
        if len(lines[j]) > max_chars:
            i = j
        else:  # overlap, but never more than half the window
            i = _next_content(lines, max(i + 1, j - min(overlap, (j - i) // 2)), end)


def _next_content(lines, i, end):
    while i < end and not lines[i].strip():
        i += 1
    return i


# --------------------------------------------------------------------------
# Index records shared by both backends
# --------------------------------------------------------------------------

SCHEMA_VERSION = 7
FTS_TOKENCHARS = "-_.:/@+"  # connectors the tokenizer keeps inside codes
HEADING_WEIGHT = 1.0        # BM25 weight of the heading column (body is 1.0)
BUSY_TIMEOUT_MS = 10000

ChunkRow = namedtuple("ChunkRow", "key path ordinal start_line end_line heading date text body head words norm hash")
ChunkRow.__doc__ = ("A stored chunk: key is the backend's row key; body holds its analysed terms "
                    "(space-joined, a line per text line), head those of its heading trail, words "
                    "its Latin words marked ^word$ (for trigram matching), norm its vector length, "
                    "hash its text's.")

SyncReport = namedtuple("SyncReport", "added updated removed unchanged problems")
SyncReport.__doc__ = "What a sync did: lists of paths, and (path, issue) pairs."

Filters = namedtuple("Filters", "since until path_glob dated_only")
Filters.__new__.__defaults__ = (None, None, None, False)


def analyse_chunk(chunk, line_terms=None):
    """(body, head, gram words, vector norm, distinct features, term count) of a chunk.

    body holds the chunk's terms, space-joined, one text line per line, so
    a query can see which line holds which terms without tokenizing again;
    head is the heading trail's terms.  The distinct features (terms and
    trigrams) are what document frequencies count.  line_terms, a dict shared
    by the chunks of one file, tokenizes each distinct line once (overlapping
    chunks repeat lines)."""
    cache = {} if line_terms is None else line_terms
    if len(cache) > 512:  # overlap only ever reuses the last chunk's lines
        cache.clear()
    lines, flat = [], []
    for line in chunk.text.split("\n"):
        terms = cache.get(line)
        if terms is None:
            terms = cache[line] = tokenize(line)
        lines.append(" ".join(terms))
        flat.extend(terms)
    head = tokenize(chunk.heading) if chunk.heading else []
    counts, grams = vector_features(flat + head)
    return ("\n".join(lines), " ".join(head), gram_words(counts), vector_norm(counts, grams),
            grams.union(counts), len(flat) + len(head))


def gram_words(terms):
    """The chunk's Latin word terms, each as ^term$, space-joined: a query
    trigram ("^co", "onf", "ur$") is in the chunk exactly when it is a
    substring of this, so queries need not cut the chunk's words again."""
    return " ".join("^%s$" % t for t in sorted(set(terms)) if cached_grams(t))


def pack_terms(body, head, words):
    """A chunk's analysed terms (body lines, heading, gram words), compressed:
    Chinese bigrams + unigrams make them several times the text's size."""
    import zlib
    return zlib.compress(("%s\t%s\t%s" % (body, head, words)).encode("utf-8"), 1)


def unpack_terms(blob):
    """(body, head, words) as stored by pack_terms."""
    import zlib
    body, head, words = zlib.decompress(blob).decode("utf-8").split("\t")
    return body, head, words


def stored_features(body, head):
    """The distinct features of a stored chunk (its terms are space-joined)."""
    features = set(body.split()) | set(head.split())
    for term in list(features):
        features.update(cached_grams(term))
    return features


def glob_matches(pattern, path):
    """--path semantics: a glob (* ? [..]); without wildcards, a file or folder prefix."""
    if not any(c in pattern for c in "*?["):
        p = pattern.strip("/")
        return path == p or path.startswith(p + "/")
    import fnmatch
    return fnmatch.fnmatchcase(path, pattern)


def passes(filters, date, path):
    if filters is None:
        return True
    if date is None:
        if filters.dated_only:
            return False
    else:
        if filters.since and date < filters.since:
            return False
        if filters.until and date > filters.until:
            return False
    return not filters.path_glob or glob_matches(filters.path_glob, path)


def plan_sync(known, found):
    """Compare stored files {path: (size, mtime_ns, hash)} with found SourceFiles.

    Returns (changed, removed, unchanged): changed are SourceFiles whose size
    or mtime differ (the caller hashes them), removed are stored paths gone.
    """
    changed, unchanged = [], []
    seen = set()
    for f in found:
        seen.add(f.path)
        old = known.get(f.path)
        if old and old[0] == f.size and old[1] == f.mtime_ns:
            unchanged.append(f.path)
        else:
            changed.append(f)
    removed = [p for p in known if p not in seen]
    return changed, removed, unchanged


AnalysedFile = namedtuple("AnalysedFile", "digest issue chunks df")
AnalysedFile.__doc__ = ("A file ready for the index: its hash, any issue, its chunks as "
                        "(Chunk, body, head, words, norm, term count), and how many of its "
                        "chunks hold each feature (for document frequencies).")


def analyse_file(f, df=None, known_hash=None):
    """Read, chunk and analyse one SourceFile (in a worker process for big
    syncs).  Chunks come as (Chunk, body, head, packed terms, norm, term count);
    df counts the chunks holding each feature (pass a Counter to add to it).
    A file whose content still has known_hash is not analysed: chunks is None."""
    text, issue = read_source(f.abspath)
    df = Counter() if df is None else df
    if text is None:
        return AnalysedFile(None, issue, [], df)
    digest = content_hash(text)
    if digest == known_hash:
        return AnalysedFile(digest, issue, None, df)  # touched, not changed
    chunks, line_terms = [], {}
    for chunk in chunk_markdown(f.path, text):
        body, head, words, norm, features, n_terms = analyse_chunk(chunk, line_terms)
        chunks.append((chunk, body, head, pack_terms(body, head, words), norm, n_terms))
        df.update(features)
    return AnalysedFile(digest, issue, chunks, df)


def _quiet_worker():
    """A worker's errors reach the parent through the pool; its own stderr would
    only print broken-pipe tracebacks if the parent were killed."""
    sys.stderr = open(os.devnull, "w")


def _analyse_batch(tasks):
    """Worker task: several (SourceFile, known hash), with one document-frequency
    Counter for all of them (merging one Counter per file in the parent cost
    seconds)."""
    df = Counter()
    results = [analyse_file(f, df, known)._replace(df=None) for f, known in tasks]
    return results, df


PARALLEL_BYTES = 4 * 1024 * 1024  # changed Markdown above this is analysed in parallel
PARALLEL_BATCH = 32               # files handed out at a time (bounds memory)


def _pipelined(pool, tasks, in_flight):
    """Batches of (file, known hash) through the pool, in order, with a bounded
    number in flight so results never pile up in memory."""
    from collections import deque
    batches = iter([tasks[i:i + PARALLEL_BATCH] for i in range(0, len(tasks), PARALLEL_BATCH)])
    pending = deque()
    for batch in batches:
        pending.append((batch, pool.apply_async(_analyse_batch, (batch,))))
        if len(pending) >= in_flight:
            break
    while pending:
        batch, result = pending.popleft()
        results, df = result.get()
        following = next(batches, None)
        if following is not None:
            pending.append((following, pool.apply_async(_analyse_batch, (following,))))
        for (f, _), analysed in zip(batch, results):
            yield f, analysed
        yield None, df  # the batch's document frequencies


def analyse_files(tasks):
    """(SourceFile, AnalysedFile) for each (SourceFile, known hash), in order;
    across worker processes when there is enough to do and more than one core,
    else in this process.  From workers, each batch ends with (None, Counter):
    the batch's document frequencies, which its AnalysedFiles leave out."""
    workers = min(os.cpu_count() or 1, 4)
    if workers > 1 and sum(f.size for f, _ in tasks) > PARALLEL_BYTES:
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
                for item in _pipelined(pool, tasks, workers * 2):
                    yield item
            return
    for f, known in tasks:
        yield f, analyse_file(f, known_hash=known)


# --------------------------------------------------------------------------
# SQLite backend: chunks + an FTS5 index over the analysed terms.
# --------------------------------------------------------------------------

_SQLITE_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER,
                   hash TEXT, issue TEXT) WITHOUT ROWID;
CREATE TABLE chunks(id INTEGER PRIMARY KEY, path TEXT NOT NULL, ordinal INTEGER NOT NULL,
                    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
                    heading TEXT, date TEXT, text TEXT, terms BLOB, norm REAL, hash TEXT);
CREATE UNIQUE INDEX chunks_by_path ON chunks(path, ordinal);
CREATE VIRTUAL TABLE fts USING fts5(body, head, content='',
    tokenize="unicode61 remove_diacritics 0 tokenchars '{tokenchars}'");
INSERT INTO fts(fts, rank) VALUES('rank', 'bm25(1.0, {heading_weight})');
CREATE TABLE terms(term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
""".format(tokenchars=FTS_TOKENCHARS, heading_weight=HEADING_WEIGHT)


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


class SqliteBackend:
    """The default index: one SQLite file, WAL mode, one transaction per sync."""

    name = "sqlite-fts5"
    filename = "index.sqlite3"

    def __init__(self, index_dir):
        import sqlite3
        self.sqlite3 = sqlite3
        self.path = os.path.join(index_dir, self.filename) if index_dir else ":memory:"
        self.conn = None

    # --- lifecycle ---------------------------------------------------------
    def open(self):
        conn = self.sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000.0,
                                    isolation_level=None, check_same_thread=False)
        self.conn = conn
        conn.execute("PRAGMA busy_timeout=%d" % BUSY_TIMEOUT_MS)
        if self._schema_version() != SCHEMA_VERSION:
            _retry_while_locked(self._create_schema, self.sqlite3)
        conn.execute("SELECT rowid FROM fts LIMIT 0")  # fails here if this SQLite has no FTS5
        conn.execute("PRAGMA synchronous=NORMAL")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def is_damage(self, exc):
        """Whether an exception means the file is damaged (not merely busy)."""
        if not isinstance(exc, self.sqlite3.DatabaseError):
            return False
        msg = str(exc).lower()
        if isinstance(exc, self.sqlite3.OperationalError):
            return "no such table" in msg or "no such column" in msg or "malformed" in msg
        return True

    def files_on_disk(self):
        return [self.path + s for s in ("", "-wal", "-shm")] if self.path != ":memory:" else []

    def _schema_version(self):
        try:
            row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except self.sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return None
            raise
        return int(row[0]) if row else None

    def _create_schema(self):
        conn = self.conn
        if self.path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if self._schema_version() == SCHEMA_VERSION:  # another process won the race
                conn.execute("COMMIT")
                return
            _drop_everything(conn)
            for statement in _SQLITE_SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.executemany("INSERT INTO meta VALUES(?, ?)", [
                ("schema_version", str(SCHEMA_VERSION)), ("chunk_count", "0"), ("total_terms", "0"),
                ("created", _now()), ("last_sync", "")])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # --- reads -------------------------------------------------------------
    def known_files(self):
        return {p: (s, m, h) for p, s, m, h in
                self.conn.execute("SELECT path, size, mtime_ns, hash FROM files")}

    def chunk_count(self):
        return int(self._meta("chunk_count") or 0)

    def total_terms(self):
        """Terms in all chunks (body and heading): BM25's average length is this / chunks."""
        return int(self._meta("total_terms") or 0)

    def _meta(self, key):
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def doc_freqs(self, terms):
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        return dict(self.conn.execute(
            "SELECT term, df FROM terms WHERE term IN (%s)" % marks, list(terms)))

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        """BM25 over the FTS5 index: [(key, score)], score positive, best first.
        Chunks holding any of the terms (or words starting with a prefix), or
        with require_all, every term."""
        phrases = ['"%s"' % t.replace('"', '""') for t in terms]
        phrases += ['"%s"*' % p.replace('"', '""') for p in prefixes]
        if not phrases:
            return []
        match = (" AND " if require_all else " OR ").join(phrases)
        where, args = _sql_filters(filters, self.conn)
        sql = ("SELECT fts.rowid, -fts.rank FROM fts JOIN chunks c ON c.id = fts.rowid "
               "WHERE fts MATCH ?%s ORDER BY fts.rank LIMIT ?" % where)
        return self.conn.execute(sql, [match] + args + [limit]).fetchall()

    def fetch(self, keys):
        """{key: ChunkRow} for the given keys."""
        out = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            part = keys[i:i + 500]
            rows = self.conn.execute(
                "SELECT id, path, ordinal, start_line, end_line, heading, date, text, terms, norm, hash "
                "FROM chunks WHERE id IN (%s)" % ",".join("?" * len(part)), part)
            for r in rows:
                out[r[0]] = ChunkRow(*(r[:8] + unpack_terms(r[8]) + r[9:]))
        return out

    def chunk_keys(self, path, ordinal=None):
        if ordinal is None:
            rows = self.conn.execute("SELECT id FROM chunks WHERE path=? ORDER BY ordinal", (path,))
        else:
            rows = self.conn.execute("SELECT id FROM chunks WHERE path=? AND ordinal=?", (path, ordinal))
        return [r[0] for r in rows]

    def file_issues(self):
        return list(self.conn.execute(
            "SELECT path, issue FROM files WHERE issue IS NOT NULL ORDER BY path"))

    def stats(self):
        n_files = self.conn.execute("SELECT count(*) FROM files").fetchone()[0]
        size = sum(os.path.getsize(p) for p in self.files_on_disk() if os.path.exists(p))
        return {"files": n_files, "chunks": self.chunk_count(), "index_bytes": size,
                "last_sync": self._meta("last_sync") or None,
                "schema_version": SCHEMA_VERSION}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        """The one way to change the index: a transaction (see _SqliteWriter)."""
        return _SqliteWriter(self, rebuild)

    def _delete_file(self, path, delta):
        """Remove a file's chunks; returns how many terms they held."""
        conn = self.conn
        old = conn.execute("SELECT id, terms FROM chunks WHERE path=?", (path,)).fetchall()
        removed = 0
        for key, blob in old:
            body, head, _ = unpack_terms(blob)
            # a contentless FTS5 row is removed by repeating exactly what was indexed
            conn.execute("INSERT INTO fts(fts, rowid, body, head) VALUES('delete', ?, ?, ?)",
                         (key, body, head))
            delta.subtract(stored_features(body, head))
            removed += len(body.split()) + len(head.split())
        conn.execute("DELETE FROM chunks WHERE path=?", (path,))
        conn.execute("DELETE FROM files WHERE path=?", (path,))
        return removed

    def _apply_df(self, delta):
        changes = [(n, t) for t, n in delta.items() if n]
        self.conn.executemany("INSERT OR IGNORE INTO terms VALUES(?, 0)", [(t,) for _, t in changes])
        self.conn.executemany("UPDATE terms SET df = df + ? WHERE term = ?", changes)
        self.conn.execute("DELETE FROM terms WHERE df <= 0")

    def backup_to(self, dest):
        target = self.sqlite3.connect(dest)
        try:
            self.conn.backup(target)
        finally:
            target.close()


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
            for table in ("chunks", "files", "terms"):
                conn.execute("DELETE FROM %s" % table)
            conn.execute("UPDATE meta SET value='0' WHERE key='total_terms'")
        self.next_id = (conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0) + 1
        return self

    def known_files(self):
        return self.backend.known_files()

    def remove(self, path):
        self.terms_delta -= self.backend._delete_file(path, self.df_delta)

    def put(self, f, analysed):
        """Replace a file's chunks with an AnalysedFile; its chunks are written in
        batches, so a huge file never sits in memory as SQL rows too."""
        self.remove(f.path)
        self.conn.execute("INSERT INTO files VALUES(?, ?, ?, ?, ?)",
                          (f.path, f.size, f.mtime_ns, analysed.digest, analysed.issue))
        date = file_date(f.path)
        chunk_rows, fts_rows = [], []
        for chunk, body, head, packed, norm, n_terms in analysed.chunks:
            chunk_rows.append((self.next_id, chunk.path, chunk.ordinal, chunk.start_line, chunk.end_line,
                               chunk.heading, date, chunk.text, packed, norm, chunk.hash))
            fts_rows.append((self.next_id, body, head))
            self.terms_delta += n_terms
            self.next_id += 1
            if len(chunk_rows) >= 1000:
                self._insert(chunk_rows, fts_rows)
        self._insert(chunk_rows, fts_rows)
        if analysed.df is not None:
            self.df_delta.update(analysed.df)

    def count_features(self, df):
        """Document frequencies of a batch of files put() without theirs."""
        self.df_delta.update(df)

    def _insert(self, chunk_rows, fts_rows):
        self.conn.executemany("INSERT INTO chunks VALUES(?,?,?,?,?,?,?,?,?,?,?)", chunk_rows)
        self.conn.executemany("INSERT INTO fts(rowid, body, head) VALUES(?, ?, ?)", fts_rows)
        del chunk_rows[:], fts_rows[:]

    def touch(self, f):
        self.conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?", (f.size, f.mtime_ns, f.path))

    def __exit__(self, exc_type, exc, tb):
        conn = self.conn
        if exc_type is not None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            return False
        try:
            self.backend._apply_df(self.df_delta)
            count = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
            total = self.backend.total_terms() + self.terms_delta
            conn.executemany("UPDATE meta SET value=? WHERE key=?",
                             [(str(count), "chunk_count"), (str(total), "total_terms"), (_now(), "last_sync")])
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return False


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


def _sql_filters(filters, conn):
    if filters is None:
        return "", []
    where, args = [], []
    if filters.dated_only:
        where.append("c.date IS NOT NULL")
    if filters.since:
        where.append("(c.date IS NULL OR c.date >= ?)")
        args.append(filters.since)
    if filters.until:
        where.append("(c.date IS NULL OR c.date <= ?)")
        args.append(filters.until)
    if filters.path_glob:
        conn.create_function("path_ok", 1, lambda p: glob_matches(filters.path_glob, p))
        where.append("path_ok(c.path)")
    return "".join(" AND " + w for w in where), args


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%S")


# --------------------------------------------------------------------------
# JSON backend: the same information in one JSON file, for Pythons without
# sqlite3 or FTS5 (or MEMORY_BACKEND=json).  BM25 is computed here with
# FTS5's exact formula so both backends rank alike.  It loads the whole
# index per process, so it suits small folders; SQLite is the default.
# --------------------------------------------------------------------------

BM25_K1, BM25_B = 1.2, 0.75  # FTS5's built-in constants


class JsonBackend:
    name = "json"
    filename = "index.json"

    def __init__(self, index_dir):
        self.path = os.path.join(index_dir, self.filename) if index_dir else None
        self.data = None
        self._postings = None

    def open(self):
        data = None
        if self.path and os.path.exists(self.path):
            import json
            with open(self.path, encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, dict) or not isinstance(data.get("chunks"), list) \
                    or not isinstance(data.get("files"), dict):
                raise ValueError("not a memory index")
        if not data or data.get("schema_version") != SCHEMA_VERSION:
            data = {"schema_version": SCHEMA_VERSION, "created": _now(), "last_sync": None,
                    "files": {}, "chunks": []}
        self.data = data
        self._postings = None

    def close(self):
        self.data = None

    def is_damage(self, exc):
        if isinstance(exc, UnicodeEncodeError):  # a name that cannot be stored, not damage
            return False
        return isinstance(exc, (ValueError, KeyError, TypeError, IndexError, AttributeError))

    def files_on_disk(self):
        return [self.path] if self.path else []

    # --- reads -------------------------------------------------------------
    def known_files(self):
        return {p: (v[0], v[1], v[2]) for p, v in self.data["files"].items()}

    def chunk_count(self):
        return len(self.data["chunks"])

    def total_terms(self):
        return sum(self._index()[1])

    def _row(self, key):
        path, ordinal, start, end, heading, date, text, body, head, words, norm, digest = self.data["chunks"][key]
        return ChunkRow(key, path, ordinal, start, end, heading, date, text, body, head, words, norm, digest)

    def _index(self):
        """Postings {term: [(key, body_tf, head_tf)]}, doc lengths, average length,
        and document frequencies of every feature (terms and trigrams)."""
        if self._postings is None:
            postings, lengths, dfs = {}, [], Counter()
            for key, c in enumerate(self.data["chunks"]):
                body, head = c[7].split(), c[8].split()
                lengths.append(len(body) + len(head))
                bc, hc = Counter(body), Counter(head)
                for term in set(bc) | set(hc):
                    postings.setdefault(term, []).append((key, bc.get(term, 0), hc.get(term, 0)))
                dfs.update(stored_features(c[7], c[8]))
            avg = (sum(lengths) / len(lengths)) if lengths else 1.0
            self._postings = (postings, lengths, avg or 1.0, dfs)
        return self._postings

    def doc_freqs(self, terms):
        dfs = self._index()[3]
        return {t: dfs[t] for t in terms if dfs.get(t)}

    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        postings, lengths, avg, _ = self._index()
        n = len(lengths)
        scores = {}
        if require_all:
            holding = None
            for term in set(terms):
                keys = {k for k, _, _ in postings.get(term, ())}
                holding = keys if holding is None else holding & keys
        phrases = {term: postings.get(term) for term in set(terms)}
        for prefix in prefixes:  # like FTS5's "pre"*: one phrase for all words starting so
            merged = {}
            for term, hits in postings.items():
                if term.startswith(prefix):
                    for key, body_tf, head_tf in hits:
                        b, h = merged.get(key, (0, 0))
                        merged[key] = (b + body_tf, h + head_tf)
            phrases[prefix + "*"] = [(k, b, h) for k, (b, h) in merged.items()]
        for term, hits in phrases.items():
            if not hits:
                continue
            idf = math.log((n - len(hits) + 0.5) / (len(hits) + 0.5))
            idf = idf if idf > 0 else 1e-6
            for key, body_tf, head_tf in hits:
                tf = body_tf + HEADING_WEIGHT * head_tf
                denom = tf + BM25_K1 * (1 - BM25_B + BM25_B * lengths[key] / avg)
                scores[key] = scores.get(key, 0.0) + idf * tf * (BM25_K1 + 1) / denom
        chunks = self.data["chunks"]
        if require_all:
            scores = {k: v for k, v in scores.items() if k in holding}
        ranked = sorted((k for k in scores if passes(filters, chunks[k][5], chunks[k][0])),
                        key=lambda k: (-scores[k], k))
        return [(k, scores[k]) for k in ranked[:limit]]

    def fetch(self, keys):
        return {k: self._row(k) for k in keys if 0 <= k < len(self.data["chunks"])}

    def chunk_keys(self, path, ordinal=None):
        return [k for k, c in enumerate(self.data["chunks"])
                if c[0] == path and (ordinal is None or c[1] == ordinal)]

    def file_issues(self):
        return sorted((p, v[3]) for p, v in self.data["files"].items() if v[3])

    def stats(self):
        size = os.path.getsize(self.path) if self.path and os.path.exists(self.path) else 0
        return {"files": len(self.data["files"]), "chunks": self.chunk_count(),
                "index_bytes": size, "last_sync": self.data.get("last_sync"),
                "schema_version": SCHEMA_VERSION}

    # --- writes ------------------------------------------------------------
    def writer(self, rebuild=False):
        return _JsonWriter(self, rebuild)

    def backup_to(self, dest):
        import shutil
        shutil.copyfile(self.path, dest)


class _JsonWriter:
    """Changes to the JSON index, written atomically (temp file + rename) at the
    end, under an exclusive lock file so two writers never interleave."""

    def __init__(self, backend, rebuild):
        self.backend, self.rebuild = backend, rebuild
        self.lock = _FileLock(backend.path)

    def __enter__(self):
        self.lock.__enter__()
        try:
            self.backend.open()  # re-read under the lock: another writer may have gone first
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        if self.rebuild:
            self.backend.data["files"], self.backend.data["chunks"] = {}, []
        return self

    def known_files(self):
        return self.backend.known_files()

    def remove(self, path):
        data = self.backend.data
        if path in data["files"]:
            del data["files"][path]
            data["chunks"] = [c for c in data["chunks"] if c[0] != path]

    def put(self, f, analysed):
        self.remove(f.path)
        data = self.backend.data
        data["files"][f.path] = [f.size, f.mtime_ns, analysed.digest, analysed.issue]
        date = file_date(f.path)
        for chunk, body, head, packed, norm, _ in analysed.chunks:
            words = unpack_terms(packed)[2]
            data["chunks"].append([chunk.path, chunk.ordinal, chunk.start_line, chunk.end_line,
                                   chunk.heading, date, chunk.text, body, head, words, norm, chunk.hash])

    def count_features(self, df):
        pass  # the JSON backend counts document frequencies when it loads

    def touch(self, f):
        entry = self.backend.data["files"].get(f.path)
        if entry:
            entry[:2] = [f.size, f.mtime_ns]

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                data = self.backend.data
                data["chunks"].sort(key=lambda c: (c[0], c[1]))
                data["last_sync"] = _now()
                if self.backend.path:
                    write_json_atomic(self.backend.path, data)
            else:
                self.backend.open()  # drop the half-made changes
        finally:
            self.backend._postings = None
            self.lock.__exit__(None, None, None)
        return False


def write_json_atomic(path, data):
    """Write JSON to a temporary file, then move it into place: never half a file."""
    import json
    tmp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
# MemoryStore: the one entry point for the other modules.
# --------------------------------------------------------------------------

BACKUPS_KEPT = 3


class _BackgroundScan:
    """A sync's stat pass running beside the caller (see MemoryStore.start_scan)."""

    def __init__(self, store):
        import threading
        self.store, self.result = store, None
        self.thread = threading.Thread(target=self._scan, daemon=True)
        self.thread.start()

    def _scan(self):
        try:
            self.result = discover(self.store.root, self.store.index_dir)
        except BaseException as exc:  # handed to finish(), in the caller's thread
            self.result = exc

    def finish(self):
        """Wait for the scan; sync what changed.  True if the index changed."""
        self.thread.join()
        if isinstance(self.result, BaseException):
            raise self.result
        found, _ = self.result
        store = self.store
        changed, removed, _ = store._guarded(lambda: plan_sync(store.backend.known_files(), found))
        if not changed and not removed:
            return False
        store._guarded(store._sync, scan=self.result)
        return True


def _write_error(exc, index_dir):
    """A StoreError for failures a user can act on (busy, full, read-only), else None."""
    msg = str(exc).lower()
    if "locked" in msg or "busy" in msg:
        return StoreError("the index is busy: another process is updating it (try again)")
    if any(w in msg for w in ("full", "readonly", "read-only", "unable to open", "disk i/o")):
        hint = " (is the disk full?)" if "i/o" in msg or "full" in msg else ""
        return StoreError("cannot write the index in %s: %s%s; the old index is unchanged"
                          % (index_dir, exc, hint))
    return None


def locate_index_dir(root):
    """Where the index lives: MEMORY_INDEX_DIR, else <root>/.memory, else a
    per-user cache folder keyed by root's path (for read-only folders), else
    None (in memory only)."""
    explicit = os.environ.get("MEMORY_INDEX_DIR")
    if explicit:
        if _writable_dir(explicit):
            return explicit
        raise StoreError("index folder is not writable: %s" % explicit)
    for where in (lambda: os.path.join(root, INDEX_DIRNAME), lambda: _cache_dir(root)):
        path = where()  # the cache path costs a hashlib import: only when needed
        if _writable_dir(path):
            return path
    return None


def _cache_dir(root):
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    import hashlib
    key = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(base, "memory-suite", key)


def _writable_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


class MemoryStore:
    """A memory folder and its index.

    >>> store = MemoryStore("~/notes")      # doctest: +SKIP
    >>> store.sync()                        # cheap when nothing changed
    """

    def __init__(self, root=None, backend=None, index_dir=None, warn=None):
        self.root = resolve_memory_dir(root)
        self.warn = warn or (lambda msg: sys.stderr.write(msg + "\n"))
        if index_dir and not _writable_dir(index_dir):
            raise StoreError("index folder is not writable: %s" % index_dir)
        self.index_dir = index_dir or locate_index_dir(self.root)
        requested = (backend or os.environ.get("MEMORY_BACKEND") or "auto").lower()
        if requested not in ("auto", "sqlite", "json"):
            raise StoreError("unknown backend %r (use auto, sqlite or json)" % requested)
        self.fallback_reason = None
        self.last_report = None
        if requested != "json":
            reason = self._open_sqlite()
            if reason is None:
                return
            if requested == "sqlite":
                raise StoreError("SQLite backend unavailable: " + reason)
            self.fallback_reason = reason
        self.backend = JsonBackend(self.index_dir)
        self._guarded(self.backend.open)

    def _open_sqlite(self):
        """Open the SQLite index; None, or why SQLite with FTS5 cannot be used here.
        (No separate FTS5 probe: opening the index shows whether FTS5 works.)"""
        try:
            self.backend = SqliteBackend(self.index_dir)
        except ImportError:
            return "the sqlite3 module is not available"
        existed = [p for p in self.backend.files_on_disk() if os.path.exists(p)]
        try:
            self._guarded(self.backend.open)
        except self.backend.sqlite3.OperationalError as exc:
            if "fts5" not in str(exc).lower():
                raise
            self.backend.close()
            for path in self.backend.files_on_disk():  # leave no SQLite file behind
                if path not in existed and os.path.exists(path):
                    os.unlink(path)
            return "this SQLite (%s) has no FTS5" % self.backend.sqlite3.sqlite_version
        return None

    # --- recovery ----------------------------------------------------------
    def _guarded(self, fn, *args, **kwargs):
        """Run fn; if the index turns out damaged, move it aside, rebuild, retry once."""
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not self.backend.is_damage(exc):
                if isinstance(exc, (StoreError, OSError)):
                    raise
                known = _write_error(exc, self.index_dir)  # busy, full, read-only: say so
                if known:
                    raise known
                raise
            self._quarantine(exc)
            self.backend.open()
            self._sync(rebuild=True)
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
        self.warn("memory: index was damaged (%s); moved it to %s and rebuilt it from the Markdown"
                  % (str(exc).splitlines()[0] if str(exc) else type(exc).__name__, moved or "nowhere"))

    # --- sync --------------------------------------------------------------
    def sync(self):
        """Bring the index up to date with the folder; cheap when nothing changed."""
        return self._guarded(self._sync)

    def rebuild(self):
        """Back up the index (keeping the last few), then rebuild it from scratch."""
        backup = self._backup()
        report = self._guarded(self._sync, rebuild=True)
        return report, backup

    def start_scan(self):
        """Begin the stat pass of a sync in a background thread.  It mostly
        waits on the file system, so a query on the current index can run
        meanwhile; finish() then syncs if anything changed."""
        return _BackgroundScan(self)

    def _sync(self, rebuild=False, scan=None):
        found, problems = scan or discover(self.root, self.index_dir)
        if not rebuild:
            changed, removed, unchanged = plan_sync(self.backend.known_files(), found)
            if not changed and not removed:
                self.last_report = SyncReport([], [], [], sorted(unchanged), sorted(problems))
                return self.last_report
        try:
            report = self._write_changes(found, problems, rebuild)
        except OSError as exc:
            raise StoreError("cannot write the index in %s: %s" % (self.index_dir, exc.strerror or exc))
        except Exception as exc:
            raise _write_error(exc, self.index_dir) or exc
        self.last_report = report
        return report

    def _write_changes(self, found, problems, rebuild):
        """Apply what changed, one file at a time, in one transaction."""
        added, updated, touched = [], [], []
        with self.backend.writer(rebuild) as w:
            known = {} if rebuild else w.known_files()  # again, now that we hold the lock
            changed, removed, unchanged = plan_sync(known, found)
            for path in removed:
                w.remove(path)
            tasks = [(f, known[f.path][2] if f.path in known else None) for f in changed]
            for f, analysed in analyse_files(tasks):
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

    def stale(self):
        """What a sync would change, without writing: (changed, removed) paths."""
        changed, removed, _ = self._stale_and_skipped()
        return changed, removed

    def _stale_and_skipped(self):
        """(changed paths, removed paths, (path, issue) skipped by discovery)."""
        found, skipped = discover(self.root, self.index_dir)
        changed, removed, _ = self._guarded(lambda: plan_sync(self.backend.known_files(), found))
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
            self.warn("memory: could not back up the index (%s); rebuilding anyway" % exc)
            return None
        olds = sorted(n for n in os.listdir(folder) if n.endswith(self.backend.filename))
        for old in olds[:-BACKUPS_KEPT]:
            os.unlink(os.path.join(folder, old))
        return dest

    # --- reads -------------------------------------------------------------
    def keyword(self, terms, limit, filters=None, require_all=False, prefixes=()):
        return self._guarded(self.backend.keyword, terms, limit, filters, require_all, prefixes)

    def fetch(self, keys):
        return self._guarded(self.backend.fetch, keys)

    def doc_freqs(self, terms):
        return self._guarded(self.backend.doc_freqs, terms)

    def chunk_count(self):
        return self.backend.chunk_count()

    def total_terms(self):
        return self.backend.total_terms()

    def chunk_keys(self, path, ordinal=None):
        return self.backend.chunk_keys(path, ordinal)

    def status(self):
        stats = self._guarded(self.backend.stats)
        changed, removed, skipped = self._stale_and_skipped()
        issues = sorted(set(self.backend.file_issues()) | set(skipped))
        return dict(stats, **{
            "memory_dir": self.root,
            "backend": self.backend.name,
            "fts5": sqlite_unavailable_reason() is None,
            "fallback_reason": self.fallback_reason,
            "index_path": self.backend.files_on_disk()[0] if self.backend.files_on_disk() else ":memory:",
            "stale_files": sorted(changed + removed),
            "problem_files": [{"path": p, "issue": i} for p, i in issues],
        })

    def close(self):
        self.backend.close()

