"""Under a budget the memory never wedges, and a refused request leaves it exactly as it was.

Each test here is one of the reproductions that once stopped the watchman for the rest of the night.
"""

from __future__ import annotations

import logging

import pytest

from nightwatch import after
from nightwatch.memory.budget import QUESTION_ROOM_TOKENS, ContextBudgetExceeded
from nightwatch.memory import ConversationMemory, MemoryPolicy, ReentrantCallError
from nightwatch.nights import MISSION, busy_night, celebration_eve
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.summarizers import CONTEXT_LIMIT_IN_ERROR, LLMSummarizer, concatenating_summarizer, finished_part
from nightwatch.tokens import count_message_tokens, count_text_tokens, get_encoding

INVENTORY = "目録: " + "贈り物の荷、木箱ひとつ。" * 130  # one message that fills most of a request
LATER_QUESTIONS = [turn.text for turn in celebration_eve().turns[:20]]


def budgeted(summarizer, **policy) -> ConversationMemory:
    settings = {"window_size": 4, "token_threshold": 10_000, "context_window": 2048, "reply_reserve": 256}
    settings.update(policy)
    return ConversationMemory(MISSION, MemoryPolicy(**settings), count_text_tokens, summarizer)


def test_an_exchange_that_fills_the_request_is_evicted_even_when_it_is_the_newest():
    standin = StandInModel()
    agent = after.NightWatchAgent("ヴェスパー", budgeted(ThreeLineSummarizer()), client=standin.client())
    agent.run("申し送り: 祝賀の荷が西回廊へ届きます。")
    agent.memory.add_exchange(INVENTORY, "目録、確かにお預かりしました。")  # handed over in one message
    assert count_text_tokens(INVENTORY) > 2048 - 256 - 600
    alone = count_message_tokens([{"role": "system", "content": MISSION}, {"role": "user", "content": INVENTORY},
                                  {"role": "assistant", "content": "目録、確かにお預かりしました。"},
                                  {"role": "user", "content": LATER_QUESTIONS[0]}])
    assert alone + 256 > 2048  # the premise: even beside no summary, the next question cannot keep it
    for question in LATER_QUESTIONS:  # once 20 of 20 of these were refused
        agent.run(question)
    assert not any(request.refused for request in standin.requests)
    assert all(r.prompt_tokens + 256 <= 2048 for r in standin.requests)
    texts = [exchange.user_text for exchange in agent.memory.archive + agent.memory.window]
    assert texts == ["申し送り: 祝賀の荷が西回廊へ届きます。", INVENTORY, *LATER_QUESTIONS]
    assert any(c.reason == "budget" and c.kept == 0 for c in agent.memory.compactions)


def test_a_summary_without_a_limit_gets_a_cap_from_the_budget_and_never_fills_it():
    memory = budgeted(concatenating_summarizer, token_threshold=300)
    assert memory.summary_cap is not None and memory.summary_cap < 2048 // 3
    night = [turn.text for turn in celebration_eve().turns] + [turn.text for turn in busy_night().turns]
    for question in night:  # once 28 of 30 late questions were refused as the summary grew
        messages = memory.build_messages(question)
        assert count_message_tokens(messages) + 256 <= 2048
        memory.add_exchange(question, "承知いたしました。")
    assert count_text_tokens(memory.summary) <= memory.summary_cap
    assert any(failure.fallback and "over the cap" in failure.error for failure in memory.failures)
    assert [e.user_text for e in memory.archive + memory.window] == night


def test_a_summarizer_that_is_down_cannot_stop_the_night():
    def down(summary, overflow):
        raise ConnectionError("the summarizer's model is unreachable")

    standin = StandInModel(context_limit=1200)
    memory = budgeted(down, context_window=1200, reply_reserve=100, token_threshold=400)
    agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())
    for turn in celebration_eve().turns:
        agent.run(turn.text)
    assert not any(request.refused for request in standin.requests)
    assert all(r.prompt_tokens + 100 <= 1200 for r in standin.requests)
    # Logged twice over: each threshold try left memory alone, each budget fold fell back.
    assert any(not f.fallback for f in memory.failures) and any(f.fallback for f in memory.failures)
    assert all("ConnectionError" in f.error for f in memory.failures)
    assert count_text_tokens(memory.summary) <= memory.summary_cap
    assert [e.user_text for e in memory.archive + memory.window] == [t.text for t in celebration_eve().turns]


