"""Tools, deterministically: when the stand-in calls a function, and what it says after the result.

``choose_call`` relates the latest ask to each offered function by the reader's own content match
(the content lemmas the ask shares with the function's name and description, no lists of words),
and calls the best related one with arguments filled from the ask (``fill``), valid against the
function's parameter schema. ``tool_choice`` decides how far it may go: ``none`` never calls,
``auto`` calls only a related function whose arguments the ask can fill, ``required`` and a named
function always call (the best match, or the named one) or refuse with a 400 naming the parameter
the ask cannot fill. ``relay`` is the reply after tool results: their content, grounded on the tool
messages themselves, so the trace shows the answer came from the tool.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nightwatch.standin.fill import Unfillable, fill_schema, numbers_in
from nightwatch.standin.protocol import ChatRequest, ProtocolError, ToolSpec
from nightwatch.standin.reader import Reply
from nightwatch.standin.reader.grounding import source
from nightwatch.standin.reader.text import quoted
from nightwatch.standin.reader.words import content_lemmas

CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class ToolCall:
    """One function call the stand-in makes, in the shape of the API's ``tool_calls`` items."""

    id: str
    name: str
    arguments: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": json.dumps(self.arguments, ensure_ascii=False)}}


def tool_words(tool: ToolSpec) -> str:
    """A function's name and description as text: ``check_door``/``checkDoor`` read as "check door"."""
    return f"{CAMEL.sub(' ', tool.name).replace('_', ' ').replace('-', ' ')}. {tool.description}"


def relatedness(ask: str, tool: ToolSpec) -> int:
    """How many content lemmas the ask shares with the function's name and description."""
    return len(content_lemmas(ask) & content_lemmas(tool_words(tool)))


def latest_ask(messages: Sequence[Mapping[str, str]]) -> str | None:
    """The text of the last message, if it is the user's: only a fresh ask can call a tool."""
    return messages[-1]["content"] if messages and messages[-1].get("role") == "user" else None


def choose_call(chat: ChatRequest, messages: Sequence[Mapping[str, str]]) -> ToolCall | None:
    """The call this request makes, or None; ``ProtocolError`` when a forced call cannot be filled."""
    if chat.tool_choice == "none" or not chat.tools:
        return None
    ask = latest_ask(messages)
    forced = chat.tool_choice != "auto"
    if ask is None and not forced:
        return None
    ask = ask or messages[-1]["content"]
    candidates = [tool for tool in chat.tools if chat.tool_choice in ("auto", "required", tool.name)]
    scored = sorted(candidates, key=lambda tool: -relatedness(ask, tool))  # stable: offered order breaks ties
    if not forced:
        scored = [tool for tool in scored if relatedness(ask, tool) > 0]
    failures: list[tuple[ToolSpec, Unfillable]] = []
    for tool in scored:
        try:
            arguments = fill_schema(tool.parameters, f"{tool.where}.function.parameters",
                                    texts=quoted(ask) or [ask], match_text=ask, numbers=numbers_in(ask))
        except Unfillable as failed:
            failures.append((tool, failed))
            continue
        return ToolCall(call_id(messages, tool.name, arguments), tool.name, arguments)
    if forced and failures:
        tool, failed = failures[0]
        raise ProtocolError(f"The stand-in must call '{tool.name}' (tool_choice), but the ask gives nothing "
                            f"to fill '{failed.path}': {failed.why}.", failed.path)
    return None


def call_id(messages: Sequence[Mapping[str, str]], name: str, arguments: Mapping[str, Any]) -> str:
    """A call id that depends on the request alone: the same request, the same id."""
    seed = json.dumps([messages, name, arguments], ensure_ascii=False, sort_keys=True)
    return "call_" + hashlib.sha256(seed.encode()).hexdigest()[:24]


def relay(messages: Sequence[Mapping[str, str]], tool_indices: Sequence[int]) -> Reply:
    """The reply after tool results: what the tools returned, grounded on their messages."""
    texts = [messages[index]["content"].strip() for index in tool_indices]
    sources = tuple(source(messages, index, messages[index]["content"]) for index in tool_indices)
    return Reply("\n".join(text for text in texts if text), sources, "tool_result")  # type: ignore[arg-type]
