"""Shared pieces for the tests: the mission, fresh stand-ins, and memories built on the story's fakes."""

from __future__ import annotations

import pytest

from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.summarizers import CountingSummarizer
from nightwatch.tokens import estimate_tokens_by_chars


@pytest.fixture
def standin() -> StandInModel:
    return StandInModel()


def char_memory(window_size: int, token_threshold: int, summarizer=None) -> ConversationMemory:
    """A memory on the story's fakes: one character is one token, summaries are concatenated."""
    return ConversationMemory(
        MISSION,
        MemoryPolicy(window_size=window_size, token_threshold=token_threshold),
        estimate_tokens_by_chars,
        summarizer if summarizer is not None else CountingSummarizer(),
    )
