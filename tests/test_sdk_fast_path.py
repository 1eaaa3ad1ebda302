"""The SDK fast path sends the same request: the SDK's transform with and without it, compared on
generated chat and Responses requests, and byte for byte on the wire."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, TypedDict

import httpx2
import openai
import openai._utils._transform as sdk_transform
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai._utils import PropertyInfo
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

from nightwatch.standin import sdk_fast_path

text = st.text(max_size=30)
parts = st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": text}), min_size=1, max_size=3)
content = st.one_of(text, parts)
call = st.fixed_dictionaries({"id": text, "type": st.just("function"),
                              "function": st.fixed_dictionaries({"name": text, "arguments": text})})
message = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["system", "developer", "user"]), "content": content},
                          optional={"name": text}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.one_of(st.none(), text)},
                          optional={"tool_calls": st.lists(call, max_size=2)}),
    st.fixed_dictionaries({"role": st.just("tool"), "content": content, "tool_call_id": text}),
)
json_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), text),
                          lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(text, inner, max_size=3)),
                          max_leaves=8)
tool = st.fixed_dictionaries({"type": st.just("function"), "function": st.fixed_dictionaries(
    {"name": text, "description": text, "parameters": st.dictionaries(text, json_value, max_size=3)})})
chat_body = st.fixed_dictionaries({"model": text, "messages": st.lists(message, min_size=1, max_size=6)},
                                  optional={"tools": st.lists(tool, max_size=2), "temperature": st.floats(0, 2),
                                            "metadata": st.dictionaries(text, text, max_size=2)})
item = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "developer"]), "content": text},
                          optional={"type": st.just("message")}),
    st.fixed_dictionaries({"type": st.just("function_call"), "call_id": text, "name": text, "arguments": text}),
    st.fixed_dictionaries({"type": st.just("function_call_output"), "call_id": text, "output": text}),
)
responses_body = st.fixed_dictionaries({"model": text, "input": st.one_of(text, st.lists(item, max_size=5))},
                                       optional={"instructions": text, "previous_response_id": text,
                                                 "truncation": st.sampled_from(["auto", "disabled"])})


def both_ways(body: dict, kind: type) -> tuple[object, object]:
    sdk_fast_path.uninstall()
    try:
        slow = sdk_transform.maybe_transform(body, kind)
    finally:
        sdk_fast_path.install()
    return slow, sdk_transform.maybe_transform(body, kind)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chat_body)
def test_a_chat_request_transforms_the_same_with_and_without_the_fast_path(body):
    slow, fast = both_ways(body, CompletionCreateParamsNonStreaming)
    assert fast == slow


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(responses_body)
def test_a_responses_request_transforms_the_same_with_and_without_the_fast_path(body):
    slow, fast = both_ways(body, ResponseCreateParamsNonStreaming)
    assert fast == slow


class Card(TypedDict, total=False):
    card_id: Annotated[str, PropertyInfo(alias="cardID")]
    when: Annotated[datetime.date, PropertyInfo(format="iso8601")]


def test_what_needs_transforming_still_takes_the_sdks_road():
    assert not sdk_fast_path.transforms_nothing(Card)
    assert sdk_transform.transform({"card_id": "x", "when": datetime.date(2026, 12, 4)}, Card) == {
        "cardID": "x", "when": "2026-12-04"}
    assert sdk_transform.transform({"card_id": "x"}, Card) == {"cardID": "x"}  # plain data, but an alias
    assert not sdk_fast_path.plain_json({"when": datetime.date(2026, 12, 4)})
    assert not sdk_fast_path.plain_json(("a", "tuple"))


def sent_bytes(create) -> bytes:
    seen: list[bytes] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.content)
        return httpx2.Response(400, json={"error": {"message": "stop here", "type": "x", "param": None, "code": None}})

    client = openai.OpenAI(api_key="k", base_url="http://x/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handle)),
                           max_retries=0)
    with pytest.raises(openai.BadRequestError):
        create(client)
    return seen[0]


@pytest.mark.parametrize("create", [
    lambda c: c.chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": "務め"}, {"role": "user", "content": [{"type": "text", "text": "一時です"}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
                                                             "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"}], max_completion_tokens=5, temperature=0),
    lambda c: c.responses.create(model="gpt-4o", instructions="務め", input=[{"role": "user", "content": "一時"}],
                                 truncation="auto", tools=[{"type": "function", "name": "f", "parameters": {}}]),
])
def test_the_bytes_on_the_wire_are_the_same(create):
    sdk_fast_path.uninstall()
    try:
        slow = sent_bytes(create)
    finally:
        sdk_fast_path.install()
    assert json.loads(sent_bytes(create)) == json.loads(slow)
    assert sent_bytes(create) == slow
