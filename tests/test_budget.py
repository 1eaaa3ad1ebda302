"""Beyond the story: a hard budget, a capped summary, loss-free faults and a resumable night."""

from __future__ import annotations

import copy

import openai
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nightwatch import after
from nightwatch.memory.budget import (
    MINIMAL_QUESTION_TOKENS, QUESTION_ROOM_TOKENS, ContextBudgetExceeded, request_size,
)
from nightwatch.lab.compare import make_agent
from nightwatch.memory import SUMMARY_HEADER, ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.tokens import count_message_tokens, count_text_tokens

MISSION_MESSAGE = {"role": "system", "content": MISSION}


def budget_memory(summarizer=None, **policy) -> ConversationMemory:
    settings_ = {"window_size": 4, "token_threshold": 400, "context_window": 2048, "reply_reserve": 256}
    settings_.update(policy)
    return ConversationMemory(MISSION, MemoryPolicy(**settings_), count_text_tokens,
                              summarizer or ThreeLineSummarizer())


# --- bad input is refused clearly -------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"window_size": 0}, {"window_size": -1}, {"token_threshold": 0}, {"context_window": 0},
    {"context_window": -5}, {"reply_reserve": -1}, {"summary_token_limit": 0},
])
def test_zero_or_negative_sizes_are_refused(bad):
    with pytest.raises(pydantic.ValidationError):
        MemoryPolicy(**{"window_size": 4, "token_threshold": 400, "context_window": 2048, **bad})


def test_a_reserve_as_large_as_the_window_is_refused_with_the_excess():
    with pytest.raises(pydantic.ValidationError, match=r"over by 101"):
        MemoryPolicy(window_size=4, token_threshold=400, context_window=1000, reply_reserve=1100)


def test_a_reserve_without_a_window_is_refused():
    with pytest.raises(pydantic.ValidationError, match="needs a context_window"):
        MemoryPolicy(window_size=4, token_threshold=400, reply_reserve=100)


def test_a_mission_alone_larger_than_the_window_is_refused_with_the_excess():
    mission_tokens = count_message_tokens([MISSION_MESSAGE, {"role": "user", "content": ""}])
    with pytest.raises(ValueError, match=rf"needs {mission_tokens + 10} tokens, {mission_tokens + 10 - 100} more"):
        budget_memory(context_window=100, reply_reserve=10)


@pytest.mark.parametrize("call", [
    lambda m: m.add_exchange(3, "答"), lambda m: m.add_exchange("問", None), lambda m: m.build_messages(b"q"),
])
def test_non_string_text_is_refused(call):
    with pytest.raises(TypeError, match="str"):
        call(budget_memory())


# --- the budget holds ---------------------------------------------------------------------------

def test_the_memory_counts_a_request_exactly_as_the_stand_in_does():
    memory = budget_memory()
    for turn in celebration_eve().turns[:10]:
        memory.add_exchange(turn.text, "承知いたしました。")
    messages = memory.build_messages("一時です。")
    served = StandInModel(context_limit=100_000)
    response = served.client().chat.completions.create(model="gpt-4o", messages=messages)
    assert request_size(messages, count_text_tokens) == response.usage.prompt_tokens  # what the endpoint reports


def test_an_oversized_exchange_is_evicted_early_to_keep_the_budget():
    memory = budget_memory(window_size=4, token_threshold=10_000, context_window=1200, reply_reserve=200)
    memory.add_exchange("申し送り: 祝賀の荷が西回廊へ届きます。", "申し送り、確かに承りました。")
    memory.add_exchange("長い報告です。" + "荷の目録。" * 200, "承知いたしました。")
    memory.add_exchange("（柱時計が鳴る）一時です。巡回をお願いします。", "一時、異常なし。")
    assert memory.compactions == []  # under the (high) threshold: only the budget can act
    unfolded = [MISSION_MESSAGE] + [
        {"role": role, "content": text}
        for e in memory.window for role, text in (("user", e.user_text), ("assistant", e.watchman_reply))
    ] + [{"role": "user", "content": "コレットです。"}]
    assert count_message_tokens(unfolded) + 200 > 1200  # the premise: as they stand they do not fit
    messages = memory.build_messages("コレットです。")
    assert count_message_tokens(messages) + 200 <= 1200
    assert [e.user_text[:6] for e in memory.archive] == ["申し送り: ", "長い報告です"]
    assert len(memory.window) == 1 and "西回廊" in memory.summary


