"""What every night-watch agent shares: a name, a mission, a model and one way to call it.

The client is always handed in: the stand-in's (``StandInModel().client()``), or a real endpoint's
(``nightwatch.lab.live``). An agent never knows which model answers it.

``reply_cap`` is sent with every call as ``max_completion_tokens`` (the current name of the reply cap
in the chat API; the stand-in honours it like ``max_tokens``). Live mode always sets it: a server
without a cap may let one reply run until its window is full. Offline it is left unset unless given,
so the story's stand-in counts the request alone, as the story does.
"""

from __future__ import annotations

import openai


def said(role: str, content: str) -> dict[str, str]:
    """One chat message."""
    return {"role": role, "content": content}


class BaseAgent:
    """Holds the client and remembers the last request and its usage, for the night's table."""

    _reply_cap: int | None = None  # also for a subclass that sets itself up without BaseAgent.__init__

    def __init__(
        self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI, reply_cap: int | None = None
    ) -> None:
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
        self.reply_cap = reply_cap
        self.last_messages: list[dict[str, str]] = []
        self.last_prompt_tokens: int | None = None

    @property
    def reply_cap(self) -> int | None:
        """Tokens a reply may take, sent with every call as ``max_completion_tokens``; None sends no cap."""
        return self._reply_cap

    @reply_cap.setter
    def reply_cap(self, tokens: int | None) -> None:
        if tokens is not None and (type(tokens) is not int or tokens <= 0):
            raise ValueError(f"reply_cap must be a positive int (tokens) or None, got {tokens!r}")
        self._reply_cap = tokens

    def _call_model(self, messages: list[dict[str, str]]) -> str:
        """Send one request; a refusal (e.g. context_length_exceeded) propagates unhandled."""
        self.last_messages = [dict(message) for message in messages]
        self.last_prompt_tokens = None
        cap = {} if self.reply_cap is None else {"max_completion_tokens": self.reply_cap}
        response = self.client.chat.completions.create(model=self.model, messages=messages, **cap)
        if response.usage is not None:
            self.last_prompt_tokens = response.usage.prompt_tokens
        return response.choices[0].message.content or ""
