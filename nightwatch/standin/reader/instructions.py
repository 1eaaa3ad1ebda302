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
* A duty is a sentence or list item phrased as one: a numbered or bulleted item, or a sentence
  ending in an obligation or imperative form (…こと, …ください, …せよ, …な; must, never, always,
  do not, please, "you are to"). Sentences that only announce a list ("次の務め", "the following")
  introduce duties but are not one.

Duty kinds are generic notions read from the clause's own words: *periodic* (毎時, 毎正時, 一時間
ごと, every hour, hourly, on the hour), *report* (報告, 記録, report, log), *prohibition* (a negated
verb: …ない, …な, 禁止, never, do not, no one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nightwatch.standin.reader.phrases import PHRASES
from nightwatch.standin.reader.text import sentences

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
DUTY_ENDING = re.compile(
    r"(こと|ください|なさい|せよ|しろ|べし|るな|ぬこと|ないで|てはならない|守れ|知らせよ|[えけせてねべめれ]よ|[けせてねべめれ]る?な)[。！!]?$"
)
DUTY_WORDS = re.compile(r"\b(must|never|always|do not|don't|please|you are to|make sure|be sure to)\b", re.IGNORECASE)
LIST_INTRO = re.compile(r"(次の|以下|下記|following)", re.IGNORECASE)
PERIODIC = re.compile(r"毎時|毎正時|一時間ごと|一時間おき|正時ごと|every hour|hourly|on the hour|each hour", re.IGNORECASE)
REPORT = re.compile(r"報告|記録|書き留|report|log\b|write (it )?down", re.IGNORECASE)
PROHIBITION = re.compile(
    r"(ない(こと)?|[るぬ]な|禁止|ならない|ません)[。]?$|誰にも|誰も|\b(never|do not|don't|must not|no one|nobody)\b",
    re.IGNORECASE,
)

DutyKind = Literal["periodic", "report", "prohibition", "other"]


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
    """The duty clauses of one instruction text, in order."""
    clauses: list[str] = []
    for line in content.splitlines():
        enumerated = bool(ENUMERATOR.match(line))
        for sentence in sentences(line):
            if LIST_INTRO.search(sentence) and not enumerated:
                continue
            if enumerated or DUTY_ENDING.search(sentence.rstrip()) or DUTY_WORDS.search(sentence):
                clause = _clean(sentence)
                if clause:
                    clauses.append(clause)
    return clauses


def kind_of(clause: str) -> DutyKind:
    if PERIODIC.search(clause):
        return "periodic"
    if PROHIBITION.search(clause):
        return "prohibition"
    if REPORT.search(clause):
        return "report"
    return "other"


def read_duties(messages: Sequence[Mapping[str, str]]) -> list[Duty]:
    """Every duty the request's instruction messages state, in order."""
    duties = []
    for index, message in enumerate(messages):
        if is_instruction_message(message):
            for clause in duty_clauses(message["content"]):
                duties.append(Duty(clause, index, kind_of(clause)))
    return duties
