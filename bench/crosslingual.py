#!/usr/bin/env python3
"""English that reaches Chinese, and back (issue 27, item 4): the lexicon
(data/en-zh-lexicon.txt, from CC-CEDICT and ECDICT) measured on pairs it was not tuned on.

Pairs are drawn with a fixed seed from the lexicon's everyday entries (its
EVERYDAY commonest words; a pair is a word and its first sense), with the
issue's cases added (Tokyo/东京, dentist/牙医, keyboard/键盘, hike/爬山,
health checkup/体检).  Two folders are written: one note per pair in
Chinese, one per pair in English.  English -> Chinese sends the English sense
into the Chinese folder, Chinese -> English the word into the English one.
Per direction and half (alternate pairs: tune | held-out):
  hit@1, hit@5  the pair's note is the top hit / in the top five
  @cut          the top hit is the pair's note and scores at or above the cut
                (0.4, what SKILL.md and the hooks act on)
"own first": in a folder holding both notes of each pair, the share of
queries whose own-language note ranks above the translated one (a
translation weighs less than the word itself); and silence: the share of bench/nomatch.txt's queries (absent topics) whose
every hit in both folders stays under the cut.  Each lexicon_weight in
WEIGHTS is measured (0: the lexicon off, as before it).

Usage: python3 bench/crosslingual.py [--pairs 150] [--seed 27] [--weights 0,0.5,0.7,1]
"""
import argparse
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import memory_search  # noqa: E402
import memory_store  # noqa: E402
from memsuite.text.lexicon_table import LEXICON, read_lexicon  # noqa: E402
from memsuite.text.params import DEFAULT_PARAMS  # noqa: E402
from memsuite.text.tokenizer import tokenize  # noqa: E402

EVERYDAY = 5000
CUT = 0.4
FIXED = [("tokyo", "东京"), ("dentist", "牙医"), ("keyboard", "键盘"), ("hike", "爬山"), ("health checkup", "体检")]
ZH_LINES = ("今天记下一件事：{}。", "和同事聊了很久{}的事。", "周末又想起{}，先写在这里。", "备忘：{}，下周再看。")
EN_LINES = ("Note to self: {}.", "Talked with a colleague about {} for a while.", "Thought about {} again this weekend.",
            "Reminder: {}, look at it next week.")
ZH_FILLER = "其他没什么特别的。"
EN_FILLER = "Nothing else worth writing down."


def draw_pairs(n, seed):
    """[(English, Chinese)]: n drawn from the everyday entries of two to four
    characters (a character alone crosses inside a question, never as a whole
    query: 书 is too many things; the words of five, added later, would shift
    the draw of earlier rounds), then the fixed cases."""
    rows = [row for row in read_lexicon(LEXICON) if 1 < len(row[0]) <= 4][:EVERYDAY]
    fixed_words = {zh for _, zh in FIXED}
    candidates = [(senses[0], word) for word, senses, _ in rows if word not in fixed_words and tokenize(senses[0])]
    drawn = random.Random(seed).sample(candidates, n)
    return drawn + FIXED


