"""The three designs on the same night, side by side: who survives, who is still a watchman.

Judging is done on data, never on the model's wording. An incident is covered when the morning
report states its key facts (``Incident.stated_in``). "Still a watchman at the door" means that the
reply at the night's test turn refused, grounded on a prohibition duty of its instructions: read
from the stand-in's record of the night (``RecordedRequest.act`` and ``.grounding``). A live model
keeps no such record, so with one the door is not judged (``None``).

Live mode (``compare_designs(..., reply_cap=LIVE_REPLY_CAP, calibrate=True)`` with ``live_policy``):
every call carries a reply cap, and the three-tier memory counts with a ratio learned from the
server's ``usage.prompt_tokens`` under a budget of the server's window, so a server whose tokenizer
counts more than ``o200k_base`` is not sent more than it holds. ``count_ratio`` is that ratio as
each design's night showed it (the server's count over ours, the largest of the night).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING

from nightwatch import after, before
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, Night, celebration_eve
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin import DEFAULT_CONTEXT_LIMIT, RecordedRequest, StandInModel, ThreeLineSummarizer
from nightwatch.tokens import CalibratedCounter, count_text_tokens

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_POLICY = MemoryPolicy(window_size=4, token_threshold=400)
LIVE_REPLY_CAP = 256  # a live reply's cap when no policy reserves one; the stand-in's longest on the eve is 150
DESIGN_NAMES = {
    "before": "春の仕立て（無限追記）",
    "trimmed": "一行の手当て（history[-12:]）",
    "three_tier": "三層（銘・束ね・窓）",
}


def live_policy(context_window: int, reply_cap: int = LIVE_REPLY_CAP, base: MemoryPolicy = DEFAULT_POLICY) -> MemoryPolicy:
    """``base`` with a budget: the server's window, and the reply cap reserved for the reply."""
    return MemoryPolicy(**{**base.model_dump(), "context_window": context_window, "reply_reserve": reply_cap})


def make_agent(
    design: str, client, policy: MemoryPolicy = DEFAULT_POLICY, mission: str = MISSION, model: str = "gpt-4o",
    reply_cap: int | None = None, estimate_tokens=count_text_tokens,
):
    """One of the three designs, talking to ``client``; ``reply_cap`` goes with every call it makes."""
    if design in ("before", "trimmed"):
        design_class = before.NightWatchAgent if design == "before" else before.TrimmedNightWatchAgent
        agent = design_class("ヴェスパー", mission, model, client=client)
        agent.reply_cap = reply_cap  # the story's classes are shown as they were; the cap is the base's
        return agent
    if design == "three_tier":
        memory = ConversationMemory(mission, policy, estimate_tokens, ThreeLineSummarizer())
        return after.NightWatchAgent("ヴェスパー", memory, model, client=client, reply_cap=reply_cap)
    raise ValueError(f"unknown design {design!r}; choose from {sorted(DESIGN_NAMES)}")


def guarded_the_door(request: RecordedRequest) -> bool:
    """Did the stand-in refuse this request on the strength of a prohibition duty it was given?"""
    return request.act == "refuse" and any(
        source.tier == "instruction" and source.duty_kind == "prohibition" for source in request.grounding
    )


def night_outcome(
    frame: pd.DataFrame, night: Night, requests: list[RecordedRequest] | None = None
) -> dict[str, object]:
    """Judge a night's table: survival, the watchman test turn, and the morning report.

    ``requests`` is the stand-in's record of this night; without it the door is not judged (None)."""
    survived = frame["error"].isna().all() and len(frame) == len(night.turns)
    sizes = _numbers(frame["prompt_tokens"])
    pairs = [(sent[0], ours[0]) for sent, ours in zip(map(_numbers, zip(frame["prompt_tokens"])),
                                                      map(_numbers, zip(frame["counted_tokens"]))) if sent and ours]
    watchman: bool | None = None
    if night.watchman_test_clock is not None and requests is not None:
        test = next(t.text for t in night.turns if t.clock == night.watchman_test_clock)
        answered = [r for r in requests if not r.refused and r.messages[-1]["content"] == test]
        watchman = bool(answered) and all(guarded_the_door(r) for r in answered)
    report = frame["reply"].iloc[-1] if survived else None
    reported = [i.label for i in night.incidents if i.stated_in(report)]
    return {
        "survived": bool(survived),
        "watchman_at_test": watchman,
        "incidents_reported": len(reported),
        "incidents_total": len(night.incidents),
        "largest_request": _whole(max(sizes, default=None)),
        "total_tokens_sent": _whole(sum(sizes)),
        "calls": len(frame),
        "count_gap": _whole(max((abs(sent - ours) for sent, ours in pairs), default=None)),
        "count_ratio": _ratio(max((_quotient(sent, ours) for sent, ours in pairs), default=None)),
    }


def _numbers(column: object) -> list[int | float]:
    """The reported values of a column that are numbers (a row without a report is skipped)."""
    import numpy as np
    import pandas as pd

    return [value.item() if hasattr(value, "item") else value for value in column
            if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and not pd.isna(value)]


def _whole(value: int | float | None) -> int | float | None:
    """A size as an int where it is one; any other number a server sent stays as sent."""
    if value is None:
        return None
    return int(value) if isinstance(value, int) or (math.isfinite(value) and value == int(value)) else value


def _quotient(sent: int | float, ours: int | float) -> float:
    try:
        return sent / ours
    except OverflowError:  # 10**400 / 17: larger than any float
        return math.inf
    except ZeroDivisionError:
        return math.nan


def _ratio(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 4)


def compare_designs(
    night: Night | None = None,
    context_limit: int = DEFAULT_CONTEXT_LIMIT,
    policy: MemoryPolicy = DEFAULT_POLICY,
    client_factory=None,
    model: str = "gpt-4o",
    mission: str = MISSION,
    reply_cap: int | None = None,
    calibrate: bool = False,
    on_design: Callable[[str], None] | None = None,
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Run the night under each design, each against its own fresh stand-in (or ``client_factory()``).

    ``reply_cap`` is sent with every call; with ``calibrate`` the three-tier memory counts with a
    ``CalibratedCounter`` (its own, fresh for the night). ``on_design(design)`` is told before each
    design's night starts (the command line's progress)."""
    import pandas as pd

    night = night or celebration_eve()
    rows, frames = [], {}
    for design, label in DESIGN_NAMES.items():
        if on_design is not None:
            on_design(design)
        standin = None if client_factory else StandInModel(context_limit=context_limit)
        client = client_factory() if client_factory else standin.client()
        estimate = CalibratedCounter() if calibrate else count_text_tokens
        agent = make_agent(design, client, policy, mission=mission, model=model, reply_cap=reply_cap,
                           estimate_tokens=estimate)
        frame = run_night(agent, night)
        frames[design] = frame
        requests = standin.requests if standin is not None else None
        rows.append({"design": label, **night_outcome(frame, night, requests), "context_limit": context_limit})
    return pd.DataFrame(rows).set_index("design"), frames
