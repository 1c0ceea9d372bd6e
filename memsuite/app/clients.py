"""What the agent clients record of the suite's install, read from their own
files, and each way it is broken as one line naming the fix: Codex's hooks
installed but not trusted (or changed since), a Claude Code plugin whose
marketplace folder moved.  Every reader fails soft: a file missing, unreadable
or malformed is a problem found or no problem, never an exception."""
import json
import os
import re

from ..files.sources import SUITE_DIR

CODEX_TRUST_FIX = ("run `codex`, then answer \"Hooks need review\" with \"Trust all and continue\" "
                   "(or type /hooks, then t)")
# "search.sh hook" as the shipped hook files and the docs write it (quoted or not)
OUR_HOOK = re.compile(r"search\.sh[\"']?\s+hook\b")
PLUGIN = "memory-suite"


def install_problems(ask_codex=False):
    """One line per problem with the clients' install of the suite.  Codex
    itself is asked which of our hooks it trusts (it alone knows its hashes:
    a hook edited since it was trusted) with ask_codex, or when a hooks.json
    of ours changed after config.toml, where the trust is written."""
    return codex_problems(ask_codex) + claude_problems()


# --- Codex ---------------------------------------------------------------------

def codex_home():
    return os.environ.get("CODEX_HOME") or os.path.join(os.path.expanduser("~"), ".codex")


def codex_hook_files():
    """The hooks.json files Codex reads that exist: the user's, and the
    project's (.codex/ of the repository holding the current folder)."""
    found = []
    for path in (os.path.join(codex_home(), "hooks.json"), os.path.join(project_root(), ".codex", "hooks.json")):
        if os.path.isfile(path) and os.path.abspath(path) not in found:
            found.append(os.path.abspath(path))
    return found


def project_root():
    """The git repository holding the current folder, else the folder itself."""
    here = folder = os.getcwd()
    while not os.path.exists(os.path.join(folder, ".git")):
        parent = os.path.dirname(folder)
        if parent == folder:
            return here
        folder = parent
    return folder


def snake_case(event):
    """Codex's name of an event in its trust keys: SessionStart -> session_start."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", event).lower()


def our_codex_hooks(path):
    """Codex's trust keys ("<file>:<event>:<group>:<handler>") of the suite's
    hooks in one hooks.json, or None when it is not valid JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            hooks = json.load(f).get("hooks")
    except (OSError, ValueError, AttributeError):
        return None
    keys = []
    for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
        for g, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for h, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and OUR_HOOK.search(command):
                    keys.append("%s:%s:%d:%d" % (path, snake_case(event), g, h))
    return keys


_STATE_TABLE = re.compile(r"""^\s*\[\s*hooks\s*\.\s*state\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(?:#.*)?$""")
_INLINE_STATE = re.compile(r"""^\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*=\s*\{(.*)\}\s*(?:#.*)?$""")
_HASH = re.compile(r"""(?:^|[\s,{])trusted_hash\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')""")
_TABLE = re.compile(r"^\s*\[")


def toml_string(token):
    """A TOML basic ("...", with escapes) or literal ('...') string's value."""
    if token.startswith("'"):
        return token[1:-1]
    try:
        return json.loads(token)
    except ValueError:
        return token[1:-1]


def hook_trust(text):
    """{trust key: trusted_hash} from config.toml's text: just the
    [hooks.state."KEY"] tables (or "KEY" = {trusted_hash = ...} under
    [hooks.state]), the only part read (tomllib is 3.11+); lines it does not
    understand are skipped."""
    trust, key, in_state = {}, None, False
    for line in text.splitlines():
        table = _STATE_TABLE.match(line)
        if table:
            key, in_state = toml_string(table.group(1)), False
            continue
        if _TABLE.match(line):
            key, in_state = None, re.match(r"^\s*\[\s*hooks\s*\.\s*state\s*\]", line) is not None
            continue
        inline = _INLINE_STATE.match(line) if in_state else None
        found = _HASH.search(inline.group(2) if inline else line) if (key or inline) else None
        if found:
            trust[toml_string(inline.group(1)) if inline else key] = toml_string(found.group(1))
    return trust


def _mtime(path):
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0


