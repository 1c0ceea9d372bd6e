"""A preference for newer notes: opt-in for every query (search.sh --recent,
--half-life DAYS), by default for a chat turn's order only (turn_half_life).

Never on by default for a question: a search that always decays buries old
memories (and cost LoCoMo).  When asked for, a hit keeps (1 - recent_weight)
of its score whatever its age, and the other recent_weight share halves
every recent_half_life days:

    score x (1 - w + w x 0.5 ** (age / half_life))

so scores stay in [0, 1], a note of today keeps its score, and an old note
that is the only answer keeps at least 0.7 of its own (findable, as before).
Age is counted in days from the newest dated note of the index (capped at
today), not from today: a folder nobody wrote in for a year still tells its
newer notes from its older ones.  Notes dated after that day, and undated
notes (MEMORY.md, the curated long-term memory), count as current (factor 1)."""
import datetime


def reference_day(file_dates, today=None):
    """The day ages are counted from: the newest date among {path: date}
    (YYYY-MM-DD or None), capped at today; today when nothing is dated."""
    today = today or datetime.date.today()
    days = [_day(d) for d in file_dates.values() if d]
    days = [d for d in days if d is not None and d <= today]
    return max(days) if days else today


def recency_factor(date, reference, params):
    """The share of its score a note dated `date` keeps (1.0 when undated)."""
    day = _day(date) if date else None
    if day is None or params.recent_half_life <= 0:
        return 1.0
    age = max(0, (reference - day).days)
    w = params.recent_weight
    return 1.0 - w + w * 0.5 ** (age / float(params.recent_half_life))


def prefer_recent(store, order, rows, merged, params):
    """Scale each candidate's merged score by its recency factor (in place)
    and return the candidates re-sorted, best first."""
    reference = reference_day(store.file_dates())
    for key in order:
        merged[key] *= recency_factor(rows[key].date, reference, params)
    return sorted(order, key=lambda k: (-merged[k], rows[k].path, rows[k].ordinal))


def tells_something(query):
    """Whether a chat turn says something besides its questions (a sentence
    not ending in a question mark, nor a colon that introduces one): "I
    tried the starter you suggested. What next?" continues a conversation;
    a turn of questions only ("Where is the runner from? And how long is the
    event?") asks for facts, which their age does not rank."""
    from .questions import sentences  # loaded for a chat turn only
    return any(not s.endswith(("?", "？", ":", "：")) for s in sentences(query))


def prefer_recent_turns(store, order, rows, merged, params):
    """A chat turn's candidates ordered as if each scored its recency factor
    (recent_weight, halving every turn_half_life days) of its score: a turn
    continues the conversations of the weeks before it more often than older
    ones.  The scores themselves keep their values (the i-th candidate gets
    the i-th best), so the cut (ANSWER_CUT) and the prompt hook read the same
    scale as without it."""
    reference = reference_day(store.file_dates())
    turn = params._replace(recent_half_life=params.turn_half_life)
    decayed = {key: merged[key] * recency_factor(rows[key].date, reference, turn) for key in order}
    scores = sorted((merged[key] for key in order), reverse=True)
    order = sorted(order, key=lambda k: (-decayed[k], rows[k].path, rows[k].ordinal))
    merged.update(zip(order, scores))
    return order


def _day(text):
    try:
        return datetime.date(int(text[:4]), int(text[5:7]), int(text[8:10]))
    except (ValueError, TypeError):
        return None