def test_a_question_larger_than_the_whole_budget_is_refused_before_any_call():
    standin = StandInModel()
    agent = after.NightWatchAgent("ヴェスパー", budget_memory(), client=standin.client())
    agent.run("一時です。巡回をお願いします。")
    with pytest.raises(ContextBudgetExceeded) as refused:
        agent.run("目録: " + "贈り物の荷。" * 600)
    assert len(standin.requests) == 1  # the oversized request never left the process
    error = refused.value
    assert error.tiers["question"] > 2048 and error.over_by == sum(error.tiers.values()) + 256 - 2048
    assert "question" in str(error) and "over" in str(error)
    assert len(agent.memory.window) == 1  # nothing was lost while trying


# --- the summary cap ----------------------------------------------------------------------------

def test_the_summary_cap_holds_by_dropping_whole_items():
    standin = StandInModel()
    memory = budget_memory(summary_token_limit=90)
    run_night(after.NightWatchAgent("ヴェスパー", memory, client=standin.client()), celebration_eve())
    assert memory.compactions and not memory.failures
    assert all(c.summary_tokens_after <= 90 for c in memory.compactions)
    for line in memory.summary.splitlines():
        for item in line.split(": ", 1)[1].split("／"):
            assert item.endswith(("。", "件", "回）")), item  # whole sentences, never cut mid-way


def test_a_summarizer_that_cannot_meet_the_cap_is_clipped_logged_and_loses_nothing():
    memory = budget_memory(concatenating_summarizer, summary_token_limit=30, token_threshold=100)
    texts = [turn.text for turn in celebration_eve().turns[:8]]
    for text in texts:
        memory.add_exchange(text, "承知いたしました。")
    assert memory.compactions and 0 < count_text_tokens(memory.summary) <= 30
    assert "…" in memory.summary  # the memory's own shortening: head and tail around an ellipsis
    assert memory.failures and all(f.fallback and "over the cap of 30" in f.error for f in memory.failures)
    assert [e.user_text for e in memory.archive + memory.window] == texts


# --- faults lose nothing ------------------------------------------------------------------------

@pytest.mark.parametrize(("fault", "error_class"), [
    ("rate_limit", openai.RateLimitError), ("server_error", openai.InternalServerError),
    ("timeout", openai.APITimeoutError),
])
def test_an_api_failure_leaves_memory_unchanged_and_the_turn_can_be_retried(fault, error_class):
    standin = StandInModel(faults={6: fault})
    agent = after.NightWatchAgent("ヴェスパー", budget_memory(), client=standin.client())
    turns = celebration_eve().turns
    for turn in turns[:5]:
        agent.run(turn.text)
    saved = agent.memory.to_json()
    with pytest.raises(error_class):
        agent.run(turns[5].text)
    failed_request = agent.last_messages
    assert agent.memory.to_json() == saved
    agent.run(turns[5].text)  # the same turn again: the identical request, now answered
    assert standin.requests[-1].messages == failed_request


def test_the_stand_in_refuses_unknown_faults():
    with pytest.raises(ValueError, match="unknown faults"):
        StandInModel(faults={1: "power_cut"})


def test_the_archive_keeps_every_evicted_exchange_and_rebuilds_the_summary():
    standin = StandInModel()
    agent = make_agent("three_tier", standin.client())
    run_night(agent, celebration_eve())
    memory = agent.memory
    texts = [turn.text for turn in celebration_eve().turns]
    assert [e.user_text for e in memory.archive + memory.window] == texts
    assert memory.rebuild_summary() == memory.summary


# --- resuming a night ---------------------------------------------------------------------------

