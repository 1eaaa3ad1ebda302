"""The twelve checks of the story's 模擬公演 (simulated performance), one test each."""

from __future__ import annotations

import openai
import pydantic
import pytest

from conftest import char_memory
from nightwatch import after, before
from nightwatch.memory import MemoryPolicy
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.summarizers import CountingSummarizer

FIXED_TEXT = "見回り記録: 搬入口の木箱を数え、数に違いはありません。"
MISSION_MESSAGE = {"role": "system", "content": MISSION}


def request_sizes(agent_factory, calls: int) -> list[int]:
    """Prompt tokens the stand-in counted for ``calls`` identical exchanges, with no limit in the way."""
    standin = StandInModel(context_limit=10**9)
    agent = agent_factory(standin.client())
    for _ in range(calls):
        agent.run(FIXED_TEXT)
    return [request.prompt_tokens for request in standin.requests]


def test_before_request_grows_strictly_until_the_12th_call_is_refused_unhandled():
    sizes = request_sizes(lambda c: before.NightWatchAgent("ヴェスパー", MISSION, client=c), 12)
    assert all(later > earlier for earlier, later in zip(sizes, sizes[1:]))
    # Fixed-length exchanges make the growth exactly linear: every call carries one more exchange.
    assert len({later - earlier for earlier, later in zip(sizes, sizes[1:])}) == 1
    # A limit between the 11th and 12th request: the first eleven fit, the twelfth cannot.
    standin = StandInModel(context_limit=sizes[10])
    agent = before.NightWatchAgent("ヴェスパー", MISSION, client=standin.client())
    for _ in range(11):
        agent.run(FIXED_TEXT)
    with pytest.raises(openai.BadRequestError) as refused:
        agent.run(FIXED_TEXT)
    assert refused.value.code == "context_length_exceeded"
    assert f"Your messages resulted in {sizes[11]} tokens" in refused.value.message
    assert [r.refused for r in standin.requests] == [False] * 11 + [True]


def test_mission_is_buried_under_60_messages_after_30_exchanges():
    agent = before.NightWatchAgent("ヴェスパー", MISSION, client=StandInModel(context_limit=10**9).client())
    for i in range(30):
        agent.run(f"見回り記録{i}: 搬入口の木箱を数えました。")
    assert len(agent.history) == 61
    assert agent.history[0] == MISSION_MESSAGE
    assert MISSION_MESSAGE not in agent.history[1:]


def test_the_12_message_slice_holds_no_mission():
    agent = before.NightWatchAgent("ヴェスパー", MISSION, client=StandInModel(context_limit=10**9).client())
    for i in range(30):
        agent.run(f"見回り記録{i}: 搬入口の木箱を数えました。")
    sliced = agent.history[-12:]
    assert len(sliced) == 12
    assert all(message["content"] != MISSION for message in sliced)
    # The trimmed agent does exactly this, and sends it: the stand-in never sees the mission again.
    standin = StandInModel(context_limit=10**9)
    trimmed = before.TrimmedNightWatchAgent("ヴェスパー", MISSION, client=standin.client())
    for i in range(30):
        trimmed.run(f"見回り記録{i}: 搬入口の木箱を数えました。")
    assert all(MISSION_MESSAGE not in request.messages for request in standin.requests[6:])


def test_mission_survives_verbatim_at_the_head_of_every_call_across_40_exchanges():
    # The story's concatenating fake lets the summary grow past any small window (act 3's caveat),
    # so this stand-in has room: the check here is the mission's seat, not the ceiling.
    standin = StandInModel(context_limit=10**9)
    counting = CountingSummarizer()
    agent = after.NightWatchAgent("ヴェスパー", char_memory(3, 80, counting), client=standin.client())
    for i in range(40):
        agent.run(f"見回り記録{i}: 搬入口の木箱を数え、数に違いはありません。")
    assert len(standin.requests) == 40
    for request in standin.requests:
        assert request.messages[0] == MISSION_MESSAGE
    assert counting.call_count > 1


def test_window_shrinks_to_exactly_window_size_at_each_compaction():
    memory = char_memory(3, 80)
    sizes_after_compaction = []
    for i in range(40):
        before_count = len(memory.compactions)
        memory.add_exchange(f"見回り記録{i}: 木箱。", "承りました。")
        if len(memory.compactions) > before_count:
            sizes_after_compaction.append(len(memory.window))
    assert len(sizes_after_compaction) > 1
    assert set(sizes_after_compaction) == {3}
    assert all(c.kept == 3 for c in memory.compactions)


def ten_token_exchanges(memory, count: int) -> None:
    for i in range(count):
        memory.add_exchange(f"問{i}です。", f"答{i}です。")  # 5 + 5 characters = 10 tokens


def test_threshold_exactly_met_does_not_compact():
    counting = CountingSummarizer()
    memory = char_memory(2, 40, counting)
    ten_token_exchanges(memory, 4)
    assert memory.window_tokens() == 40
    assert counting.call_count == 0
    assert len(memory.window) == 4


def test_one_token_over_the_threshold_compacts_exactly_once():
    counting = CountingSummarizer()
    memory = char_memory(2, 39, counting)
    ten_token_exchanges(memory, 4)
    assert counting.call_count == 1
    assert len(memory.window) == 2
    assert [e.user_text for e in counting.calls[0]] == ["問0です。", "問1です。"]


def test_first_handover_survives_a_second_compaction():
    counting = CountingSummarizer()
    memory = char_memory(2, 39, counting)
    memory.add_exchange("最初の申し送り: 楽屋口の鍵を替えました。", "承りました。")
    ten_token_exchanges(memory, 3)
    assert counting.call_count == 1
    ten_token_exchanges(memory, 3)
    assert counting.call_count >= 2
    assert "最初の申し送り: 楽屋口の鍵を替えました。" in memory.summary


def test_evicted_west_shutter_exchange_reaches_the_request_through_the_summary():
    memory = char_memory(2, 60)
    memory.add_exchange("西の鎧戸の緩みに気づきました。", "応急に結わえ、朝の点検に回します。")
    for i in range(4):
        memory.add_exchange(f"{i}時の巡回です。", f"{i}時、異常なし。")
    assert all("鎧戸" not in e.user_text for e in memory.window)
    messages = memory.build_messages("六時です。報告をお願いします。")
    carried = [m for m in messages if "西の鎧戸の緩みに気づきました。" in m["content"]]
    assert len(carried) == 1 and carried[0]["role"] == "system" and carried[0] is messages[1]


def test_window_size_zero_is_refused():
    with pytest.raises(pydantic.ValidationError):
        MemoryPolicy(window_size=0, token_threshold=80)
    with pytest.raises(pydantic.ValidationError):
        MemoryPolicy(window_size=3, token_threshold=0)


def test_no_exchanges_means_no_summarizer_call():
    counting = CountingSummarizer()
    memory = char_memory(3, 1, counting)
    assert memory.build_messages("一時です。") == [MISSION_MESSAGE, {"role": "user", "content": "一時です。"}]
    assert counting.call_count == 0
    assert memory.summary == "" and memory.window == []


def test_one_exchange_longer_than_the_threshold_cannot_compact():
    counting = CountingSummarizer()
    memory = char_memory(1, 20, counting)
    memory.add_exchange("長" * 100, "答" * 100)
    assert memory.window_tokens() > 20
    assert counting.call_count == 0
    assert len(memory.window) == 1
