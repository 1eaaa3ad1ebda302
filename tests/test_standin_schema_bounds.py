"""No schema a request carries can stop the stand-in: every shape the validator accepts is filled or
refused with a 400 naming where, cycles and deep nesting are refused, patterns cannot backtrack for
ever, arrays cannot multiply a small request into a vast reply, and every number filled is JSON."""

from __future__ import annotations

import json
import threading

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nightwatch.standin import StandInModel
from nightwatch.standin.fill import MAX_ITEMS
from nightwatch.standin.schemas import MAX_CHECK_DEPTH, MAX_SCHEMA_NESTING

ASK = "北門の扉を確かめてください。「北門」"
HANG_GUARD_SECONDS = 120  # a liveness guard (a request that never returns fails), not a speed claim


def strict_json(text: str) -> object:
    """Parse as a JSON client would: ``Infinity`` and ``NaN`` are not JSON."""
    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


def send(body: dict, standin: StandInModel | None = None) -> httpx2.Response:
    """One request through the stand-in's HTTP handler, in a thread that must come back."""
    standin = standin or StandInModel(context_limit=1_000_000)
    answer: list[object] = []

    def run() -> None:
        try:
            answer.append(standin.handle(httpx2.Request("POST", "http://standin/v1/chat/completions",
                                                        content=json.dumps(body).encode())))
        except BaseException as failed:  # the server turns this into a 500
            answer.append(failed)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_SECONDS)
    assert answer, "the request never came back"
    if isinstance(answer[0], BaseException):
        raise answer[0]
    response = answer[0]
    assert isinstance(response, httpx2.Response)
    response.read()
    strict_json(response.text)
    return response


def tool_body(parameters: dict, ask: str = ASK, choice: object = "required") -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": ask}], "tool_choice": choice,
            "tools": [{"type": "function", "function": {"name": "check_door", "description": "扉を確かめる",
                                                        "parameters": parameters}}]}


def reply_body(schema: object, ask: str = ASK) -> dict:
    return {"model": "gpt-4o", "messages": [{"role": "user", "content": ask}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}}


def one_property(schema: object) -> dict:
    return {"type": "object", "properties": {"door": schema}, "required": ["door"]}


