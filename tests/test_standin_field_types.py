"""The fields the protocol table calls honoured take only values of their type: a wrong type is a 400
naming the field (``"no"`` is not false, ``"banana"`` is not a yes), as OpenAI answers it."""

from __future__ import annotations

import json

import httpx2
import pytest

from nightwatch.standin import StandInModel

ASK = [{"role": "user", "content": "扉を確かめてください。"}]
TOOL = {"type": "function", "function": {"name": "check_door", "description": "扉を確かめる",
                                         "parameters": {"type": "object", "properties": {}}}}
SCHEMA = {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object", "properties": {}}}}


def status_and_param(**fields: object) -> tuple[int, str | None]:
    body = {"model": "gpt-4o", "messages": ASK, **fields}
    response = StandInModel().handle(httpx2.Request("POST", "http://standin/v1/chat/completions",
                                                    content=json.dumps(body).encode()))
    return response.status_code, (response.json().get("error") or {}).get("param") if response.status_code != 200 else None


@pytest.mark.parametrize("fields, param", [
    ({"tools": [TOOL], "parallel_tool_calls": "banana"}, "parallel_tool_calls"),
    ({"tools": [TOOL], "parallel_tool_calls": 1}, "parallel_tool_calls"),
    ({"stream": True, "stream_options": {"include_usage": "no"}}, "stream_options.include_usage"),
    ({"stream": True, "stream_options": {"include_obfuscation": "false"}}, "stream_options.include_obfuscation"),
    ({"logprobs": 0}, "logprobs"),
    ({"response_format": {**SCHEMA, "json_schema": {**SCHEMA["json_schema"], "strict": "yes"}}},
     "response_format.json_schema.strict"),
    ({"tools": [{**TOOL, "function": {**TOOL["function"], "strict": "true"}}]}, "tools[0].function.strict"),
])
def test_a_wrong_type_in_an_honoured_field_is_a_400_naming_it(fields, param):
    assert status_and_param(**fields) == (400, param)


@pytest.mark.parametrize("fields", [
    {"tools": [TOOL], "parallel_tool_calls": False}, {"tools": [TOOL], "parallel_tool_calls": True},
    {"stream": True, "stream_options": {"include_usage": False}}, {"logprobs": False},
    {"response_format": {**SCHEMA, "json_schema": {**SCHEMA["json_schema"], "strict": False}}},
])
def test_the_same_fields_with_a_boolean_are_served(fields):
    assert status_and_param(**fields) == (200, None)
