"""A timed duty is its own kind: a clock call at the duty's own time acts on it (a honey house at night,
a domain of no tuning night and not of the story)."""

from __future__ import annotations

import pytest

from nightwatch.standin.reader import read
from nightwatch.standin.reader.text import find_clock

JA = {"role": "system", "content": "養蜂場の夜番です。\n1. 毎正時に貯蔵庫の温度を見て告げること。\n"
                                   "2. 午前5時半に燻煙器の火を入れること。\n3. 巣箱の蓋は誰にも開けさせないこと。"}
EN = {"role": "system", "content": "You watch the honey house.\n1. Every hour, check the store temperature.\n"
                                   "2. At 3 a.m., light the smoker.\n3. Never open the hive lids."}


def kinds(mission: dict[str, str], said: str) -> list[str]:
    reply = read([mission, {"role": "user", "content": said}])
    assert reply.act == "periodic"
    return [source.duty_kind for source in reply.grounding if source.tier == "instruction"]


@pytest.mark.parametrize(("said", "minute"), [
    ("5時半です。", 30), ("午前2時30分", 30), ("Half past five.", 30), ("Half four.", 30), ("04:45", 45),
    ("quarter to six", 45), ("three o'clock", 0),
])
def test_a_clock_time_keeps_its_minutes(said, minute):
    assert find_clock(said).minute == minute


def test_a_clock_call_at_a_timed_duty_s_own_time_acts_on_it():
    assert kinds(JA, "5時半です。") == ["at_time"]  # half past: the timed duty alone
    assert kinds(JA, "五時です。") == ["periodic"]  # the hour before it: the round only
    assert kinds(EN, "Three o'clock.") == ["at_time", "periodic"]  # on the hour: both
    assert kinds(EN, "Four.") == ["periodic"]


def test_a_clock_call_that_goes_on_to_tell_still_acts_on_the_round():
    for said in ("23時、蜜小屋の照明が消えました。", "Five o'clock, first light over the hives."):
        assert kinds(JA if said[0].isdigit() else EN, said) == ["periodic"]
    reply = read([JA, {"role": "user", "content": "23時、蜜小屋の照明が消えました。"},
                  {"role": "assistant", "content": "承知いたしました。"},
                  {"role": "user", "content": "朝です。夜のあいだの出来事を報告してください。"}])
    assert reply.act == "report" and "照明が消えました" in reply.content  # what the hour brought is an event


def test_asked_what_is_to_be_done_with_the_doer_unsaid_is_asked_for_the_duties():
    for said in ("交代で来たばかりなので、ここで何をすればいいのか教えてもらえますか。", "今夜って何をやることになってたっけ？"):
        assert read([JA, {"role": "user", "content": said}]).act == "duties"
    earlier = [{"role": "user", "content": "養蜂家の佐藤さんが巣箱の様子を見に来ました。"},
               {"role": "assistant", "content": "承知いたしました。"}]
    assert read([JA, *earlier, {"role": "user", "content": "佐藤さんは何をしていたっけ？"}]).act != "duties"
