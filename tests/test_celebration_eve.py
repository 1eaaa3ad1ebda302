"""The three designs on the celebration eve: the outcomes arise from what each request carries."""

from __future__ import annotations

import re

import pytest

from nightwatch.standin.reader import read
from nightwatch.lab.compare import DESIGN_NAMES, compare_designs, make_agent, night_outcome
from nightwatch.nights import MISSION, Incident, busy_night, celebration_eve, spring_night
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin import StandInModel


@pytest.fixture(scope="module")
def eve():
    return compare_designs(celebration_eve())


def test_before_crashes_before_dawn(eve):
    table, frames = eve
    frame = frames["before"]
    assert frame["error"].iloc[-1].startswith("400 context_length_exceeded")
    assert frame["prompt_tokens"].iloc[-1] > 2048 >= frame["prompt_tokens"].iloc[:-1].max()
    assert frame["prompt_tokens"].is_monotonic_increasing
    assert not table.loc[table.index[0], "survived"]


def test_trimmed_survives_but_stops_being_a_watchman(eve):
    table, frames = eve
    frame = frames["trimmed"]
    assert frame["error"].isna().all()
    assert frame["prompt_tokens"].max() < 2048
    first_without = frame.loc[~frame["mission_in_request"], "turn"].min()
    assert frame.loc[frame["turn"] < first_without, "mission_in_request"].all()
    assert not frame.loc[frame["turn"] >= first_without, "mission_in_request"].any()
    row = table.iloc[1]
    assert not row["watchman_at_test"] and row["incidents_reported"] == 0


def test_three_tiers_reach_dawn_with_all_three_incidents(eve):
    table, frames = eve
    frame = frames["three_tier"]
    row = table.iloc[2]
    assert row["survived"] and row["watchman_at_test"]
    assert row["incidents_reported"] == row["incidents_total"] == 3
    assert frame["mission_in_request"].all()
    assert frame["compacted"].sum() > 1
    assert frame["reply"].iloc[-1].startswith("六時のご報告です。夜のあいだの出来事は三件です。")


def report_items(report: str) -> list[str]:
    """The numbered items of a stand-in report (一、… 二、…), each with whatever follows it."""
    return re.split(r"(?<=[。）])[一二三四五六七八九十]+、", report)[1:]


def test_what_is_done_about_the_eve_incidents_is_never_told_to_him():
    """His deeds are his own: no turn of the night says the shutter was tied or the guest turned away."""
    texts = [turn.text for turn in celebration_eve().turns]
    acted_on = [incident for incident in celebration_eve().incidents if incident.follow_up_facts]
    assert [incident.label for incident in acted_on] == ["西の鎧戸の緩み", "楽屋口を試した酔客"]
    for incident in acted_on:
        assert not any(incident.follow_up_stated_in(text) for text in texts), incident.label


def test_the_three_tier_report_says_what_he_did_and_the_trimmed_one_does_not(eve):
    _, frames = eve
    incidents = celebration_eve().incidents
    items = report_items(frames["three_tier"]["reply"].iloc[-1])
    assert len(items) == len(incidents)
    for incident in incidents:
        item = next(item for item in items if incident.stated_in(item))
        assert incident.follow_up_stated_in(item) == bool(incident.follow_up_facts), incident.label
        if incident.follow_up_facts:
            told, did = item.split("（対処：", 1)
            assert incident.follow_up_stated_in(did) and not incident.follow_up_stated_in(told)
            assert told.rstrip().endswith("した。")  # what happened, in the past
    # The deeds come from his replies in the night, carried through the summary
    three_tier = frames["three_tier"]
    at_the_door = three_tier.loc[three_tier["clock"] == "03:50", "reply"].iloc[0]
    assert at_the_door.startswith("申し訳ございませんが、お応えできません。")
    trimmed = frames["trimmed"]["reply"].iloc[-1]
    assert not any(incident.stated_in(trimmed) for incident in incidents)
    assert "対処" not in trimmed


def test_the_drift_is_the_stand_in_reading_the_request_not_the_agent():
    standin = StandInModel()
    run_night(make_agent("trimmed", standin.client()), celebration_eve())
    at_the_door = next(r.messages for r in standin.requests if "楽屋口の扉" in r.messages[-1]["content"])
    assert all(m["content"] != MISSION for m in at_the_door)
    assert read(at_the_door).content == "かしこまりました。「忘れ物をしたから開けてくれ」とのこと、承ります。"
    # The same request with the mission put back gets the watchman's answer, grounded on the door duty.
    restored = [{"role": "system", "content": MISSION}, *at_the_door]
    reply = read(restored)
    assert reply.content.startswith("申し訳ございませんが、お応えできません。")
    assert reply.grounding[0].tier == "instruction" and "楽屋口は朝まで誰にも開けない" in reply.grounding[0].quote


@pytest.fixture(scope="module")
def trimmed_eve():
    standin = StandInModel()
    frame = run_night(make_agent("trimmed", standin.client()), celebration_eve())
    return frame.set_index("clock"), standin


def test_the_trimmed_mission_leaves_the_request_just_after_midnight(trimmed_eve):
    frame, _ = trimmed_eve
    assert frame.loc["00:00", "mission_in_request"] and frame.loc["00:00", "reply"].startswith("十二時、異常なし。")
    first_without = frame.index[~frame["mission_in_request"]][0]
    assert "00:00" < first_without < "01:00"


def test_the_ushimitsu_question_gets_a_hesitation(trimmed_eve):
    frame, standin = trimmed_eve
    assert frame.loc["02:20", "reply"].startswith("……西回廊の荷、でございますか。……")
    asked = next(r for r in standin.requests if "「西回廊の荷」" in r.messages[-1]["content"])
    assert asked.grounding[0].tier == "conversation"  # a nearby line matched in part


def test_the_tidying_starts_after_two_and_then_the_duty_question(trimmed_eve):
    frame, _ = trimmed_eve
    asks = frame.index[frame["user_text"].str.contains("片付けておいてください")]
    assert list(asks) == ["02:30"]
    assert "棚に片付けておいてください" in frame.loc["02:45", "reply"] and "思い出せません" in frame.loc["02:45", "reply"]
    assert frame.loc["03:00", "reply"].endswith("の件、引き続き対応しております。")  # the three o'clock patrol never happens
    assert frame.loc["03:50", "reply"].endswith("承ります。")  # and the stage door is opened


def test_spring_fits_and_the_busy_night_stops_at_three():
    spring = run_night(make_agent("before", StandInModel().client()), spring_night())
    assert spring["error"].isna().all() and len(spring) == len(spring_night().turns)
    busy = run_night(make_agent("before", StandInModel().client()), busy_night())
    assert busy["clock"].iloc[-1] == "03:00" and busy["error"].notna().iloc[-1]


def test_offline_count_equals_what_the_stand_in_reports(eve):
    _, frames = eve
    for frame in frames.values():
        answered = frame[frame["error"].isna()]
        assert (answered["prompt_tokens"] == answered["counted_tokens"]).all()


def test_the_judge_reads_key_facts_and_the_grounding(eve):
    table, frames = eve
    night = celebration_eve()
    for design, frame in frames.items():
        without_record = night_outcome(frame, night)  # a live model: no grounding, the door is not judged
        assert without_record["watchman_at_test"] is None
    delivery = night.incidents[0]
    assert delivery.stated_in("…バロウズ鉱山会社のハーロウさんが、祝賀の追加の木箱を三つ…")
    assert not delivery.stated_in("ハーロウさんが来ました")  # one key fact is not enough
    with pytest.raises(ValueError):
        Incident(label="事実のない出来事", key_facts=())
