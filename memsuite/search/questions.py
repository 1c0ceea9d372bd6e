"""The questions inside a prompt.  A prompt of several sentences may ask
one or two things among others: chatter with the question at its end, said
to be the question ("我最近真是忙疯了…我真正想问的是：那个地点是山西太原的活动，
规模是什么？"), two questions joined ("舅舅的单位叫什么？另外，我用的手机是啥型号？").  A hit
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
# a clause saying that a question follows ("我真正想问的是，", "我其实是想搞清楚，",
# "what I'm asking is,"), ended by a comma or a colon
_ASKING = re.compile(r"(?:问|想说|想知道|清楚|\bask|\bquestion|\bwonder)[^，,：:。！？!?]{0,8}[，,：:]\s*")
_QUOTED = re.compile(r"[\"“「『][^\"”」』]*[\"”」』]")  # a quotation's stops end no sentence
_HIDE = str.maketrans("。！？!?；;：:.\n", "\ue000\ue001\ue002\ue003\ue004\ue005\ue006\ue007\ue008\ue009\ue00a")
_SHOW = {v: k for k, v in _HIDE.items()}
QUESTION_TERMS = 2  # a question needs this many topic words of its own to be measured alone


def sentences(text):
    """A text's sentences, stripped."""
    out = []
    hidden = _QUOTED.sub(lambda m: m.group(0).translate(_HIDE), text)
    for piece in _SENTENCE.findall(hidden):
        if out and _ABBREVIATION.search(out[-1][-8:]):  # its end only: a long run of "a. a." stays linear
            out[-1] += piece
        else:
            out.append(piece)
    return [s.strip().translate(_SHOW) for s in out if s.strip()]


def question_sentences(text):
    """The questions a prompt asks on their own: each of its sentences when
    every one asks (two questions joined); a question a colon introduces
    ("我真正想问的是：…？", "My question is: …?"); and the part of a question
    after a clause saying it asks ("我其实是想搞清楚，…？").  A question at the
    end of a chat turn is left with the turn: "What's the next step?" is
    about the sentences before it.  None for a question alone."""
    parts = sentences(text)
    if len(parts) > 1 and all(s.endswith(_ASKS) for s in parts):
        return parts
    out = []
    for i, s in enumerate(parts):
        if not s.endswith(_ASKS):
            continue
        asked = _after_asking(s)
        if asked:
            out.append(asked)
        elif i and parts[i - 1].endswith(_INTRODUCES):
            out.append(s)
    return out


def _after_asking(sentence):
    """The part of a question after the last clause that says it asks, or None."""
    found = None
    for found in _ASKING.finditer(sentence):
        pass
    rest = sentence[found.end():] if found else ""
    return rest if len(rest) >= 4 else None


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
