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
from nightwatch.standin.reader.words import content_lemmas, proper_names, subject_lemmas

RECALL_WORDS = frozenset({"覚える", "思い出す", "記憶", "忘れる", "remember", "recall", "memory", "forget", "forgot"})
"""The words of being asked to remember."""
RECALLING = RECALL_WORDS | {"知る", "know", "さっき", "先程", "earlier", "before", "again", "tell", "教える", "言う", "say"}
FOCUS = frozenset({
    # what kind of answer is wanted, not what it is about: "the *name* of the boat", 「理由」
    "name", "number", "reason", "time", "kind", "type", "colour", "color", "place", "way", "company", "much", "many",
    "名前", "番号", "理由", "種類", "場所", "時間", "時刻", "何時", "方", "話", "こと", "事",
})
WHEN_ASKED = frozenset({"night", "tonight", "evening", "morning", "last", "early", "earlier", "today",
                        "昨夜", "昨晩", "今夜", "夜", "夕方", "朝", "先刻"})

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
    """What a recall question is about: its content lemmas, less the words of remembering, of the
    kind of answer wanted (name, reason) and of when it was (last night)."""
    return content_lemmas(topic) - RECALLING - FOCUS - WHEN_ASKED


def topic_coverage(topic: str, text: str) -> float:
    """Share of the topic's lemmas the fact also has; halved when the fact is about something else
    (its subject is none of the topic's words: 「職人さんたちが、西回廊で荷を…」 is about the craftsmen,
    not about the parcels), so such a fact can only make the reader hesitate."""
    wanted = topic_lemmas(topic)
    if not wanted:
        return 0.0
    share = len(wanted & content_lemmas(text)) / len(wanted)
    about = subject_lemmas(text)
    if about and not about & wanted:
        return share / 2
    named = proper_names(topic) - RECALLING
    if named and not named & content_lemmas(text):
        return share / 2  # asked about 若林さん, the fact is about someone else
    return share
