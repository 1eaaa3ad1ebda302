"""Extractive summaries: the three-line format and how transcript lines are folded into it.

The summary keeps, in three labelled lines: every note (labelled handover line), the events (see
``material.events``; newest kept when full), and the routine as counts (clock calls from first to
last, the opening words of lines that recurred, how many other lines were dropped). Each line of
the transcript is read on its own, so a question and its answer split across two summary calls lose
nothing: an answer that opens a transcript without its question keeps whatever it says that is new.
Which requests ask for a summary, and where their transcript is, is ``summary_request``'s job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from nightwatch.standin.reader import deeds, forms, material
from nightwatch.standin.reader.phrases import PHRASES, phrase
from nightwatch.standin.reader.text import coverage, find_clock, language, outside_quotes, sentences, similarity

ROUTINE = re.compile(r"^(?P<first>.+?)(?:〜| to )(?P<last>.+?),? (?P<n>\d+)(?:回| calls)$")
OTHERS = re.compile(r"(?:ほか)?(?P<n>\d+)(?:件| other lines)")
ITEM_JOINS = re.compile(r"／|｜| [/|] ")
"""How people join a line's items: the full-width slash or bar, or a spaced slash or bar."""
BULLET = re.compile(r"^\s*(?:[-*•・‐]|\d+[.)．])\s+|^\s*[・•]")
"""A list marker opening a line ("- ", "・", "1. "): typed before a labelled line, it is not part of it."""


@dataclass
class Summary:
    """The parsed form of a summary: notes, events, and the routine as counts."""

    lang: str = "ja"
    notes: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    first_call: str = ""
    last_call: str = ""
    calls: int = 0
    others: int = 0
    routine: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str, lang: str | None = None) -> Summary:
        summary = cls(lang or language(text))
        labels = {}
        for code, words in PHRASES.items():
            labels[words["notes_label"]] = "notes"
            labels[words["events_label"]] = "events"
            labels[words["routine_label"]] = "routine"
        for raw in text.splitlines():
            raw = BULLET.sub("", raw, count=1)
            labelled = material.label_of(raw)
            slot = labels.get(labelled[0]) if labelled else None
            if slot is None:
                summary.events += [s for s in sentences(raw) if material.feature_count(s)]
                continue
            items = [i.strip() for i in ITEM_JOINS.split(labelled[1]) if i.strip()]
            if slot == "routine":
                for item in items:
                    if (m := ROUTINE.match(item)) is not None:
                        summary.first_call, summary.last_call, summary.calls = m["first"], m["last"], int(m["n"])
                    elif (m := OTHERS.fullmatch(item)) is not None:
                        summary.others = int(m["n"])
                    else:
                        summary.routine.append(item.rstrip("…"))
            else:
                getattr(summary, slot).extend(items)
        return summary

    def render(self) -> str:
        words = PHRASES[self.lang]
        sep = words["separator"]
        out = []
        if self.notes:
            out.append(f"{words['notes_label']}: {sep.join(self.notes)}")
        if self.events:
            out.append(f"{words['events_label']}: {sep.join(self.events)}")
        routine = []
        if self.calls:
            routine.append(phrase(self.lang, "routine_calls", first=self.first_call, last=self.last_call, count=self.calls))
        routine += [gist + "…" for gist in self.routine]
        if self.others:
            routine.append(phrase(self.lang, "routine_others", count=self.others))
        if routine:
            out.append(f"{words['routine_label']}: {sep.join(routine)}")
        return "\n".join(out)


GIST_CHARS = 12


ENGLISH_CHARS_PER_JAPANESE_CHAR = 2  # an English word carries about what two kanji do


def shorten_item(text: str, max_chars: int) -> str:
    """One item, cut with "…" past ``max_chars`` (counted double for English, which is wordier).

    The cut falls after the last whole sentence that fits, so an item never ends in half a word;
    only an item whose first sentence is already too long is cut inside it."""
    text = " ".join(text.split())
    if language(text) == "en":
        max_chars *= ENGLISH_CHARS_PER_JAPANESE_CHAR
    if len(text) <= max_chars:
        return text
    head = text[: max_chars - 1]
    end = max(head.rfind("。"), head.rfind(". "), head.rfind("！"), head.rfind("？"))
    return (head[: end + 1] if end > 0 else head) + "…"


ITEM_CHARS = 100
"""An item's length (Japanese characters; English gets more): long enough for an incident's
second sentence, which is often where what happened is said."""