def test_a_night_interrupted_at_three_resumes_with_the_identical_next_request():
    turns = celebration_eve().turns
    three = next(i for i, turn in enumerate(turns) if turn.clock == "03:00")
    through, resumed = StandInModel(), StandInModel()
    whole = after.NightWatchAgent("ヴェスパー", budget_memory(), client=through.client())
    for turn in turns[:three]:
        whole.run(turn.text)
    saved = whole.memory.to_json()
    restored = ConversationMemory.from_json(saved, count_text_tokens, ThreeLineSummarizer())
    second = after.NightWatchAgent("ヴェスパー", restored, client=resumed.client())
    for turn in turns[three:]:
        assert whole.run(turn.text) == second.run(turn.text)
        assert through.requests[-1].messages == resumed.requests[-1].messages
    assert restored.to_json() == whole.memory.to_json()


# --- properties over random policies, nights and summarizers ------------------------------------

TURN_TEXTS = [turn.text for turn in celebration_eve().turns] + ["長い目録: " + "贈り物の荷。" * 120]


class Misbehaving:
    """A summarizer that fails in one of several ways on a fixed rhythm, and works otherwise."""

    def __init__(self, mode: str, every: int) -> None:
        self.mode, self.every, self.calls = mode, every, 0

    def __call__(self, summary, overflow):
        self.calls += 1
        if self.calls % self.every == 0:
            if self.mode == "raise":
                raise RuntimeError("flaky summarizer")
            return {"raise": None, "non_string": 7, "empty": "", "huge": "束ね" * 3000}[self.mode]
        return ThreeLineSummarizer()(summary, overflow)


summarizers = st.one_of(
    st.just(ThreeLineSummarizer()), st.just(concatenating_summarizer),
    st.builds(Misbehaving, st.sampled_from(["raise", "non_string", "empty", "huge"]), st.integers(1, 4)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    window_size=st.integers(1, 6), threshold=st.integers(20, 800), context_window=st.integers(400, 2048),
    reserve=st.integers(0, 150), cap=st.one_of(st.none(), st.integers(60, 400)),
    night=st.lists(st.sampled_from(TURN_TEXTS), min_size=1, max_size=45), summarizer=summarizers,
)
def test_no_request_ever_exceeds_the_budget(window_size, threshold, context_window, reserve, cap, night, summarizer):
    floor = count_message_tokens([MISSION_MESSAGE, {"role": "user", "content": ""}])
    frame = count_message_tokens([{"role": "system", "content": f"{SUMMARY_HEADER}\n"}]) - 3
    effective_cap = cap if cap is not None else max(1, (context_window - reserve - floor) // 4)
    try:
        policy = MemoryPolicy(window_size=window_size, token_threshold=threshold, context_window=context_window,
                              reply_reserve=reserve, summary_token_limit=cap)
        memory = ConversationMemory(MISSION, policy, count_text_tokens, summarizer)
    except ValueError:  # refused at the door: only when a capped summary leaves no room for a question
        question_room = QUESTION_ROOM_TOKENS if cap is not None else MINIMAL_QUESTION_TOKENS
        assert floor + frame + effective_cap + question_room + reserve > context_window
        return
    standin = StandInModel(context_limit=context_window)
    agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())
    answered = []
    for text in night:
        try:
            agent.run(text)
        except ContextBudgetExceeded:
            break
        answered.append(text)
        request = standin.requests[-1]
        assert request.messages[0] == MISSION_MESSAGE
        assert all(m["content"] != MISSION for m in request.messages[1:])
        assert request.prompt_tokens + reserve <= context_window
    assert not any(r.refused for r in standin.requests)
    assert [e.user_text for e in memory.archive + memory.window] == answered
    # The summarizer is code, not state: the restored memory gets one in the same condition.
    restored = ConversationMemory.from_json(memory.to_json(), count_text_tokens, copy.deepcopy(summarizer))
    try:
        expected = memory.build_messages("六時です。")
    except ContextBudgetExceeded:
        return
    assert restored.build_messages("六時です。") == expected
