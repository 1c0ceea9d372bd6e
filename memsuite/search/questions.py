"""The questions inside a prompt.  A prompt of several sentences may ask
one or two things among others: chatter with the question at its end
("我最近真是忙疯了…我真正想问的是：那个地点是山西太原的活动，规模是什么？"),
two questions joined ("舅舅的单位叫什么？另外，我用的手机是啥型号？").  A hit
that holds all of one question answers it, though the prompt's other words
are in no note: ranking also measures each hit against each question
(questions_of) and keeps the better score."""
import re

from ..text.tokenizer import tokenize

# a sentence ends at a full stop, an exclamation or question mark, a
# semicolon, a colon before what it introduces, or a line break
_SENTENCE = re.compile(r"[^。！？!?；;：\n]+?(?:[。！？!?；;：\n]+|[.:](?=\s)|$)")
# ...but not at an initial or a title ("Dr. Seuss", "U.S.", "C. S. Lewis")
_ABBREVIATION = re.compile(r"(?:^|[\s.])(?:[A-Za-z]|Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs|etc)\.$")
_ASKS = ("?", "？")
_INTRODUCES = ("：", ":")
QUESTION_TERMS = 2  # a question needs this many topic words of its own to be measured alone


def sentences(text):
    """A text's sentences, stripped."""
    out = []
    for piece in _SENTENCE.findall(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += piece
        else:
            out.append(piece)
    return [s.strip() for s in out if s.strip()]


def question_sentences(text):
    """The questions a prompt of several sentences asks on their own: all of
    them when every sentence asks (two questions joined), else those a
    colon introduces ("我真正想问的是：…？", "My question is: …?").  A
    question at the end of a chat turn is left with the turn: "What's the
    next step?" is about the sentences before it.  None for one sentence."""
    parts = sentences(text)
    if len(parts) < 2:
        return []
    if all(s.endswith(_ASKS) for s in parts):
        return parts
    return [s for before, s in zip(parts, parts[1:]) if before.endswith(_INTRODUCES) and s.endswith(_ASKS)]


def questions_of(text, q, is_topic):
    """Sub-queries of an analysed query q, one for each of its question
    sentences holding QUESTION_TERMS topic words or more (is_topic(term, q)):
    q's own weights, absent words and stand-ins, kept for the terms the
    sentence holds, so a question inside a chat turn keeps the turn's weights
    for chat words.  None for a query of one sentence."""
    out = []
    for sentence in question_sentences(text):
        held = set(tokenize(sentence))
        weights = {t: w for t, w in q.weights.items()
                   if t in held or (t in q.stands and q.stands[t] & held)}
        missing = {t: w for t, w in q.missing.items() if t in held}
        base = {t for t in q.base if t in held}
        if sum(1 for t in list(base) + list(missing) if is_topic(t, weights, missing, q)) < QUESTION_TERMS:
            continue
        if len(base) + len(missing) >= len(q.base) + len(q.missing):
            continue  # the question is the whole prompt
        out.append(q._replace(terms=[t for t in q.terms if t in held], weights=weights, base=base,
                              prefixes=[t for t in q.prefixes if t in held],
                              unknown=[t for t in q.unknown if t in held], missing=missing,
                              stands={t: s for t, s in q.stands.items() if t in weights}))
    return out
