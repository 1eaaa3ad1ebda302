"""Prompt caching counted on requests whose shared prefixes are known: every expected count below is
worked out by hand from how the requests were built, not by the code under test."""

from __future__ import annotations

import pytest

from nightwatch.lab.caching import (
    COST_COLUMNS, Call, Prices, common_prefix, cost_table, explicit_calls, implicit_cached, implicit_calls,
    message_ends, prompt_token_ids, tier_breakpoints,
)
from nightwatch.tokens import count_message_tokens
from nightwatch.tokens.counting import REPLY_PRIMER_TOKENS


def block(start: int, length: int) -> list[int]:
    """``length`` distinct token ids from ``start``: two blocks with different starts share nothing."""
    return list(range(start, start + length))


MISSION = block(10_000, 1100)      # a fixed head of 1,100 tokens
SUMMARY_1 = block(20_000, 200)
SUMMARY_2 = block(30_000, 220)     # the summary after a compaction: rewritten from its first token
WINDOW_1 = block(40_000, 100)
WINDOW_2 = block(50_000, 50)
WINDOW_3 = block(60_000, 80)
QUESTION = [block(70_000 + 1000 * n, 10) for n in range(4)]


def test_common_prefix_stops_at_the_first_difference():
    assert common_prefix([1, 2, 3, 4], [1, 2, 9, 4]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2
    assert common_prefix([], [1]) == 0


@pytest.mark.parametrize(("prefix", "cached"), [(0, 0), (1023, 0), (1024, 1024), (1151, 1024), (1152, 1152),
                                                (1300, 1280)])
def test_implicit_rule_counts_whole_steps_from_the_minimum(prefix, cached):
    assert implicit_cached(prefix) == cached


def test_implicit_calls_read_the_longest_prefix_shared_with_any_earlier_request():
    first = MISSION + WINDOW_1                        # 1,200 tokens
    second = MISSION + WINDOW_2                       # shares the 1,100 of the mission with the first
    third = MISSION + WINDOW_1 + QUESTION[0]          # shares all 1,200 of the first, only 1,100 of the second
    short = block(90_000, 500)                        # shares nothing, and is under the minimum anyway
    calls = implicit_calls([first, second, third, short], [7, 8, 9, 1], primer=3)
    assert [call.sent for call in calls] == [1203, 1153, 1213, 503]
    # 1,100 -> 8 steps of 128 = 1,024; 1,200 -> 9 steps = 1,152
    assert [call.cached for call in calls] == [0, 1024, 1152, 0]
    assert [call.written for call in calls] == [0, 0, 0, 0]   # no write fee before GPT-5.6: nothing counted
    assert [call.reply for call in calls] == [7, 8, 9, 1]


def three_tier_night() -> tuple[list[list[int]], list[list[int]]]:
    """Three calls: the window grows, then a compaction rewrites the summary."""
    requests = [
        MISSION + SUMMARY_1 + WINDOW_1 + QUESTION[0],
        MISSION + SUMMARY_1 + WINDOW_1 + WINDOW_2 + QUESTION[1],
        MISSION + SUMMARY_2 + WINDOW_3 + QUESTION[2],
    ]
    breakpoints = [[1100, 1300, 1400], [1100, 1300, 1450], [1100, 1320, 1400]]
    return requests, breakpoints


def test_explicit_breakpoints_read_what_was_written_and_write_the_rest():
    requests, breakpoints = three_tier_night()
    calls = explicit_calls(requests, breakpoints, [5, 5, 5], primer=0)
    assert [call.sent for call in calls] == [1410, 1460, 1410]
    # call 1 reads nothing and writes up to its furthest breakpoint (1,400);
    # call 2 reads the 1,400 written and writes only the 50 of the new exchange;
    # call 3 follows a compaction: only the mission (1,100) is still written, so it writes from there to 1,400
    assert [call.cached for call in calls] == [0, 1400, 1100]
    assert [call.written for call in calls] == [1400, 50, 300]


def test_explicit_breakpoints_are_not_rounded_to_steps():
    requests = [MISSION + QUESTION[0], MISSION + QUESTION[1]]
    calls = explicit_calls(requests, [[1100], [1100]], [0, 0], primer=0)
    assert [call.cached for call in calls] == [0, 1100]   # the implicit rule would give 1,024
    assert [call.written for call in calls] == [1100, 0]


def test_a_breakpoint_under_the_minimum_is_not_written():
    head = block(10_000, 600)
    requests = [head + QUESTION[0], head + QUESTION[1]]
    calls = explicit_calls(requests, [[600], [600]], [0, 0], primer=0)
    assert [(call.cached, call.written) for call in calls] == [(0, 0), (0, 0)]
    calls = explicit_calls(requests, [[600], [600]], [0, 0], minimum=500, primer=0)
    assert [(call.cached, call.written) for call in calls] == [(0, 600), (600, 0)]


def test_only_the_latest_four_breakpoints_of_a_request_are_written():
    request = block(0, 2000)
    marks = [1100, 1200, 1300, 1400, 1500]
    first, second = explicit_calls([request, block(0, 1150) + QUESTION[0]], [marks, [1100]], [0, 0], primer=0)
    assert (first.cached, first.written) == (0, 1500)
    # 1,100 was the fifth from the end, so it was never written: the second call reads nothing and writes it
    assert (second.cached, second.written) == (0, 1100)


def test_explicit_calls_refuse_breakpoints_outside_the_request():
    with pytest.raises(ValueError, match="outside"):
        explicit_calls([block(0, 10)], [[11]], [0])
    with pytest.raises(ValueError, match="breakpoint lists"):
        explicit_calls([block(0, 10)], [], [0])
    with pytest.raises(ValueError, match="reply counts"):
        implicit_calls([block(0, 10)], [])


def test_prompt_token_ids_count_like_the_collection_and_breakpoints_fall_on_message_ends():
    messages = [{"role": "system", "content": "夜通し見回ること。"}, {"role": "system", "content": "これまでの夜の束ね: 鎧戸。"},
                {"role": "user", "content": "八時です。"}, {"role": "assistant", "content": "八時、異常なし。"},
                {"role": "user", "content": "報告を。"}]
    ids = prompt_token_ids(messages)
    assert len(ids) + REPLY_PRIMER_TOKENS == count_message_tokens(messages)
    ends = message_ends(messages)
    assert ends[-1] == len(ids)
    assert ends == [len(prompt_token_ids(messages[:n])) for n in range(1, 6)]
    assert tier_breakpoints(messages) == [ends[0], ends[1], ends[3]]   # after the mission, the summary, the window
    without_summary = [messages[0], *messages[2:]]
    assert tier_breakpoints(without_summary) == [ends[0], len(prompt_token_ids(without_summary[:3]))]


def test_cost_bills_each_input_token_at_exactly_one_rate():
    prices = Prices("test-model", input=2.0, cached_input=0.5, cache_write=2.5, output=8.0, source="made up for the test")
    call = Call(sent=1_000_000, cached=500_000, written=200_000, reply=100_000)
    # 300,000 uncached x 2 + 500,000 x 0.5 + 200,000 x 2.5 + 100,000 x 8, per million
    assert prices.cost(call) == pytest.approx(0.6 + 0.25 + 0.5 + 0.8)


def test_cost_table_has_one_shape_for_every_night():
    prices = Prices("test-model", input=1.0, cached_input=0.1, cache_write=1.25, output=4.0, source="made up")
    requests, breakpoints = three_tier_night()
    nights = {"explicit": explicit_calls(requests, breakpoints, [5, 5, 5], primer=0),
              "implicit": implicit_calls(requests, [5, 5, 5], primer=0)}
    table = cost_table(nights, prices)
    assert list(table.columns) == [*COST_COLUMNS[:4], "費用（USD）"]
    assert table.loc["explicit"].iloc[:4].tolist() == [4280, 2500, 1750, 15]
    # implicit: call 2 shares 1,400 with call 1 -> 1,280; call 3 shares the mission's 1,100 -> 1,024
    assert table.loc["implicit"].iloc[:4].tolist() == [4280, 2304, 0, 15]
    explicit_cost = ((4280 - 2500 - 1750) * 1.0 + 2500 * 0.1 + 1750 * 1.25 + 15 * 4.0) / 1e6
    assert table.loc["explicit", "費用（USD）"] == pytest.approx(explicit_cost)
    assert table.attrs["prices"] is prices


def test_bad_counts_and_prices_are_refused():
    with pytest.raises(ValueError, match="exceed"):
        Call(sent=10, cached=8, written=5, reply=0)
    with pytest.raises(ValueError, match="negative"):
        Call(sent=10, cached=-1, written=0, reply=0)
    with pytest.raises(ValueError, match="negative"):
        Prices("m", input=-1, cached_input=0, cache_write=0, output=0, source="s")


def test_a_call_is_read_from_the_usage_either_api_returns():
    from openai.types import CompletionUsage
    from openai.types.completion_usage import PromptTokensDetails
    from openai.types.responses import ResponseUsage
    from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

    chat = CompletionUsage(prompt_tokens=1500, completion_tokens=40, total_tokens=1540,
                           prompt_tokens_details=PromptTokensDetails(cached_tokens=1100, cache_write_tokens=300))
    assert Call.from_usage(chat) == Call(sent=1500, cached=1100, written=300, reply=40)
    older = CompletionUsage(prompt_tokens=1200, completion_tokens=9, total_tokens=1209,
                            prompt_tokens_details=PromptTokensDetails(cached_tokens=1024))
    assert Call.from_usage(older) == Call(sent=1200, cached=1024, written=0, reply=9)
    bare = CompletionUsage(prompt_tokens=10, completion_tokens=2, total_tokens=12)
    assert Call.from_usage(bare) == Call(sent=10, cached=0, written=0, reply=2)
    responses = ResponseUsage(input_tokens=2000, output_tokens=55, total_tokens=2055,
                              input_tokens_details=InputTokensDetails(cached_tokens=1600, cache_write_tokens=120),
                              output_tokens_details=OutputTokensDetails(reasoning_tokens=0))
    assert Call.from_usage(responses) == Call(sent=2000, cached=1600, written=120, reply=55)
