"""What a hooked session holds: its state (a small JSON file beside the
index: the line keys it was sent, its captured file and where its capture
of the transcript stopped, its ancestors), what its transcript carries of
the notes the hooks sent (files/carried.py), a fork's parents, and what a
SessionStart sent, kept until a prompt shows which session received it.
The hooks (doors/hooks.py) read and write it; a bad file reads as an
empty state."""
import json
import os
import re
import sys
import time

from ..base.fileio import write_json_atomic
from ..files.carried import carried
from ..files.sources import locate_index_dir, user_cache_dir
from ..search.recall import line_key

STATE_DAYS = 30
MAX_HELD = 2000         # line keys a session's state keeps (12 hex digits each: about 32 KB)
MAX_ANCESTORS = 20      # sessions a fork's transcript names that its state keeps
MAX_BLOCKS = 200        # records holding notes whose keys a session's state keeps (for a compaction)
RESUME_HINT_SECONDS = 600  # how long a resume may still turn out to have been a fork's start
LOG_BYTES = 256 << 10


def index_dir(root):
    try:
        found = locate_index_dir(root)
    except Exception:
        found = None
    return found or user_cache_dir(root)


class Hook:
    def __init__(self, root, event):
        self.root, self.event = root, event
        self.base = index_dir(root)

    def log(self, message):
        line = "%s %s %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), self.event or "-", " ".join(str(message).split()))
        log_line(self.base, line)

    # per-session state: a small JSON file beside the index
    def state_path(self, session):
        return os.path.join(self.base, "hooks", "session-%s.json" % safe_id(session))

    def load(self, session):
        try:
            with open(self.state_path(session), encoding="utf-8") as f:
                data = json.load(f)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def save(self, session, data):
        path = self.state_path(session)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_json_atomic(path, data)


def log_line(base, line):
    try:
        os.makedirs(base, exist_ok=True)
        path = os.path.join(base, "hooks.log")
        if os.path.exists(path) and os.path.getsize(path) > LOG_BYTES:
            os.replace(path, path + ".1")
        with open(path, "a", encoding="utf-8", errors="replace") as f:
            f.write(line)
    except Exception:
        pass
    if os.environ.get("MEMORY_DEBUG"):
        try:
            sys.stderr.write("memory hook: " + line)
        except Exception:
            pass


def safe_id(session):
    s = str(session or "unknown")
    clean = re.sub(r"[^A-Za-z0-9_-]", "", s)[:64]
    if clean and clean == s:
        return clean
    import hashlib
    return (clean[:40] + "-" if clean else "") + hashlib.sha1(s.encode("utf-8", "replace")).hexdigest()[:12]


def tag(session):
    """A short stand-in for a session id (its state file's name, hashed)."""
    import hashlib
    return hashlib.sha1(safe_id(session).encode("utf-8")).hexdigest()[:10]


def forked_from(path):
    """The parent session id a Codex transcript's session_meta names, or None."""
    if not isinstance(path, str) or not path:
        return None
    try:
        with open(os.path.expanduser(path), "rb") as f:
            first = json.loads(f.readline(1 << 20).decode("utf-8", "replace"))
        parent = first.get("payload", {}).get("forked_from_id")
    except (OSError, ValueError, AttributeError, RecursionError):  # a first line nested too deep for json
        return None
    return parent if isinstance(parent, str) and parent else None


def look(hook, session, event, state, fresh=False):
    """Bring a session's state up to what its transcript carries of the notes
    the hooks sent (files/carried.py): their lines are held, and the other
    sessions they name are its ancestors (it was forked from them); after a
    compaction only the notes of the messages it kept are.  fresh: a new
    context; what the transcript holds so far is not in it.  Whether the
    transcript is known to record the notes sent (it carries some)."""
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path:
        return False
    seen = state.get("seen") if isinstance(state.get("seen"), dict) else {}
    if seen.get("path") != path or fresh:
        seen = {"path": path, "at": 0, "recorded": False, "blocks": {}}
    found = carried(path, positive_int(seen.get("at"), 0))
    if found is None:
        return bool(seen.get("recorded"))
    if not fresh and not seen["at"]:
        _inherit(hook, session, state, forked_from(path))
    items, seen["at"] = found
    blocks = seen.get("blocks") if isinstance(seen.get("blocks"), dict) else {}
    for item in [] if fresh else items:
        if item[0] == "compacted":
            blocks = {u: k for u, k in blocks.items() if u in item[1]}
            state["held"] = [k for keys in blocks.values() for k in keys]
            continue
        _, uuid, lines, tags = item
        keys = [line_key(l) for l in lines if l.strip()]
        if uuid:
            blocks[uuid] = keys
        hold(state, keys)
        seen["recorded"] = True
        _add_ancestors(hook, state, tags - {tag(session)})
    seen["blocks"] = dict(list(blocks.items())[-MAX_BLOCKS:])
    state["seen"] = seen
    return bool(seen["recorded"])


def _inherit(hook, session, state, parent):
    """A fork whose transcript names its parent (Codex: forked_from_id; the
    parent's records are not copied, only pointed to): the parent is its
    ancestor and what the parent held, it holds.  An unknown parent (it may
    never have had a brief) gives nothing."""
    if parent and parent != session and os.path.exists(hook.state_path(parent)):
        hold(state, list(held(hook.load(parent))))
        known = state.get("ancestors") if isinstance(state.get("ancestors"), list) else []
        state["ancestors"] = [a for a in known if a != safe_id(parent)] + [safe_id(parent)]


