#!/usr/bin/env python3
"""Generate memory folders of a given size from the eval texts, for speed runs.

Daily logs `memory/YYYY-MM-DD.md`, each a `# date` heading and a few `## `
sections cut from LoCoMo conversations (English) and CMRC articles
(Chinese), mixed, deterministic for a given seed.

Usage: python3 bench/corpus.py OUT_DIR --mb 5 [--data DIR] [--seed 1]
"""
import argparse
import datetime
import glob
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "eval-data"))


def markdown_files(root):
    """(relative path, lines) of every .md file under root, hidden folders skipped;
    what the baselines read (the suite has its own, stricter discovery)."""
    for dirpath, dirnames, names in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(names):
            if not name.endswith(".md"):
                continue
            full = os.path.join(dirpath, name)
            with open(full, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            if len(lines) > 1 and lines[-1] == "":
                lines.pop()  # the newline ending the last line
            yield os.path.relpath(full, root).replace(os.sep, "/"), lines


def source_sections(data):
    """[(title, [lines])] from every eval file: LoCoMo sessions cut into
    12-line blocks, CMRC articles as they are."""
    sections = []
    for path in sorted(glob.glob(os.path.join(data, "locomo", "*", "memory", "*.md"))):
        with open(path, encoding="utf-8") as f:
            lines = [l for l in f.read().split("\n") if l.strip() and not l.startswith("#")]
        for i in range(0, len(lines), 12):
            sections.append(("Chat notes %d" % (i // 12 + 1), lines[i:i + 12]))
    for path in sorted(glob.glob(os.path.join(data, "cmrc2018", "memory", "*.md"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.split(r"\n(?=## )", text):
            lines = [l for l in block.split("\n") if l.strip()]
            if lines and lines[0].startswith("## "):
                sections.append((lines[0][3:], lines[1:]))
    return sections


def generate(out, megabytes, data=DEFAULT_DATA, seed=1, file_kb=10):
    rng = random.Random(seed)
    sections = source_sections(data)
    target = int(megabytes * 1024 * 1024)
    day = datetime.date(2020, 1, 1)
    written = files = 0
    os.makedirs(os.path.join(out, "memory"), exist_ok=True)
    while written < target:
        parts = ["# %s\n" % day.isoformat()]
        size = 0
        while size < file_kb * 1024:
            title, lines = rng.choice(sections)
            block = "\n## %s\n%s\n" % (title, "\n".join(lines))
            parts.append(block)
            size += len(block.encode("utf-8"))
        text = "".join(parts)
        with open(os.path.join(out, "memory", "%s.md" % day.isoformat()), "w", encoding="utf-8") as f:
            f.write(text)
        written += len(text.encode("utf-8"))
        files += 1
        day += datetime.timedelta(days=1)
    return files, written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--file-kb", type=int, default=10)
    args = ap.parse_args(argv)
    files, size = generate(args.out, args.mb, args.data, args.seed, args.file_kb)
    print("%d files, %.1f MB in %s" % (files, size / 1048576.0, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
