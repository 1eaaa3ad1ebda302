"""Exact boundaries: each test pins one comparison or one count that a plausible slip would break.

Sizes are computed here by hand with the one-character-one-token estimator, independently of the
memory: the chat formula is 3 tokens a message plus its role and content, and 3 for the reply primer.
"""

from __future__ import annotations

import pydantic
import pytest

from nightwatch.memory.budget import ContextBudgetExceeded, request_size, tier_sizes
from nightwatch.memory import SUMMARY_HEADER, ConversationMemory, MemoryPolicy
from nightwatch.tokens import count_text_tokens, estimate_tokens_by_chars

MISSION = "務めを守る"


def size(*messages: tuple[str, str]) -> int:
    return sum(3 + len(role) + len(content) for role, content in messages) + 3


def memory_with(window: list[tuple[str, str]], summarizer, context_window: int | None = None, **policy):
    settings = {"window_size": 10, "token_threshold": 10_000, "context_window": context_window} | policy
    memory = ConversationMemory(MISSION, MemoryPolicy(**settings), estimate_tokens_by_chars, summarizer)
    for user_text, reply in window:
        memory.add_exchange(user_text, reply)
    return memory


def one_letter(summary, overflow):
    return "S"


# --- the final budget check -----------------------------------------------------------------------

PAIRS = [("問一", "答一です"), ("問二", "答二です"), ("問三", "答三です")]


def window_messages(pairs):
    return [m for u, r in pairs for m in (("user", u), ("assistant", r))]


def test_a_request_exactly_at_the_budget_is_sent_as_it_is():
    exact = size(("system", MISSION), *window_messages(PAIRS), ("user", "今は？"))
    memory = memory_with(PAIRS, one_letter, context_window=exact + 7, reply_reserve=7)
    messages = memory.build_messages("今は？")
    assert request_size(messages, estimate_tokens_by_chars) == exact
    assert memory.compactions == [] and len(memory.window) == 3


def test_one_token_over_the_budget_folds_the_oldest_exchange():
    exact = size(("system", MISSION), *window_messages(PAIRS), ("user", "今は？"))
    memory = memory_with(PAIRS, one_letter, context_window=exact - 1 + 7, reply_reserve=7)
    messages = memory.build_messages("今は？")
    assert request_size(messages, estimate_tokens_by_chars) <= exact - 1
    assert [c.evicted for c in memory.compactions] == [1] and memory.compactions[0].reason == "budget"


@pytest.mark.parametrize(("slack", "kept"), [(0, 2), (-1, 1)])
def test_the_fewest_exchanges_that_make_it_fit_are_folded(slack, kept):
    summary = ("system", f"{SUMMARY_HEADER}\nS")
    after_one = size(("system", MISSION), summary, *window_messages(PAIRS[1:]), ("user", "今は？"))
    memory = memory_with(PAIRS, one_letter, context_window=after_one + slack)
    memory.build_messages("今は？")
    assert len(memory.window) == kept and len(memory.archive) == 3 - kept


def test_a_question_exactly_filling_the_budget_is_built_and_one_more_token_is_refused():
    question = "長" * 40
    exact = size(("system", MISSION), ("user", question))
    assert memory_with([], one_letter, context_window=exact).build_messages(question)[-1]["content"] == question
    with pytest.raises(ContextBudgetExceeded) as refused:
        memory_with([], one_letter, context_window=exact).build_messages(question + "長")
    assert refused.value.over_by == 1


def test_a_reserve_equal_to_the_window_is_refused_and_one_less_is_accepted():
    with pytest.raises(pydantic.ValidationError, match="over by 1"):
        MemoryPolicy(window_size=1, token_threshold=1, context_window=1000, reply_reserve=1000)
    assert MemoryPolicy(window_size=1, token_threshold=1, context_window=1000, reply_reserve=999).reply_reserve == 999


# --- roles and tiers ----------------------------------------------------------------------------

def test_each_tier_has_its_role_and_replies_are_the_assistant_s():
    memory = memory_with(PAIRS, one_letter, token_threshold=12, window_size=2)
    assert memory.summary == "S"
    assert memory.build_messages("今は？") == [
        {"role": "system", "content": MISSION},
        {"role": "system", "content": f"{SUMMARY_HEADER}\nS"},
        {"role": "user", "content": "問二"}, {"role": "assistant", "content": "答二です"},
        {"role": "user", "content": "問三"}, {"role": "assistant", "content": "答三です"},
        {"role": "user", "content": "今は？"},
    ]


@pytest.mark.parametrize("with_summary", [True, False])
def test_the_tiers_count_each_message_once_and_the_reply_primer_with_the_question(with_summary):
    memory = memory_with(PAIRS, one_letter, token_threshold=12 if with_summary else 10_000, window_size=2)
    messages = memory.build_messages("今は？")
    tiers = tier_sizes(messages, estimate_tokens_by_chars)
    assert tiers["mission"] == 3 + 6 + len(MISSION)
    assert tiers["summary"] == (3 + 6 + len(SUMMARY_HEADER) + 2 if with_summary else 0)
    window = PAIRS[1:] if with_summary else PAIRS
    assert tiers["window"] == size(*window_messages(window)) - 3
    assert tiers["question"] == 3 + 4 + len("今は？") + 3
    assert sum(tiers.values()) == request_size(messages, estimate_tokens_by_chars)


def test_a_refusal_reports_tiers_that_add_up_to_the_request():
    question = "長" * 60
    with pytest.raises(ContextBudgetExceeded) as refused:
        memory_with([], one_letter, context_window=60, reply_reserve=5).build_messages(question)
    error = refused.value
    assert sum(error.tiers.values()) == size(("system", MISSION), ("user", question))
    assert error.over_by == sum(error.tiers.values()) + 5 - 60


# --- the summary cap and the summarizer's answer ----------------------------------------------

@pytest.mark.parametrize(("length", "clipped"), [(20, False), (21, True)])
def test_a_summary_exactly_at_its_cap_is_kept_whole_and_one_over_is_clipped(length, clipped):
    answer = "束" * length
    memory = memory_with(PAIRS, lambda s, o: answer, token_threshold=12, window_size=2, summary_token_limit=20)
    assert (memory.summary != answer) is clipped
    assert len(memory.summary) <= 20
    assert bool(memory.failures) is clipped


@pytest.mark.parametrize("answer", [42, None, b"bytes", ["a line"], 3.5])
def test_an_answer_that_is_not_a_string_is_refused_as_such(answer):
    memory = memory_with(PAIRS, lambda s, o: answer, token_threshold=12, window_size=2)
    assert memory.summary == "" and len(memory.window) == 3
    assert f"returned {type(answer).__name__}, not str" in memory.failures[-1].error


# --- special tokens are text ----------------------------------------------------------------------

def test_a_special_token_written_in_a_message_is_counted_as_plain_text():
    text = "楽屋口の張り紙に <|endoftext|> と書いてありました。"
    assert count_text_tokens("<|endoftext|>") > 1  # the marker's characters, not the one special token
    assert count_text_tokens(text) > count_text_tokens(text.replace("<|endoftext|>", ""))
    memory = ConversationMemory(MISSION, MemoryPolicy(window_size=2, token_threshold=100, context_window=500),
                                count_text_tokens, one_letter)
    memory.add_exchange(text, "承知しました。")
    assert memory.build_messages(text)[-1]["content"] == text
