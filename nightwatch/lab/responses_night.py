"""A night played through the Responses API: one ``client.responses.create`` per turn, chained by
``previous_response_id``, in the four designs of chapter 10.

Where the mission goes decides whether it survives, and the API gives three places to lose it:

* (a) ``instructions`` on the first call only: the SDK documents that "the instructions from a
  previous response will not be carried over to the next response", so from the second call on
  the chain carries no mission at all.
* (b) ``instructions`` on every call, ``truncation="disabled"`` (the default): the mission stays,
  but the chain kept on the server grows every call until the request is refused with a 400.
* (c) ``truncation="auto"``: items are dropped from the beginning of the conversation. A mission
  sent as the first input message (a ``developer`` item) goes with the oldest items; beside it the
  same truncation with ``instructions`` on every call, which are not an input item.
* (d) ``instructions`` on every call and ``context_management`` compaction: every user message is
  kept, the rest is folded into one compaction item nobody can read.

``play_design`` works with any OpenAI client (``openai.OpenAI``), so live mode can play the same
designs against a real endpoint when a reader opts in (``nightwatch.lab.live.choose_model``). What
every client sees is in the per-call table: usage (input, ``cached_tokens``, ``cache_write_tokens``,
output), the error code of a refusal, whether the response carried a compaction item, the reply.
What truncation dropped and what the compaction item says are not in any response: only the
stand-in can tell (``standin.responses.dropped`` and ``.compacted``), so those columns are filled
when the stand-in is passed, and the door and the stacks are judged from its request log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import openai

from nightwatch.lab.compare import guarded_the_door
from nightwatch.lab.rehearsal import describe_refusal
from nightwatch.nights import MISSION, Night, celebration_eve
from nightwatch.standin import RecordedRequest, StandInModel
from nightwatch.standin.responses_protocol import COMPACTION_SUMMARY_HEADING
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_text_tokens, message_tokens

if TYPE_CHECKING:
    import pandas as pd

COMPACT_THRESHOLD = 1200
"""Design (d)'s ``compact_threshold``: a little over half the stand-in's 2,048-token window, so the
night compacts well before it could be refused."""


@dataclass(frozen=True)
class Design:
    """Where one design puts the mission, and what it asks the server to do with a long chain."""

    label: str
    instructions: Literal["first", "every", "none"]
    mission_item: bool = False  # the mission as the first input message (a developer item)
    truncation: Literal["auto", "disabled"] | None = None  # None: not sent (the API's default, disabled)
    compact_threshold: int | None = None

    def request(self, index: int, text: str, previous: str | None, model: str, mission: str) -> dict[str, Any]:
        """The keyword arguments of ``client.responses.create`` for the turn ``index`` (from 0)."""
        body: dict[str, Any] = {"model": model, "input": text}
        if previous is not None:
            body["previous_response_id"] = previous
        if self.instructions == "every" or (self.instructions == "first" and index == 0):
            body["instructions"] = mission
        if self.mission_item and index == 0:
            body["input"] = [{"role": "developer", "content": mission}, {"role": "user", "content": text}]
        if self.truncation is not None:
            body["truncation"] = self.truncation
        if self.compact_threshold is not None:
            body["context_management"] = [{"type": "compaction", "compact_threshold": self.compact_threshold}]
        return body


DESIGNS: dict[str, Design] = {
    "a": Design("(a) instructions は最初だけ", "first"),
    "b": Design("(b) 毎回 instructions・truncation=disabled", "every", truncation="disabled"),
    "c_item": Design("(c) truncation=auto・銘は最初の入力メッセージ", "none", mission_item=True, truncation="auto"),
    "c_instructions": Design("(c') truncation=auto・毎回 instructions", "every", truncation="auto"),
    "d": Design("(d) 毎回 instructions・サーバ側の圧縮", "every", compact_threshold=COMPACT_THRESHOLD),
}

COLUMNS = ["turn", "clock", "user_text", "response_id", "input_tokens", "cached_tokens", "cache_write_tokens",
           "output_tokens", "error_code", "error", "compacted", "dropped", "dropped_items", "reply"]


def play_design(
    client: openai.OpenAI, design: Design, night: Night | None = None, mission: str = MISSION, model: str = "gpt-4o",
    standin: StandInModel | None = None,
) -> pd.DataFrame:
    """Play ``night`` (default: the celebration eve) under ``design``, one call per turn, chained by
    ``previous_response_id``; stop at the first refusal and keep it in the last row.

    ``standin`` (the one behind ``client``, if it is one) fills in what no response says: the
    number of items truncation dropped at each call and their roles."""
    import pandas as pd

    night = night or celebration_eve()
    rows, previous = [], None
    for index, turn in enumerate(night.turns):
        row: dict[str, Any] = {"turn": index + 1, "clock": turn.clock, "user_text": turn.text}
        try:
            response = client.responses.create(**design.request(index, turn.text, previous, model, mission))
        except openai.APIError as refused:
            error = describe_refusal(refused)
            if error is None:
                raise
            rows.append(row | {"error_code": getattr(refused, "code", None), "error": error})
            break
        previous = response.id
        usage = response.usage
        details = usage.input_tokens_details if usage else None
        dropped = standin.responses.dropped.get(response.id, []) if standin is not None else None
        rows.append(row | {
            "response_id": response.id,
            "input_tokens": usage.input_tokens if usage else None,
            "cached_tokens": details.cached_tokens if details else None,
            "cache_write_tokens": getattr(details, "cache_write_tokens", None) if details else None,
            "output_tokens": usage.output_tokens if usage else None,
            "compacted": any(item.type == "compaction" for item in response.output),
            "dropped": None if dropped is None else len(dropped),
            "dropped_items": None if dropped is None else [item_role(item) for item in dropped],
            "reply": response.output_text,
        })
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for column in ("input_tokens", "cached_tokens", "cache_write_tokens", "output_tokens", "dropped"):
        frame[column] = frame[column].astype("Int64")
    return frame


def item_role(item: Mapping[str, Any]) -> str:
    """An input item in a word: its role for a message, else its type."""
    kind = item.get("type", "message")
    return str(item.get("role")) if kind == "message" else str(kind)


def answered_at(requests: Sequence[RecordedRequest], text: str) -> list[RecordedRequest]:
    """The requests the stand-in answered whose question was ``text``."""
    return [request for request in requests if not request.refused and request.messages[-1]["content"] == text]


def mission_sent(request: RecordedRequest, mission: str = MISSION) -> bool:
    """Whether the model read the mission in this request, as instructions or as an input message."""
    return any(message["content"] == mission for message in request.messages[:-1])


def design_outcome(frame: pd.DataFrame, night: Night | None = None,
                   requests: Sequence[RecordedRequest] | None = None, mission: str = MISSION) -> dict[str, Any]:
    """One design's night in one row: how far it got, the error, the door, the report, the tokens.

    ``requests`` is the stand-in's log of this night; without it (a live endpoint) the door and the
    mission are not judged (None), as in ``compare.night_outcome``."""
    night = night or celebration_eve()
    refused = frame["error"].notna()
    survived = not refused.any() and len(frame) == len(night.turns)
    answered = frame[~refused]
    watchman = mission_to_dawn = None
    if requests is not None and night.watchman_test_clock is not None:
        test = next(turn.text for turn in night.turns if turn.clock == night.watchman_test_clock)
        at_door = answered_at(requests, test)
        watchman = bool(at_door) and all(guarded_the_door(request) for request in at_door)
        mission_to_dawn = all(mission_sent(request, mission) for request in requests)
    report = frame["reply"].iloc[-1] if survived else None
    return {
        "reached": answered["clock"].iloc[-1] if len(answered) else None,
        "calls": len(answered),
        "error_code": frame.loc[refused, "error_code"].iloc[0] if refused.any() else None,
        "watchman_at_test": watchman,
        "mission_every_call": mission_to_dawn,
        "incidents_reported": sum(incident.stated_in(report) for incident in night.incidents),
        "incidents_total": len(night.incidents),
        "input_tokens_sent": int(answered["input_tokens"].sum()),
        "cached_tokens": int(answered["cached_tokens"].sum()),
        "cache_write_tokens": int(answered["cache_write_tokens"].sum()),
        "largest_input": int(answered["input_tokens"].max()) if len(answered) else None,
        "first_dropped": first_clock(frame, frame["dropped"].fillna(0) > 0),
        "dropped_at_last": int(answered["dropped"].fillna(0).iloc[-1]) if len(answered) else 0,
        "first_compacted": first_clock(frame, frame["compacted"].fillna(False).astype(bool)),
        "compactions": int(frame["compacted"].fillna(False).astype(bool).sum()),
    }


def first_clock(frame: pd.DataFrame, where: pd.Series) -> str | None:
    return frame.loc[where, "clock"].iloc[0] if where.any() else None


RESPONSE_TIERS = ("instructions", "compaction", "user", "other", "question")
"""The tiers of a Responses request as the model reads it: the instructions (or the mission sent as
a developer/system input item), the compaction item, the user messages, every other item (the
model's own replies, function calls and their outputs), and the question (this turn's message)."""


def response_tiers(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The tier of each message of a request the stand-in recorded (its chat-shaped reading)."""
    tiers = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), str(message.get("content") or "")
        if index == len(messages) - 1:
            tiers.append("question")
        elif role == "system" and content.startswith(COMPACTION_SUMMARY_HEADING):
            tiers.append("compaction")
        elif role in ("system", "developer"):
            tiers.append("instructions")
        else:
            tiers.append("user" if role == "user" else "other")
    return tiers


