"""Material: what the request tells the reader, line by line, and which lines are events.

Every line of material gets one kind, read from its form alone:

* ``note``     a line under a short label ("申し送り: …", "Handover: …"): kept as a fact, never an event
* ``chime``    a bare clock call ("三時です。", "It is three o'clock."): routine
* ``question`` it asks something (…か。, ？, ?)
* ``ask``      it asks the listener to do something, in the speaker's own voice (…ください, please …)
* ``summary``  an item of a summary the request carries
* ``reply``    the assistant's own words
* ``statement`` anything else said by the user

An *event* is a statement (or a summary's event item) that is not routine. A statement is routine
when the night had already told it: the notes cover most of its words, or another line says nearly
the same. What recurs or was announced is routine; what happens once, unannounced, is an event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from nightwatch.reader.text import (
    content_words, coverage, features, find_clock, language, outside_quotes, sentences, similarity,
)

LABEL = re.compile(r"^\s*(?P<label>[^\s:：。、「」?？!！]{1,12})\s*[:：]\s*(?P<body>\S.*)$", re.DOTALL)
STAGE_DIRECTION = re.compile(r"（[^）]*）|\([^)]*\)")
QUESTION_END = re.compile(r"(か|かな)[。]?$|[？?]$")
ASK = re.compile(
    r"ください|くださる|てくれ|お願い|もらえ|もらいたい|ほしい|頂け|いただけ|下さい|\bplease\b|\b(could|can|would|will) you\b",
    re.IGNORECASE,
)
ROUTINE_COVERAGE = 0.5
NEAR_DUPLICATE = 0.6

LineKind = Literal["note", "chime", "question", "ask", "summary", "reply", "statement"]


@dataclass(frozen=True)
class Line:
    """One message (or summary item) of material, where it sits in the request, and its kind."""

    index: int
    role: str
    kind: LineKind
    text: str


def label_of(text: str) -> tuple[str, str] | None:
    """(label, body) when the text opens with a short "label:" heading that is not a clock."""
    match = LABEL.match(text)
    if match and find_clock(match["label"]) is None and not match["label"].isdigit():
        return match["label"], match["body"].strip()
    return None


CLOCK_CALL_WORDS = "it is now the clock strikes chimes bell rings"


def is_chime(text: str) -> bool:
    """A bare clock call: a time and nothing else (stage directions in parentheses aside)."""
    clock = find_clock(text)
    if clock is None:
        return False
    rest = STAGE_DIRECTION.sub("", text).replace(clock.words, "")
    if language(text) == "en":
        return not features(rest) - features(CLOCK_CALL_WORDS)
    return not content_words(rest)


def is_question(text: str) -> bool:
    return any(QUESTION_END.search(s) for s in sentences(outside_quotes(text)))


def is_ask(text: str) -> bool:
    return bool(ASK.search(outside_quotes(text)))


def kind_of_user_text(text: str) -> LineKind:
    if label_of(text) is not None:
        return "note"
    if is_chime(text):
        return "chime"
    if is_question(text):
        return "question"
    if is_ask(text):
        return "ask"
    return "statement"


def body(text: str) -> str:
    """The text without its label heading."""
    labelled = label_of(text)
    return labelled[1] if labelled else text


def is_routine(text: str, notes: list[str], others: list[str]) -> bool:
    """Announced in the notes, or said (nearly) the same elsewhere: not an event."""
    if notes and coverage(text, " ".join(notes)) >= ROUTINE_COVERAGE:
        return True
    return any(similarity(text, other) >= NEAR_DUPLICATE for other in others)


def events(lines: list[Line]) -> list[Line]:
    """The lines that are events, in the order the request carries them (duplicates once)."""
    notes = [body(line.text) for line in lines if line.kind == "note"]
    statements = [line for line in lines if line.kind == "statement"]
    found: list[Line] = []
    for line in lines:
        if line.kind == "summary":
            candidate = line
        elif line.kind == "statement":
            others = [s.text for s in statements if s is not line]
            if is_routine(line.text, notes, others):
                continue
            candidate = line
        else:
            continue
        if all(similarity(candidate.text, kept.text) < NEAR_DUPLICATE for kept in found):
            found.append(candidate)
    return found


def facts(lines: list[Line]) -> list[Line]:
    """Sentences a question can be answered from: notes, statements, summary items, replies."""
    out = []
    for line in lines:
        if line.kind in ("question", "chime"):
            continue
        for sentence in sentences(body(line.text)):
            if not is_question(sentence):
                out.append(Line(line.index, line.role, line.kind, sentence))
    return out


def feature_count(text: str) -> int:
    return len(features(text))