def _pending_path(hook, session):
    return os.path.join(hook.base, "hooks", "pending-%s.json" % safe_id(session))


def note_pending(hook, session, event, keys):
    """Keep what a SessionStart sent until the conversation that received
    it shows itself: the transcript records it only with the next prompt,
    and a resume may be a fork in disguise (Claude Code's --fork-session
    sends its SessionStart under the parent's id and transcript, then goes
    on under a new id whose transcript is written after its first prompt)."""
    path = event.get("transcript_path")
    try:
        write_json_atomic(_pending_path(hook, session), {"session": safe_id(session), "time": time.time(),
                                                         "folder": os.path.dirname(path), "sent": keys})
    except OSError as exc:
        hook.log("cannot keep what was sent: %s" % exc)


def take_pending(hook, session, event, state):
    """On a prompt, what a SessionStart sent joins what the session holds:
    its own, or, for a session never seen starting whose transcript does
    not exist yet, the newest one sent moments ago to a session whose
    transcript is in the same folder (it was forked from that one, which
    is its ancestor and whose holdings it shares).  Each is taken once."""
    mine = _pending_path(hook, session)
    path = event.get("transcript_path")
    if os.path.exists(mine):
        pending, parent = _read_pending(mine), None
    elif not state and isinstance(path, str) and path and not os.path.exists(os.path.expanduser(path)):
        mine, pending = _newest_pending(hook, os.path.dirname(path))
        parent = pending and pending.get("session")
    else:
        return
    if pending is None:
        return
    _inherit(hook, session, state, parent)
    hold(state, pending.get("sent") if isinstance(pending.get("sent"), list) else [])
    try:
        os.unlink(mine)
    except OSError:
        pass


def _read_pending(path):
    try:
        with open(path, encoding="utf-8") as f:
            pending = json.load(f)
        return pending if isinstance(pending, dict) else None
    except (OSError, ValueError):
        return None


def _newest_pending(hook, folder):
    """(path, what it holds) of the newest pending note of the last
    RESUME_HINT_SECONDS for a transcript in folder; (None, None) if none."""
    best = (None, None)
    try:
        names = os.listdir(os.path.join(hook.base, "hooks"))
    except OSError:
        return best
    for name in names:
        if name.startswith("pending-"):
            path = os.path.join(hook.base, "hooks", name)
            pending = _read_pending(path)
            when = pending.get("time") if pending else None
            if (isinstance(when, (int, float)) and 0 <= time.time() - when <= RESUME_HINT_SECONDS
                    and pending.get("folder") == folder and (best[1] is None or when > best[1]["time"])):
                best = (path, pending)
    return best


def _add_ancestors(hook, state, tags):
    """Note the sessions the tags stand for (their state files) as ancestors."""
    known = state.get("ancestors") if isinstance(state.get("ancestors"), list) else []
    tags = tags - {tag(a) for a in known}
    if not tags:
        return
    try:
        names = os.listdir(os.path.join(hook.base, "hooks"))
    except OSError:
        return
    found = [n[len("session-"):-len(".json")] for n in names if n.startswith("session-") and n.endswith(".json")]
    state["ancestors"] = (known + [s for s in found if tag(s) in tags])[-MAX_ANCESTORS:]


def resume_point(state, path):
    """Where the last capture of this session's transcript stopped (a dict
    app/capture.read_turns reads on from and updates): a new one when the
    transcript is another file, or shorter than that point (rewritten)."""
    point = state.get("captured") if isinstance(state.get("captured"), dict) else {}
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if point.get("path") != path or positive_int(point.get("at"), 0) > size:
        point = {"path": path, "at": 0}
    return point


def captures(hook, state, mine=True):
    """The captured files whose lines the session's conversation holds: its
    own (mine) and its ancestors'."""
    out = [state.get("capture")] if mine else []
    ancestors = state.get("ancestors") if isinstance(state.get("ancestors"), list) else []
    out += [hook.load(parent).get("capture") for parent in ancestors]
    return [rel for rel in out if isinstance(rel, str) and rel]


def held(state):
    """The line keys (recall.line_key) of what this session was sent."""
    held = state.get("held")
    return set(held) if isinstance(held, list) else set()


def hold(state, keys):
    """Note keys as sent to the session (the newest MAX_HELD are kept)."""
    held = state.get("held") if isinstance(state.get("held"), list) else []
    state["held"] = (held + [k for k in keys if k not in set(held)])[-MAX_HELD:]
    state["updated"] = time.time()


def save_quietly(hook, session, state):
    try:
        hook.save(session, state)
    except OSError as exc:
        hook.log("cannot save session state: %s" % exc)


def prune(hook):
    folder = os.path.join(hook.base, "hooks")
    try:
        old = time.time() - STATE_DAYS * 86400
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if name.startswith(("session-", "pending-")) and os.path.getmtime(path) < old:
                os.unlink(path)
    except OSError:
        pass


def positive_int(value, default):
    """value as a whole number above 0, else default (a budget or an offset read from a file)."""
    try:
        n = int(value)
        return n if n > 0 else default
    except (TypeError, ValueError):
        return default
