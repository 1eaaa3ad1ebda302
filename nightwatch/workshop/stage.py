"""Playing a night for a check: every call recorded, every failure caught, nothing raised.

``rehearsal.run_night`` is the notebooks' table of a night; a check needs something sturdier. The
participant's code runs inside the agent (a trim function, a summarizer, a shrink function), so any
exception may come out of ``agent.run``. Here it ends the night like a refusal does, and is kept as
evidence. Prompt tokens are read from the stand-in's own record of what it received.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import openai

from nightwatch.nights import MISSION, Night
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop.harness import ParticipantError
from nightwatch.workshop.report import describe_error


@dataclass
class Call:
    """One turn of the night: what was sent, how big it was, and how it ended."""

    turn: int
    clock: str
    user_text: str
    messages: list[dict[str, str]]
    prompt_tokens: int | None
    reply: str | None
    error: str | None = None
    compacted: bool = False
    window_tokens: int | None = None


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


def play_night(
    agent, night: Night, standin: StandInModel, before_turn: Callable[[int], None] | None = None
) -> NightLog:
    """Play ``night`` to ``agent``; stop at the first refusal or exception and record it."""
    log = NightLog(night)
    memory = getattr(agent, "memory", None)
    for number, turn in enumerate(night.turns, start=1):
        if before_turn is not None:
            before_turn(number)
        requests_before = len(standin.requests)
        compactions_before = len(memory.compactions) if memory is not None else 0
        agent.last_messages = []
        reply, error = None, None
        try:
            reply = agent.run(turn.text)
        except openai.APIStatusError as exc:
            error = f"代役に拒まれました（{exc.status_code} {exc.code}）"
        except ParticipantError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - the participant's code may raise anything
            error = f"例外で止まりました: {describe_error(exc)}"
        sent = standin.requests[requests_before:]
        log.calls.append(
            Call(
                turn=number,
                clock=turn.clock,
                user_text=turn.text,
                messages=[dict(m) for m in (sent[-1].messages if sent else agent.last_messages)],
                prompt_tokens=sent[-1].prompt_tokens if sent else None,
                reply=reply,
                error=error,
                compacted=memory is not None and len(memory.compactions) > compactions_before,
                window_tokens=window_tokens(memory) if memory is not None else None,
            )
        )
        if error is not None:
            break
    return log


def window_tokens(memory) -> int:
    """The verbatim window's tokens, counted the way ``make_agent``'s memory counts them."""
    return sum(count_text_tokens(e.user_text) + count_text_tokens(e.watchman_reply) for e in memory.window)


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
