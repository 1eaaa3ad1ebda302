"""The stand-in model (代役): an OpenAI-compatible chat endpoint inside the process.

It sits behind the real ``openai`` client through an ``httpx2.MockTransport`` (openai 3.x sends its
requests with httpx2), so requests are built, sent and parsed by the real SDK, and a refusal arrives
as the real ``openai.BadRequestError``. The endpoint counts every request with ``nightwatch.tokens``,
refuses one over its context limit exactly as the API does, reports ``usage``, and records every
request for plotting. It can be told to fail on chosen calls (429, 500, or a timeout), so tests can
show what an agent does when the real SDK raises. What it answers comes from ``nightwatch.reader.read`` and depends on the request alone;
each recorded request keeps the reader's grounding trace.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal

import httpx2
import openai

from nightwatch.reader import Source, read
from nightwatch.tokens import DEFAULT_ENCODING, count_message_tokens, count_text_tokens, get_encoding

DEFAULT_CONTEXT_LIMIT = 2048
STANDIN_BASE_URL = "http://standin.nightwatch/v1"


Fault = Literal["rate_limit", "server_error", "timeout"]
FAULTS: dict[str, tuple[int, dict[str, Any]]] = {
    "rate_limit": (429, {"error": {"message": "Rate limit reached. Please try again in 1s.",
                                   "type": "requests", "param": None, "code": "rate_limit_exceeded"}}),
    "server_error": (500, {"error": {"message": "The server had an error while processing your request.",
                                     "type": "server_error", "param": None, "code": None}}),
    "timeout": (0, {}),
}


@dataclass(frozen=True)
class RecordedRequest:
    """One request the stand-in received, whether it was refused, and where its reply came from.

    ``grounding`` is the reader's trace: the messages (index, role, tier) the reply drew on."""

    messages: list[dict[str, str]]
    prompt_tokens: int
    refused: bool
    grounding: tuple[Source, ...] = ()


def context_length_error(limit: int, prompt_tokens: int, max_tokens: int | None) -> dict[str, Any]:
    """The body OpenAI returns for a request over the context window."""
    if max_tokens is None:
        detail = f"However, your messages resulted in {prompt_tokens} tokens."
    else:
        detail = (
            f"However, you requested {prompt_tokens + max_tokens} tokens "
            f"({prompt_tokens} in the messages, {max_tokens} in the completion)."
        )
    return {
        "error": {
            "message": f"This model's maximum context length is {limit} tokens. {detail} "
            "Please reduce the length of the messages.",
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }
    }


def invalid_request(message: str, param: str | None = None, status: int = 400) -> httpx2.Response:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}
    return httpx2.Response(status, json=body)


class StandInModel:
    """A deterministic night-watch model with a small context window, reachable as an OpenAI client."""

    def __init__(
        self,
        context_limit: int = DEFAULT_CONTEXT_LIMIT,
        encoding_name: str = DEFAULT_ENCODING,
        model_name: str = "nightwatch-standin",
        faults: dict[int, Fault] | None = None,
    ) -> None:
        if not isinstance(context_limit, int) or context_limit <= 0:
            raise ValueError("context_limit must be a positive integer")
        unknown = {fault for fault in (faults or {}).values() if fault not in FAULTS}
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; choose from {sorted(FAULTS)}")
        self.context_limit = context_limit
        self.encoding_name = encoding_name
        self.model_name = model_name
        self.faults = dict(faults or {})
        self.calls = 0
        self.requests: list[RecordedRequest] = []

    def client(self) -> openai.OpenAI:
        """A real ``openai.OpenAI`` client whose HTTP requests never leave the process."""
        transport = httpx2.MockTransport(self.handle)
        return openai.OpenAI(
            api_key="offline-stand-in",
            base_url=STANDIN_BASE_URL,
            http_client=httpx2.Client(transport=transport),
            max_retries=0,
        )

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """Serve one HTTP request the way the chat-completions API would."""
        if request.method == "GET" and request.url.path.endswith("/models"):
            return httpx2.Response(200, json={"object": "list", "data": [self._model_card()]})
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return invalid_request(f"Unknown request URL: {request.method} {request.url.path}", status=404)
        self.calls += 1
        fault = self.faults.get(self.calls)
        if fault == "timeout":
            raise httpx2.ReadTimeout("the stand-in did not answer in time", request=request)
        if fault is not None:
            status, body = FAULTS[fault]
            return httpx2.Response(status, json=body)
        try:
            body = json.loads(request.content)
        except ValueError:
            return invalid_request("The request body is not valid JSON.")
        if not isinstance(body, dict):
            return invalid_request("The request body must be a JSON object.")
        return self.complete(body)

    def complete(self, body: dict[str, Any]) -> httpx2.Response:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return invalid_request("'messages' must be a non-empty array.", "messages")
        for message in messages:
            if not (
                isinstance(message, dict)
                and isinstance(message.get("role"), str)
                and isinstance(message.get("content"), str)
            ):
                return invalid_request("Each message needs a string 'role' and 'content'.", "messages")
        max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
        if max_tokens is not None and (not isinstance(max_tokens, int) or max_tokens <= 0):
            return invalid_request("'max_tokens' must be a positive integer.", "max_tokens")

        prompt_tokens = count_message_tokens(messages, self.encoding_name)
        over = prompt_tokens + (max_tokens or 0) > self.context_limit
        if over:
            self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=True))
            return httpx2.Response(400, json=context_length_error(self.context_limit, prompt_tokens, max_tokens))

        answered = read(messages)
        self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=False,
                                             grounding=answered.grounding))
        reply = answered.content
        finish_reason = "stop"
        if max_tokens is not None and count_text_tokens(reply, self.encoding_name) > max_tokens:
            encoding = get_encoding(self.encoding_name)
            reply = encoding.decode(encoding.encode(reply, disallowed_special=())[:max_tokens])
            finish_reason = "length"
        completion_tokens = count_text_tokens(reply, self.encoding_name)
        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16]
        return httpx2.Response(
            200,
            json={
                "id": f"chatcmpl-standin-{digest}",
                "object": "chat.completion",
                "created": 0,
                "model": str(body.get("model", self.model_name)),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply},
                        "finish_reason": finish_reason,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    def _model_card(self) -> dict[str, Any]:
        return {"id": self.model_name, "object": "model", "created": 0, "owned_by": "nightwatch"}
