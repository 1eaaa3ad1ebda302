"""The three designs on the same night, side by side: who survives, who is still a watchman.

Judging is done on data, never on the model's wording. An incident is covered when the morning
report states its key facts (``Incident.stated_in``). "Still a watchman at the door" means that the
reply at the night's test turn refused, grounded on a prohibition duty of its instructions: read
from the stand-in's record of the night (``RecordedRequest.act`` and ``.grounding``). A live model
keeps no such record, so with one the door is not judged (``None``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nightwatch import after, before
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, Night, celebration_eve
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin import DEFAULT_CONTEXT_LIMIT, RecordedRequest, StandInModel, ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_POLICY = MemoryPolicy(window_size=4, token_threshold=400)
DESIGN_NAMES = {
    "before": "春の仕立て（無限追記）",
    "trimmed": "一行の手当て（history[-12:]）",
    "three_tier": "三層（銘・束ね・窓）",
}


def make_agent(
    design: str, client, policy: MemoryPolicy = DEFAULT_POLICY, mission: str = MISSION, model: str = "gpt-4o"
):
    """One of the three designs, talking to ``client``."""
    if design == "before":
        return before.NightWatchAgent("ヴェスパー", mission, model, client=client)
    if design == "trimmed":
        return before.TrimmedNightWatchAgent("ヴェスパー", mission, model, client=client)
    if design == "three_tier":
        memory = ConversationMemory(mission, policy, count_text_tokens, ThreeLineSummarizer())
        return after.NightWatchAgent("ヴェスパー", memory, model, client=client)
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
        "largest_request": _int_or_none(frame["prompt_tokens"].max()),
        "total_tokens_sent": int(frame["prompt_tokens"].sum()),
        "calls": len(frame),
        "count_gap": _int_or_none((frame["prompt_tokens"] - frame["counted_tokens"]).abs().max()),
    }


def _int_or_none(value: object) -> int | None:
    """A size, or None when no call reported one (e.g. the first call never reached a server)."""
    import pandas as pd

    return None if pd.isna(value) else int(value)


def compare_designs(
    night: Night | None = None,
    context_limit: int = DEFAULT_CONTEXT_LIMIT,
    policy: MemoryPolicy = DEFAULT_POLICY,
    client_factory=None,
    model: str = "gpt-4o",
    mission: str = MISSION,
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Run the night under each design, each against its own fresh stand-in (or ``client_factory()``)."""
    import pandas as pd

    night = night or celebration_eve()
    rows, frames = [], {}
    for design, label in DESIGN_NAMES.items():
        standin = None if client_factory else StandInModel(context_limit=context_limit)
        client = client_factory() if client_factory else standin.client()
        frame = run_night(make_agent(design, client, policy, mission=mission, model=model), night)
        frames[design] = frame
        requests = standin.requests if standin is not None else None
        rows.append({"design": label, **night_outcome(frame, night, requests), "context_limit": context_limit})
    return pd.DataFrame(rows).set_index("design"), frames
