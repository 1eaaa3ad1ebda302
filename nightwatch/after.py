"""Vesper rebuilt: the same run() skeleton (build, call, record), with memory in three tiers.

Only where the memory lives has changed. The mission is pinned in ``ConversationMemory``, so it heads
every request however long the night grows.
"""

from __future__ import annotations

import openai

from nightwatch.agent import BaseAgent
from nightwatch.memory import ConversationMemory


class NightWatchAgent(BaseAgent):
    """Vesper (after): pinned mission, running summary, sliding window."""

    def __init__(
        self, name: str, memory: ConversationMemory, model: str = "gpt-4o", *, client: openai.OpenAI
    ) -> None:
        if not isinstance(memory, ConversationMemory):
            raise TypeError(f"memory must be a ConversationMemory, got {type(memory).__name__}")
        super().__init__(name, memory.mission, model, client=client)
        self.memory = memory

    def run(self, user_input: str) -> str:
        messages = self.memory.build_messages(user_input)
        answer = self._call_model(messages)
        self.memory.add_exchange(user_input, answer)
        return answer
