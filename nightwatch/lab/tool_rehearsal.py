"""Playing a night to an agent with tools: one row per request, not per turn.

A turn with tools is several calls (the call that asks for tools, then the one that answers), so
``play_tool_night`` records every request of every turn: its size as the server reported it and as
the library counts it, how many tool calls its answer made, whether it was refused and why, and
what share of it repeats the previous request's beginning word for word (the part a provider's
prompt cache can reuse: a prefix only counts up to the first message that differs).
``tool_night_outcome`` sums a night up in the numbers chapter 9 compares designs by.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import openai

from nightwatch.agent import BaseAgent
from nightwatch.memory import ContextBudgetExceeded
from nightwatch.nights import Night
from nightwatch.tokens import count_message_tokens, message_tokens, count_text_tokens

if TYPE_CHECKING:
    import pandas as pd

Message = Mapping[str, Any]


def shared_prefix_tokens(previous: Sequence[Message], current: Sequence[Message]) -> int:
    """Tokens of the leading messages ``current`` repeats exactly from ``previous``."""
    shared = 0
    for before, now in zip(previous, current):
        if dict(before) != dict(now):
            break
        shared += message_tokens(now, count_text_tokens)
    return shared


def refusal_code(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return str(getattr(exc, "code", None) or exc.status_code)
    if isinstance(exc, ContextBudgetExceeded):
        return "budget"
    raise exc


def play_tool_night(agent: BaseAgent, night: Night, set_clock: Callable[[str], None]) -> pd.DataFrame:
    """Every request of ``night`` as ``agent`` plays it; stops after the first refused turn."""
    import pandas as pd

    tools = agent.tool_definitions()
    rows: list[dict[str, Any]] = []
    previous: Sequence[Message] = []
    memory = getattr(agent, "memory", None)
    for number, turn in enumerate(night.turns, start=1):
        set_clock(turn.clock)
        compactions = len(memory.compactions) if memory is not None else 0
        error, reply = None, None
        try:
            reply = agent.run(turn.text)
        except Exception as exc:  # only a refusal is expected: anything else propagates
            error = refusal_code(exc)
        requests, reported = agent.turn_requests, agent.turn_prompt_tokens
        for round_number, (request, tokens) in enumerate(zip(requests, reported)):
            last = round_number == len(requests) - 1
            counted = count_message_tokens(request, tools=tools)
            following = requests[round_number + 1] if not last else None
            calls = (len(following[len(request)]["tool_calls"]) if following is not None
                     and len(following) > len(request) and following[len(request)].get("tool_calls") else 0)
            rows.append({
                "turn": number, "clock": turn.clock, "round": round_number + 1, "prompt_tokens": tokens,
                "counted_tokens": counted, "tool_calls": calls,
                "tool_results": sum(1 for m in request if m.get("role") == "tool"),
                "prefix_tokens": shared_prefix_tokens(previous, request) if previous else 0,
                "error": error if last else None, "reply": reply if last else None,
                "compacted": last and memory is not None and len(memory.compactions) > compactions,
                "mission_in_request": any(m.get("role") == "system" and m.get("content") == agent.mission
                                          for m in request),
            })
            previous = request
        if error is not None:
            break
    frame = pd.DataFrame(rows)
    frame["prompt_tokens"] = frame["prompt_tokens"].astype("Int64")
    return frame


def tool_night_outcome(frame: pd.DataFrame, night: Night, memory: Any = None) -> dict[str, Any]:
    """A night's numbers: how far it got, refusals, tokens, clearing and compaction, the report."""
    answered = frame[frame["error"].isna()]
    report = frame["reply"].dropna().iloc[-1] if frame["error"].isna().all() else None
    survived = report is not None and frame["turn"].max() == len(night.turns)
    sent = frame["counted_tokens"]
    return {
        "turns_played": int(frame["turn"].max()),
        "survived": bool(survived),
        "refusal": next(iter(frame["error"].dropna()), None),
        "requests": len(frame),
        "tool_calls": int(frame["tool_calls"].sum()),
        "tokens_sent": int(sent.sum()),
        "largest_request": int(sent.max()),
        "prefix_share": round(float(frame["prefix_tokens"].sum() / sent.sum()), 3),
        "compactions": len(memory.compactions) if memory is not None else 0,
        "clearings": len(memory.clearings) if memory is not None else 0,
        "incidents_reported": sum(incident.stated_in(report) for incident in night.incidents) if survived else 0,
        "usage_matches_count": bool((answered["prompt_tokens"].astype("float") == answered["counted_tokens"]).all()),
    }