def test_a_question_too_long_for_any_request_is_refused_before_anything_is_compacted():
    calls = []

    def counting(summary, overflow):
        calls.append(len(overflow))
        return ThreeLineSummarizer()(summary, overflow)

    memory = budgeted(counting)
    for turn in celebration_eve().turns[:6]:
        memory.add_exchange(turn.text, "承知いたしました。")
    saved = memory.to_json()
    with pytest.raises(ContextBudgetExceeded, match="left as it was") as refused:
        memory.build_messages("目録: " + "贈り物の荷。" * 600)
    assert memory.to_json() == saved and len(memory.window) == 6  # once compacted to 1 first
    assert calls == []  # not even a summarizer call: mission + question alone are over
    assert refused.value.tiers["window"] == 0 and refused.value.over_by > 0


def test_a_question_that_only_fits_without_the_window_is_answered_and_a_failed_fit_changes_nothing():
    memory = budgeted(ThreeLineSummarizer())
    for turn in celebration_eve().turns[:6]:
        memory.add_exchange(turn.text, "承知いたしました。")
    mission_and_question = count_message_tokens(
        [{"role": "system", "content": MISSION}, {"role": "user", "content": INVENTORY[:900]}])
    assert mission_and_question + 256 <= 2048 - memory.summary_cap - 20
    messages = memory.build_messages(INVENTORY[:900])
    assert count_message_tokens(messages) + 256 <= 2048
    assert len(memory.archive) + len(memory.window) == 6


def test_the_llm_summarizer_budgets_its_own_requests_on_a_small_model():
    standin = StandInModel(context_limit=1024)
    summarizer = LLMSummarizer(standin.client(), max_completion_tokens=200, context_window=1024)
    memory = budgeted(summarizer, context_window=1024, reply_reserve=150, token_threshold=400)
    agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())
    for turn in celebration_eve().turns:  # once every summary request was refused, then every turn
        agent.run(turn.text)
    assert summarizer.calls > 0
    assert not any(request.refused for request in standin.requests)
    assert "西回廊" in memory.summary or "西回廊" in str(memory.window)


def test_a_large_overflow_is_folded_in_batches_that_each_fit():
    standin = StandInModel(context_limit=700)
    summarizer = LLMSummarizer(standin.client(), max_completion_tokens=150, context_window=700)
    memory = budgeted(concatenating_summarizer)
    for turn in celebration_eve().turns[:20]:
        memory.add_exchange(turn.text, "承知いたしました。")
    summary = summarizer("", memory.window)
    assert summary and summarizer.calls > 1
    assert all(r.prompt_tokens + 150 <= 700 and not r.refused for r in standin.requests)


def test_an_endpoint_smaller_than_configured_teaches_the_summarizer_its_limit(caplog):
    standin = StandInModel(context_limit=800)
    summarizer = LLMSummarizer(standin.client(), max_completion_tokens=250)  # believes it has 128k
    pairs = budgeted(concatenating_summarizer)
    for turn in celebration_eve().turns[:20]:
        pairs.add_exchange(turn.text, "承知いたしました。")
    with caplog.at_level(logging.WARNING):
        assert summarizer("", pairs.window)
    assert summarizer.context_window == 800 and "800" in caplog.text
    assert standin.requests[0].refused and not any(r.refused for r in standin.requests[1:])


def test_a_summary_cut_at_the_reply_cap_keeps_its_finished_lines_and_the_night_goes_on():
    standin = StandInModel()
    summarizer = LLMSummarizer(standin.client(), max_completion_tokens=200, context_window=2048)
    memory = budgeted(summarizer, token_threshold=400, summary_token_limit=400)
    agent = after.NightWatchAgent("ヴェスパー", memory, client=standin.client())
    night = celebration_eve().turns + busy_night().turns
    for turn in night:  # once SummaryTruncatedError on every fold from exchange 48 on
        agent.run(turn.text)
        # Every compaction the threshold asked for happened: the window never piles up.
        assert memory.window_tokens() <= 400 or len(memory.window) <= 4
    assert summarizer.cut_replies > 0
    assert not [f for f in memory.failures if "SummaryTruncatedError" in f.error]
    assert [e.user_text for e in memory.archive + memory.window] == [t.text for t in night]


