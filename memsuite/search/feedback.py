"""Pseudo-relevance feedback (Rocchio's idea): the best hits of a question
hold the words its answer is written in, which the question may not (the
pottery workshop asked as 孩子们的陶艺, "the hole in my tooth" for a
filling).  Their rarest words are added to the question, weighted far below
its own, as a conversation's are (search/context.py), and the question is
searched again: a hit that shares them with the best hits rises, and a note
written in them alone is found.  The search again only reorders: the i-th
hit takes the score of the first search's i-th (words the question did not
ask for must not raise a score an agent or the hook cuts on: an absent
topic's best hit would pass for an answer)."""
from .context import Turn, kept_terms, turn_weights


def feedback_terms(store, hits, own, params):
    """({term: weight}, {term: df}) to add to a question: the topic words of its
    best params.feedback_docs hits, the best hit's weighing feedback_weight
    and each next one TURN_DECAY of the one before (as a conversation's turns,
    the best as the latest), the feedback_terms weightiest by weight x idf
    (kept_terms: so mostly the best hit's rarest words).  Measured: weighing a
    word by how many of the best hits hold it (RM3's way) did worse on every
    held-out half but CMRC's (docs/benchmarks.md)."""
    turns = [Turn("user", h.text) for h in reversed(hits[:params.feedback_docs])]
    return kept_terms(store, turn_weights(turns, params.feedback_weight), own, params.feedback_terms)


def with_first_scores(again, first):
    """The hits of the search again (again), each taking the score of the
    first search's hit at its rank (a hit past the first search's last
    takes the lower of its own and that last score)."""
    scores = sorted((h.score for h in first), reverse=True)
    out = [h._replace(score=scores[i] if i < len(scores) else min(h.score, scores[-1]))
           for i, h in enumerate(again)]
    again[:] = out
    return again
