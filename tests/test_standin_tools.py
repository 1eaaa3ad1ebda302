"""The stand-in's tools: when it calls a function, with what, what it says after the result, and the
tool histories it refuses exactly as OpenAI does (so a trimming bug is a 400 here too)."""

from __future__ import annotations

import json

import jsonschema
import openai
import pytest

from nightwatch.standin import StandInModel

MISSION = "あなたは劇場の夜警です。"
DOOR_TOOL = {"type": "function", "function": {
    "name": "check_door", "description": "扉の施錠を確かめる。",
    "parameters": {"type": "object", "properties": {"door": {"type": "string"}}, "required": ["door"]}}}
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Look up tomorrow's weather for a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1}}, "required": ["city", "unit", "days"]}}}
DOOR_ASK = "楽屋口の扉の施錠を確かめてください。"


def create(messages, **options):
    standin = StandInModel()
    return standin, standin.client().chat.completions.create(model="gpt-4o", messages=messages, **options)


def test_an_ask_that_shares_content_with_a_tool_calls_it_with_valid_arguments():
    standin, response = create([{"role": "system", "content": MISSION}, {"role": "user", "content": DOOR_ASK}],
                               tools=[WEATHER_TOOL, DOOR_TOOL])
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content is None
    [call] = choice.message.tool_calls
    arguments = json.loads(call.function.arguments)
    assert call.function.name == "check_door"
    jsonschema.validate(arguments, DOOR_TOOL["function"]["parameters"])
    assert arguments["door"] == DOOR_ASK  # taken from the ask, nothing invented
    assert standin.requests[-1].act == "tool_call"


def test_enum_by_content_and_numbers_only_from_the_ask():
    ask = "What will the weather be in Lyon for 3 days, in fahrenheit?"
    _, response = create([{"role": "user", "content": ask}], tools=[DOOR_TOOL, WEATHER_TOOL])
    arguments = json.loads(response.choices[0].message.tool_calls[0].function.arguments)
    assert arguments == {"city": ask, "unit": "fahrenheit", "days": 3}
    # no number in the ask: the auto choice does not call (it would have to invent "days")
    _, plain = create([{"role": "user", "content": "What will the weather be in Lyon, in celsius?"}],
                      tools=[WEATHER_TOOL])
    assert plain.choices[0].message.tool_calls is None and plain.choices[0].finish_reason == "stop"


def test_an_unrelated_ask_is_answered_not_turned_into_a_call():
    _, response = create([{"role": "system", "content": MISSION},
                          {"role": "user", "content": "（柱時計が鳴る）一時です。"}], tools=[WEATHER_TOOL])
    assert response.choices[0].message.tool_calls is None
    assert response.choices[0].message.content


@pytest.mark.parametrize("choice", ["none", "auto", "required", "named"])
def test_tool_choice_is_honoured(choice):
    tool_choice = {"type": "function", "function": {"name": "check_door"}} if choice == "named" else choice
    unrelated = [{"role": "user", "content": "（柱時計が鳴る）一時です。"}]
    related = [{"role": "user", "content": DOOR_ASK}]
    called = {name: create(messages, tools=[DOOR_TOOL], tool_choice=tool_choice)[1].choices[0].message.tool_calls
              for name, messages in (("unrelated", unrelated), ("related", related))}
    expected = {"none": (False, False), "auto": (False, True), "required": (True, True), "named": (True, True)}
    assert (called["unrelated"] is not None, called["related"] is not None) == expected[choice]


def test_a_forced_call_the_ask_cannot_fill_is_a_400_naming_the_parameter():
    with pytest.raises(openai.BadRequestError) as refused:
        create([{"role": "user", "content": "Lyon, please."}], tools=[WEATHER_TOOL], tool_choice="required")
    assert refused.value.param == "tools[0].function.parameters.properties.days"


def conversation_with_a_call(standin: StandInModel) -> list[dict]:
    first = standin.client().chat.completions.create(
        model="gpt-4o", messages=[{"role": "system", "content": MISSION}, {"role": "user", "content": DOOR_ASK}],
        tools=[DOOR_TOOL])
    call = first.choices[0].message.tool_calls[0]
    return [{"role": "system", "content": MISSION}, {"role": "user", "content": DOOR_ASK},
            {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
            {"role": "tool", "tool_call_id": call.id, "content": "楽屋口は施錠されています。"}]


def test_after_a_tool_result_the_reply_is_grounded_on_it():
    standin = StandInModel()
    messages = conversation_with_a_call(standin)
    response = standin.client().chat.completions.create(model="gpt-4o", messages=messages, tools=[DOOR_TOOL])
    assert response.choices[0].message.content == "楽屋口は施錠されています。"
    [grounded] = standin.requests[-1].grounding
    assert (grounded.index, grounded.role) == (3, "tool")


def test_an_orphan_tool_message_is_refused_with_the_apis_words():
    standin = StandInModel()
    messages = conversation_with_a_call(standin)
    orphan = [messages[0], messages[3], {"role": "user", "content": "どうでしたか。"}]
    with pytest.raises(openai.BadRequestError) as refused:
        standin.client().chat.completions.create(model="gpt-4o", messages=orphan)
    assert refused.value.body["message"] == ("Invalid parameter: messages with role 'tool' must be a response to a "
                                     "preceeding message with 'tool_calls'.")
    assert refused.value.param == "messages.[1].role" and refused.value.code is None


def test_an_unanswered_call_is_refused_with_the_apis_words():
    standin = StandInModel()
    messages = conversation_with_a_call(standin)
    unanswered = [*messages[:3], {"role": "user", "content": "どうでしたか。"}]
    with pytest.raises(openai.BadRequestError) as refused:
        standin.client().chat.completions.create(model="gpt-4o", messages=unanswered)
    call_id = messages[2]["tool_calls"][0]["id"]
    assert refused.value.body["message"] == (
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
        f"'tool_call_id'. The following tool_call_ids did not have response messages: {call_id}")
    assert refused.value.param == "messages.[2].role"


def test_a_wrong_tool_call_id_is_refused():
    standin = StandInModel()
    messages = conversation_with_a_call(standin)
    messages[3] = {**messages[3], "tool_call_id": "call_other"}
    with pytest.raises(openai.BadRequestError) as refused:
        standin.client().chat.completions.create(model="gpt-4o", messages=messages)
    assert refused.value.param == "messages.[3].tool_call_id"


def test_trim_messages_cutting_a_call_from_its_result_gets_the_providers_400():
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.messages.utils import trim_messages

    from nightwatch.frameworks.with_langchain import chat_model

    standin = StandInModel()
    call = {"name": "check_door", "args": {"door": "楽屋口"}, "id": "call_1", "type": "tool_call"}
    history = [SystemMessage(MISSION), HumanMessage(DOOR_ASK), AIMessage("", tool_calls=[call]),
               ToolMessage("楽屋口は施錠されています。", tool_call_id="call_1"), AIMessage("施錠済みです。"),
               HumanMessage("次は何をしますか。")]
    kept = trim_messages(history, max_tokens=4, token_counter=len, strategy="last", include_system=True)
    assert [type(m).__name__ for m in kept] == ["SystemMessage", "ToolMessage", "AIMessage", "HumanMessage"]
    with pytest.raises(openai.BadRequestError) as refused:
        chat_model(standin).invoke(kept)
    assert "must be a response to a preceeding message with 'tool_calls'" in refused.value.message
    assert chat_model(standin).invoke(history).content  # the untrimmed history is served
