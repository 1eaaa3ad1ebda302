"""The designs the story replaces.

``NightWatchAgent`` is the spring design: the mission is the first element of one ``history`` list
and every exchange is appended after it. Nothing is ever removed, so the request grows on every call
until the model refuses it, and the refusal reaches the caller unhandled.

``TrimmedNightWatchAgent`` is act 2's one-line fix, ``history[-keep_last:]``. It keeps the request
small, and because the mission is the oldest element of that same list, it is the first thing cut.
No error is raised when that happens.
"""

from __future__ import annotations

import openai

from nightwatch.agent import BaseAgent


class NightWatchAgent(BaseAgent):
    """Vesper (before): mission and conversation in one list, appended forever."""

    def __init__(self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI | None = None) -> None:
        super().__init__(name, mission, model, client=client)
        self.history: list[dict[str, str]] = [{"role": "system", "content": mission}]

    def run(self, user_input: str) -> str:
        self.history.append({"role": "user", "content": user_input})
        answer = self._call_model(self.history)
        self.history.append({"role": "assistant", "content": answer})
        return answer


class TrimmedNightWatchAgent(NightWatchAgent):
    """Vesper (act 2): the same, keeping only the newest ``keep_last`` messages before each call."""

    def __init__(
        self,
        name: str,
        mission: str,
        model: str = "gpt-4o",
        *,
        keep_last: int = 12,
        client: openai.OpenAI | None = None,
    ) -> None:
        if not isinstance(keep_last, int) or keep_last <= 0:
            raise ValueError("keep_last must be a positive integer")
        super().__init__(name, mission, model, client=client)
        self.keep_last = keep_last

    def run(self, user_input: str) -> str:
        self.history.append({"role": "user", "content": user_input})
        self.history = self.history[-self.keep_last :]  # the one-line fix: oldest first out
        answer = self._call_model(self.history)
        self.history.append({"role": "assistant", "content": answer})
        return answer
