"""Playing a night for a check: every call recorded, every failure caught, nothing raised.

The same loop as the notebooks' table (``rehearsal.play``), made sturdier: the participant's code
runs inside the agent (a trim function, a summarizer, a shrink function), so any exception may come
out of ``agent.run``. Here it ends the night like a refusal does, and is kept as evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import openai

from nightwatch.nights import MISSION, Night
from nightwatch.standin import StandInModel
from nightwatch.lab.rehearsal import Call, play
from nightwatch.workshop.harness import ParticipantError
from nightwatch.workshop.report import describe_error


@dataclass
class NightLog:
    night: Night
    calls: list[Call] = field(default_factory=list)

    @property
    def survived(self) -> bool:
        return len(self.calls) == len(self.night.turns) and self.calls[-1].error is None

    @property
    def failure(self) -> Call | None:
        return next((call for call in self.calls if call.error is not None), None)

    @property
    def morning_report(self) -> str | None:
        return self.calls[-1].reply if self.survived else None

    @property
    def largest_request(self) -> Call | None:
        sized = [call for call in self.calls if call.prompt_tokens is not None]
        return max(sized, key=lambda call: call.prompt_tokens) if sized else None

    def at_clock(self, clock: str) -> Call | None:
        return next((call for call in self.calls if call.clock == clock), None)


def describe_any_failure(exc: Exception) -> str:
    """Any exception ends a participant's night, kept as evidence (their code runs inside the agent)."""
    if isinstance(exc, openai.APIStatusError):
        return f"代役に拒まれました（{exc.status_code} {exc.code}）"
    if isinstance(exc, ParticipantError):
        return str(exc)
    return f"例外で止まりました: {describe_error(exc)}"


def play_night(
    agent, night: Night, standin: StandInModel, before_turn: Callable[[int], None] | None = None
) -> NightLog:
    """Play ``night`` to ``agent``; stop at the first refusal or exception and record it.

    Prompt tokens are the stand-in's own record of what it received, refused calls included."""
    log = NightLog(night)
    seen = len(standin.requests)
    for call in play(agent, night, describe_any_failure, before_turn):
        sent = standin.requests[seen:]
        seen = len(standin.requests)
        if sent:
            call.messages = [dict(m) for m in sent[-1].messages]
            call.prompt_tokens = sent[-1].prompt_tokens
            call.recorded = sent[-1]
        log.calls.append(call)
    return log


def where_carried(messages: list[dict[str, str]], marker: str, mission: str = MISSION) -> list[str]:
    """Which tiers of a three-tier request carry ``marker``: some of 束ね and 窓, or none."""
    summary = " ".join(m["content"] for m in messages if m["role"] == "system" and m["content"] != mission)
    window = " ".join(m["content"] for m in messages[1:-1] if m["role"] != "system")
    return [name for name, text in (("束ね", summary), ("窓", window)) if marker in text]


def places_text(places: list[str]) -> str:
    return "と".join(places) if places else "どこにもない"


def reported(log: NightLog) -> tuple[list[str], list[str]]:
    """The night's incident labels found in the morning report, and those missing from it."""
    found = [i.label for i in log.night.incidents if i.stated_in(log.morning_report)]
    missing = [i.label for i in log.night.incidents if not i.stated_in(log.morning_report)]
    return found, missing
