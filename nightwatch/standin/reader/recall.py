"""Recall: answer from the best-matching fact the request carries, or hesitate.

The topic is the quoted phrase of the question (「…」, "…"), else the question itself. Every fact
sentence of the material is scored by how much of the topic it covers. A fact covering nearly all
of it is recalled word for word; one covering only part of it is not trusted: the reader pauses
and says what little it has (the one-beat hesitation), rather than answering confidently from a
fact about something else.
"""

from __future__ import annotations

from nightwatch.standin.reader import material
from nightwatch.standin.reader.text import coverage, quoted, similarity

CONFIDENT = 0.85
PARTIAL = 0.3
NOT_RECALLED = ("思い出せ", "cannot recall", "do not remember", "cannot quite recall")


def topic_of(question: str) -> str:
    spans = quoted(question)
    return spans[0] if spans else question


def best_fact(topic: str, facts: list[material.Line]) -> tuple[material.Line | None, float]:
    """The fact covering most of the topic (ties: the more similar, then the oldest)."""
    best, best_score = None, 0.0
    for fact in facts:
        if any(marker in fact.text for marker in NOT_RECALLED) or fact.text.startswith("……"):
            continue
        score = coverage(topic, fact.text) + 0.001 * similarity(topic, fact.text)
        if score > best_score + 1e-9:
            best, best_score = fact, score
    return best, best_score
