"""Behaviours no unit test pinned: each test here fails when one plausible bug is put back.

A mutation run (unit tests only) once let these through: a fold one exchange too greedy at the exact
boundary, a summarizer's ``shorten`` that raises or overshoots, the same refused limit adopted again,
a summary batch one token over its room, three of the load checks, ``rebuild_summary`` unguarded, and
the mission check without the reply reserve. Sizes are counted here by hand, one token a character.
"""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from nightwatch.memory import ConversationMemory, MemoryPolicy, ReentrantCallError
from nightwatch.memory.budget import evictions_needed
from nightwatch.summarizers import (
    MAX_LIMITS_LEARNED_PER_FOLD, LLMSummarizer, UnusableAnswerError, concatenating_summarizer, summary_request,
)
from nightwatch.tokens import estimate_tokens_by_chars

MISSION = "務めを守る"
NIGHT = [(f"問{i}です", f"答{i}です") for i in range(6)]


def char_memory(summarizer, **policy) -> ConversationMemory:
    settings = {"window_size": 2, "token_threshold": 20} | policy
    return ConversationMemory(MISSION, MemoryPolicy(**settings), estimate_tokens_by_chars, summarizer)


def chat_size(messages) -> int:
    return sum(3 + len(m["role"]) + len(m["content"]) for m in messages) + 3


# --- the fold at the exact boundary -------------------------------------------------------------------

def test_the_fold_stops_as_soon_as_the_rest_fits_exactly():
    assert evictions_needed(base=40, pairs=[30, 30, 30], room=100) == 1  # 40 + 60 = 100: one is enough
    assert evictions_needed(base=41, pairs=[30, 30, 30], room=100) == 2
    assert evictions_needed(base=10, pairs=[30, 30, 30], room=100) == 1  # at least one, even if all fit


# --- a summarizer's shorten() ------------------------------------------------------------------------

class Shortening:
    """Answers over the cap; its ``shorten`` raises, overshoots, or works."""

    def __init__(self, shorten_does: str) -> None:
        self.shorten_does = shorten_does

    def __call__(self, summary, overflow):
        return "束" * 50

    def shorten(self, summary, token_limit, estimate_tokens):
        if self.shorten_does == "raise":
            raise RuntimeError("shorten fell over")
        if self.shorten_does == "overshoot":
            return "短" * (token_limit + 1)
        return "短" * token_limit


@pytest.mark.parametrize("shorten_does", ["raise", "overshoot"])
def test_a_shorten_that_raises_or_overshoots_is_clipped_by_the_memory(shorten_does):
    memory = char_memory(Shortening(shorten_does), summary_token_limit=20)
    for user_text, reply in NIGHT:
        memory.add_exchange(user_text, reply)  # a raising shorten must not escape add_exchange
    assert memory.compactions and 0 < len(memory.summary) <= 20
    assert all("clipped by the memory" in failure.error for failure in memory.failures)


def test_a_shorten_that_works_is_taken_as_it_is():
    memory = char_memory(Shortening("works"), summary_token_limit=20)
    for user_text, reply in NIGHT:
        memory.add_exchange(user_text, reply)
    assert memory.summary == "短" * 20 and not memory.failures


# --- the LLM summarizer: refusals, batches, answers it cannot read ----------------------------------

def scripted_client(answer) -> tuple[openai.OpenAI, list[dict]]:
    """A client whose endpoint calls ``answer(request_body) -> httpx2.Response``; requests are kept."""
    sent: list[dict] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        sent.append(json.loads(request.content))
        return answer(sent[-1])

    client = openai.OpenAI(api_key="unused", base_url="http://model.invalid/v1", max_retries=0,
                           http_client=httpx2.Client(transport=httpx2.MockTransport(handle)))
    return client, sent


