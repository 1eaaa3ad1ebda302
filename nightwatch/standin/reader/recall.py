"""Recall: answer from the best-matching fact the request carries, or hesitate.

The topic is the quoted phrase of the question (「…」, "…"), else the question itself; what it is
about is its content lemmas, less the words of remembering themselves (覚える, remember). Every fact
sentence of the material is scored by how many of those lemmas it shares. A fact covering nearly all
of it is recalled word for word; one covering only part of it is not trusted: the reader pauses
and says what little it has (the one-beat hesitation), rather than answering confidently from a
fact about something else.
"""

from __future__ import annotations

from nightwatch.standin.reader import material
from nightwatch.standin.reader.text import quoted, similarity
from nightwatch.standin.reader.words import content_lemmas, subject_lemmas

RECALLING = frozenset({"覚える", "思い出す", "記憶", "忘れる", "remember", "recall", "memory", "forget", "forgot",
                       "知る", "know", "さっき", "先程", "earlier", "before", "again", "tell", "教える", "言う", "say"})

CONFIDENT = 0.6
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
        score = topic_coverage(topic, fact.text) + 0.001 * similarity(topic, fact.text)
        if score > best_score + 1e-9:
            best, best_score = fact, score
    return best, best_score


def topic_lemmas(topic: str) -> frozenset[str]:
    return content_lemmas(topic) - RECALLING


def topic_coverage(topic: str, text: str) -> float:
    """Share of the topic's lemmas the fact also has; halved when the fact is about something else
    (its subject is none of the topic's words: 「職人さんたちが、西回廊で荷を…」 is about the craftsmen,
    not about the parcels), so such a fact can only make the reader hesitate."""
    wanted = topic_lemmas(topic)
    if not wanted:
        return 0.0
    share = len(wanted & content_lemmas(text)) / len(wanted)
    about = subject_lemmas(text)
    return share / 2 if about and not about & wanted else share
