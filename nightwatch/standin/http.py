"""How the stand-in answers over HTTP whatever API is asked: OpenAI's error bodies, the refusal
over the context limit, and server-sent events handed over one at a time.

Shared by the chat-completions and the Responses adapters, so both word a refusal the same way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2


def context_length_error(limit: int, prompt_tokens: int, max_tokens: int | None) -> dict[str, Any]:
    """The body OpenAI returns for a request over the context window.

    The wording is the API's current one ("Input tokens exceed the configured limit ..."): under
    openai 3.x ``str(error)`` carries only this message, not the code, and it is this phrase that
    langchain-openai looks for to raise its context-overflow error.
    """
    detail = f"Your messages resulted in {prompt_tokens} tokens."
    if max_tokens is not None:
        detail = (
            f"Your messages resulted in {prompt_tokens} tokens, and you requested {prompt_tokens + max_tokens} "
            f"tokens ({prompt_tokens} in the messages, {max_tokens} in the completion)."
        )
    return {
        "error": {
            "message": f"Input tokens exceed the configured limit of {limit} tokens. {detail}",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def error_body(message: str, param: str | None = None, kind: str = "invalid_request_error",
               code: str | None = None) -> dict[str, Any]:
    """OpenAI's error object: every refusal, from the stand-in or the server around it, has this shape."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def invalid_request(message: str, param: str | None = None, status: int = 400) -> httpx2.Response:
    return httpx2.Response(status, json=error_body(message, param))


def model_not_found(model: str) -> httpx2.Response:
    """OpenAI's 404 for a model name it does not serve."""
    return httpx2.Response(404, json=error_body(
        f"The model `{model}` does not exist or you do not have access to it.", None, code="model_not_found"))


class ContextOverflow(Exception):
    """A request over the context limit: each API words the refusal its own way."""

    def __init__(self, prompt_tokens: int, reserved: int | None) -> None:
        super().__init__(f"{prompt_tokens} prompt tokens (+{reserved or 0} reserved) over the limit")
        self.prompt_tokens = prompt_tokens
        self.reserved = reserved


class EventStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """Server-sent events handed over one at a time, to a sync or an async client alike."""

    def __init__(self, events: Iterator[bytes]) -> None:
        self._events = events

    def __iter__(self) -> Iterator[bytes]:
        yield from self._events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event
