"""RealMem (../shared/eval-data/realmem): what every benchmark of it shares.

Each persona is one user's long conversations with an assistant, one file per
session in time order.  A prompt may see only the sessions before its own
(`before`, the prompt's session file), so a memory is replayed as it grows:
the folder holds exactly the earlier sessions when the prompt is asked.
Gold is two keys: `gold_session` (every turn line of the sessions the reply
drew on, RealMem's own session-level recall) and `gold` (the exact turns).
The absent-topic prompts of a persona are the next persona's (name order),
sent into this persona's memory at the same time step.
"""
import collections
import os
import re
import shutil

TUNE_PERSONAS = ("Adeleke_Okonjo", "Kenta_Tanaka", "Liam_O_Connor")  # the rest is held out
CITATION = re.compile(r"\[([^\[\]\s]+?\.md):(\d+)(?:-(\d+))?\]")


def split_of(persona):
    return "tune" if persona in TUNE_PERSONAS else "held"


def by_persona(questions):
    """{persona: its prompts in time order} (question order within a session), personas by name."""
    groups = collections.defaultdict(list)
    for q in questions:
        groups[q["corpus"]].append(q)
    return collections.OrderedDict((p, sorted(groups[p], key=lambda q: q["before"])) for p in sorted(groups))


def next_persona(persona, personas):
    """The persona after this one in name order (the last wraps to the first)."""
    names = sorted(personas)
    return names[(names.index(persona) + 1) % len(names)]


def foreign_prompt(prompts, k):
    """Another persona's prompt for this persona's k-th time step (its k-th, cycling)."""
    return prompts[k % len(prompts)] if prompts else None


def gold_lines(q, key="gold"):
    """{(path, line)} of a question's gold (key "gold": turns, "gold_session": sessions)."""
    return {(g["path"], g["line"]) for g in q[key]}


def holds(ranges, gold):
    """Whether one of the (path, first, last) ranges holds a gold line."""
    return any(p == gp and s <= gl <= e for p, s, e in ranges for gp, gl in gold)


def citations(text):
    """The (path, first, last) ranges a hook's text cites as [path:first-last]."""
    return [(m.group(1), int(m.group(2)), int(m.group(3) or m.group(2))) for m in CITATION.finditer(text)]


def visible(path, before):
    """The `before` rule: a result counts only in a file that sorts before the prompt's own session."""
    return path < before


def session_files(root):
    """The persona's session files, memory/<date>-<NNN>.md, in time order."""
    return sorted("memory/" + n for n in os.listdir(os.path.join(root, "memory")) if n.endswith(".md"))


def replay(root, folder, prompts):
    """Yield (session file, its prompts) in time order, copying the persona's
    sessions into folder as time passes: when a session's prompts come, the
    folder holds exactly the sessions before it (a session is added after
    its own prompts, before the next session's)."""
    os.makedirs(os.path.join(folder, "memory"), exist_ok=True)
    steps = collections.OrderedDict()
    for q in sorted(prompts, key=lambda q: q["before"]):
        steps.setdefault(q["before"], []).append(q)
    files, added = session_files(root), 0
    for session, qs in steps.items():
        while added < len(files) and files[added] < session:
            shutil.copyfile(os.path.join(root, files[added]), os.path.join(folder, files[added]))
            added += 1
        yield session, qs


def earlier_turns(root, q):
    """The turns of a RealMem prompt's own session before it: its session
    file (`before`, which search may not see) up to the prompt's line, as a
    transcript holds them."""
    with open(os.path.join(root, q["before"]), encoding="utf-8") as f:
        lines = f.read().splitlines()
    turns = []
    for line in lines:
        for role, mark in (("user", "**User**: "), ("assistant", "**Assistant**: ")):
            if line.startswith(mark):
                if role == "user" and " ".join(line[len(mark):].split()) == " ".join(q["query"].split()):
                    return turns
                turns.append((role, line[len(mark):]))
    return turns
