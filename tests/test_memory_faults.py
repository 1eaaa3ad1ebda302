"""Construction errors and a failing summarizer: nothing is lost, bad input is refused clearly."""

from __future__ import annotations

import copy

import pytest

from conftest import char_memory
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.tokens import estimate_tokens_by_chars


class BrokenSummarizer:
    def __init__(self, result=None) -> None:
        self.result = result
        self.calls = 0

    def __call__(self, summary, overflow):
        self.calls += 1
        if self.result is None:
            raise RuntimeError("the summarizer's model is down")
        return self.result


@pytest.mark.parametrize("result", [None, 42, "", "   "])
def test_a_failing_summarizer_leaves_window_and_summary_exactly_as_they_were(result):
    memory = char_memory(2, 39, concatenating_summarizer)
    for i in range(4):
        memory.add_exchange(f"問{i}です。", f"答{i}です。")
    memory.add_exchange("問4です。", "答4です。")  # 30 tokens: under the threshold again
    summary, window, archive = memory.summary, copy.deepcopy(memory.window), list(memory.archive)
    broken = BrokenSummarizer(result)
    memory.summarize = broken
    memory.add_exchange("問5です。", "答5です。")  # 40 > 39: compaction runs, and fails
    assert broken.calls == 1
    assert memory.summary == summary and memory.archive == archive
    # Nothing was evicted; the new exchange waits in the window for the next compaction.
    assert [e.user_text for e in memory.window] == [e.user_text for e in window] + ["問5です。"]
    assert len(memory.compactions) == 1
    (failure,) = memory.failures
    assert failure.after_exchange == 6 and failure.error
    # With the summarizer back, the next exchange compacts everything that waited.
    memory.summarize = concatenating_summarizer
    memory.add_exchange("問6です。", "答6です。")
    assert "問4です。" in memory.summary and "問5です。" not in memory.summary
    assert [e.user_text for e in memory.window] == ["問5です。", "問6です。"]


@pytest.mark.parametrize("mission", ["", "   ", None, 7])
def test_an_empty_or_non_string_mission_is_refused(mission):
    with pytest.raises((ValueError, TypeError), match="mission"):
        ConversationMemory(mission, MemoryPolicy(window_size=2, token_threshold=10),
                           estimate_tokens_by_chars, concatenating_summarizer)


def test_policy_must_be_a_memory_policy():
    with pytest.raises(TypeError, match="MemoryPolicy"):
        ConversationMemory("務め", {"window_size": 2}, estimate_tokens_by_chars, concatenating_summarizer)


def test_compactions_are_logged_with_sizes():
    memory = char_memory(2, 39, concatenating_summarizer)
    for i in range(4):
        memory.add_exchange(f"問{i}です。", f"答{i}です。")
    (record,) = memory.compactions
    assert record.after_exchange == 4 and record.evicted == 2 and record.kept == 2
    assert record.window_tokens_before == 40
    assert record.summary_tokens_before == 0
    assert record.summary_tokens_after == len(memory.summary)
