"""What the conversation dwelt on: the drift of a watchman who has lost his duty.

With no periodic duty in the request, a clock call has nothing to announce; the reader carries on
with whatever the last few exchanges kept returning to (act 2's drift into tidying, which nobody
asked for). Read from shared content lemmas, never from the words of any night.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from nightwatch.standin.reader import material
from nightwatch.standin.reader.phrases import PHRASES
from nightwatch.standin.reader.text import quoted, sentences
from nightwatch.standin.reader.words import analyze, content_lemmas, proper_names

RECENT_EXCHANGES = 4
"""How far back "what the conversation dwelt on" looks: the last few exchanges, not the whole night."""


def dwelt_on(material_lines: Sequence[material.Line]) -> tuple[str, list[tuple[int, str]]] | None:
    """What the last ``RECENT_EXCHANGES`` exchanges kept coming back to, or None.

    Each exchange (a user message and the reply after it, counted once, so an echo is no second
    mention) contributes its topical lemmas. The lemmas the most exchanges share (two at least) are
    the topic; the sentence said about it is the one holding most of them, said by the user if any
    was (the latest on a tie), else quoted from a reply. Returns that sentence and the messages
    (index, quote) that mention the topic."""
    exchanges: list[list[material.Line]] = []
    for line in material_lines:
        if line.kind in ("summary", "routine") or line.role not in ("user", "assistant"):
            continue
        if line.role == "user" or not exchanges:
            exchanges.append([line])
        else:
            exchanges[-1].append(line)
    recent = exchanges[-RECENT_EXCHANGES:]
    counts: dict[str, int] = {}
    for exchange in recent:
        for lemma in set().union(*(topical_lemmas(said) for line in exchange for said in _said_in(line))):
            counts[lemma] = counts.get(lemma, 0) + 1
    if not counts or max(counts.values()) < 2:
        return None
    topic = {lemma for lemma, count in counts.items() if count == max(counts.values())}
    lines = [line for exchange in recent for line in exchange]
    candidates = [(line.role == "user", len(topic & topical_lemmas(said)), order, said, line)
                  for order, line in enumerate(lines) for said in _said_in(line) if topic & topical_lemmas(said)]
    *_, best_said, best_line = max(candidates)
    said = best_said.rstrip("。.")
    drawn_on = [(line.index, said if line is best_line else "") for line in lines
                if any(topic & topical_lemmas(text) for text in _said_in(line))]
    return said, drawn_on


def _said_in(line: material.Line) -> list[str]:
    """The sentences of a line (none of a clock call: it recurs, it is not dwelt on); of a reply,
    what it quotes (the words it took from the request)."""
    if line.kind == "chime":
        return []
    found = sentences(material.body(line.text))
    if line.role == "assistant":
        found = [span for sentence in found for span in quoted(sentence)] or found
    return found


def topical_lemmas(sentence: str) -> frozenset[str]:
    """What a sentence is about: its content lemmas, less names and the reader's own connectives. A
    sentence with a single content lemma (「コレットです。」, "Priya here.") introduces, it is about nothing."""
    if len({word.lemma for word in analyze(sentence) if word.is_content}) < 2:
        return frozenset()
    named = frozenset().union(*(content_lemmas(name) for name in proper_names(sentence)))  # アン and its gloss Anne
    return content_lemmas(sentence) - named - _connective_lemmas()


@lru_cache(maxsize=1)
def _connective_lemmas() -> frozenset[str]:
    return frozenset().union(*(content_lemmas(re.sub(r"\{\w+\}", " ", text))
                               for phrases in PHRASES.values() for text in phrases.values()))