def test_with_its_default_limit_the_llm_summarizer_folds_a_whole_eve_uncut():
    standin = StandInModel()
    summarizer = LLMSummarizer(standin.client())
    pairs = budgeted(concatenating_summarizer)
    for turn in celebration_eve().turns:
        pairs.add_exchange(turn.text, "承知いたしました。")
    summary = summarizer("", pairs.window)
    assert summarizer.cut_replies == 0 and "西回廊" in summary
    assert count_text_tokens(summary) > 200  # the old default would have cut it


def test_a_cut_reply_keeps_whole_lines_and_the_finished_sentences_of_the_cut_line():
    assert finished_part("申し送り: 荷が届く。／鍵を替えた。／合鍵は二") == "申し送り: 荷が届く。／鍵を替えた。"
    assert finished_part("申し送り: 荷が届く。\n出来事: 酔った客") == "申し送り: 荷が届く。"
    assert finished_part("Notes: the crates arrive. / The key was chan") == "Notes: the crates arrive."
    assert finished_part("申し送り: 祝賀の荷") == ""


@pytest.mark.parametrize("wording", [
    "Input tokens exceed the configured limit of 800 tokens. Your messages resulted in 900 tokens.",
    "This model's maximum context length is 800 tokens. However, your messages resulted in 900 tokens.",
])
def test_the_limit_is_read_from_either_wording_of_the_refusal(wording):
    assert CONTEXT_LIMIT_IN_ERROR.search(wording)[1] == "800"


# --- a summarizer that calls back into the memory ------------------------------------------------

def test_a_summarizer_that_adds_an_exchange_is_refused_and_nothing_is_lost_or_doubled():
    memory = None
    refusals = []

    def meddling(summary, overflow):
        try:
            memory.add_exchange("割り込み", "割り込みの返事")
        except ReentrantCallError as exc:
            refusals.append(str(exc))
        return concatenating_summarizer(summary, overflow)

    memory = budgeted(meddling, token_threshold=60, window_size=2)
    night = [f"問{i}: 西回廊の荷を見ました。" for i in range(8)]
    for text in night:
        memory.add_exchange(text, "承知いたしました。")
    assert refusals and "summarizer is running" in refusals[0]
    held = [e.user_text for e in memory.archive + memory.window]
    assert held == night  # the interloper was refused; no exchange lost, none kept twice
    assert memory.exchanges_added == 8


def test_a_summarizer_that_lets_the_refusal_escape_is_logged_as_a_failure():
    memory = None

    def meddling(summary, overflow):
        memory.build_messages("割り込み")
        return "never"

    memory = budgeted(meddling, token_threshold=60, window_size=2)
    for i in range(4):
        memory.add_exchange(f"問{i}: 西回廊の荷を見ました。", "承知いたしました。")
    assert memory.failures and "ReentrantCallError" in memory.failures[0].error
    assert [e.user_text for e in memory.window] == [f"問{i}: 西回廊の荷を見ました。" for i in range(4)]
    assert memory.archive == [] and memory.summary == ""


# --- a summary cap larger than the room -----------------------------------------------------------

def test_a_summary_cap_larger_than_the_whole_window_is_refused_at_the_door():
    # The reproduction: accepted before, then every question was refused once the summary grew.
    with pytest.raises(ValueError, match=r"summary_token_limit \(1000\) \+ reply_reserve \(50\) = 1050"):
        MemoryPolicy(window_size=2, token_threshold=100, context_window=400, reply_reserve=50,
                     summary_token_limit=1000)


def summary_frame_tokens() -> int:
    """The summary message without its text, counted here independently of the memory."""
    from nightwatch.memory import SUMMARY_HEADER

    return count_message_tokens([{"role": "system", "content": f"{SUMMARY_HEADER}\n"}]) - 3  # no primer


def largest_cap(context_window: int, reserve: int) -> int:
    floor = count_message_tokens([{"role": "system", "content": MISSION}, {"role": "user", "content": ""}])
    return context_window - reserve - floor - summary_frame_tokens() - QUESTION_ROOM_TOKENS  # an ordinary question


