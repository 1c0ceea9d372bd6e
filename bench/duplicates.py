#!/usr/bin/env python3
"""A memory folder with near-duplicates, for bench/quality.py (--sets dups).

Sixty days of an agent's daily logs over six projects.  Each day's log
repeats the routine lines of two or three projects almost word for word (a
standup line with another time, "green" or "still green"), each followed by
everyday filler, and once in a while a "## Notes" section holds a one-off fact
about a project that shares most words with its routine line.
Each question asks for one such fact; its gold is that fact's line only, so
copies of the routine line ahead of it spend the reader's budget on nothing
new.  Questions alternate between the tuning and the held-out half.

Usage: python3 bench/duplicates.py OUT_DIR   (writes OUT_DIR/dups/, then
       python3 bench/quality.py --data OUT_DIR --sets dups)"""
import datetime
import json
import os
import random
import sys

PROJECTS = [
    ("Atlas", "Anna", "deploy pipeline", "release notes"),
    ("Borealis", "Ben", "nightly build", "test matrix"),
    ("Cobalt", "Chen Wei", "database migration", "schema review"),
    ("Dune", "Dara", "mobile app", "crash reports"),
    ("Ember", "Elif", "billing service", "invoice export"),
    ("Fjord", "Farid", "search index", "ranking experiment"),
]
ROUTINE = [
    "- {time} standup: {project} {a} {state}; {person} reviews the {project} {b} today.",
    "- {time} {project} sync with {person}: {a} {state}, {b} on track.",
]
FILLER = [
    "Reviewed three pull requests before lunch.", "Lunch with the team at the noodle place.",
    "Answered support tickets for an hour.", "Updated the on-call rota for next week.",
    "Paired on flaky tests in the afternoon.", "Cleaned up old branches in the repository.",
    "Wrote the weekly summary for the manager.", "Interviewed a candidate for the backend role.",
    "Renewed the TLS certificates on staging.", "Read the incident write-up from Tuesday.",
]
FACTS = [  # (the note, a question that asks for it in other words, as people do)
    ("{person} wants the {project} {b} grouped by customer from now on.",
     "what did {person} say about the {project} {b}"),
    ("{project} {a} moves to the Frankfurt region next quarter, {person} said.",
     "what is changing for the {project} {a}"),
    ("{person} asked to keep the {project} {b} under two pages.",
     "how long should the {project} {b} be for {person}"),
    ("The {project} {a} budget is 14,000 euros, approved by {person}.",
     "how much money does the {project} {a} get"),
]


def build(out, days=60, seed=19):
    rng = random.Random(seed)
    root = os.path.join(out, "dups")
    os.makedirs(os.path.join(root, "memory"), exist_ok=True)
    start = datetime.date(2026, 1, 5)
    facts = [(p, f) for p in range(len(PROJECTS)) for f in range(len(FACTS))]
    rng.shuffle(facts)
    fact_day = {fact: 3 + i * (days - 6) // len(facts) for i, fact in enumerate(facts)}
    questions = []
    for d in range(days):
        day = (start + datetime.timedelta(days=d)).isoformat()
        lines = ["# %s" % day, ""]
        due = {fp for (fp, _), at in fact_day.items() if at == d}
        for p in sorted(set(rng.sample(range(len(PROJECTS)), 2)) | due):
            project, person, a, b = PROJECTS[p]
            fill = dict(project=project, person=person, a=a, b=b)
            lines += ["## %s" % project]
            template = ROUTINE[p % 2]
            lines.append(template.format(time="%02d:%02d" % (9 + rng.randrange(2), rng.randrange(60)),
                                         state=rng.choice(["green", "still green", "green again"]), **fill))
            lines += ["- " + line for line in rng.sample(FILLER, 3)] + [""]
        for (fp, f), at in sorted(fact_day.items()):
            if at == d:
                project, person, a, b = PROJECTS[fp]
                note, ask = FACTS[f]
                fill = dict(project=project, person=person, a=a, b=b)
                lines += ["## Notes", "- " + rng.choice(FILLER), "- " + note.format(**fill), ""]
                questions.append({"id": "dups-%d-%d" % (fp, f), "dataset": "dups", "corpus": ".",
                                  "query": ask.format(**fill), "category_name": "fact-among-repeats",
                                  "gold": [{"path": "memory/%s.md" % day, "line": len(lines) - 1}]})
        with open(os.path.join(root, "memory", day + ".md"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    questions.sort(key=lambda q: q["id"])
    for i, q in enumerate(questions):
        q["split"] = "tune" if i % 2 == 0 else "held"
    with open(os.path.join(root, "questions.jsonl"), "w", encoding="utf-8") as f:
        for q in questions:
            f.write(json.dumps(q, ensure_ascii=False) + "\n")
    return root, len(questions)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[-1])
    root, n = build(sys.argv[1])
    print("%s: %d questions" % (root, n))
