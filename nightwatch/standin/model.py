"""The stand-in model (代役): an OpenAI-compatible chat endpoint inside the process.

It sits behind the real ``openai`` client through an ``httpx2.MockTransport`` (openai 3.x sends its
requests with httpx2), so requests are built, sent and parsed by the real SDK, and a refusal arrives
as the real ``openai.BadRequestError``. The endpoint counts every request with ``nightwatch.tokens``,
refuses one over its context limit exactly as the API does, reports ``usage``, and records every
request for plotting. It can be told to fail on chosen calls (429, 500, or a timeout), so tests can
show what an agent does when the real SDK raises. What it answers comes from ``nightwatch.standin.reader.read`` and depends on the request alone;
each recorded request keeps the reader's grounding trace.

Requests arrive in every shape current clients send (``nightwatch.standin.protocol`` reduces them to
plain messages) and may ask for a stream. The same object serves many threads at once behind the
HTTP server, so its shared state (the call counter, the request log) is guarded by a lock, and the
log is a ring of the most recent requests, so a long-running server's memory stays flat.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import httpx2
import openai

from nightwatch.standin.protocol import ProtocolError, parse_chat_request, stream_events
from nightwatch.standin.reader import Source, read
from nightwatch.tokens import DEFAULT_ENCODING, count_message_tokens, count_text_tokens, get_encoding

DEFAULT_CONTEXT_LIMIT = 2048
DEFAULT_REQUEST_LOG_SIZE = 2000  # a whole in-process night (a few hundred calls) stays readable
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

    ``grounding`` is the reader's trace: the messages (index, role, tier) the reply drew on;
    ``act`` is what the reply did (refuse, comply, report, ...)."""

    messages: list[dict[str, str]]
    prompt_tokens: int
    refused: bool
    grounding: tuple[Source, ...] = ()
    act: str = ""


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


class RequestLog(Sequence[RecordedRequest]):
    """The last ``size`` requests, oldest first; safe to append to from many threads."""

    def __init__(self, size: int) -> None:
        if type(size) is not int or size <= 0:
            raise ValueError("the request log size must be a positive integer")
        self.size = size
        self._items: deque[RecordedRequest] = deque(maxlen=size)
        self._lock = threading.Lock()

    def append(self, request: RecordedRequest) -> None:
        with self._lock:
            self._items.append(request)

    def _snapshot(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._items)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> RecordedRequest: ...
    @overload
    def __getitem__(self, index: slice) -> list[RecordedRequest]: ...
    def __getitem__(self, index: int | slice) -> RecordedRequest | list[RecordedRequest]:
        if isinstance(index, slice):
            return self._snapshot()[index]
        with self._lock:
            return self._items[index]

    def __iter__(self) -> Iterator[RecordedRequest]:
        return iter(self._snapshot())

    def __repr__(self) -> str:
        return f"RequestLog({len(self)} of the last {self.size} requests)"


class StandInModel:
    """A deterministic night-watch model with a small context window, reachable as an OpenAI client."""

    def __init__(
        self,
        context_limit: int = DEFAULT_CONTEXT_LIMIT,
        encoding_name: str = DEFAULT_ENCODING,
        model_name: str = "nightwatch-standin",
        faults: dict[int, Fault] | None = None,
        request_log_size: int = DEFAULT_REQUEST_LOG_SIZE,
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
        self.requests = RequestLog(request_log_size)
        self._calls_lock = threading.Lock()

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
        if request.method == "GET" and "/models/" in request.url.path:
            model = request.url.path.rsplit("/models/", 1)[1]
            if model == self.model_name:
                return httpx2.Response(200, json=self._model_card())
            return invalid_request(f"The model '{model}' does not exist.", "model", status=404)
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return invalid_request(f"Invalid URL ({request.method} {request.url.path})", status=404)
        with self._calls_lock:
            self.calls += 1
            fault = self.faults.get(self.calls)
        if fault == "timeout":
            raise httpx2.ReadTimeout("the stand-in did not answer in time", request=request)
        if fault is not None:
            status, body = FAULTS[fault]
            return httpx2.Response(status, json=body)
        try:
            body = json.loads(request.content)
        except (ValueError, RecursionError):
            return invalid_request("The request body is not valid JSON.")
        if not isinstance(body, dict):
            return invalid_request("The request body must be a JSON object.")
        return self.complete(body)

    def complete(self, body: dict[str, Any]) -> httpx2.Response:
        try:
            chat = parse_chat_request(body)
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param)
        messages, max_tokens = chat.messages, chat.max_tokens

        prompt_tokens = count_message_tokens(messages, self.encoding_name)
        over = prompt_tokens + (max_tokens or 0) > self.context_limit
        if over:
            self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=True))
            return httpx2.Response(400, json=context_length_error(self.context_limit, prompt_tokens, max_tokens))

        answered = read(messages)
        self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=False,
                                             grounding=answered.grounding, act=answered.act))
        reply = answered.content
        finish_reason = "stop"
        if max_tokens is not None and count_text_tokens(reply, self.encoding_name) > max_tokens:
            encoding = get_encoding(self.encoding_name)
            reply = encoding.decode(encoding.encode(reply, disallowed_special=())[:max_tokens])
            finish_reason = "length"
        completion_tokens = count_text_tokens(reply, self.encoding_name)
        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16]
        completion = {
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
        }
        if chat.stream:
            events = b"".join(stream_events(completion, chat.include_usage))
            return httpx2.Response(200, content=events, headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=completion)

    def _model_card(self) -> dict[str, Any]:
        return {"id": self.model_name, "object": "model", "created": 0, "owned_by": "nightwatch"}