def nested(depth: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(depth):
        schema = one_property(schema)
    return schema


FIVE_HUNDREDS = {  # the ten request shapes that were answered "The stand-in failed" (a 500)
    "tool_choice.function as a string": tool_body(one_property({"type": "string"}),
                                                  choice={"type": "function", "function": "check_door"}),
    "enum: []": tool_body(one_property({"enum": []})),
    "items: true": tool_body(one_property({"type": "array", "items": True})),
    "a boolean property schema": tool_body(one_property(True)),
    "anyOf: [true]": tool_body(one_property({"anyOf": [True]})),
    "$ref to a boolean schema": tool_body({**one_property({"$ref": "#/$defs/any"}), "$defs": {"any": True}}),
    "$ref to missing $defs": tool_body(one_property({"$ref": "#/$defs/missing"})),
    "an integer from a 400-digit number": tool_body(one_property({"type": "integer"}), ask="扉 " + "7" * 400),
    "a reply schema nested 300 deep": reply_body(nested(300)),
    "tool parameters nested 300 deep": tool_body(nested(300)),
}


@pytest.mark.parametrize("shape", FIVE_HUNDREDS)
def test_each_shape_that_was_a_500_is_a_400_naming_where(shape):
    response = send(FIVE_HUNDREDS[shape])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["param"] and error["param"].split(".")[0].split("[")[0] in ("tool_choice", "tools", "response_format")


def test_a_schema_nested_past_the_cap_is_refused_with_the_cap_in_the_message():
    error = send(tool_body(nested(300))).json()["error"]
    assert error["param"] == "tools[0].function.parameters" and str(MAX_SCHEMA_NESTING) in error["message"]
    assert send(tool_body(nested(6))).status_code == 200  # an ordinary depth is still filled


@pytest.mark.parametrize("schema", [
    {"$defs": {"loop": {"$ref": "#/$defs/loop"}}, "$ref": "#/$defs/loop"},
    {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, **one_property({"$ref": "#/$defs/a"})},
    {"$ref": "#"},
], ids=["self", "pair", "root"])
def test_a_reference_cycle_is_refused_not_followed_for_ever(schema):
    response = send(reply_body(schema))
    assert response.status_code == 400 and "leads back to itself" in response.json()["error"]["message"]


def test_a_recursive_definition_with_optional_children_is_filled_once():
    node = {"type": "object", "properties": {"name": {"type": "string"},
                                             **{child: {"$ref": "#/$defs/node"} for child in "abcdefgh"}},
            "required": ["name"]}
    response = send(reply_body({"$defs": {"node": node}, "$ref": "#/$defs/node"}))
    assert response.status_code == 200
    assert set(strict_json(response.json()["choices"][0]["message"]["content"])) == {"name"}  # no child: a cycle


@pytest.mark.parametrize("pattern, text", [("^(a+)+$", "a" * 40 + "!"), ("^(a|aa)+$", "a" * 60 + "!"),
                                           ("(x+x+)+y", "x" * 5000)])
def test_a_backtracking_pattern_is_refused_with_a_400_that_says_so(pattern, text):
    body = tool_body(one_property({"type": "string", "pattern": pattern}), ask=f"扉「{text}」")
    response = send(body)
    assert response.status_code == 400 and "tools[0].function.parameters" in response.json()["error"]["param"]


def test_a_pattern_the_text_matches_is_still_checked_and_filled():
    body = tool_body(one_property({"type": "string", "pattern": "^北"}))
    call = send(body).json()["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"door": "北門"}
    refused = send(tool_body(one_property({"type": "string", "pattern": "^南"})))
    assert refused.status_code == 400 and "does not match" in refused.json()["error"]["message"]


@pytest.mark.parametrize("count", [10**6, 10**8])
def test_min_items_past_the_cap_is_refused_with_the_cap(count):
    response = send(reply_body({"type": "array", "minItems": count, "items": {"type": "string"}}))
    message = response.json()["error"]["message"]
    assert response.status_code == 400 and f"cap of {MAX_ITEMS}" in message and str(count) in message


def test_nested_arrays_cannot_multiply_the_reply_past_its_bound():
    schema: dict = {"type": "string"}
    for _ in range(4):
        schema = {"type": "array", "minItems": MAX_ITEMS, "items": schema}
    response = send(reply_body(schema))
    assert response.status_code == 400 and len(response.content) < 2000


@pytest.mark.parametrize("ask", ["扉 " + "9" * 400 + ".5", "扉 1" + "0" * 320, "扉 " + "9" * 30])
def test_a_number_argument_is_never_a_number_json_cannot_carry(ask):
    response = send(tool_body(one_property({"type": "number"}), ask=ask))
    if response.status_code == 200:
        arguments = strict_json(response.json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
        assert abs(arguments["door"]) < 2**53
    else:
        assert response.status_code == 400


def test_a_nan_or_infinity_in_the_request_body_is_refused_as_not_json():
    standin = StandInModel()
    content = b'{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "temperature": NaN}'
    response = standin.handle(httpx2.Request("POST", "http://standin/v1/chat/completions", content=content))
    assert response.status_code == 400 and "JSON" in response.json()["error"]["message"]


@pytest.mark.parametrize("schema", [
    {"oneOf": [{"$ref": "#"}, {"type": "string"}]},
    {"$defs": {"a": {"oneOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}}, "$ref": "#/$defs/a"},
])
def test_a_reference_back_to_itself_stops_at_the_depth_cap_not_at_the_recursion_limit(schema):
    # Near Python's recursion limit the reference resolver (rpds, in Rust) panics instead of raising
    # RecursionError, and a panic is a 500; so the check must stop by its own count, far before.
    response = send(reply_body(schema))
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert f"{MAX_CHECK_DEPTH} keywords deep" in message and "RecursionError" not in message


# --- fuzzing the filler over schema shapes ------------------------------------------------------

SCALARS = st.sampled_from(["string", "integer", "number", "boolean", "null", "object", "array"])
PATTERNS = st.sampled_from(["^北", "^(a+)+$", "(x+x+)+y", "[", "^.*$", "門"])
NUMBERS = st.one_of(st.integers(-3, 10**9), st.floats(allow_nan=False, allow_infinity=False, width=32))
REFS = st.sampled_from(["#/$defs/a", "#/$defs/b", "#/$defs/missing", "#", "#/properties", "http://elsewhere/x",
                        "#anchor"])


def schemas() -> st.SearchStrategy:
    """Schema shapes the validator accepts and some it refuses, with every keyword the filler reads."""
    leaves = st.one_of(st.booleans(), st.builds(lambda kind: {"type": kind}, SCALARS),
                       st.builds(lambda ref: {"$ref": ref}, REFS),
                       st.builds(lambda p: {"type": "string", "pattern": p}, PATTERNS),
                       st.builds(lambda values: {"enum": values}, st.lists(st.one_of(st.text(max_size=5), NUMBERS),
                                                                           max_size=3)),
                       st.builds(lambda value: {"const": value}, st.one_of(st.text(max_size=5), NUMBERS)))

    def grow(children: st.SearchStrategy) -> st.SearchStrategy:
        keyword = st.one_of(
            st.builds(lambda props, req: {"type": "object", "properties": props, "required": req},
                      st.dictionaries(st.sampled_from(["a", "b", "門"]), children, max_size=3),
                      st.lists(st.sampled_from(["a", "b", "門", "z"]), max_size=3, unique=True)),
            st.builds(lambda items, low: {"type": "array", "items": items, "minItems": low},
                      children, st.sampled_from([0, 1, 3, 300, 10**6, 10**9])),
            st.builds(lambda options: {"anyOf": options}, st.lists(children, max_size=3)),
            st.builds(lambda options: {"oneOf": options}, st.lists(children, min_size=1, max_size=3)),
            st.builds(lambda options: {"allOf": options}, st.lists(children, min_size=1, max_size=2)),
            st.builds(lambda child: {"not": child}, children),
            st.builds(lambda kinds: {"type": kinds}, st.lists(SCALARS, min_size=1, max_size=3, unique=True)),
            st.builds(lambda a, b: {"$defs": {"a": a, "b": b}, "$ref": "#/$defs/a"}, children, children),
            st.builds(lambda child, extra: {"type": "object", "patternProperties": {"^(a+)+$": child},
                                            "additionalProperties": extra}, children, st.booleans()),
            st.builds(lambda low, high: {"type": "string", "minLength": low, "maxLength": high},
                      st.integers(0, 10**6), st.integers(0, 10**6)),
            st.builds(lambda low, step: {"type": "number", "minimum": low, "multipleOf": step},
                      NUMBERS, st.sampled_from([1, 0.5, 3])),
            st.builds(lambda child: {"type": "array", "items": child, "minItems": 2, "uniqueItems": True}, children),
        )
        return keyword

    return st.recursive(leaves, grow, max_leaves=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), ask=st.sampled_from([ASK, "扉 12 と 3.5「aaaa」", "x" * 50, "9" * 40]),
       as_tool=st.booleans())
def test_fuzzed_schemas_are_filled_or_refused_never_a_500(schema, ask, as_tool):
    """Each schema has at most 12 leaves; every request it makes is bounded by the stand-in's own
    caps (``MAX_SCHEMA_STEPS`` checks, ``PATTERN_SECONDS`` of matching), and ``send`` fails one that
    never returns. The claim checked: a 200 with strict JSON, or a 400 that names where."""
    if as_tool:
        parameters = schema if isinstance(schema, dict) else {"type": "object", "properties": {"x": schema}}
        body = tool_body(parameters, ask=ask)
    else:
        body = reply_body(schema if isinstance(schema, dict) else {"anyOf": [schema]}, ask=ask)
    response = send(body)
    assert response.status_code in (200, 400)
    if response.status_code == 400:
        assert response.json()["error"]["param"]
    else:
        message = response.json()["choices"][0]["message"]
        strict_json(message["content"] if message["content"] is not None
                    else message["tool_calls"][0]["function"]["arguments"])