def codex_problems(ask_codex=False):
    problems, ours = [], {}
    for path in codex_hook_files():
        keys = our_codex_hooks(path)
        if keys:
            ours[path] = keys
        elif keys is None and OUR_HOOK.search(_read(path)):
            problems.append("Codex cannot read %s (not valid JSON), so it runs none of this suite's hooks: "
                            "copy integrations/codex/hooks.json there again" % path)
    config = os.path.join(codex_home(), "config.toml")
    trusted = hook_trust(_read(config)) if ours else {}
    doubt = any(_mtime(path) > _mtime(config) for path in ours)
    asked = ask_codex_trust() if ours and (ask_codex or doubt) else None
    for path, keys in ours.items():
        real = os.path.realpath(path)
        untrusted = [k for k in keys if k not in trusted and real + k[len(path):] not in trusted]
        changed = []
        if asked and any(k in asked for k in keys):  # Codex's own word wins over the keys found
            untrusted = [k for k in keys if asked.get(k) == "untrusted"]
            changed = [k for k in keys if asked.get(k) == "modified"]
        if untrusted:
            problems.append("Codex hooks for this suite are not trusted (%d of %d in %s), so Codex skips them: %s"
                            % (len(untrusted), len(keys), path, CODEX_TRUST_FIX))
        elif changed:
            problems.append("Codex hooks for this suite changed since you trusted them (%d of %d in %s), so Codex "
                            "skips them: %s" % (len(changed), len(keys), path, CODEX_TRUST_FIX))
    return problems


def _read(path):
    """A file's text, undecodable bytes replaced; "" when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def ask_codex_trust(timeout=15):
    """{trust key: trustStatus} as Codex's app server reports it (hooks/list:
    trusted, untrusted, modified, managed), or None without a `codex` on the
    PATH or an answer in time."""
    import shutil
    import subprocess
    codex = shutil.which("codex")
    if not codex:
        return None
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"clientInfo": {"name": "memory-suite", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "hooks/list", "params": {"cwds": [os.getcwd()]}}]
    try:
        proc = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None
    import threading
    timer = threading.Timer(timeout, proc.kill)  # a bounded wait: a hung Codex is killed
    timer.start()
    try:  # stdin stays open until the answer: the server stops at its end
        proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
        proc.stdin.flush()
        for line in proc.stdout:
            statuses = _trust_statuses(line)
            if statuses is not None:
                return statuses
    except OSError:
        pass
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    return None


def _trust_statuses(line):
    """{key: trustStatus} from the app server's answer to hooks/list, or None for any other line."""
    try:
        reply = json.loads(line.decode("utf-8", "replace"))
        if reply.get("id") == 2:
            return {h["key"]: h["trustStatus"] for entry in reply["result"]["data"] for h in entry["hooks"]}
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return None


# --- Claude Code ---------------------------------------------------------------

def claude_plugins_dir():
    return os.path.join(os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude"),
                        "plugins")


def _json_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def claude_problems():
    """The suite's plugin installed from a marketplace whose folder is gone:
    Claude Code then fails to load it ("cache-miss"), though a copy sits in
    its cache, and no hook runs to say so."""
    folder = claude_plugins_dir()
    installed = _json_file(os.path.join(folder, "installed_plugins.json")).get("plugins")
    markets = _json_file(os.path.join(folder, "known_marketplaces.json"))
    problems = []
    for name in sorted(installed if isinstance(installed, dict) else ()):
        plugin, _, market = name.partition("@")
        source = markets.get(market, {}).get("source") if isinstance(markets.get(market), dict) else None
        if plugin != PLUGIN or not isinstance(source, dict) or source.get("source") != "directory":
            continue
        path = source.get("path")
        if isinstance(path, str) and not os.path.isfile(os.path.join(path, ".claude-plugin", "marketplace.json")):
            problems.append("Claude Code cannot load the plugin %s: its marketplace folder %s was moved or deleted: "
                            "run `claude plugin marketplace add %s`" % (name, path, new_checkout()))
    return problems


def new_checkout():
    """This suite's folder when it is a checkout a marketplace can point at
    (not a client's cache), else a placeholder."""
    if os.path.isfile(os.path.join(SUITE_DIR, ".claude-plugin", "marketplace.json")) and \
            not os.path.realpath(SUITE_DIR).startswith(os.path.realpath(claude_plugins_dir()) + os.sep):
        return SUITE_DIR
    return "/path/to/memory-suite"
