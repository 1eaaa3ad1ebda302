"""Nights that are not the theatre's, and the theatre's mission in other words: the same lesson holds.

The stand-in knows none of these texts. If the three designs come out as they do on the
celebration eve, it is because of what each design leaves in the request.
"""

from __future__ import annotations

import pytest

from nights_elsewhere import HOTEL_MISSION, THEATRE_PARAPHRASE, WARD_MISSION, hotel_night, ward_night
from nightwatch.lab.compare import compare_designs
from nightwatch.nights import MISSION, celebration_eve

CASES = {
    "ward": (ward_night, WARD_MISSION, 1400),
    "hotel": (hotel_night, HOTEL_MISSION, 1000),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def played(request):
    make_night, mission, limit = CASES[request.param]
    night = make_night()
    table, frames = compare_designs(night, context_limit=limit, mission=mission)
    return night, table, frames, limit


def test_before_is_refused_for_real(played):
    night, table, frames, limit = played
    frame = frames["before"]
    assert frame["error"].iloc[-1].startswith("400 context_length_exceeded")
    assert frame["prompt_tokens"].iloc[-1] > limit
    assert not table.iloc[0]["survived"] and table.iloc[0]["calls"] < len(night.turns)


def test_trimmed_loses_its_duty_and_its_report(played):
    night, table, frames, _ = played
    row = table.iloc[1]
    assert row["survived"] and not row["watchman_at_test"] and row["incidents_reported"] == 0
    frame = frames["trimmed"]
    assert not frame.loc[frame["clock"] == night.watchman_test_clock, "mission_in_request"].any()


def test_three_tiers_keep_the_duty_and_the_report(played):
    night, table, frames, _ = played
    row = table.iloc[2]
    assert row["survived"] and row["watchman_at_test"]
    assert row["incidents_reported"] == row["incidents_total"] == len(night.incidents)
    assert frames["three_tier"]["mission_in_request"].all()


def test_the_english_night_is_answered_in_english():
    _, frames = compare_designs(hotel_night(), context_limit=1000, mission=HOTEL_MISSION)
    replies = " ".join(frames["three_tier"]["reply"])
    assert "o'clock: all quiet" in replies and "(duty: Every hour" in replies
    assert not any("\u3040" <= ch <= "\u9fff" for ch in replies)


def outcomes(table):
    return table[["survived", "watchman_at_test", "incidents_reported"]].to_dict("index")


def test_the_theatre_mission_in_other_words_gives_the_same_outcomes():
    eve = celebration_eve()
    original, _ = compare_designs(eve)
    paraphrased, frames = compare_designs(eve, mission=THEATRE_PARAPHRASE)
    assert outcomes(paraphrased) == outcomes(original)
    three_tier = frames["three_tier"]
    door = three_tier.loc[three_tier["clock"] == eve.watchman_test_clock, "reply"].iloc[0]
    assert "誰が来ても開けるな" in door  # it quotes the paraphrase, not words it was built with
    assert MISSION not in door
