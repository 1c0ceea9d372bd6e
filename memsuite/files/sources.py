"""The memory folder: where it is, where its index lives, which files count, reading
them safely, and paths that may never leave it."""
import os
import re
from operator import attrgetter

from ..text.markdown import mask_private, split_lines
from ..base.patterns import pattern
from ..base.records import StoreError, record


# Sources: the memory folder and the files in it.

from ..text.chinese import SUITE_DIR  # noqa: F401 (the suite folder, above memsuite/)
INDEX_DIRNAME = ".memory"
# The suite's own files, skipped when the scripts sit inside the memory folder.
SUITE_SKIP = frozenset(["README.md", "SKILL.md", "CHANGELOG.md", "LICENSE.md",
                        "tests", "examples", "bench", "docs", "data", "memsuite", "hooks",
                        "integrations"])

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
    folder and its three parents that holds MEMORY.md or memory/, or an
    agent's own files (AGENTS.md, SOUL.md, ...: a fresh OpenClaw workspace has
    no memory yet), or whose workspace/ does (OpenClaw keeps its skills in
    ~/.openclaw/skills and its memory in ~/.openclaw/workspace).  The suite's
    own folder never counts.  None if there is none."""
    here = os.path.abspath(folder)  # not realpath: a symlinked install looks where it is linked
    suite = os.path.realpath(SUITE_DIR)
    for _ in range(levels + 1):
        for candidate in (here, os.path.join(here, "workspace")):
            if os.path.realpath(candidate) != suite and (is_agent_workspace(candidate) or os.path.isfile(
                    os.path.join(candidate, "MEMORY.md")) or os.path.isdir(os.path.join(candidate, "memory"))):
                return candidate
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    return None


def locate_index_dir(root):
    """Where the index lives: MEMORY_INDEX_DIR, else <root>/.memory, else a
    per-user cache folder keyed by root's path (for read-only folders, and
    for the suite's own folder, which may be a client's plugin cache: a
    reinstall deletes it), else None (in memory only)."""
    explicit = os.environ.get("MEMORY_INDEX_DIR")
    if explicit:
        if writable_dir(explicit):
            return explicit
        raise StoreError("index folder is not writable: %s" % explicit)
    inside = () if is_suite_folder(root) else (lambda: os.path.join(root, INDEX_DIRNAME),)
    for where in inside + (lambda: user_cache_dir(root),):
        path = where()  # the cache path costs a hashlib import: only when needed
        if writable_dir(path):
            _keep_out_of_git(path)
            return path
    return None


def _keep_out_of_git(index_dir):
    """A .gitignore in the index folder: a workspace that is a git repository
    (OpenClaw's are) commits its notes, not their index."""
    path = os.path.join(index_dir, ".gitignore")
    if not os.path.exists(path):
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write("# the memory suite's index: rebuilt from the Markdown at any time\n*\n")
        except OSError:
            pass


def user_cache_dir(root=None):
    """$XDG_CACHE_HOME/memory-suite (default ~/.cache/...), or its folder for
    the index of a memory folder (keyed by the folder's path)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if root is None:
        return os.path.join(base, "memory-suite")
    import hashlib
    key = hashlib.sha1(root.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return os.path.join(base, "memory-suite", key)


def writable_dir(path):
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return False
    return os.access(path, os.W_OK | os.X_OK)


def is_suite_folder(root):
    """True for the suite's own folder: the fallback when no memory folder is
    found, searched but never written to (a reinstall would delete it)."""
    return os.path.realpath(root) == os.path.realpath(SUITE_DIR)


NO_MEMORY_FOLDER = ("no memory folder found (the suite's own folder is never written to): set "
                    "MEMORY_DIR=/path/to/your/notes or pass --dir, or create MEMORY.md in your agent's workspace")

# An agent's own files: a folder holding two of them is an agent workspace
# (one alone may be a note that happens to be called TOOLS.md), whose
# memories are MEMORY.md and memory/** (as OpenClaw indexes them), not these.
AGENT_MARKERS = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "TOOLS.md", "HEARTBEAT.md", "BOOTSTRAP.md")
IGNORE_FILE = ".memoryignore"


def is_agent_workspace(folder):
    return sum(1 for m in AGENT_MARKERS if os.path.isfile(os.path.join(folder, m))) >= 2


class FolderRule:
    """Which Markdown files of a memory folder are memories.

    In an agent workspace (see AGENT_MARKERS): MEMORY.md and memory/**.
    Elsewhere: every Markdown file.  Either way a .memoryignore in the folder
    adjusts it, gitignore style: one pattern a line ('#' comments), 'drafts/'
    a folder anywhere, '/notes/old.md' from the top, '*' and '**' as usual,
    and '!pattern' takes a file back (in a workspace, '!notes/**' adds notes/).
    The last pattern that matches a path decides."""

    def __init__(self, root):
        self.workspace = is_agent_workspace(root)
        self.patterns = []
        try:
            with open(os.path.join(root, IGNORE_FILE), encoding="utf-8", errors="replace") as f:
                lines = [l.strip() for l in f]
        except OSError:
            lines = []
        for line in lines:
            if not line or line.startswith("#"):
                continue
            keep = line.startswith("!")
            line = line[1:] if keep else line
            dir_only = line.endswith("/")
            anchored = "/" in line.rstrip("/")  # '/x' or 'a/b': from the top, as in gitignore
            line = line.strip("/")
            if line:
                self.patterns.append((line, keep, dir_only, anchored))
        self.takes_back = any(keep for _, keep, _, _ in self.patterns)
        self.every_file = not self.workspace and not self.patterns  # admits() is True: discover skips the call

    def admits(self, rel):
        """True if the file at rel ('/'-separated) is a memory."""
        if self.workspace:
            top = rel.split("/", 1)[0]
            admitted = rel.lower() == "memory.md" or (top == "memory" and "/" in rel)
        else:
            admitted = True
        for pattern_, keep, dir_only, anchored in self.patterns:
            if _ignore_match(rel, pattern_, dir_only, anchored):
                admitted = keep
        return admitted

    def may_hold(self, rel_dir):
        """False for a folder none of whose files can be admitted (not read at all)."""
        if self.workspace and not self.takes_back and rel_dir.split("/", 1)[0] != "memory":
            return False
        return not any(not keep and _ignore_match(rel_dir, p, False, a) for p, keep, _, a in self.patterns) \
            or self.takes_back


def files_rule(root):
    """Which files of the folder are memories, in words (for status)."""
    rule = FolderRule(root)
    said = ("agent workspace: MEMORY.md and memory/**" if rule.workspace else "every Markdown file")
    if rule.patterns:
        said += ", adjusted by %d line%s of %s" % (len(rule.patterns), "" if len(rule.patterns) == 1 else "s",
                                                  IGNORE_FILE)
    return said


def _ignore_match(rel, pattern_, dir_only, anchored):
    regex = _glob_regex(pattern_)
    parts = rel.split("/")
    folders = ["/".join(parts[:i]) for i in range(1, len(parts))]
    if anchored:
        candidates = folders + ([] if dir_only else [rel])
        return any(regex.fullmatch(c) for c in candidates)
    names = parts[:-1] + ([] if dir_only else parts[-1:])
    return any(regex.fullmatch(n) for n in names)


def _glob_regex(glob):
    """A gitignore glob as a regular expression: '*' and '?' within one
    folder, '**/' any folders (or none), '/**' everything inside, '[...]' a class."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            out.append("[" + glob[i + 1:end].replace("\\", "\\\\").replace("!", "^", 1) + "]")
            i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


def file_date(path):
    """The YYYY-MM-DD in a file's name (else its folders), or None."""
    name = path.rsplit("/", 1)[-1]
    for candidate in (name, path):
        for m in pattern("date").finditer(candidate):
            y, mo, d = (int(g) for g in m.groups())
            if 1 <= mo <= 12 and 1 <= d <= 31:
                return m.group(0)
    return None


def read_source(abspath):
    """Read a Markdown file, or a session transcript (.jsonl) as its
    conversation: (text, issue).

    issue is None, 'invalid-utf8' (read with replacement characters),
    'gbk' or 'utf-16' (another encoding: skipped, see ENCODING_FIXES),
    'binary' or 'unreadable' (text is None for all four).
    """
    try:
        with open(abspath, "rb") as f:
            data = f.read()
    except OSError:
        return None, "unreadable"
    issue = encoding_issue(data)
    if issue in ENCODING_FIXES or issue == "binary":
        return None, issue  # (GBK indexed as it decodes would be unsearchable garbage)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8", errors="replace")
    if abspath.endswith(".jsonl"):
        from .transcripts import render_transcript
        return render_transcript(text), issue
    from .transcripts import client_session_note, render_client_note
    if client_session_note(abspath, text):
        return render_client_note(text), issue
    return text, issue


def encoding_issue(data):
    """None for a file's bytes in UTF-8 (a BOM allowed); else 'utf-16',
    'binary', 'gbk' or 'invalid-utf8' (read_source's issues)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"  # Windows Notepad's "Unicode"
    if b"\0" in data[:8192]:
        return "binary"
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError:
        return "gbk" if _looks_gbk(data) else "invalid-utf8"


def _looks_gbk(data):
    """Whether bytes that are not UTF-8 read as Chinese in GBK (GB18030):
    most of their non-ASCII characters are common Chinese characters and
    punctuation (in GB2312), as Latin-1 accents (café, naïve) never are."""
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        return False
    wide = [c for c in text if ord(c) > 127]
    return bool(wide) and sum(_in_gb2312(c) for c in wide) >= 0.9 * len(wide)


def _in_gb2312(char):
    try:
        char.encode("gb2312")
        return True
    except UnicodeEncodeError:
        return False


# How to convert a note in another encoding to UTF-8 (iconv is on macOS and Linux).
ENCODING_FIXES = {"gbk": ("GBK (GB18030)", "GB18030"), "utf-16": ("UTF-16", "UTF-16")}


def encoding_fix(path, issue):
    """One line saying which encoding a note looks like and the command that
    converts it to UTF-8, or None.  A note with bytes that are not UTF-8 is
    indexed with � for them; it is converted only when none of its bytes
    read as UTF-8's letters (a single-byte encoding: café in Windows-1252)."""
    quoted = "'%s'" % path.replace("'", "'\\''")
    if issue == "invalid-utf8":
        if not _single_byte(path):
            return "save it again as UTF-8"
        return ("it looks like Windows-1252 (Latin-1), whose accented letters search cannot find; "
                "convert it: iconv -f WINDOWS-1252 -t UTF-8 %s > converted.md && mv converted.md %s" % (quoted, quoted))
    if issue not in ENCODING_FIXES:
        return None
    name, iconv = ENCODING_FIXES[issue]
    return ("looks like %s, not UTF-8, so it is not searchable; convert it: iconv -f %s -t UTF-8 %s > "
            "converted.md && mv converted.md %s" % (name, iconv, quoted, quoted))


def _single_byte(path):
    """Whether a file's bytes above ASCII never form a UTF-8 character."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return False
    return re.search(rb"[\xc2-\xf4][\x80-\xbf]", data) is None


# --- session transcripts: a second, optional source -------------------------

SESSIONS_PREFIX = "sessions/"  # how transcripts are cited: sessions/<file>.jsonl:first-last


def is_session(path):
    return path.startswith(SESSIONS_PREFIX) and path.endswith(".jsonl")


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


# --- the memory folder's files -------------------------------------------------

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
    rule = FolderRule(root)
    root_prefix = root.rstrip(os.sep) + os.sep
    links, inodes = set(), {}  # the symlinked notes; {rel: (device, inode) of the file read}
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
        if folder != root and "SKILL.md" in map(_name, entries) and not at_suite:
            continue  # an agent skill installed in the workspace, not memories
        subfolders = []
        for entry in entries:
            name = entry.name
            if name.startswith(".") or (at_suite and name in SUITE_SKIP):
                continue
            rel = prefix + name
            if not name.isascii() and not _encodable(name):  # undecodable bytes: cannot be stored or cited
                problems.append((rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                                 "bad-filename"))
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.path != index_dir and rule.may_hold(rel):
                        subfolders.append((entry.path, rel + "/"))
                    continue
                if not name.lower().endswith(".md") or not (rule.every_file or rule.admits(rel)):
                    continue
                if entry.is_symlink() and not os.path.realpath(entry.path).startswith(root_prefix):
                    problems.append((rel, "symlink-outside"))
                    continue
                st = entry.stat()
            except OSError:
                problems.append((rel, "unreadable"))
                continue
            if stat_mod.S_ISREG(st.st_mode):  # tuple.__new__: a record's checks cost ~2 ms over 4,000 files
                files.append(_new_record(SourceFile, (rel, entry.path, st.st_size, st.st_mtime_ns)))
                inodes[rel] = (st.st_dev, st.st_ino)
                if entry.is_symlink():
                    links.add(rel)
        stack.extend(reversed(subfolders))
    return _without_linked_twice(files, links, inodes), problems


def _without_linked_twice(files, links, inodes):
    """files without a symlink (links) to a note found under its own name or
    through an earlier link (inodes: {rel: (device, inode)}): one note,
    indexed and cited once, under its own name."""
    if not links:
        return files
    seen = {inodes[f.path] for f in files if f.path not in links}
    kept = []
    for f in files:
        if f.path in links:
            if inodes[f.path] in seen:
                continue
            seen.add(inodes[f.path])
        kept.append(f)
    return kept


_name = attrgetter("name")
_new_record = tuple.__new__


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
    StoreError: only a file the index would read (Markdown, not hidden, not
    in another skill's folder, not the suite's own, admitted by the folder's
    rule), so neither add nor get reaches an agent's instructions."""
    norm = rel.replace("\\", "/")
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    why = None
    if any(p.startswith(".") and p != ".." for p in parts) or not norm.lower().endswith(".md"):
        why = "a .md file outside hidden folders"
    elif not _encodable(norm):
        why = "its name is not valid UTF-8"
    full = safe_join(root, rel)
    rel = "/".join(parts)
    resolved = os.path.relpath(full, os.path.realpath(root)).replace(os.sep, "/")
    if why is None and resolved != rel:  # a symlink: the file it leads to must be a memory file too
        try:
            check_memory_path(root, resolved)
        except StoreError:
            why = "a link to a file that is not one"
    if why is None:
        folders = [os.path.join(root, *parts[:i]) for i in range(len(parts))]
        if is_suite_folder(root) and parts[0] in SUITE_SKIP:
            why = "not the suite's own files"
        elif any(os.path.isfile(os.path.join(f, "SKILL.md")) for f in folders[1:]):
            why = "not another skill's files"
        elif not FolderRule(root).admits(rel):
            why = "one the folder's rule indexes (MEMORY.md and memory/** in an agent workspace; see %s)" % IGNORE_FILE
    if why:
        raise StoreError("not a memory file (%s): %s" % (why, rel))
    return full


def cited_path(root, rel):
    """A path as a citation names it inside root: '/' separators, no './',
    and a daily note named without its folder (2026-02-20.md) found in
    memory/ when the folder's top has no file of that name."""
    rel = rel.replace("\\", "/")
    while rel.startswith("./"):
        rel = rel[2:]
    if "/" not in rel and not os.path.exists(os.path.join(root, rel)) \
            and os.path.isfile(os.path.join(root, "memory", rel)):
        return "memory/" + rel
    return rel


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
    return split_lines(mask_private(text)) if text else []  # an empty file has no line, not one empty one


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