def refusal(limit: int) -> httpx2.Response:
    return httpx2.Response(400, json={"error": {
        "message": f"This model's maximum context length is {limit} tokens. However, you requested more.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})


def completion(content: str) -> httpx2.Response:
    return httpx2.Response(200, json={
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})


def pairs(count: int):
    from nightwatch.memory import Exchange

    return [Exchange(user_text=f"問{i}", watchman_reply=f"答{i}") for i in range(count)]


def test_a_refusal_naming_the_limit_already_known_is_not_adopted_again():
    client, sent = scripted_client(lambda body: refusal(800))
    summarizer = LLMSummarizer(client, max_completion_tokens=100, context_window=800, estimate_tokens=estimate_tokens_by_chars)
    with pytest.raises(openai.BadRequestError):
        summarizer("", pairs(2))
    assert len(sent) == 1  # no second request: the same limit teaches nothing


def test_a_server_naming_ever_smaller_limits_is_believed_only_a_few_times_per_fold():
    limits = iter(range(5000, 100, -1))
    client, sent = scripted_client(lambda body: refusal(next(limits)))
    summarizer = LLMSummarizer(client, max_completion_tokens=50, context_window=6000, estimate_tokens=estimate_tokens_by_chars)
    with pytest.raises(openai.BadRequestError):
        summarizer("", pairs(2))
    assert len(sent) == MAX_LIMITS_LEARNED_PER_FOLD + 1  # it used to be about a thousand, then RecursionError


@pytest.mark.parametrize(("slack", "requests"), [(0, 1), (-1, 2)])
def test_a_batch_that_fits_exactly_goes_in_one_request_and_one_token_over_is_split(slack, requests):
    two = chat_size(summary_request("", pairs(2)))
    client, sent = scripted_client(lambda body: completion("束ね"))
    summarizer = LLMSummarizer(client, max_completion_tokens=10, context_window=two + 10 + slack,
                               estimate_tokens=estimate_tokens_by_chars)
    summarizer("", pairs(2))
    assert len(sent) == requests


@pytest.mark.parametrize(("answer", "says"), [
    (lambda body: httpx2.Response(200, json={"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                             "choices": []}), "a completion with no choices"),
    (lambda body: httpx2.Response(200, content=b"<html>proxy</html>", headers={"content-type": "text/html"}),
     "it sent str '<html>proxy</html>'"),
    (lambda body: httpx2.Response(200, content=b'{"choices": [{"mess', headers={"content-type": "application/json"}),
     "not valid JSON"),
])
def test_an_answer_the_summarizer_cannot_read_says_what_the_server_sent(answer, says):
    client, _ = scripted_client(answer)
    summarizer = LLMSummarizer(client, max_completion_tokens=50, context_window=4000, estimate_tokens=estimate_tokens_by_chars)
    with pytest.raises(UnusableAnswerError, match=says.replace("(", r"\(").replace("[", r"\[")):
        summarizer("", pairs(1))


# --- loading checks what a memory could never have produced ------------------------------------------

def saved_night() -> dict:
    memory = char_memory(concatenating_summarizer)
    for user_text, reply in NIGHT:
        memory.add_exchange(user_text, reply)
    assert len(memory.compactions) >= 2
    return json.loads(memory.to_json())


def load(state: dict) -> ConversationMemory:
    return ConversationMemory.from_json(json.dumps(state), estimate_tokens_by_chars, concatenating_summarizer)


def test_a_summary_with_an_empty_archive_is_refused_on_load():
    state = saved_night()
    state["window"] = state["archive"] + state["window"]
    state["archive"], state["compactions"] = [], []
    with pytest.raises(ValueError, match="a summary with an empty archive"):
        load(state)


def test_a_failure_after_the_last_exchange_is_refused_on_load():
    state = saved_night()
    state["failures"] = [{"after_exchange": state["exchanges_added"] + 1, "error": "later", "fallback": False}]
    with pytest.raises(ValueError, match="failure is recorded after the last exchange"):
        load(state)


def test_compactions_out_of_order_are_refused_on_load():
    state = saved_night()
    state["compactions"] = state["compactions"][::-1]
    with pytest.raises(ValueError, match="compactions must be in order"):
        load(state)


def test_the_untampered_night_loads():
    assert load(saved_night()).exchanges_added == len(NIGHT)


# --- the guard and the door -------------------------------------------------------------------------

def test_rebuild_summary_runs_its_summarizer_under_the_guard():
    memory = None
    refused = []

    def meddling(summary, overflow):
        try:
            memory.add_exchange("割り込み", "返事")
        except ReentrantCallError:
            refused.append(len(overflow))
        return concatenating_summarizer(summary, overflow)

    memory = char_memory(meddling)
    for user_text, reply in NIGHT:
        memory.add_exchange(user_text, reply)
    folds = len(refused)
    memory.rebuild_summary()
    assert len(refused) == folds + 1 and refused[-1] == len(memory.archive)
    assert memory.exchanges_added == len(NIGHT)


def test_rebuild_summary_called_from_inside_the_summarizer_is_refused():
    memory = None
    refused = []

    def rebuilding(summary, overflow):
        try:
            memory.rebuild_summary()
        except ReentrantCallError as exc:
            refused.append(str(exc).split()[0])
        return concatenating_summarizer(summary, overflow)

    memory = char_memory(rebuilding)
    for user_text, reply in NIGHT:
        memory.add_exchange(user_text, reply)
    assert refused and set(refused) == {"rebuild_summary"}


def test_the_mission_check_counts_the_reply_reserve():
    floor = chat_size([{"role": "system", "content": MISSION}, {"role": "user", "content": ""}])
    with pytest.raises(ValueError, match=rf"the mission alone \(with the reply reserve of 6\) needs {floor + 6} tokens, 1 more"):
        char_memory(concatenating_summarizer, context_window=floor + 5, reply_reserve=6)
