"""Vesper rebuilt: the same run() skeleton (build, call, record), with memory in three tiers.

Only where the memory lives has changed. The mission is pinned in ``ConversationMemory``, so it heads
every request however long the night grows.

When the memory counts with a ``CalibratedCounter`` (live mode), each answer's reported
``usage.prompt_tokens`` is handed to it before the exchange is recorded, so the compaction that may
follow already counts as the server does.
"""

from __future__ import annotations

from typing import Any

import openai

from nightwatch.agent import BaseAgent
from nightwatch.memory import ConversationMemory


class NightWatchAgent(BaseAgent):
    """Vesper (after): pinned mission, running summary, sliding window."""

    def __init__(
        self, name: str, memory: ConversationMemory, model: str = "gpt-4o", *, client: openai.OpenAI,
        reply_cap: int | None = None, **tools: Any,
    ) -> None:
        if not isinstance(memory, ConversationMemory):
            raise TypeError(f"memory must be a ConversationMemory, got {type(memory).__name__}")
        super().__init__(name, memory.mission, model, client=client, reply_cap=reply_cap, **tools)
        self.memory = memory

    def run(self, user_input: str) -> str:
        offered = self.tool_definitions()
        answer, steps = self._answer_turn(lambda steps: self.memory.build_messages(user_input, steps, offered))
        self.memory.add_exchange(user_input, answer, steps)
        return answer

    def _send(self, messages: list[dict[str, Any]], offer_tools: bool = False) -> Any:
        """The shared call, then the server's count handed to a memory that learns from it."""
        message = super()._send(messages, offer_tools)
        observe = getattr(self.memory.estimate_tokens, "observe", None)  # a CalibratedCounter's
        if observe is not None and self.last_prompt_tokens is not None:
            observe(messages, self.last_prompt_tokens)
        return message
