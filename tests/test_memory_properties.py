"""Properties of the three-tier memory over any valid policy and any sequence of exchanges."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import char_memory
from nightwatch.memory import Exchange
from nightwatch.nights import MISSION
from nightwatch.summarizers import CountingSummarizer

texts = st.text(alphabet="巡回異常なし荷鎧戸楽屋口。、abc", min_size=0, max_size=40)
exchanges = st.lists(st.tuples(texts, texts), max_size=40)
policies = st.tuples(st.integers(1, 6), st.integers(1, 200))


@settings(max_examples=300, deadline=None)
@given(policy=policies, pairs=exchanges)
def test_mission_first_and_every_exchange_accounted_for_exactly_once_in_order(policy, pairs):
    window_size, threshold = policy
    counting = CountingSummarizer()
    memory = char_memory(window_size, threshold, counting)
    for user_text, reply in pairs:
        memory.add_exchange(user_text, reply)
        messages = memory.build_messages("今は何時ですか。")
        assert messages[0] == {"role": "system", "content": MISSION}
        assert all(m["content"] != MISSION for m in messages[1:])
    summarized = [exchange for call in counting.calls for exchange in call]
    # Handed to the summarizer exactly once and in order, followed by what is still in the window:
    # together they are the whole night, nothing lost, nothing twice.
    assert summarized + memory.window == [Exchange(user_text=u, watchman_reply=r) for u, r in pairs]
    if counting.call_count:
        assert len(memory.window) >= window_size or memory.window_tokens() <= threshold


@settings(max_examples=200, deadline=None)
@given(policy=policies, pairs=exchanges)
def test_after_a_compaction_the_window_holds_exactly_window_size(policy, pairs):
    window_size, threshold = policy
    memory = char_memory(window_size, threshold)
    for user_text, reply in pairs:
        compactions = len(memory.compactions)
        memory.add_exchange(user_text, reply)
        if len(memory.compactions) > compactions:
            assert len(memory.window) == window_size
