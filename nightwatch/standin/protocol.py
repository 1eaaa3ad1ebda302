"""The chat-completions wire format as current clients speak it, reduced to what the stand-in reads.

SDKs and frameworks do not all send ``{"role": ..., "content": "text"}``: content may be a list of
parts, the instructions may come as a ``developer`` message, an assistant turn may carry
``tool_calls`` with ``content: null``, a ``tool`` message may answer it, ``name`` may be ``null``.
``parse_chat_request`` turns all of these into plain string messages (instructions as ``system``,
everything else as material), so the reader, the token count and the request log see one shape.
What the stand-in cannot honour (images, ``n`` > 1) is refused with a 400 that says so, never
silently dropped.

``stream_events`` writes a finished completion as the server-sent events OpenAI streams: a role
chunk, content chunks, a chunk with the finish reason, optionally a usage chunk, then ``[DONE]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
INSTRUCTION_ROLES = {"developer": "system"}  # the newer name for the same thing
TEXT_PART_TYPES = {"text": "text", "refusal": "refusal"}  # part type -> the key holding its text
STREAM_PIECE_CHARS = 4
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class ProtocolError(ValueError):
    """A request the stand-in refuses: ``message`` for the reader, ``param`` names the field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass(frozen=True)
class ChatRequest:
    """What the stand-in needs from a chat-completions body."""

    messages: list[dict[str, str]]
    max_tokens: int | None
    stream: bool
    include_usage: bool


def parse_chat_request(body: Mapping[str, Any]) -> ChatRequest:
    """Validate a request body and normalize its messages; raise ``ProtocolError`` on what it cannot serve."""
    n = body.get("n")
    if n is not None and (type(n) is not int or n != 1):
        raise ProtocolError("The stand-in returns exactly one choice per request: 'n' must be 1 or omitted.", "n")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise ProtocolError("'stream' must be true or false.", "stream")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise ProtocolError("'stream_options' must be an object.", "stream_options")
    if options is not None and not stream:
        raise ProtocolError("'stream_options' is only allowed when 'stream' is true.", "stream_options")
    return ChatRequest(
        messages=normalize_messages(body.get("messages")),
        max_tokens=_max_tokens(body),
        stream=bool(stream),
        include_usage=bool((options or {}).get("include_usage")),
    )


def _max_tokens(body: Mapping[str, Any]) -> int | None:
    """``max_completion_tokens`` (the current name) wins over ``max_tokens`` (the older one)."""
    for key in ("max_completion_tokens", "max_tokens"):
        value = body.get(key)
        if value is None:
            continue
        if type(value) is not int or value <= 0:
            raise ProtocolError(f"'{key}' must be a positive integer.", key)
        return value
    return None


def normalize_messages(messages: object) -> list[dict[str, str]]:
    """Plain ``{"role", "content"[, "name"]}`` string messages, in order; a plain message comes out equal."""
    if not isinstance(messages, list) or not messages:
        raise ProtocolError("'messages' must be a non-empty array.", "messages")
    return [_normalize_message(message, f"messages[{index}]") for index, message in enumerate(messages)]


def _normalize_message(message: object, where: str) -> dict[str, str]:
    if not isinstance(message, dict):
        raise ProtocolError(f"'{where}' must be an object with 'role' and 'content'.", where)
    role = message.get("role")
    if role not in ROLES:
        raise ProtocolError(f"'{where}.role' must be one of {', '.join(ROLES)}; got {role!r}.", f"{where}.role")
    text = _content_text(message.get("content"), f"{where}.content", allow_empty=role == "assistant")
    if role == "assistant" and message.get("tool_calls") is not None:
        calls = _tool_calls_text(message["tool_calls"], f"{where}.tool_calls")
        text = f"{text}\n{calls}" if text else calls
    normalized = {"role": INSTRUCTION_ROLES.get(role, role), "content": _clean(text)}
    name = message.get("name")
    if name is not None:
        if not isinstance(name, str):
            raise ProtocolError(f"'{where}.name' must be a string or null.", f"{where}.name")
        normalized["name"] = _clean(name)
    return normalized


def _content_text(content: object, where: str, allow_empty: bool) -> str:
    """A string as it is; a list of parts as its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    if content is None:
        if allow_empty:  # an assistant turn that only calls tools
            return ""
        raise ProtocolError(f"'{where}' must be a string or an array of text parts.", where)
    if not isinstance(content, list):
        raise ProtocolError(f"'{where}' must be a string or an array of text parts.", where)
    texts = []
    for index, part in enumerate(content):
        part_where = f"{where}[{index}]"
        kind = part.get("type") if isinstance(part, dict) else None
        if kind not in TEXT_PART_TYPES:
            raise ProtocolError(
                f"The stand-in reads text only: '{part_where}' has type {kind!r}; "
                "send 'text' parts (images, audio and files are not supported).",
                part_where,
            )
        text = part.get(TEXT_PART_TYPES[kind])
        if not isinstance(text, str):
            raise ProtocolError(f"'{part_where}.{TEXT_PART_TYPES[kind]}' must be a string.", part_where)
        texts.append(text)
    return "\n".join(texts)


def _tool_calls_text(calls: object, where: str) -> str:
    """An assistant's tool calls as material the reader can see: ``name(arguments)``, one per line."""
    if not isinstance(calls, list):
        raise ProtocolError(f"'{where}' must be an array.", where)
    lines = []
    for index, call in enumerate(calls):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ProtocolError(f"'{where}[{index}].function.name' must be a string.", f"{where}[{index}]")
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            raise ProtocolError(f"'{where}[{index}].function.arguments' must be a string.", f"{where}[{index}]")
        lines.append(f"{function['name']}({arguments})")
    return "\n".join(lines)


def _clean(text: str) -> str:
    """JSON can carry a lone surrogate (``"\\ud800"``) that no tokenizer can encode: show it as U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


def stream_events(completion: Mapping[str, Any], include_usage: bool) -> Iterator[bytes]:
    """A finished ``chat.completion`` as the ``chat.completion.chunk`` events a streaming client reads."""
    choice = completion["choices"][0]
    text = choice["message"]["content"]
    head = {key: completion[key] for key in ("id", "created", "model")}

    def chunk(delta: dict[str, str], finish_reason: str | None = None) -> bytes:
        body: dict[str, Any] = {
            **head, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if include_usage:
            body["usage"] = None  # as the API does: null on every chunk but the last
        return _event(body)

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(text), STREAM_PIECE_CHARS):
        yield chunk({"content": text[start:start + STREAM_PIECE_CHARS]})
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield _event({**head, "object": "chat.completion.chunk", "choices": [], "usage": completion["usage"]})
    yield b"data: [DONE]\n\n"


def _event(body: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"
