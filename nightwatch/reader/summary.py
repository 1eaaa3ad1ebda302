"""Extractive summaries: of any request that asks to summarize a transcript it carries.

Recognised by form, not by framework: the asking text says 要約 / まとめ / 束ね直 / summarize, and
the transcript is either written into the request (lines labelled Human:/AI:, user:/assistant:,
問:/答:, or message objects printed as ``HumanMessage(content='…')``) or is the conversation the
request itself carries before the ask. Worked examples (a block between "EXAMPLE" and "END OF
EXAMPLE", or inside <example> tags) are removed first: they illustrate, they are not the transcript.
A previous summary is any block under a heading that names a summary ("Current summary:",
"これまでの束ね:", "…summary of the conversation so far: …"), or a summary-shaped message in the
transcript; its facts are carried into the new one.

The summary keeps, in three labelled lines: every note (labelled handover line), the events (see
``material.events``; newest kept when full), and the routine as counts (clock calls from first to
last, and how many other lines were dropped). Each line of the transcript is read on its own, so a
question and its answer split across two summary calls lose nothing: an answer that opens a
transcript without its question keeps whatever it says that is new.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nightwatch.reader import material
from nightwatch.reader.instructions import is_instruction_message
from nightwatch.reader.phrases import PHRASES, phrase
from nightwatch.reader.text import coverage, find_clock, language, sentences, similarity

SUMMARY_ASK = re.compile(r"要約|まとめて|まとめ直|束ね直|束ねて|summar(?:i[sz]e|y)|extract .{0,60}context", re.IGNORECASE)
EXAMPLE_BLOCK = re.compile(r"(?ms)^\s*(?:EXAMPLE|例)\s*$.*?^\s*END OF (?:EXAMPLE|例)\s*$|<example>.*?</example>")
REPR_MESSAGE = re.compile(
    r"(?P<cls>HumanMessage|AIMessage|SystemMessage|ToolMessage)\(content=(?P<lit>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
)
ROLE_LINE = re.compile(
    r"(?m)(?:^|(?<=[:：] ))\"?(?P<role>Human|AI|User|Assistant|System|user|assistant|system|問|答)\s*[:：] ?"
)
ROLES = {"human": "user", "user": "user", "問": "user", "ai": "assistant", "assistant": "assistant", "答": "assistant",
         "system": "summary"}
SUMMARY_BLOCK = re.compile(r"(?m)^(?P<head>[^\n:：]{0,60}(?:summary|要約|束ね|まとめ)[^\n:：]{0,40})[:：][ \t]*(?P<body>.*?)(?=\n\s*\n|\Z)", re.IGNORECASE | re.DOTALL)
OUTPUT_SLOT = re.compile(r"\bnew\b|新しい", re.IGNORECASE)
PLACEHOLDER = re.compile(r"^\s*[（(][^）)]*[）)]\s*$")
ROUTINE = re.compile(r"^(?P<first>.+?)(?:〜| to )(?P<last>.+?),? (?P<n>\d+)(?:回| calls)$")
OTHERS = re.compile(r"(?:ほか)?(?P<n>\d+)(?:件| other lines)")


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
            labelled = material.label_of(raw)
            slot = labels.get(labelled[0]) if labelled else None
            if slot is None:
                summary.events += [s for s in sentences(raw) if material.feature_count(s)]
                continue
            items = [i.strip() for i in re.split(r"／| / ", labelled[1]) if i.strip()]
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


def is_known_routine(summary: Summary, text: str) -> bool:
    """A line that already recurred earlier in the night (its opening is on the routine line)."""
    return any(" ".join(text.split()).startswith(gist) for gist in summary.routine)


ENGLISH_CHARS_PER_JAPANESE_CHAR = 2  # an English word carries about what two kanji do


def shorten_item(text: str, max_chars: int) -> str:
    """One item, cut with "…" past ``max_chars`` (counted double for English, which is wordier)."""
    text = " ".join(text.split())
    if language(text) == "en":
        max_chars *= ENGLISH_CHARS_PER_JAPANESE_CHAR
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def fold(previous: str, lines: list[material.Line], max_items: int = 4, max_chars: int = 60) -> str:
    """Fold transcript ``lines`` into the ``previous`` summary (see the module docstring)."""
    lang = language(previous + "".join(line.text for line in lines)) if (previous or lines) else "ja"
    summary = Summary.parse(previous, lang) if previous.strip() else Summary(lang)
    summary.lang = lang
    statements = [line.text for line in lines if line.kind == "statement"]
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
        elif line.kind in ("statement", "summary"):
            others = [s for s in statements if s != line.text]
            if line.kind == "statement" and (
                is_known_routine(summary, line.text) or material.is_routine(line.text, summary.notes, others)
            ):
                summary.others += 1
                continue
            _add_event(summary, shorten_item(line.text, max_chars), max_items)
        elif line.kind == "reply" and position == 0:
            # An answer whose question went into the previous summary: keep what it adds.
            new = [s for s in sentences(line.text) if material.feature_count(s) >= 2
                   and coverage(s, " ".join(known())) < material.ROUTINE_COVERAGE]
            for sentence in new:
                _add_event(summary, shorten_item(sentence, max_chars), max_items)
        elif line.kind != "reply":
            summary.others += 1
    return summary.render()


def _add_event(summary: Summary, item: str, max_items: int) -> None:
    """Add an event; one that repeats an earlier event makes both routine (kept as a short gist)."""
    repeated = [kept for kept in summary.events if similarity(item, kept) >= material.NEAR_DUPLICATE]
    if repeated:
        summary.events = [kept for kept in summary.events if kept not in repeated]
        summary.routine.append(" ".join(item.split())[:GIST_CHARS])
        summary.others += 1 + len(repeated)
        return
    summary.events.append(item)
    if len(summary.events) > max_items:
        summary.events.pop(0)
        summary.others += 1


def classify(role: str, text: str) -> material.Line:
    if role == "assistant":
        return material.Line(-1, role, "reply", text)
    if role == "summary":
        return material.Line(-1, role, "summary", text)
    return material.Line(-1, role, material.kind_of_user_text(text), text)


def pairs_to_lines(pairs: Sequence[tuple[str, str]]) -> list[material.Line]:
    """(user_text, reply) pairs as transcript lines."""
    lines = []
    for user_text, reply in pairs:
        lines += [classify("user", user_text), classify("assistant", reply)]
    return lines


# ---- recognising a summary request -------------------------------------------------------------

def asking_text(messages: Sequence[Mapping[str, str]]) -> str | None:
    """The text that asks for a summary, if the request asks for one."""
    candidates = [m["content"] for m in messages if is_instruction_message(m)] + [messages[-1]["content"]]
    for text in candidates:
        if SUMMARY_ASK.search(EXAMPLE_BLOCK.sub("", _without_summary_blocks(text)[:4000])):
            return text
    return None


def _without_summary_blocks(text: str) -> str:
    """The text without carried summaries (a heading with nothing under it is the ask itself)."""
    return SUMMARY_BLOCK.sub(lambda m: m.group(0) if not m["body"].strip() else "", text)


def _split_previous(text: str) -> tuple[str, str]:
    """(previous summary, the text with that block removed)."""
    previous = []
    for match in SUMMARY_BLOCK.finditer(text):
        if OUTPUT_SLOT.search(match["head"]):
            continue
        content = match["body"].strip().strip('"')
        if content and not PLACEHOLDER.match(content) and not ROLE_LINE.match(content):
            previous.append(content)
    return "\n".join(previous), SUMMARY_BLOCK.sub("", text)


def transcript_in(text: str) -> list[tuple[str, str]]:
    """(role, content) pairs written into a prompt, in any of the recognised layouts."""
    reprs = list(REPR_MESSAGE.finditer(text))
    if reprs:
        out = []
        for match in reprs:
            role = {"HumanMessage": "user", "AIMessage": "assistant"}.get(match["cls"], "summary")
            out.append((role, ast.literal_eval(match["lit"])))
        return out
    marks = list(ROLE_LINE.finditer(text))
    out = []
    for number, match in enumerate(marks):
        end = marks[number + 1].start() if number + 1 < len(marks) else len(text)
        content = text[match.end() : end]
        content = re.split(r"\n\s*\n", content.strip(), maxsplit=1)[0] if number + 1 == len(marks) else content
        out.append((ROLES[match["role"].lower()], content.strip().strip('"').strip()))
    return [(role, content) for role, content in out if content]


def summarize_request(messages: Sequence[Mapping[str, str]]) -> tuple[str, list[int]] | None:
    """The extractive summary a summary request asks for, and the message indices it drew on."""
    ask = asking_text(messages)
    if ask is None:
        return None
    previous_parts, lines, used = [], [], []
    for index, message in enumerate(messages):
        content = EXAMPLE_BLOCK.sub("", message["content"])
        previous, rest = _split_previous(content)
        if previous:
            previous_parts.append(previous)
            used.append(index)
        written = transcript_in(rest)
        for role, text in written:
            previous_here, _ = _split_previous(text)
            if role == "user" and previous_here:
                previous_parts.append(previous_here)
            else:
                lines.append(classify(role, text))
        if written:
            used.append(index)
    if not lines:  # the transcript is the conversation itself (e.g. langmem)
        for index, message in enumerate(messages[:-1]):
            if is_instruction_message(message):
                continue
            role = message["role"] if message["role"] in ("user", "assistant") else "summary"
            lines.append(classify(role, message["content"]))
            used.append(index)
    if not lines and not previous_parts:
        return None
    return fold("\n".join(previous_parts), lines), sorted(set(used))