def write_folders(root, pairs, seed):
    """Write the Chinese and the English folder, one note per pair, and the
    two together (both/zh/memory, both/en/memory)."""
    rng = random.Random(seed + 1)
    for lang, lines, filler, index in (("zh", ZH_LINES, ZH_FILLER, 1), ("en", EN_LINES, EN_FILLER, 0)):
        for folder in (os.path.join(root, lang, "memory"), os.path.join(root, "both", lang, "memory")):
            os.makedirs(folder)
        for i, pair in enumerate(pairs):
            day = "2026-%02d-%02d" % (1 + i // 28, 1 + i % 28)
            text = "# %s\n\n- %s\n- %s\n" % (day, rng.choice(lines).format(pair[index]), filler)
            for folder in (os.path.join(root, lang, "memory"), os.path.join(root, "both", lang, "memory")):
                with open(os.path.join(folder, "%s.md" % day), "w", encoding="utf-8") as f:
                    f.write(text)


def note_of(i):
    return "memory/2026-%02d-%02d.md" % (1 + i // 28, 1 + i % 28)


def nomatch_queries():
    with open(os.path.join(HERE, "nomatch.txt"), encoding="utf-8") as f:
        return [line.rstrip("\n").split("|", 1)[1] for line in f if line.strip() and not line.startswith("#")]


def measure(stores, pairs, params):
    """{(direction, half): (hit@1, hit@5, @cut)} and the silence share."""
    out = {}
    for direction, store, query_of in (("en->zh", stores["zh"], 0), ("zh->en", stores["en"], 1)):
        rows = {"tune": [], "held": []}
        for i, pair in enumerate(pairs):
            hits = memory_search.search(store, pair[query_of], limit=5, min_score=0, params=params)
            paths = [h.path for h in hits]
            top = bool(paths) and paths[0] == note_of(i)
            rows["tune" if i % 2 == 0 else "held"].append(
                (top, note_of(i) in paths, top and hits[0].score >= CUT))
        for half, got in rows.items():
            out[(direction, half)] = tuple(sum(r[k] for r in got) / float(len(got)) for k in range(3))
    own = 0
    for i, pair in enumerate(pairs):
        for lang, other, query in (("en", "zh", pair[0]), ("zh", "en", pair[1])):
            paths = [h.path for h in memory_search.search(stores["both"], query, limit=10, min_score=0, params=params)]
            mine, theirs = lang + "/" + note_of(i), other + "/" + note_of(i)
            own += mine in paths and (theirs not in paths or paths.index(mine) < paths.index(theirs))
    out["own first"] = own / (2.0 * len(pairs))
    queries = nomatch_queries()
    silent = 0
    for query in queries:
        hits = [h for lang in ("zh", "en") for h in memory_search.search(stores[lang], query, limit=3, min_score=0,
                                                                          params=params)]
        silent += all(h.score < CUT for h in hits)
    return out, silent / float(len(queries))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=150)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--weights", default="0,0.5,0.7,1")
    ap.add_argument("--show", action="store_true", help="list the pairs and what each direction found")
    args = ap.parse_args(argv)
    pairs = draw_pairs(args.pairs, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        write_folders(tmp, pairs, args.seed)
        stores = {}
        for lang in ("zh", "en", "both"):
            stores[lang] = memory_store.MemoryStore(os.path.join(tmp, lang))
            stores[lang].sync()
        print("%d pairs (seed %d, %d fixed), tune | held-out halves; cut %.1f" % (len(pairs), args.seed, len(FIXED), CUT))
        print()
        print("| lexicon_weight | direction | hit@1 tune | hit@1 held | hit@5 tune | hit@5 held | @cut tune | @cut held |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|")
        for weight in [float(w) for w in args.weights.split(",")]:
            params = DEFAULT_PARAMS._replace(lexicon_weight=weight)
            table, silence = measure(stores, pairs, params)
            for direction in ("en->zh", "zh->en"):
                tune, held = table[(direction, "tune")], table[(direction, "held")]
                print("| %g | %s | %s |" % (weight, direction, " | ".join(
                    "%.3f | %.3f" % (tune[k], held[k]) for k in range(3))))
            print("| %g | own first %.3f, nomatch silence %.3f | | | | | | |" % (weight, table["own first"], silence))
        if args.show:
            for i, (en, zh) in enumerate(pairs):
                top = memory_search.search(stores["zh"], en, limit=1, min_score=0)
                back = memory_search.search(stores["en"], zh, limit=1, min_score=0)
                print("%-22s %-6s  en->zh %s  zh->en %s" % (en, zh, _mark(top, i), _mark(back, i)))
        for store in stores.values():
            store.close()


def _mark(hits, i):
    if not hits:
        return "-"
    return "%s %.2f" % ("ok " if hits[0].path == note_of(i) else "no ", hits[0].score)


if __name__ == "__main__":
    main()
