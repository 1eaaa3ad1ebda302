"""Bad configuration, unsaveable text and inconsistent saved state are refused at the door, by name."""

from __future__ import annotations

import json

import pydantic
import pytest

from conftest import char_memory
from nightwatch.memory import Compaction
from nightwatch.memory import ConversationMemory, Exchange, MemoryPolicy
from nightwatch.memory.saved import FORMAT_VERSION
from nightwatch.summarizers import LLMSummarizer, concatenating_summarizer
from nightwatch.standin import ThreeLineSummarizer, StandInModel
from nightwatch.tokens import estimate_tokens_by_chars

LONE_SURROGATE = "巡回\ud800異常なし"


# --- configuration --------------------------------------------------------------------------

def test_a_misspelt_field_is_refused_naming_it_and_the_field_meant():
    with pytest.raises(pydantic.ValidationError, match=r"no field 'context_windw'; did you mean 'context_window'"):
        MemoryPolicy(window_size=4, token_threshold=400, context_windw=500)


@pytest.mark.parametrize("field", ["window_size", "token_threshold", "context_window", "reply_reserve",
                                   "summary_token_limit"])
@pytest.mark.parametrize("value", [True, "3", 3.0])
def test_no_bool_string_or_float_is_taken_as_a_number(field, value):
    settings = {"window_size": 4, "token_threshold": 400, "context_window": 2048, field: value}
    with pytest.raises(pydantic.ValidationError, match=field):
        MemoryPolicy(**settings)


def test_records_and_exchanges_are_strict_too():
    with pytest.raises(pydantic.ValidationError, match="did you mean 'user_text'"):
        Exchange(user_txt="問", watchman_reply="答")
    with pytest.raises(pydantic.ValidationError):
        Exchange(user_text=1, watchman_reply="答")
    with pytest.raises(pydantic.ValidationError, match="evicted"):
        Compaction(after_exchange=1, evicted=True, kept=1, window_tokens_before=0,
                   summary_tokens_before=0, summary_tokens_after=0)


@pytest.mark.parametrize("bad", [{"max_completion_tokens": True}, {"max_completion_tokens": "200"}, {"max_completion_tokens": 0},
                                 {"context_window": 100, "max_completion_tokens": 100}])
def test_the_llm_summarizer_refuses_bad_numbers(bad):
    with pytest.raises(ValueError):
        LLMSummarizer(StandInModel().client(), **bad)


# --- text that could not be saved -----------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m: m.add_exchange(LONE_SURROGATE, "答"),
    lambda m: m.add_exchange("問", LONE_SURROGATE),
    lambda m: m.build_messages(LONE_SURROGATE),
])
def test_a_lone_surrogate_is_refused_at_the_door_and_the_memory_still_saves(call):
    memory = char_memory(2, 100)
    memory.add_exchange("問", "答")
    with pytest.raises(ValueError, match=r"lone surrogate '\\ud800' at position 2"):
        call(memory)
    assert [e.user_text for e in memory.window] == ["問"] and memory.exchanges_added == 1
    assert json.loads(memory.to_json())["window"][0]["user_text"] == "問"


def test_a_mission_that_could_not_be_saved_is_refused():
    with pytest.raises(ValueError, match="mission holds a lone surrogate"):
        ConversationMemory(LONE_SURROGATE, MemoryPolicy(window_size=2, token_threshold=10),
                           estimate_tokens_by_chars, concatenating_summarizer)


def test_a_summary_that_could_not_be_saved_is_not_stored():
    memory = char_memory(1, 5, lambda summary, overflow: LONE_SURROGATE)
    memory.add_exchange("問一です。", "答一です。")
    memory.add_exchange("問二です。", "答二です。")
    assert memory.summary == "" and "lone surrogate" in memory.failures[-1].error
    memory.to_json()


# --- saved state ------------------------------------------------------------------------------

def saved_night() -> dict:
    memory = char_memory(2, 39, concatenating_summarizer)
    for i in range(6):
        memory.add_exchange(f"問{i}です。", f"答{i}です。")
    return json.loads(memory.to_json())


def load(state: dict) -> ConversationMemory:
    return ConversationMemory.from_json(json.dumps(state, ensure_ascii=False), estimate_tokens_by_chars,
                                        concatenating_summarizer)


def test_saved_state_carries_its_format_version_and_round_trips():
    state = saved_night()
    assert state["format_version"] == FORMAT_VERSION == 2
    assert json.loads(load(state).to_json()) == state


def test_a_version_1_file_without_tool_steps_still_loads():
    state = saved_night()
    old = state | {"format_version": 1, "window": [{k: v for k, v in pair.items() if k != "steps"}
                                                  for pair in state["window"]]}
    del old["cleared_results"], old["clearings"]
    memory = load(old)
    assert [pair.steps for pair in memory.window] == [()] * len(state["window"])
    assert json.loads(memory.to_json()) == state


@pytest.mark.parametrize(("version", "message"), [
    (3, "newer than version 2"), (99, "saved in format version 99"), (0, "unknown format_version 0"),
    ("1", "unknown format_version '1'"), (True, "unknown format_version True"),
])
def test_a_newer_or_unknown_version_is_refused_saying_so(version, message):
    state = saved_night() | {"format_version": version}
    with pytest.raises(ValueError, match=message):
        load(state)


def test_state_without_a_version_or_not_json_is_refused():
    state = saved_night()
    del state["format_version"]
    with pytest.raises(ValueError, match="no format_version"):
        load(state)
    with pytest.raises(ValueError, match="not JSON"):
        ConversationMemory.from_json("{nope", estimate_tokens_by_chars, concatenating_summarizer)


@pytest.mark.parametrize(("change", "message"), [
    ({"exchanges_added": -5}, "greater than or equal to 0"),
    ({"exchanges_added": 7}, "exchanges_added is 7 but the archive and window hold 6"),
    ({"archive": []}, "exchanges_added is 6 but the archive and window hold 2"),
    ({"compactions": []}, "evicted 0 exchanges but the archive holds 4"),
    ({"policy": {"window_size": 2, "token_threshold": "39"}}, "token_threshold"),
    ({"policy": {"window_size": 2, "token_threshold": 39, "context_windw": 5}}, "context_windw"),
    ({"summery": "x"}, "did you mean 'summary'"),
])
def test_inconsistent_state_is_refused_with_the_reason(change, message):
    with pytest.raises(pydantic.ValidationError, match=message):
        load(saved_night() | change)


def test_a_saved_summary_over_its_cap_is_refused():
    memory = ConversationMemory("務め", MemoryPolicy(window_size=1, token_threshold=5, summary_token_limit=8),
                                estimate_tokens_by_chars, ThreeLineSummarizer())
    state = json.loads(memory.to_json())
    state["summary"] = "x" * 9
    state["archive"] = [{"user_text": "問", "watchman_reply": "答"}]
    state["exchanges_added"] = 1
    state["compactions"] = [{"after_exchange": 1, "evicted": 1, "kept": 0, "window_tokens_before": 2,
                             "summary_tokens_before": 0, "summary_tokens_after": 9}]
    with pytest.raises(ValueError, match="over its cap of 8"):
        ConversationMemory.from_json(json.dumps(state), estimate_tokens_by_chars, ThreeLineSummarizer())
