"""Every field of a chat request is honoured or refused by the stand-in, each shown by a test.

The list of fields is the installed openai SDK's; ``protocol.FIELDS`` must name every one of them."""

from __future__ import annotations

import json

import jsonschema
import openai
import pytest
from openai.types.chat.completion_create_params import CompletionCreateParamsBase

from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.standin.protocol import FIELDS

VISITOR = "楽屋口の扉を叩く音がします。酔ったお客様が「開けてくれ」と言っています。"
PLAIN = [{"role": "system", "content": MISSION}, {"role": "user", "content": VISITOR}]
NO_OP_VALUES = {
    "temperature": (1.3, 2.5), "top_p": (0.5, 1.5), "seed": (7, "seven"), "user": ("user-1", 1),
    "safety_identifier": ("hash-1", 1), "metadata": ({"night": "busy"}, {"night": 1}),
    "service_tier": ("flex", "gold"), "prompt_cache_key": ("night", 1), "prompt_cache_retention": ("24h", "1y"),
    "prompt_cache_options": ({"ttl": "1h"}, "1h"), "prediction": ({"type": "content", "content": "x"}, "x"),
}
REFUSED_VALUES = {
    "store": True, "top_logprobs": 2, "logit_bias": {"100": 5}, "frequency_penalty": 0.5, "presence_penalty": 0.5,
    "reasoning_effort": "low", "verbosity": "low", "audio": {"voice": "alloy", "format": "wav"},
    "web_search_options": {}, "moderation": {}, "functions": [{"name": "f", "parameters": {}}],
    "function_call": "auto",
}


def create(**options):
    options.setdefault("messages", PLAIN)
    return StandInModel().client().chat.completions.create(model="gpt-4o", **options)


def refused(**options) -> openai.BadRequestError:
    with pytest.raises(openai.BadRequestError) as caught:
        create(**options)
    return caught.value


def test_the_table_names_every_field_the_sdk_can_send():
    assert set(FIELDS) == set(CompletionCreateParamsBase.__annotations__) | {"stream"}
    assert {rule.handling for rule in FIELDS.values()} == {"honoured", "no-op", "refused"}
    assert set(NO_OP_VALUES) == {name for name, rule in FIELDS.items() if rule.handling == "no-op"}
    assert set(REFUSED_VALUES) == {name for name, rule in FIELDS.items() if rule.handling == "refused"}


def test_an_unknown_field_is_refused_as_the_api_refuses_it():
    error = refused(extra_body={"num_ctx": 8192})
    assert error.body["message"] == "Unrecognized request argument supplied: num_ctx"


@pytest.mark.parametrize("field", sorted(NO_OP_VALUES))
def test_a_no_op_field_leaves_the_reply_unchanged_and_its_value_is_still_checked(field):
    good, bad = NO_OP_VALUES[field]
    assert create(**{field: good}).choices[0].message.content == create().choices[0].message.content
    assert refused(**{field: bad}).param == field


@pytest.mark.parametrize("field", sorted(REFUSED_VALUES))
def test_a_refused_field_is_a_400_naming_it(field):
    error = refused(**{field: REFUSED_VALUES[field]})
    assert error.param == field and field in error.body["message"]


@pytest.mark.parametrize(("field", "default"), [("store", False), ("frequency_penalty", 0), ("logit_bias", {}),
                                                ("logprobs", False), ("n", 1), ("modalities", ["text"])])
def test_asking_for_the_default_is_not_refused(field, default):
    assert create(**{field: default}).choices[0].message.content


@pytest.mark.parametrize(("field", "value"), [("n", 2), ("logprobs", True), ("modalities", ["text", "audio"])])
def test_what_only_has_its_default_here_is_refused_otherwise(field, value):
    assert refused(**{field: value}).param == field


@pytest.mark.parametrize("field", ["max_tokens", "max_completion_tokens"])
def test_both_names_of_the_reply_cap_cut_the_reply_and_count_against_the_window(field):
    response = create(**{field: 3})
    assert response.choices[0].finish_reason == "length" and response.usage.completion_tokens == 3
    tiny = StandInModel(context_limit=create().usage.prompt_tokens + 2).client()
    with pytest.raises(openai.BadRequestError) as over:
        tiny.chat.completions.create(model="gpt-4o", messages=PLAIN, **{field: 3})
    assert over.value.code == "context_length_exceeded"


def test_stop_ends_the_reply_before_the_first_sequence():
    whole = create().choices[0].message.content
    cut = whole.index("。")
    for stop in ("。", ["zzz", "。"]):
        response = create(stop=stop)
        assert response.choices[0].message.content == whole[:cut]
        assert response.choices[0].finish_reason == "stop"
    assert refused(stop=["a", "b", "c", "d", "e"]).param == "stop"


def test_response_format_text_is_the_plain_reply():
    assert create(response_format={"type": "text"}).choices[0].message.content == create().choices[0].message.content


def test_response_format_json_object_is_the_same_reply_as_an_object():
    asks_json = [PLAIN[0], {"role": "user", "content": VISITOR + " Answer in JSON."}]
    reply = json.loads(create(messages=asks_json, response_format={"type": "json_object"}).choices[0].message.content)
    assert reply["reply"] == create(messages=asks_json).choices[0].message.content
    assert all(isinstance(quote, str) and quote for quote in reply["sources"])
    assert refused(response_format={"type": "json_object"}).param == "messages"  # the API wants the word JSON


SCHEMA = {"type": "object", "additionalProperties": False, "required": ["reply", "source", "verdict"],
          "properties": {"reply": {"type": "string"}, "source": {"type": "string"},
                         "verdict": {"type": "string", "enum": ["open the door", "keep the door shut"]}}}


def test_response_format_json_schema_is_filled_from_the_grounded_reply():
    response = create(response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": SCHEMA}})
    value = json.loads(response.choices[0].message.content)
    jsonschema.validate(value, SCHEMA)
    assert value["reply"] == create().choices[0].message.content
    assert value["source"] in MISSION  # the duty clause the reply quoted


def test_a_schema_the_request_cannot_fill_is_a_400_naming_the_field():
    schema = {"type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}
    error = refused(response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": schema}})
    assert error.param == "response_format.json_schema.schema.properties.count"
    with_number = [PLAIN[0], {"role": "user", "content": "お客様が 3 人、楽屋口に来ています。"}]
    response = create(messages=with_number,
                      response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": schema}})
    assert json.loads(response.choices[0].message.content) == {"count": 3}


def test_an_invalid_schema_is_refused():
    error = refused(response_format={"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": 5}}})
    assert error.param == "response_format.json_schema.schema"


def test_tool_fields_are_checked():
    assert refused(tool_choice="auto").param == "tool_choice"  # no tools offered
    assert refused(tools=[{"type": "custom", "custom": {"name": "x"}}]).param == "tools[0].type"
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    assert refused(tools=[tool], tool_choice={"type": "function", "function": {"name": "g"}}).param == "tool_choice"
    for parallel in (True, False):
        assert create(tools=[tool], parallel_tool_calls=parallel).choices[0].message.content


def test_stream_options_need_a_stream_and_obfuscation_is_accepted():
    assert refused(stream_options={"include_usage": True}).param == "stream_options"
    chunks = list(create(stream=True, stream_options={"include_usage": True, "include_obfuscation": True}))
    assert chunks[-1].usage is not None
