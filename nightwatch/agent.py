"""What every night-watch agent shares: a name, a mission, a model and one way to call it.

The client is always handed in: the stand-in's (``StandInModel().client()``), or a real endpoint's
(``nightwatch.lab.live``). An agent never knows which model answers it.
"""

from __future__ import annotations

import openai


def said(role: str, content: str) -> dict[str, str]:
    """One chat message."""
    return {"role": role, "content": content}


class BaseAgent:
    """Holds the client and remembers the last request and its usage, for the night's table."""

    def __init__(self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("name must be a non-empty string")
        if not isinstance(mission, str) or not mission.strip():
            raise ValueError("mission must be a non-empty string: the watchman needs a duty")
        self.name = name
        self.mission = mission
        self.model = model
        if client is None:
            raise TypeError("client is required: StandInModel().client() offline, or a live client")
        self.client = client
        self.last_messages: list[dict[str, str]] = []
        self.last_prompt_tokens: int | None = None

    def _call_model(self, messages: list[dict[str, str]]) -> str:
        """Send one request; a refusal (e.g. context_length_exceeded) propagates unhandled."""
        self.last_messages = [dict(message) for message in messages]
        self.last_prompt_tokens = None
        response = self.client.chat.completions.create(model=self.model, messages=messages)
        if response.usage is not None:
            self.last_prompt_tokens = response.usage.prompt_tokens
        return response.choices[0].message.content or ""
