"""What every night-watch agent shares: a name, a mission, a model and one way to call it.

The client is always handed in: the stand-in's (``StandInModel().client()``), or a real endpoint's
(``nightwatch.lab.live``). An agent never knows which model answers it.

``reply_cap`` is sent with every call as ``max_completion_tokens`` (the current name of the reply cap
in the chat API; the stand-in honours it like ``max_tokens``). Live mode always sets it: a server
without a cap may let one reply run until its window is full. Offline it is left unset unless given,
so the story's stand-in counts the request alone, as the story does.

With ``tools`` (plain Python functions, ``nightwatch.tools``), a turn is a loop: call the model,
run the tools it asks for, send their results, call again, at most ``max_tool_rounds`` times; the
call after the last round sends ``tool_choice="none"``, so every turn ends with a reply. The steps
of the loop (the calls and their results) are what a memory must keep with the exchange.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import openai

from nightwatch.tools import FunctionTool, ToolBox

DEFAULT_MAX_TOOL_ROUNDS = 3
"""Rounds of tool calls one turn may take; the call after the last offers no tools, so it answers."""

Request = list[dict[str, Any]]


def said(role: str, content: str) -> dict[str, str]:
    """One chat message."""
    return {"role": role, "content": content}


class BaseAgent:
    """Holds the client and remembers the last request and its usage, for the night's table."""

    _reply_cap: int | None = None  # also for a subclass that sets itself up without BaseAgent.__init__

    def __init__(
        self, name: str, mission: str, model: str = "gpt-4o", *, client: openai.OpenAI, reply_cap: int | None = None,
        tools: Sequence[Callable[..., Any] | FunctionTool] = (), max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        parallel_tool_calls: bool | None = None,
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
        if type(max_tool_rounds) is not int or max_tool_rounds < 0:
            raise ValueError(f"max_tool_rounds must be an int >= 0, got {max_tool_rounds!r}")
        self.toolbox = ToolBox(tools)
        self.max_tool_rounds = max_tool_rounds
        self.parallel_tool_calls = parallel_tool_calls  # None: the server's default (parallel, for OpenAI)
        self.last_messages: list[dict[str, Any]] = []
        self.last_prompt_tokens: int | None = None
        self.turn_requests: list[Request] = []  # every request of the latest turn (one per tool round, and the last)
        self.turn_prompt_tokens: list[int | None] = []

    @property
    def reply_cap(self) -> int | None:
        """Tokens a reply may take, sent with every call as ``max_completion_tokens``; None sends no cap."""
        return self._reply_cap

    @reply_cap.setter
    def reply_cap(self, tokens: int | None) -> None:
        if tokens is not None and (type(tokens) is not int or tokens <= 0):
            raise ValueError(f"reply_cap must be a positive int (tokens) or None, got {tokens!r}")
        self._reply_cap = tokens

    def _call_model(self, messages: Request) -> str:
        """Send one request; a refusal (e.g. context_length_exceeded) propagates unhandled."""
        return self._send(messages).content or ""

    def _send(self, messages: Request, offer_tools: bool = False) -> Any:
        """One call; the answer's message. With tools, they are always sent (their definitions stay
        in the request's prefix), and ``tool_choice`` says whether this call may use them."""
        self.last_messages = [dict(message) for message in messages]
        self.last_prompt_tokens = None
        self.turn_requests.append(self.last_messages)
        self.turn_prompt_tokens.append(None)
        options: dict[str, Any] = {} if self.reply_cap is None else {"max_completion_tokens": self.reply_cap}
        if self.toolbox:
            options |= {"tools": self.toolbox.definitions(), "tool_choice": "auto" if offer_tools else "none"}
            if self.parallel_tool_calls is not None:
                options["parallel_tool_calls"] = self.parallel_tool_calls
        response = self.client.chat.completions.create(model=self.model, messages=messages, **options)
        if response.usage is not None:
            self.last_prompt_tokens = self.turn_prompt_tokens[-1] = response.usage.prompt_tokens
        return response.choices[0].message

    def tool_definitions(self) -> list[dict[str, Any]]:
        """What every request of this agent offers (empty without tools): counted in a budget."""
        return self.toolbox.definitions()

    def _answer_turn(self, request_for: Callable[[Request], Request]) -> tuple[str, Request]:
        """The reply to one turn, and the tool steps taken on the way.

        ``request_for(steps)`` builds the request with this turn's steps so far. Each round runs
        every call of the answer (several, when the model calls in parallel) and sends the results
        back; the call after ``max_tool_rounds`` rounds offers no tools, so the loop always ends."""
        self.turn_requests, self.turn_prompt_tokens = [], []
        steps: Request = []
        for round_number in range(self.max_tool_rounds + 1):
            offer = bool(self.toolbox) and round_number < self.max_tool_rounds
            message = self._send(request_for(steps), offer_tools=offer)
            calls = [call.model_dump(exclude_none=True) for call in (message.tool_calls or [])]
            if not offer or not calls:
                return message.content or "", steps
            steps.append({"role": "assistant", "content": message.content, "tool_calls": calls})
            steps += [{"role": "tool", "tool_call_id": call["id"], "content": self.toolbox.run(call)}
                      for call in calls]
        raise AssertionError("the last round offers no tools, so it returns")
