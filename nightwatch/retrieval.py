"""Act 3's other idea, run: keep the mission on the shelf and fetch it by likeness, not pinned.

``RetrievedMissionAgent`` keeps no pinned 銘. Its mission's lines and every exchange that leaves its
window go to one shelf; before each call it fetches the shelf's entries most like the question
(``memory.archive_search.rank``: BM25 over character bigrams) and sends them as the only system
message. It is what Anne argues against: retrieval chooses by likeness to the question, and a bare
"two o'clock" is like no duty; a duty must be in the request before anyone asks for it.
"""

from __future__ import annotations

from typing import Any

import openai

from nightwatch.agent import BaseAgent, said
from nightwatch.memory.archive_search import rank

RECALLED_HEADER = "思い出した記録:"


class RetrievedMissionAgent(BaseAgent):
    """The mission only on a shelf, fetched by likeness to each question; a window of recent turns."""

    def __init__(self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI,
                 window_size: int = 6, fetch: int = 2, **tools: Any) -> None:
        super().__init__(name, mission, model, client=client, **tools)
        if type(window_size) is not int or window_size <= 0 or type(fetch) is not int or fetch <= 0:
            raise ValueError("window_size and fetch must be positive ints")
        self.window_size, self.fetch = window_size, fetch
        self.shelf: list[str] = [line.strip() for line in mission.splitlines() if line.strip()]
        self.window: list[list[dict[str, Any]]] = []  # each turn's messages, question to reply
        self.fetched: list[list[str]] = []  # what each turn fetched, for the chapter's table

    def request_for(self, question: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = [self.shelf[position] for position, _ in rank(self.shelf, question, self.fetch)]
        recalled = [said("system", "\n".join([RECALLED_HEADER, *found]))] if found else []
        return [*recalled, *(m for turn in self.window for m in turn), said("user", question), *steps]

    def run(self, user_input: str) -> str:
        self.fetched.append([self.shelf[p] for p, _ in rank(self.shelf, user_input, self.fetch)])
        reply, steps = self._answer_turn(lambda steps: self.request_for(user_input, steps))
        self.window.append([said("user", user_input), *steps, said("assistant", reply)])
        while len(self.window) > self.window_size:  # what leaves the window goes to the shelf
            leaving = self.window.pop(0)
            self.shelf.append("\n".join(str(m.get("content") or "") for m in leaving))
        return reply
