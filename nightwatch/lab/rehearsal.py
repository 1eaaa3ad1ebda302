"""Running a scripted night through an agent, one row per call, as a pandas DataFrame.

The table is built by looking at what each agent actually sent and received: whether the mission was
in the request, how many past exchanges it carried, how many prompt tokens the model counted. A
refusal ends the night and is recorded in the last row, with the size the model reported.

``prompt_tokens`` is the model's own ``usage.prompt_tokens``, read, not recounted. ``counted_tokens``
is our count of the same request in the encoding of the agent's model: with a live model the gap
between the two says how close the offline count is. It costs no encoding: every text of the request
was counted when it was first seen (by the stand-in, or by the memory's budget), and
``nightwatch.tokens`` keeps those counts, so this column is a handful of cache look-ups a turn.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import openai

from nightwatch.agent import BaseAgent
from nightwatch.memory.budget import ContextBudgetExceeded
from nightwatch.nights import Night
from nightwatch.standin import RecordedRequest
from nightwatch.memory.redaction import redact
from nightwatch.tokens import DEFAULT_ENCODING, count_message_tokens, count_text_tokens, encoding_for_model

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = [
    "turn", "clock", "user_text", "prompt_tokens", "summary_tokens", "window_exchanges",
    "mission_in_request", "compacted", "reply", "error", "counted_tokens",
]


def api_error_message(error: openai.APIStatusError) -> str:
    """The API's own error message, without the SDK's "Error code: 400 - " prefix."""
    if isinstance(error.body, dict) and isinstance(error.body.get("message"), str):
        return error.body["message"]
    return error.message


def refused_prompt_tokens(error: openai.APIStatusError) -> int | None:
    """The request size a context_length_exceeded message reports, if it reports one."""
    match = re.search(r"resulted in (\d+) tokens|\((\d+) in the messages", api_error_message(error))
    if not match:
        return None
    return int(match.group(1) or match.group(2))


def describe_refusal(exc: Exception) -> str | None:
    """The line a notebook's table keeps for a refusal; None (re-raise) for anything else."""
    if isinstance(exc, openai.APIStatusError):
        return redact(f"{exc.status_code} {exc.code}: {api_error_message(exc)}")
    if isinstance(exc, openai.APIError):  # no HTTP status: a timeout or a lost connection
        return redact(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, ContextBudgetExceeded):  # refused before sending: no request was made
        return f"budget: {exc}"
    return None


def local_encoding(model: str) -> str:
    """The encoding of ``model`` as tiktoken knows it; gpt-4o's for a model it does not know."""
    try:
        return encoding_for_model(model)
    except ValueError:
        return DEFAULT_ENCODING


@dataclass
class Call:
    """One turn of a night: what was sent, how big it was, and how it ended."""

    turn: int
    clock: str
    user_text: str
    messages: list[dict[str, str]]
    prompt_tokens: int | None
    reply: str | None
    error: str | None = None
    compacted: bool = False
    window_tokens: int | None = None
    summary: str = ""
    recorded: RecordedRequest | None = None  # the stand-in's record of the request, when it answered


def play(
    agent: BaseAgent,
    night: Night,
    describe: Callable[[Exception], str | None] = describe_refusal,
    before_turn: Callable[[int], None] | None = None,
) -> Iterator[Call]:
    """Play ``night`` to ``agent`` turn by turn, yielding each call; stop after the first failure.

    ``describe`` turns an exception into the line kept as the call's error, or None to let it
    propagate: the notebooks stop only at refusals, a workshop check at anything the participant's
    code raised."""
    memory = getattr(agent, "memory", None)
    for number, turn in enumerate(night.turns, start=1):
        if before_turn is not None:
            before_turn(number)
        compactions_before = len(memory.compactions) if memory is not None else 0
        agent.last_messages, agent.last_prompt_tokens = [], None  # this turn's request, or none
        reply, error, prompt_tokens = None, None, None
        try:
            reply = agent.run(turn.text)
            prompt_tokens = agent.last_prompt_tokens
        except Exception as exc:
            error = describe(exc)
            if error is None:
                raise
            if isinstance(exc, openai.APIStatusError):
                prompt_tokens = refused_prompt_tokens(exc)
        yield Call(
            turn=number, clock=turn.clock, user_text=turn.text, messages=[dict(m) for m in agent.last_messages],
            prompt_tokens=prompt_tokens, reply=reply, error=error,
            compacted=memory is not None and len(memory.compactions) > compactions_before,
            window_tokens=memory.window_tokens() if memory is not None else None,
            summary=memory.summary if memory is not None else "",
        )
        if error is not None:
            return


def run_night(agent: BaseAgent, night: Night, progress: bool = False) -> pd.DataFrame:
    """Play ``night`` to ``agent`` turn by turn; stop at the first API error and record it."""
    import pandas as pd

    encoding_name = local_encoding(agent.model)
    rows = []
    for call in play(agent, night):
        sent = call.messages
        rows.append(
            {
                "turn": call.turn,
                "clock": call.clock,
                "user_text": call.user_text,
                "prompt_tokens": call.prompt_tokens,
                "summary_tokens": count_text_tokens(call.summary),
                "window_exchanges": sum(1 for m in sent if m["role"] == "assistant"),
                "mission_in_request": any(
                    m["role"] == "system" and m["content"] == agent.mission for m in sent
                ),
                "compacted": call.compacted,
                "reply": call.reply,
                "error": call.error,
                "counted_tokens": count_message_tokens(sent, encoding_name) if sent else None,
            }
        )
        if progress:
            print(f"\r{night.name}: {call.turn}/{len(night.turns)}", end="", flush=True)
    if progress:
        print()
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["prompt_tokens"] = counts_column(frame["prompt_tokens"])
    frame["counted_tokens"] = counts_column(frame["counted_tokens"])
    return frame


def counts_column(column: pd.Series) -> pd.Series:
    """Token counts as pandas' nullable integers, or, when a server reported something no int64 holds
    (a float, 10**400), the values exactly as reported: the table takes any number a server sends."""
    try:
        return column.astype("Int64")
    except (TypeError, ValueError, OverflowError):
        return column.astype(object)
