"""Properties of the three-tier memory over any valid policy and any sequence of exchanges."""

from __future__ import annotations

import os

import pytest
from hypothesis import assume, given, settings

from nightwatch.memory.budget import MINIMAL_QUESTION_TOKENS, QUESTION_ROOM_TOKENS
from hypothesis import strategies as st

from conftest import char_memory
from nightwatch.memory.budget import ContextBudgetExceeded
from nightwatch.memory import SUMMARY_HEADER, ConversationMemory, Exchange, MemoryPolicy
from nightwatch.nights import MISSION
from nightwatch.summarizers import CountingSummarizer, concatenating_summarizer
from nightwatch.tokens import estimate_tokens_by_chars

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


# --- under a budget: random adds and builds, random budgets, summarizers that fail, grow or shrink ---

PROPERTY_SCALE = int(os.environ.get("NIGHTWATCH_PROPERTY_SCALE", "1"))  # 10 for a long run
BUDGET_MISSION = "務め: 毎正時に巡回し、楽屋口は開けない。"


def chat_size(messages) -> int:
    """The chat formula with one token per character, written out independently of the library."""
    return sum(3 + len(m["role"]) + len(m["content"]) for m in messages) + 3


class RandomSummarizer:
    """Plays a scripted sequence of behaviours: fold well, grow, shrink, fail, return junk."""

    def __init__(self, behaviours: list[str]) -> None:
        self.behaviours, self.calls = behaviours, 0

    def __call__(self, summary, overflow):
        behaviour = self.behaviours[self.calls % len(self.behaviours)]
        self.calls += 1
        if behaviour == "raise":
            raise RuntimeError("the summarizer fell over")
        if behaviour == "junk":
            return None
        if behaviour == "empty":
            return " "
        if behaviour == "shrink":
            return "要約"
        if behaviour == "grow":
            return summary + "".join(e.user_text + e.watchman_reply for e in overflow) + "追記" * 30
        return concatenating_summarizer(summary, overflow)


short_texts = st.one_of(
    st.text(alphabet="巡回異常なし荷鎧戸楽屋口。、ab", min_size=0, max_size=30),
    st.builds(lambda unit, times: unit * times, st.sampled_from(["目録。", "荷", "ab"]), st.integers(10, 80)),
)
operations = st.lists(
    st.one_of(st.tuples(st.just("add"), short_texts, short_texts), st.tuples(st.just("build"), short_texts)),
    min_size=1, max_size=30,
)
behaviours = st.lists(st.sampled_from(["fold", "grow", "shrink", "raise", "junk", "empty"]), min_size=1, max_size=5)


@settings(max_examples=150 * PROPERTY_SCALE, deadline=None)
@given(
    window_size=st.integers(1, 5), threshold=st.integers(1, 200), context_window=st.integers(60, 500),
    reserve=st.integers(0, 40), cap=st.one_of(st.none(), st.integers(1, 80)),
    script=behaviours, ops=operations,
)
def test_under_any_budget_requests_fit_refusals_are_justified_and_nothing_is_lost(
    window_size, threshold, context_window, reserve, cap, script, ops
):
    assume(reserve < context_window)
    floor = chat_size([{"role": "system", "content": BUDGET_MISSION}, {"role": "user", "content": ""}])
    assume(floor + reserve <= context_window)
    effective_cap = cap if cap is not None else max(1, (context_window - reserve - floor) // 4)
    summary_frame = 3 + len("system") + len(SUMMARY_HEADER) + 1  # the summary message without its text

    def make() -> ConversationMemory:
        policy = MemoryPolicy(window_size=window_size, token_threshold=threshold, context_window=context_window,
                              reply_reserve=reserve, summary_token_limit=cap)
        return ConversationMemory(BUDGET_MISSION, policy, estimate_tokens_by_chars, RandomSummarizer(script))

    question_room = QUESTION_ROOM_TOKENS if cap is not None else MINIMAL_QUESTION_TOKENS
    if floor + summary_frame + effective_cap + question_room + reserve > context_window:
        # A summary at its cap would leave no room for an ordinary question (a policy's own cap) or for
        # even a one-character one (a cap derived from the budget): refused at the door.
        with pytest.raises(ValueError, match="cannot fit|leaves no room"):
            make()
        return
    memory = make()
    added: list[Exchange] = []
    for op in ops:
        if op[0] == "add":
            memory.add_exchange(op[1], op[2])
            added.append(Exchange(user_text=op[1], watchman_reply=op[2]))
        else:
            question = op[1]
            before = memory.to_json()
            promised = (chat_size([{"role": "system", "content": BUDGET_MISSION}, {"role": "user", "content": question}])
                        + summary_frame + effective_cap + reserve <= context_window)
            try:
                messages = memory.build_messages(question)
            except ContextBudgetExceeded:
                assert not promised, "refused although mission + capped summary + question + reserve fit"
                assert memory.to_json() == before, "a refusal changed the memory"
            else:
                assert chat_size(messages) + reserve <= context_window
                assert messages[0] == {"role": "system", "content": BUDGET_MISSION}
                assert messages[-1] == {"role": "user", "content": question}
        assert len(memory.summary) <= effective_cap
        assert memory.archive + memory.window == added  # each exchange exactly once, in order
        assert memory.exchanges_added == len(added)
