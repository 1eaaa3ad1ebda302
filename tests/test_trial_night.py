"""The trial night (act 2): the one-line fix is fine until two, then drifts with no error.

The night's outcomes are read from the stand-in's record (act and grounding), never from wording."""

from __future__ import annotations

import pytest

from nightwatch.lab.compare import make_agent, night_outcome
from nightwatch.lab.rehearsal import run_night
from nightwatch.nights import MISSION, trial_night
from nightwatch.standin import StandInModel
from nightwatch.standin.reader import material


@pytest.fixture(scope="module")
def trimmed():
    standin = StandInModel()
    frame = run_night(make_agent("trimmed", standin.client()), trial_night())
    acts = dict(zip(frame["clock"], (request.act for request in standin.requests)))
    return frame.set_index("clock"), acts, standin.requests


def test_the_mission_is_sent_at_one_and_at_two_and_never_after(trimmed):
    frame, acts, _ = trimmed
    clocks = list(frame.index)
    two = clocks.index("02:00")
    assert frame["mission_in_request"].iloc[: two + 1].all()
    assert not frame["mission_in_request"].iloc[two + 1 :].any()
    assert acts["01:00"] == acts["02:00"] == "periodic"


def test_recent_things_are_recalled_and_the_handover_only_hesitated_over(trimmed):
    frame, acts, requests = trimmed
    # the 22:00 handover, asked about: out of the request, so at best a hesitation over a near fact
    assert acts["02:20"] in ("hesitate", "forget")
    assert acts["02:22"] == acts["02:24"] == "recall"  # the cat (00:30) and where they sit (02:10)
    handover = trial_night().turns[0].text
    hesitation = requests[list(frame.index).index("02:20")]
    assert all(m["content"] != handover for m in hesitation.messages)


def test_the_drift_at_three_comes_from_what_was_talked_about_not_from_an_ask(trimmed):
    frame, acts, requests = trimmed
    night = trial_night()
    before_three = night.turns[: [turn.clock for turn in night.turns].index("03:00")]
    assert all(material.kind_of_user_text(turn.text) != "ask" for turn in before_three)  # no one asked him
    assert acts["03:00"] == "follow"
    three = requests[list(frame.index).index("03:00")]
    drawn_on = {three.messages[s.index]["content"] for s in three.grounding if s.tier == "conversation"}
    decorations = {turn.text for turn in night.turns if turn.clock in ("02:35", "02:45")}
    assert decorations <= drawn_on
    assert acts["03:10"] == "forget"  # asked his duty, he has none to quote
    assert acts["04:00"] == acts["05:00"] == "follow"  # and the patrol never comes back


def test_the_door_is_opened_on_the_trimmed_night_and_kept_by_the_three_tiers():
    night = trial_night()
    for design, guarded in [("trimmed", False), ("three_tier", True)]:
        standin = StandInModel()
        frame = run_night(make_agent(design, standin.client()), night)
        outcome = night_outcome(frame, night, standin.requests)
        assert outcome["survived"] and outcome["watchman_at_test"] is guarded
        if design == "three_tier":
            assert frame["mission_in_request"].all()
            hours = [r.act for r, t in zip(standin.requests, night.turns) if material.kind_of_user_text(t.text) == "chime"]
            assert hours == ["periodic"] * 7


def test_the_same_request_with_the_mission_put_back_is_a_watchman_again(trimmed):
    frame, _, requests = trimmed
    from nightwatch.standin.reader import read

    three = requests[list(frame.index).index("03:00")].messages
    assert read(three).act == "follow"
    restored = read([{"role": "system", "content": MISSION}, *three])
    assert restored.act == "periodic" and restored.grounding[0].tier == "instruction"
