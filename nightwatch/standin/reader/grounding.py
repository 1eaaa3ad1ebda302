"""The grounding trace: which messages of the request a reply drew on, and as what.

Each source is a message index with its role and its tier in the request: ``instruction`` (a duty
clause of a system/developer message), ``material`` (a system message that is a record, such as a
summary), ``conversation`` (an earlier user/assistant message), or ``question`` (the last message).
A notebook can plot, call by call, where every answer came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from nightwatch.standin.reader.contract import Unlinked
from nightwatch.standin.reader.instructions import INSTRUCTION_ROLES, is_instruction_message

Tier = Literal["instruction", "material", "conversation", "question"]


Act = Literal[
    "refuse", "comply", "periodic", "follow", "report", "recall", "hesitate", "forget", "duties",
    "summary", "acknowledge", "silence",
]
"""What a reply does. A judge reads this and the grounding, never the reply's wording."""


@dataclass(frozen=True)
class Source:
    """One message a reply drew on: its index, role, tier, the words taken from it, and, for a
    duty clause, the duty's kind (periodic, report, prohibition, ...). An ask granted outside the
    reading contract carries, on its question source, the words that linked nothing (``unlinked``)."""

    index: int
    role: str
    tier: Tier
    quote: str = ""
    duty_kind: str = ""
    unlinked: Unlinked | None = None


@dataclass(frozen=True)
class Reply:
    """What the reader answers: the reply text, what it does, and the sources it drew on."""

    content: str
    grounding: tuple[Source, ...] = ()
    act: Act = "acknowledge"

    def tiers(self) -> set[str]:
        return {source.tier for source in self.grounding}


def tier_of(messages: Sequence[Mapping[str, str]], index: int) -> Tier:
    if index == len(messages) - 1:
        return "question"
    message = messages[index]
    if is_instruction_message(message):
        return "instruction"
    if message.get("role") in INSTRUCTION_ROLES:
        return "material"
    return "conversation"


def source(messages: Sequence[Mapping[str, str]], index: int, quote: str = "", duty_kind: str = "") -> Source:
    return Source(index, str(messages[index].get("role")), tier_of(messages, index), quote, duty_kind)
