"""A saved memory nested deeper than any memory writes is refused with a ValueError that names the
depth, before json or pydantic recurse into it (they stop with RecursionError a few thousand down)."""

from __future__ import annotations

import json

import pytest

from nightwatch.memory import ConversationMemory
from nightwatch.memory.saved import MAX_NESTING, nesting_depth
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.tokens import estimate_tokens_by_chars


def load(text: str) -> ConversationMemory:
    return ConversationMemory.from_json(text, estimate_tokens_by_chars, concatenating_summarizer)


@pytest.mark.parametrize("depth", [100, 3_000, 100_000])
def test_a_state_nested_past_what_can_be_read_is_a_value_error_naming_the_depth(depth):
    state = {"format_version": 1, "mission": "夜警", "policy": {"window_size": 2, "token_threshold": 100},
             "window": "@"}
    text = json.dumps(state).replace('"@"', "[" * depth + "]" * depth)
    with pytest.raises(ValueError, match=rf"nests {depth + 1} levels deep.*at most {MAX_NESTING}"):
        load(text)


def test_brackets_inside_strings_are_not_nesting_and_a_real_state_loads():
    from nightwatch.memory import MemoryPolicy

    memory = ConversationMemory("夜警「[[[{{{」", MemoryPolicy(window_size=2, token_threshold=100),
                                estimate_tokens_by_chars, concatenating_summarizer)
    memory.add_exchange("\\\"[[[[", "]]]}}}")
    saved = memory.to_json()
    assert nesting_depth(saved) < 6 and load(saved).window == memory.window
