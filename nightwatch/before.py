"""The designs the story replaces.

``NightWatchAgent`` is the spring design: the duty is simply the first entry of one ``history`` list
and every question and answer is appended after it. Nothing is ever taken out, so each call sends
more than the last, until the model refuses, and that refusal reaches the caller unhandled.

``TrimmedNightWatchAgent`` is act 2's one-line fix, ``history[-keep_last:]``. It keeps the request
small, and because the duty is the oldest entry of that same list, it is the first thing cut.
Nothing says so when it happens.

With tools, the calls and results of a turn go into the same list; cutting it by messages can
then separate a result from its call, which the API refuses (chapter 9).
"""

from __future__ import annotations

from typing import Any

import openai

from nightwatch.agent import BaseAgent, said


class NightWatchAgent(BaseAgent):
    """Vesper (before): the duty and the whole conversation in a single list that only grows."""

    def __init__(self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI, **tools: Any) -> None:
        super().__init__(name, mission, model, client=client, **tools)  # tools=, max_tool_rounds=
        self.history: list[dict[str, Any]] = [said("system", mission)]  # the duty, as entry 0

    def run(self, user_input: str) -> str:
        """Append the question, send the entire list, append the answer: append is all it knows."""
        self.history.append(said("user", user_input))
        return self._answer_and_keep()

    def _answer_and_keep(self) -> str:
        """The reply, with any tool calls and results appended to the same list before it."""
        reply, steps = self._answer_turn(lambda steps: self.history + steps)
        self.history += [*steps, said("assistant", reply)]
        return reply


class TrimmedNightWatchAgent(NightWatchAgent):
    """Vesper (act 2): the same, keeping only the newest ``keep_last`` messages before each call."""

    def __init__(
        self,
        name: str,
        mission: str,
        model: str = "gpt-4o",
        *,
        keep_last: int = 12,
        client: openai.OpenAI,
        **tools: Any,
    ) -> None:
        if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last <= 0:
            raise ValueError(f"keep_last must be a positive int, got {keep_last!r}")
        super().__init__(name, mission, model, client=client, **tools)
        self.keep_last = keep_last

    def run(self, user_input: str) -> str:
        self.history.append(said("user", user_input))
        self.history = self.history[-self.keep_last :]  # the one-line fix: oldest first out
        return self._answer_and_keep()
