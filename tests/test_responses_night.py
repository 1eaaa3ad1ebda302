"""The celebration eve through the Responses API (chapter 10): the three points of the issue's "Why",
as behaviour of the real SDK against the stand-in, judged from the stand-in's request log."""

from __future__ import annotations

import pytest

from nightwatch.lab.compare import guarded_the_door
from nightwatch.lab.responses_night import (
    DESIGNS, RESPONSE_TIERS, ask_after, mission_sent, play_designs, response_tier_table,
)
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin.responses_protocol import COMPACTION_SUMMARY_HEADING

EVE = celebration_eve()
DOOR = next(turn.text for turn in EVE.turns if turn.clock == EVE.watchman_test_clock)


@pytest.fixture(scope="module")
def played():
    return play_designs(EVE)


def test_a_mission_sent_as_instructions_once_is_gone_from_the_second_call_and_the_door_is_opened(played):
    a = played["a"]
    requests = a.standin.requests
    assert requests[0].messages[0] == {"role": "system", "content": MISSION}
    assert not any(mission_sent(request) for request in requests[1:])
    at_door = [r for r in requests if r.messages[-1]["content"] == DOOR]
    assert len(at_door) == 1 and at_door[0].act != "refuse" and not guarded_the_door(at_door[0])
    assert a.outcome["watchman_at_test"] is False
    assert a.outcome["error_code"] is None  # silently: nothing refused the chain


def test_instructions_every_call_with_truncation_disabled_is_refused_before_dawn(played):
    b = played["b"]
    last = b.frame.iloc[-1]
    assert last["error_code"] == "context_length_exceeded"
    assert len(b.frame) < len(EVE.turns) and last["clock"] < "06:00"
    assert b.outcome["incidents_reported"] == 0
    assert all(mission_sent(request) for request in b.standin.requests)
    sizes = b.frame["input_tokens"].dropna().tolist()
    assert sizes == sorted(sizes)  # the chain on the server only grows


def test_truncation_drops_a_mission_sent_as_the_first_input_item_but_not_instructions(played):
    item, instructions = played["c_item"], played["c_instructions"]
    first = item.frame.index[item.frame["dropped"].fillna(0) > 0][0]
    assert item.frame.loc[first, "dropped_items"][0] == "developer"
    requests = item.standin.requests
    assert all(mission_sent(request) for request in requests[:first])
    assert not any(mission_sent(request) for request in requests[first:])
    assert instructions.frame["dropped"].fillna(0).max() > 0
    assert all(request.messages[0] == {"role": "system", "content": MISSION} for request in instructions.standin.requests)
    # The same ask as at the door, once more after dawn: only the design that kept the mission refuses it.
    _, without = ask_after(item, DOOR)
    _, kept = ask_after(instructions, DOOR)
    assert not guarded_the_door(without) and guarded_the_door(kept)


def test_server_side_compaction_reaches_dawn_with_the_mission_and_the_report(played):
    d = played["d"]
    assert d.outcome["error_code"] is None and d.outcome["calls"] == len(EVE.turns)
    assert d.outcome["compactions"] > 0 and d.outcome["watchman_at_test"] is True
    assert d.outcome["mission_every_call"] is True
    assert d.outcome["incidents_reported"] == len(EVE.incidents)
    dawn = d.standin.requests[len(d.frame) - 1].messages
    assert any(m["role"] == "system" and m["content"].startswith(COMPACTION_SUMMARY_HEADING) for m in dawn)
    users = [m["content"] for m in dawn if m["role"] == "user"]
    assert users == [turn.text for turn in EVE.turns]  # every user message kept verbatim
    assert not any(m["role"] == "assistant" for m in dawn[:-2])  # the replies are folded away


def test_after_compaction_the_question_is_still_what_is_answered(played):
    """The compaction item is read before the messages it came with, so the reply answers the turn."""
    d = played["d"]
    compacted = d.frame.index[d.frame["compacted"].fillna(False).astype(bool)]
    for index in compacted:
        request = d.standin.requests[index]
        assert request.messages[-1] == {"role": "user", "content": d.frame.loc[index, "user_text"]}


def test_the_tiers_add_up_to_what_the_stand_in_counted(played):
    for key in DESIGNS:
        requests = played[key].standin.requests[:len(played[key].frame)]
        table = response_tier_table(requests)
        assert table["合計"].tolist() == [request.prompt_tokens for request in requests]
        assert list(table.columns[:len(RESPONSE_TIERS)]) == list(RESPONSE_TIERS)
    assert response_tier_table(played["a"].standin.requests[1:2])["instructions"].iloc[0] == 0
    assert response_tier_table(played["d"].standin.requests[-2:-1])["compaction"].iloc[0] > 0