def test_a_cap_that_fits_beside_the_mission_only_without_a_question_is_refused_with_its_numbers():
    cap = largest_cap(400, 50)
    with pytest.raises(ValueError, match=rf"= {400 + 1} tokens, 1 more than the context window of 400; "
                                         rf"the largest cap that fits is {cap}"):
        budgeted(concatenating_summarizer, context_window=400, reply_reserve=50, summary_token_limit=cap + 1)


@pytest.mark.parametrize("spare", [QUESTION_ROOM_TOKENS, QUESTION_ROOM_TOKENS - 1, 1], ids=["100", "99", "1"])
def test_every_cap_the_door_accepts_still_answers_an_ordinary_question(spare):
    # The wedge: the largest cap once left room for a one-token question only, so once the summary
    # reached it every ordinary question was refused, though mission + question + reserve fit.
    cap = largest_cap(400, 50) + QUESTION_ROOM_TOKENS - spare  # leaves ``spare`` tokens for the question
    try:
        memory = budgeted(concatenating_summarizer, context_window=400, reply_reserve=50, summary_token_limit=cap,
                          window_size=1, token_threshold=40)
    except ValueError as refused:  # refused at the door, saying why: the only other honest answer
        assert spare < QUESTION_ROOM_TOKENS and f"up to {QUESTION_ROOM_TOKENS} tokens" in str(refused)
        return
    question = get_encoding().decode(get_encoding().encode("西回廊の荷について、" * 30)[:QUESTION_ROOM_TOKENS])
    assert count_text_tokens(question) <= QUESTION_ROOM_TOKENS
    for number in range(30):
        memory.add_exchange("?", f"{number}時、西回廊の荷に異常はありません。楽屋口は閉じたままです。")
    assert count_text_tokens(memory.summary) > cap - 30  # the summary has grown to (about) its cap
    messages = memory.build_messages(question)
    assert messages[-1]["content"] == question and count_message_tokens(messages) + 50 <= 400


def test_the_door_says_how_large_a_question_its_cap_leaves_room_for():
    cap = largest_cap(400, 50)
    with pytest.raises(ValueError, match=rf"room for a question of up to {QUESTION_ROOM_TOKENS} tokens"):
        budgeted(concatenating_summarizer, context_window=400, reply_reserve=50, summary_token_limit=cap + 1)


def test_with_the_largest_cap_that_fits_a_night_of_short_questions_is_never_refused():
    # The liveness promise at its edge: the summary reaches its cap and one-character questions still fit.
    cap = largest_cap(400, 50)
    memory = budgeted(concatenating_summarizer, context_window=400, reply_reserve=50, summary_token_limit=cap,
                      window_size=1, token_threshold=40)
    for number in range(30):
        messages = memory.build_messages("?")
        assert count_message_tokens(messages) + 50 <= 400
        memory.add_exchange("?", f"{number}時、西回廊の荷に異常はありません。楽屋口は閉じたままです。")
    assert count_text_tokens(memory.summary) > cap - 30  # the summary did grow to (about) its cap
    assert memory.exchanges_added == 30


def test_a_nested_call_inside_the_summarizer_does_not_switch_the_guard_off_for_the_outer_call():
    # The guard once was a flag: the nested draft reset it on its way out, and the later add_exchange
    # in the same outer call was let through.
    memory = None
    refused: list[str] = []
    calls = []

    def nesting(summary, overflow):
        calls.append(len(calls))
        if calls == [0]:  # the first outer call: nest once (the summarizer runs again inside), then meddle
            memory.draft_summary(summary, overflow)
            for meddle in (memory.rebuild_summary, lambda: memory.add_exchange("割り込み", "返事")):
                try:
                    meddle()
                except ReentrantCallError as exc:
                    refused.append(str(exc).split()[0])
        return concatenating_summarizer(summary, overflow)

    memory = budgeted(nesting, token_threshold=60, window_size=2)
    night = [f"問{i}: 西回廊の荷を見ました。" for i in range(6)]
    for text in night:
        memory.add_exchange(text, "承知いたしました。")
    assert calls[:2] == [0, 1] and memory.compactions
    assert refused == ["rebuild_summary", "add_exchange"]
    assert [e.user_text for e in memory.archive + memory.window] == night  # the interloper left no trace
    assert memory._summarizer_depth == 0
