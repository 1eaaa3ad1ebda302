"""A live endpoint's answer, checked before anyone reads it: a malformed one becomes one clear API error.

A real endpoint, or whatever stands in front of it, can answer 200 with something that is not a chat
completion: a proxy's HTML login page, JSON cut off mid-way, an object with no choices. The openai
SDK hands such an answer back as a ``str``, ``None`` or a completion with ``choices == []``, or
raises ``json.JSONDecodeError``, and the caller's ``response.choices[0]`` then ends ``python -m
nightwatch`` with a traceback, since only ``openai.APIError`` is expected from a call.

``checked_client`` wraps live mode's client so that such an answer raises ``MalformedAnswer``, an
``openai.APIResponseValidationError``: every path that records an API error as one line of a night's
table (``lab.rehearsal``), or as a summarizer failure (``memory.compaction``), records it, and the
line says what the server sent (status, content type, size and the start of the body, redacted).
Streamed requests are passed through unchecked: their events are parsed by the SDK one at a time.
"""

from __future__ import annotations

from typing import Any

import httpx2
import openai

from nightwatch.memory.redaction import redact

SHOWN_CHARACTERS = 80


class MalformedAnswer(openai.APIResponseValidationError):
    """The endpoint answered, but not with a chat completion; the message says what it sent."""


def what_was_sent(response: httpx2.Response) -> str:
    """The answer in one line: status, content type, size and its first characters, redacted."""
    body = response.read()
    start = " ".join(body[: SHOWN_CHARACTERS * 4].decode("utf-8", "replace").split())[:SHOWN_CHARACTERS]
    kind = response.headers.get("content-type", "no content type").split(";")[0]
    return redact(f"{response.status_code} {kind}, {len(body)} bytes: {start!r}")


def completion_problem(parsed: object) -> str | None:
    """Why ``parsed`` cannot be read as a chat completion, or None if it can."""
    if not isinstance(parsed, openai.types.chat.ChatCompletion):
        return f"not a chat completion (the SDK read it as {type(parsed).__name__})"
    if not parsed.choices:
        return "a completion with no choices"
    if parsed.choices[0].message is None:
        return "a completion whose first choice has no message"
    return None


class CheckedCompletions:
    """``chat.completions`` whose ``create`` raises ``MalformedAnswer`` instead of returning junk."""

    def __init__(self, completions: Any) -> None:
        self._completions = completions

    def create(self, **request: Any) -> Any:
        if request.get("stream"):
            return self._completions.create(**request)
        raw = self._completions.with_raw_response.create(**request)  # error statuses still raise
        try:
            parsed = raw.parse()
        except ValueError as exc:  # not JSON, JSON cut short, or JSON of the wrong shape
            problem = f"not valid JSON ({type(exc).__name__}: {str(exc).splitlines()[0]})"
        else:
            problem = completion_problem(parsed)
            if problem is None:
                return parsed
        raise MalformedAnswer(raw.http_response, None,
                              message=f"the server's answer is {problem}; it sent {what_was_sent(raw.http_response)}")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._completions, name)


class CheckedChat:
    def __init__(self, chat: Any) -> None:
        self._chat = chat
        self.completions = CheckedCompletions(chat.completions)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._chat, name)


class CheckedClient:
    """An ``openai.OpenAI`` in every respect but one: a malformed chat answer raises, clearly."""

    def __init__(self, client: openai.OpenAI) -> None:
        self._client = client
        self.chat = CheckedChat(client.chat)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return redact(f"CheckedClient({self._client.base_url})")


def checked_client(client: openai.OpenAI) -> openai.OpenAI:
    """``client`` with its chat answers checked (typed as the client it stands for)."""
    return CheckedClient(client)  # type: ignore[return-value]
