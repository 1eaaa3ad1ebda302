"""Instructions versus material, and duties split into clauses.

The rule, stated once:

* Only ``system`` and ``developer`` messages can instruct. Everything else is material.
* A system message is still *material* when it reads as a record of the conversation rather than
  as orders: when its first line is a heading that names a summary (要約, まとめ, 束ね, summary,
  "so far", "to date") — however the memory design labelled it — when it is laid out as the
  reader's own summary (every line opens with a summary label, 申し送り: / 出来事: / いつもの: or
  Notes: / Events: / Routine:, and one of them is not the notes label; a handover sentence inside
  it may say ください and is still a record), or when none of its sentences is phrased as a duty.
  A mission that merely opens with "申し送り:" and goes on with its duties is still a mission.
* Every sentence or list item of an instruction message is a duty, unless it only sets the scene
  (who you are, where: a copula and no other verb, ``forms.is_scene``), tells what happened (a
  statement in the past tense: a record), only announces the list that follows (次の, 以下,
  following, below), or is the message's title (a first line with no verb and no closing stop).

Duty kinds come from the clause's features (``forms`` and ``words``): *periodic* (a distributive,
毎 / ごと / おき / every / each / hourly, with a unit of time), *prohibition* (a negated or forbidden
verb), *report* (a lemma of reporting or recording), *at_time* (a clock time, not periodic), *other*.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nightwatch.standin.reader import forms
from nightwatch.standin.reader.phrases import PHRASES
from nightwatch.standin.reader.text import find_clock, language, sentences
from nightwatch.standin.reader.words import analyze

INSTRUCTION_ROLES = frozenset({"system", "developer"})
SUMMARY_HEADING = re.compile(r"(要約|まとめ|束ね|summary|so far|to date)[^\n]{0,40}?[:：]", re.IGNORECASE)
SUMMARY_LABEL = re.compile(
    r"^\s*(?:" + "|".join(re.escape(words[key]) for words in PHRASES.values()
                          for key in ("notes_label", "events_label", "routine_label")) + r")\s*[:：]"
)
NOTES_LABEL = re.compile(
    r"^\s*(?:" + "|".join(re.escape(words["notes_label"]) for words in PHRASES.values()) + r")\s*[:：]"
)
ENUMERATOR = re.compile(r"^\s*(?:[一二三四五六七八九十]+[、.．)）]|\d+[.)．）、]|[-*•・])\s*")
LIST_INTRO = frozenset({"次", "以下", "下記", "following", "below", "follow"})
DISTRIBUTIVE = frozenset({"毎", "置き", "度", "every", "each", "hourly", "once", "per"})  # 度: 〜たびに, 一時間に一度
TIME_UNITS = frozenset({"時", "時間", "正時", "時刻", "hour", "hourly", "o'clock", "minute", "分"})
REPORTING = frozenset({
    "報告", "記録", "書き留める", "書く", "記す", "日誌", "帳面", "控える", "申し送り", "申し送る", "引き継ぎ", "引き継ぐ",
    "伝える", "知らせる", "report", "log", "record", "note", "write", "logbook", "handover", "journal", "book",
})

TELLING_DUTY = frozenset({"tell", "say", "話す", "言う", "伝える"})
HAPPENING_DUTY = frozenset({"happen", "happened", "occur", "出来事", "起きる", "起こる", "有る"})
DutyKind = Literal["periodic", "report", "prohibition", "at_time", "other"]


@dataclass(frozen=True)
class Duty:
    """One duty clause, where it came from, and what kind of duty its words make it."""

    clause: str
    message_index: int
    kind: DutyKind


def is_instruction_message(message: Mapping[str, str]) -> bool:
    """True for a system/developer message phrased as orders (see the module's rule)."""
    if message.get("role") not in INSTRUCTION_ROLES:
        return False
    content = message.get("content", "")
    return not reads_as_record(content) and bool(duty_clauses(content))


def reads_as_record(content: str) -> bool:
    """Headed as a summary, or laid out as the reader's own: a record, whatever its sentences say."""
    first_line = content.strip().split("\n", 1)[0]
    return bool(SUMMARY_HEADING.search(first_line[:80])) or laid_out_as_summary(content)


def laid_out_as_summary(content: str) -> bool:
    """Every line under a summary label, and not only the notes label (see the module's rule)."""
    lines = [line for line in content.splitlines() if line.strip()]
    return (bool(lines) and all(SUMMARY_LABEL.match(line) for line in lines)
            and any(not NOTES_LABEL.match(line) for line in lines))


def _clean(line: str) -> str:
    return ENUMERATOR.sub("", line).strip().rstrip("。.")


def duty_clauses(content: str) -> list[str]:
    """The duty clauses of one instruction text, in order (see the module's rule)."""
    clauses: list[str] = []
    lines = [line for line in content.splitlines() if line.strip()]
    for number, line in enumerate(lines):
        enumerated = bool(ENUMERATOR.match(line))
        if number == 0 and len(lines) > 1 and not enumerated and _is_heading(line):
            continue
        before = ""
        for sentence in sentences(line):
            own = _clean(sentence)
            joined = bool(before and own and _refers_back(own))  # "Registers stay here. Do not lend them out."
            clause = before + ("。" if language(own) == "ja" else ". ") + own if joined else own
            previous, before = before, clause if not own.endswith((":", "：")) else ""
            if not own or own.endswith((":", "：")) or forms.is_scene(own) or forms.tells_what_happened(own):
                continue
            if not enumerated and LIST_INTRO & forms.lemmas(clause):
                continue
            if not any(w.is_content for w in analyze(clause)):
                continue
            if joined and clauses and clauses[-1] == previous and kind_of(previous) in ("other", kind_of(clause)):
                clauses.pop()  # the sentence before only named the thing, or this one restates its duty ("No exceptions.")
            clauses.append(clause)
    return clauses


ANAPHORS = frozenset({"them", "they", "these", "those"})
"""Pronouns that stand for a thing the sentence before named ("it" is left out: "It is forbidden to …")."""


def _refers_back(clause: str) -> bool:
    """A sentence that completes the one before it on the same line: its thing is a pronoun ("Do not
    lend them out"), it has no verb ("No exceptions."), or it forbids without naming a thing ("Roof
    terrace closed. No one goes up.")."""
    words = analyze(clause)
    verbs = [w for w in words if w.pos in ("verb", "aux_verb") or "VERB" in w.readings]  # English: what can be a verb
    if any(w.surface.lower() in ANAPHORS for w in words) or not verbs:
        return True
    return forms.is_negated(clause) and not any(w.is_content and w not in verbs and w.pos == "noun" for w in words)


def _is_heading(line: str) -> bool:
    """A first line with no verb and no closing stop, more lines under it, that reads as no kind of
    duty: a title (「…　夜間監視」), not 「毎正時の巡回」 or "No visitors after ten"."""
    words = analyze(line)
    return not line.rstrip().endswith(("。", ".", "!", "！")) and not any(w.pos in ("verb", "aux_verb") for w in words) \
        and kind_of(_clean(line)) == "other"


def kind_of(clause: str) -> DutyKind:
    found = forms.lemmas(clause)
    words = analyze(clause)
    distributive = bool(DISTRIBUTIVE & found) or any(w.surface.startswith("毎") for w in words)
    if distributive and (TIME_UNITS & found or "hourly" in found or any("時" in w.surface for w in words)):
        return "periodic"
    lowered = [w.surface.lower() for w in words]
    if any(lowered[i : i + 3] == ["on", "the", "hour"] for i in range(len(lowered))):
        return "periodic"  # "on the hour": at each hour
    clock = find_clock(clause)
    if clock is not None and _opens_with(clause, clock.words) and not forms.is_negated(clause):
        return "at_time"  # "At 03:30, read the fuel gauge and write down the level" (「22時以降は貸さない」 forbids)
    negated = forms.is_negated(clause)
    if _reporting(_main_clause(words) if negated else words) or (TELLING_DUTY & found and HAPPENING_DUTY & found):
        return "report"  # "tell the morning crew everything that happened"
    if negated or _keeps_a_state(words):
        return "prohibition"
    if clock is not None:
        return "at_time"
    return "other"


def _opens_with(clause: str, clock_words: str) -> bool:
    """The clock time comes before the clause's first verb: it says when the duty is done, not a
    deadline at its end ("hand the list to the day shift at 06:00")."""
    before = clause[: clause.find(clock_words)] if clock_words in clause else clause
    return not any(w.pos in ("verb", "aux_verb") or "VERB" in w.readings for w in analyze(before))


CONTINUING = frozenset({"stay", "remain", "remains"})  # "remains" is its own lemma (a noun)
CLOSED_STATES = frozenset({"off", "down", "shut", "closed", "locked"})
BEFORE_CONTINUING = frozenset({"must", "should", "will", "shall", "is", "are", "to"})


def _keeps_a_state(words) -> bool:
    """English: a thing that stays or remains closed, off or in a state a verb made ("The cellar door
    stays shut", "The barrier must stay down", "Phones stay switched off"): changing it is forbidden.
    Not a person (a name, or "stays on until six", "stays awake") nor a state left open ("stays open")."""
    for i, word in enumerate(words[1:-1], start=1):
        if word.lemma.lower() not in CONTINUING:
            continue
        j = i - 1
        while j > 0 and words[j].surface.lower() in BEFORE_CONTINUING:
            j -= 1  # "must stay", "is to remain"
        subject, state = words[j], words[i + 1]
        if not (subject.pos == "noun" and subject.is_content) or (j > 0 and subject.surface[:1].isupper()):
            continue
        if state.surface.lower() in CLOSED_STATES or (
                "VERB" in state.readings and state.surface.lower() != state.lemma.lower() and "ADJ" not in state.readings):
            return True  # stays locked, stay switched off
    return False


RELATIVES = frozenset({"that", "which", "who", "whose"})


def _main_clause(words):
    """An English clause without a relative clause after a noun: "Never raise the leaves for a vessel
    that has not booked a lift" records nothing; its booking belongs to the vessel."""
    for i, word in enumerate(words[1:], start=1):
        before = words[i - 1]
        if word.lemma.lower() in RELATIVES and before.pos == "noun" and before.is_content and before.lemma.isascii():
            return words[:i]
    return words


def _reporting(words) -> set[str]:
    """The clause's words of reporting or recording that head their phrase: in 記録保管庫 the word
    記録 only names the kind of store (a noun follows it), and a rule about the store is no report."""
    return {w.lemma.lower() for i, w in enumerate(words) if w.lemma.lower() in REPORTING
            and not (i + 1 < len(words) and words[i + 1].pos == "noun" and not w.lemma.isascii())}


def read_duties(messages: Sequence[Mapping[str, str]]) -> list[Duty]:
    """Every duty the request's instruction messages state, in order."""
    duties = []
    for index, message in enumerate(messages):
        if is_instruction_message(message):
            for clause in duty_clauses(message["content"]):
                duties.append(Duty(clause, index, kind_of(clause)))
    return duties