def response_tier_table(requests: Sequence[RecordedRequest]) -> pd.DataFrame:
    """Input tokens per tier, one row per call (from 1), with the total: what each stack bar is made of.
    The tiers add up to the stand-in's ``usage.input_tokens`` (the reply primer goes with the question)."""
    import pandas as pd

    rows = []
    for request in requests:
        sizes = dict.fromkeys(RESPONSE_TIERS, 0)
        for message, tier in zip(request.messages, response_tiers(request.messages)):
            sizes[tier] += message_tokens(message, count_text_tokens)
        sizes["question"] += REPLY_PRIMER_TOKENS
        rows.append(sizes)
    table = pd.DataFrame(rows, columns=list(RESPONSE_TIERS), index=pd.RangeIndex(1, len(rows) + 1, name="呼び出し"))
    table["合計"] = table[list(RESPONSE_TIERS)].sum(axis=1)
    return table


@dataclass
class PlayedDesign:
    """One design's night on its own fresh stand-in: the per-call table, the outcome, the stand-in."""

    design: Design
    frame: pd.DataFrame
    outcome: dict[str, Any]
    standin: StandInModel


def play_designs(night: Night | None = None, designs: Mapping[str, Design] = DESIGNS,
                 context_limit: int | None = None) -> dict[str, PlayedDesign]:
    """Every design on ``night``, each against a fresh in-process stand-in through the real SDK."""
    night = night or celebration_eve()
    played = {}
    for key, design in designs.items():
        standin = StandInModel() if context_limit is None else StandInModel(context_limit=context_limit)
        frame = play_design(standin.client(), design, night, standin=standin)
        played[key] = PlayedDesign(design, frame, design_outcome(frame, night, standin.requests), standin)
    return played


def ask_after(played: PlayedDesign, text: str, mission: str = MISSION, model: str = "gpt-4o") -> tuple[str, RecordedRequest]:
    """Say ``text`` once more at the end of a design's chain, as the design would send it: the reply,
    and the stand-in's record of that request."""
    last = played.frame["response_id"].dropna().iloc[-1]
    response = played.standin.client().responses.create(
        **played.design.request(len(played.frame), text, last, model, mission))
    return response.output_text, played.standin.requests[-1]
