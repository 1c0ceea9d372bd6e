"""Features: what a candidate holds of a query, as the numbers a fitted
scorer weighs (bench/ltr_dump.py records them, data/fit-ranker.py fits
them; measured, not the default: docs/benchmarks.md): its channels' scores, the share of the
query it holds and how close together, its topic, dates, heading, labels,
file and age.  Each is cheap, pure Python, and in [0, 1]."""
import math

from ..text.chinese import SURNAMES, ZH_FREE_CHARS, fold, frame_spans, function_spans, is_cjk
from ..text.tokenizer import cached_grams
from .dates import names_dates, on_asked_day

# The order a weight file (data/fit-ranker.py --write) names them in; "bias" is its constant.
FEATURES = ("keyword", "vector", "keyword_rel", "vector_rel", "held", "held_rel", "proximity", "proximity_rel",
            "keyword_rank", "topic_first", "heading",
            "frame_only", "asked_day", "off_day", "wanted", "label", "stand_in", "newest",
            "length", "file", "chat_turn", "topic_words", "missing", "turn_keyword", "turn_file", "turn_newest")

def is_unigram(term):
    """A single CJK character (the index keeps them only at a run's end)."""
    return len(term) == 1 and is_cjk(term)


def candidate_features(q, candidates, keyword, vector, context):
    """{key: [value of each of FEATURES]} for the candidates of an analysed
    query, given its channels' scores and the query's context
    (ranking.query_context)."""
    ctx = context
    mass, stand_ins = own_mass(q)
    total = sum(mass.values()) or 1.0
    best_kw = max(keyword.values(), default=0.0) or 1.0
    best_vec = max(vector.values(), default=0.0) or 1.0
    dated = names_dates(ctx["asked"])
    day = {k for k, c in candidates.items() if dated and on_asked_day(
        ctx["asked"], c.row.date, c.row.text, c.row.heading or "")}
    files = file_evidence(candidates, keyword)
    ages = date_ranks(candidates)
    turn = ctx["turn"]
    topic_n = ctx["topic_n"]
    missing = ctx["missing"]
    held = {key: holdings(c, mass, stand_ins) for key, c in candidates.items()}
    near = {key: proximity(c, mass, stand_ins) for key, c in candidates.items()}
    best_held = max((h[0] for h in held.values()), default=0.0) or 1.0
    best_near = max(near.values(), default=0.0) or 1.0
    by_keyword = {key: i for i, key in enumerate(sorted(keyword, key=keyword.get, reverse=True))}
    topical = {key: not (q.topic and not holds_topic(c, q, key, ctx["bound"])) for key, c in candidates.items()}
    some_topical = any(topical.values())
    out = {}
    for key, c in candidates.items():
        kw, vec = keyword.get(key, 0.0), vector.get(key, 0.0)
        holds, heading, standing = held[key]
        newest = ages.get(key, 0.0)
        out[key] = [
            kw, vec, kw / best_kw, vec / best_vec, holds / total, holds / best_held, near[key], near[key] / best_near,
            1.0 / (1 + by_keyword.get(key, len(by_keyword))), float(some_topical and topical[key]),
            heading / total,
            float(not topical[key]),
            float(key in day), float(bool(day) and key not in day and bool(c.row.date)),
            float(bool(ctx["wanted"]) and ctx["wanted"](c.row.text)),
            float(labels_query_word(c.row.text, ctx["folded"])),
            standing / total, newest, c.length / (c.length + ctx["avg_length"]),
            files[c.row.path], turn, topic_n, missing, turn * kw, turn * files[c.row.path], turn * newest]
    return out


def holdings(c, mass, stand_ins):
    """(mass of the query's topic terms the chunk holds, of those its heading
    holds, of those it holds only through a synonym or translation)."""
    held = heading = standing = 0.0
    for t, m in mass.items():
        if c.body.get(t, 0) or c.head.get(t, 0):
            held += m
            heading += m if c.head.get(t, 0) else 0.0
        elif t in stand_ins:
            share = max([min(1.0, w) for alt, w in stand_ins[t] if c.body.get(alt, 0) or c.head.get(alt, 0)]
                        or [0.0])
            held += m * share
            standing += m * share
    return held, heading, standing


def file_evidence(candidates, keyword, decay=0.7):
    """{path: the chance one of its best chunks answers}: noisy-or of its
    chunks' keyword scores, the k-th counting decay^k (a chat turn refers back
    to a whole earlier conversation)."""
    by_file = {}
    for key, c in candidates.items():
        by_file.setdefault(c.row.path, []).append(keyword.get(key, 0.0))
    out = {}
    for path, scores in by_file.items():
        missed = 1.0
        for i, score in enumerate(sorted(scores, reverse=True)[:8]):
            missed *= 1.0 - score * decay ** i
        out[path] = 1.0 - missed
    return out


def date_ranks(candidates):
    """{key: 1 for the newest dated file among the candidates, falling to 0
    for the oldest}; undated chunks are left out (0)."""
    dates = sorted({c.row.date for c in candidates.values() if c.row.date})
    if not dates:
        return {}
    place = {d: (i + 1) / len(dates) for i, d in enumerate(dates)}
    return {k: place[c.row.date] for k, c in candidates.items() if c.row.date}