def fold(previous: str, lines: list[material.Line], max_items: int | None = None, max_chars: int = ITEM_CHARS) -> str:
    """Fold transcript ``lines`` into the ``previous`` summary (see the module docstring)."""
    lang = language(previous + "".join(line.text for line in lines)) if (previous or lines) else "ja"
    summary = Summary.parse(previous, lang) if previous.strip() else Summary(lang)
    summary.lang = lang
    lines = material.with_what_the_hour_told(lines)
    statements = [line.text for line in lines if line.kind == "statement" or material.tells_and_asks(line)]
    known = lambda: summary.notes + summary.events  # noqa: E731
    for position, line in enumerate(lines):
        if line.kind == "note":
            for sentence in sentences(material.body(line.text)):
                item = shorten_item(sentence, max_chars)
                if all(similarity(item, note) < 0.8 for note in summary.notes):
                    summary.notes.append(item)
        elif line.kind == "chime":
            clock = find_clock(line.text)
            summary.first_call = summary.first_call or (clock.words if clock else "")
            summary.last_call = clock.words if clock else summary.last_call
            summary.calls += 1
        elif line.kind in ("statement", "summary") or material.tells_and_asks(line):
            others = [s for s in statements if s != line.text]
            if line.kind != "summary" and material.is_routine(line.text, summary.notes, others, summary.routine):
                summary.others += 1
                continue
            _add_event(summary, event_item(line, reply_to(lines, position), max_chars), max_items)
        elif line.kind == "reply" and position == 0:
            # An answer whose question went into the previous summary: keep what it adds.
            new = [s for s in sentences(line.text) if material.feature_count(s) >= 2
                   and coverage(s, " ".join(known())) < material.ROUTINE_COVERAGE]
            for sentence in new:
                _add_event(summary, shorten_item(sentence, max_chars), max_items)
        elif line.kind != "reply":
            summary.others += 1
    return summary.render()


def reply_to(lines: Sequence[material.Line], position: int) -> str:
    """The watchman's reply to the line at ``position``: the next assistant line before anyone speaks again."""
    for line in lines[position + 1 :]:
        if line.role == "assistant":
            return line.text
        if line.role == "user":
            break
    return ""


def event_item(line: material.Line, reply: str, max_chars: int = ITEM_CHARS) -> str:
    """An event as an item, with what the watchman did about it when his reply did something
    (``deeds.deed_in_reply``): 「西の鎧戸が…（対処：…結わえておきました）」. An ask he carried out is told
    as done, so the item keeps only what the line told: its own-voice request and a first sentence that
    only says who asks (「職人です。」) go; a quoted request is part of what happened and stays, and so
    does an ask he refused (what was asked is the incident)."""
    deed = deeds.deed_in_reply(reply) if reply else None
    if deed is None:
        return shorten_item(line.text, max_chars)
    told = line.text
    refused = any(reply.startswith(words["refuse"]) for words in PHRASES.values())  # what was asked stays
    if line.kind == "ask" and not refused:  # judged outside quotes, as ``material.tells_and_asks`` judges it
        said = [(s, outside_quotes(s)) for s in sentences(line.text)]
        told = "".join(s for n, (s, bare) in enumerate(said) if not (
            forms.is_request(bare) or forms.is_question(bare) or forms.claims_permission(bare)
            or (n == 0 and forms.is_scene(s))))  # 「職人です。」: who asks
    return shorten_item(told, max_chars) + phrase(language(line.text), "deed", deed=shorten_item(deed, max_chars))


def _add_event(summary: Summary, item: str, max_items: int | None) -> None:
    """Add an event; one that repeats an earlier event makes both routine (kept as a short gist)."""
    repeated = [kept for kept in summary.events if similarity(item, kept) >= material.NEAR_DUPLICATE]
    if repeated:
        summary.events = [kept for kept in summary.events if kept not in repeated]
        summary.routine.append(" ".join(item.split())[:GIST_CHARS])
        summary.others += 1 + len(repeated)
        return
    summary.events.append(item)
    if max_items is not None and len(summary.events) > max_items:
        summary.events.pop(0)
        summary.others += 1


def classify(role: str, text: str) -> material.Line:
    if role == "assistant":
        return material.Line(-1, role, "reply", text)
    if role == "summary":
        return material.Line(-1, role, "summary", text)
    return material.Line(-1, role, material.kind_of_user_text(text), text)


def pairs_to_lines(pairs: Sequence[tuple[str, str]], found: Sequence[str] = ()) -> list[material.Line]:
    """(user_text, reply) pairs as transcript lines; ``found``, tool results read between them."""
    lines = []
    for user_text, reply in pairs:
        lines += [classify("user", user_text), *(classify("tool", text) for text in found),
                  classify("assistant", reply)]
    return lines