def topic_weights(q):
    """{term: weight} of the query's own terms a hit is measured against (the
    words no note holds included): those weighing fully.  Its function
    words, pairs across word edges (的午 in 昨天的午饭) and a long prompt's
    chat words count when a hit holds them, never against it: a score says
    how much of what the query asks a hit holds, the same for a question and
    a whole chat turn.  All of them when none weighs fully."""
    own = {t: q.weights[t] for t in q.base}
    own.update(q.missing)
    asked = {t: w for t, w in own.items() if w >= 1.0}
    return asked or own


def own_mass(q):
    """({topic term: weight x idf} (topic_weights), {own term: [(synonym or
    translation standing in for it, weight)]}) for proximity."""
    mass = {t: w * math.log(1 + q.n_docs / q.dfs[t]) if t in q.base else w * math.log(1 + q.n_docs)
            for t, w in topic_weights(q).items()}
    stand_ins = {}
    for alt, source in q.stands.items():
        for t in source:
            stand_ins.setdefault(t, []).append((alt, q.weights[alt]))
    return mass, stand_ins


def missing_share(q):
    """The share of the query's topic mass no note holds (such a query is
    answered less, whatever a hit holds)."""
    mass, _ = own_mass(q)
    total = sum(mass.values())
    return sum(m for t, m in mass.items() if t in q.missing) / total if total else 0.0


def proximity(candidate, mass, stand_ins=None):
    """How much of the query a single line of the chunk holds (0-1): the
    share of its own terms' mass ({term: weight x idf}, the words no note
    holds included) the line holds, a term the line lacks counting at the
    weight of a synonym or translation standing in for it there
    (stand_ins: {term: [(its stand-in, weight)]}).  Words that meet in one
    line answer better than words scattered over six."""
    total = sum(mass.values())
    if not total:
        return 0.0
    best = 0.0
    for terms in candidate.lines:
        if terms:
            present = set(terms)
            held = 0.0
            for t, m in mass.items():
                if t in present:
                    held += m
                elif stand_ins and t in stand_ins:
                    held += m * max([min(1.0, w) for alt, w in stand_ins[t] if alt in present] or [0.0])
            best = max(best, held)
    return best / total


def resemblance(word, chunk_words, least=0.5):
    """How much an unknown word resembles the closest Latin word of a chunk
    (Dice coefficient of their trigrams; 0 below least)."""
    mine = set(cached_grams(word))
    best = 0.0
    for w in chunk_words.split():
        theirs = cached_grams(w[1:-1])
        if theirs:
            best = max(best, 2.0 * len(mine.intersection(theirs)) / (len(mine) + len(theirs)))
    return best if best >= least else 0.0


def holds_topic(candidate, query, key=None, bound=()):
    """Whether a chunk holds a word of the query's topic: all the bigrams of
    a word of up to three characters (张伟 alone does not hold 张伟明), a
    third of a longer run's (台北酒店 is two words), not counting occurrences inside a longer word
    (李娜 in 李娜娜); a Latin word itself or, unknown, one it resembles."""
    def held(t):
        return (candidate.body.get(t, 0) + candidate.head.get(t, 0) > 0) and (key, t) not in bound
    if any(held(t) for t in query.weights if t not in query.base and t not in query.frame and not is_unigram(t)):
        return True  # a synonym, regional spelling or translation of a word of the topic (号码 for 手机号 is frame)
    for word in query.topic:
        if len(word) == 1 and word[0] in query.unknown and resemblance(word[0], candidate.words):
            return True
        if len(word) == 1 and word[0] in query.prefixes and any(t.startswith(word[0]) for t in candidate.body):
            return True
        need = len(word) if len(word) <= 2 else (len(word) + 2) // 3
        if sum(1 for t in word if held(t)) >= need:
            return True
    return False


_LABEL = None


def labels_query_word(text, folded_query):
    """Whether a line of the chunk is labelled by a word of the query: a list
    of people or a glossary ('- 李明：技术总监', '- Kafka: the queue') says
    what the line is about before its colon."""
    global _LABEL
    if ":" not in text and "：" not in text:
        return False  # no label without a colon (and no pattern to compile)
    if _LABEL is None:
        import re
        _LABEL = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?([^:：\n*_]{2,20}?)(?:\*\*|__)?[ \t]*[:：]", re.M)
    for m in _LABEL.finditer(text):
        label = fold(m.group(1)).strip()
        at = folded_query.find(label)
        if len(label) >= 2 and at >= 0 and (_name_ends_at(folded_query, at, label) if not label.isascii()
                                             else _word_at(folded_query, at, len(label))):
            return True
    return False


def _name_ends_at(text, at, label):
    """Whether a Chinese label found in the query at `at` is not the start of
    a longer name there: '- 李明：' labels 李明的电话 and 李明生日 (a function
    or frame word follows), not 李明轩 (another person).  Only names (a
    surname first)."""
    end = at + len(label)
    if label[0] not in SURNAMES or end >= len(text) or not is_cjk(text[end]) or text[end] in ZH_FREE_CHARS:
        return True
    start = end
    while start > 0 and is_cjk(text[start - 1]):
        start -= 1
    stop = end
    while stop < len(text) and is_cjk(text[stop]):
        stop += 1
    run = text[start:stop]
    return function_spans(run)[end - start] or frame_spans(run)[end - start]


def _word_at(text, at, size):
    before = text[at - 1] if at else " "
    after = text[at + size] if at + size < len(text) else " "
    return not (before.isalnum() and before.isascii()) and not (after.isalnum() and after.isascii())
