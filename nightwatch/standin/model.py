"""The stand-in model (代役): an OpenAI-compatible chat endpoint inside the process.

It sits behind the real ``openai`` client through an ``httpx2.MockTransport`` (openai 3.x sends its
requests with httpx2), so requests are built, sent and parsed by the real SDK, and a refusal arrives
as the real ``openai.BadRequestError``. The endpoint counts every request with ``nightwatch.tokens``,
reports ``usage``, and records every request for plotting. Over its context limit it either refuses
exactly as the API does (``context_overflow="error"``) or, as a local server may, silently drops
messages from the front until the request fits (``"truncate_front"``; the record keeps what was
dropped). It can be told to fail on chosen calls (429, 500, or a timeout), so tests can show what an
agent does when the real SDK raises.

What it answers depends on the request alone: a tool call when an offered function relates to the
ask (``nightwatch.standin.tools``), the tool's result after one, otherwise the reader's reply
(``nightwatch.standin.reader.read``), shaped by ``response_format`` (``nightwatch.standin.fill``)
and cut by ``stop`` and the reply cap. Each recorded request keeps the grounding trace.

Requests arrive in every shape current clients send; ``nightwatch.standin.protocol`` says, field by
field, what is honoured and what is refused. Streams are handed over event by event. The same
object serves many threads at once behind the HTTP server, so its shared state (the call counter,
the request log) is guarded by a lock, and the log is a ring of the most recent requests, so a
long-running server's memory stays flat.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload
from urllib.parse import unquote

import httpx2
import openai

from nightwatch.standin.fill import Unfillable, fill_schema, numbers_in
from nightwatch.standin.protocol import ChatRequest, ProtocolError, apply_stop, parse_chat_request, stream_events
from nightwatch.standin.http import (
    ContextOverflow, EventStream, context_length_error, error_body, invalid_request, model_not_found,
)
from nightwatch.standin.reader import Reply, Source, read
from nightwatch.standin.responses import ResponsesEndpoint
from nightwatch.standin.reader.grounding import source
from nightwatch.standin.tools import ToolCall, choose_calls, relay
from nightwatch.tokens import DEFAULT_ENCODING, count_message_tokens, count_text_tokens, get_encoding, message_tokens
from nightwatch.tokens.bounded_cache import deep_size

DEFAULT_CONTEXT_LIMIT = 2048
DEFAULT_REQUEST_LOG_SIZE = 2000  # a whole in-process night (a few hundred calls) stays readable
STANDIN_BASE_URL = "http://standin.nightwatch/v1"


Fault = Literal["rate_limit", "server_error", "timeout"]
Overflow = Literal["error", "truncate_front"]
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

    ``messages`` is what the model read; ``grounding`` is the reader's trace: the messages (index,
    role, tier) the reply drew on; ``act`` is what the reply did (refuse, comply, report, tool_call,
    ...); ``dropped`` is what a ``truncate_front`` stand-in cut from the front to make it fit."""

    messages: list[dict[str, str]]
    prompt_tokens: int
    refused: bool
    grounding: tuple[Source, ...] = ()
    act: str = ""
    dropped: tuple[dict[str, str], ...] = ()


def _not_json(constant: str) -> None:
    """Python's json reads ``NaN``, ``Infinity`` and ``-Infinity``; JSON has none of them."""
    raise ValueError(f"{constant} is not JSON")


def shape(reply: Reply, response_format: dict[str, Any], messages: Sequence[dict[str, str]]) -> str:
    """The reply as ``response_format`` asks: a JSON object, or a value valid against a schema.

    Built from the same grounded content: the reply text, then the words it quoted from its sources;
    numbers only from the ask. ``ProtocolError`` names the part of a schema the request cannot fill."""
    quotes = [source.quote for source in reply.grounding if source.quote and source.quote != reply.content]
    if response_format["type"] == "json_object":
        if not any("json" in message["content"].lower() for message in messages):
            raise ProtocolError("'messages' must contain the word 'json' in some form, to use 'response_format' "
                                "of type 'json_object'.", "messages")
        return json.dumps({"reply": reply.content, "sources": quotes}, ensure_ascii=False)
    try:
        value = fill_schema(response_format["schema"], "response_format.json_schema.schema",
                            texts=[reply.content, *quotes], match_text=reply.content,
                            numbers=numbers_in(messages[-1]["content"]))
    except Unfillable as failed:
        raise ProtocolError(f"The stand-in cannot fill '{failed.path}' from this request: {failed.why}.",
                            failed.path) from None
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class Served:
    """What the core made of one normalized request, before any API shapes it."""

    messages: list[dict[str, str]]  # what the model read (after any truncation)
    prompt_tokens: int
    content: str | None  # None when the answer is tool calls
    calls: list[ToolCall]
    finish_reason: str  # stop, length or tool_calls
    completion_tokens: int
    reply: Reply
    dropped: tuple[dict[str, str], ...] = ()


class RequestLog(Sequence[RecordedRequest]):
    """The last ``size`` requests, oldest first; safe to append to from many threads.

    With ``max_bytes``, also no more than that many bytes of messages (the newest request is always
    kept): a served stand-in's log must not hold sixteen requests of four megabytes each."""

    def __init__(self, size: int, max_bytes: int | None = None) -> None:
        if type(size) is not int or size <= 0:
            raise ValueError("the request log size must be a positive integer")
        self.size = size
        self.max_bytes = max_bytes
        self._items: deque[RecordedRequest] = deque()
        self._costs: deque[int] = deque()
        self._bytes = 0
        self._lock = threading.Lock()

    def append(self, request: RecordedRequest) -> None:
        cost = deep_size(request.messages) + deep_size(request.dropped) if self.max_bytes is not None else 0
        with self._lock:
            self._items.append(request)
            self._costs.append(cost)
            self._bytes += cost
            while len(self._items) > self.size or (
                    self.max_bytes is not None and self._bytes > self.max_bytes and len(self._items) > 1):
                self._items.popleft()
                self._bytes -= self._costs.popleft()

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
        context_overflow: Overflow = "error",
        model_names: Collection[str] | None = None,
    ) -> None:
        """``context_overflow="error"`` refuses an oversized request as the API does (400
        ``context_length_exceeded``); ``"truncate_front"`` drops messages from the front, the
        system message included, until it fits, and answers with no error, as a local server may.
        ``model_names``: the names chat answers to (None: any name, like a one-model local server)."""
        if not isinstance(context_limit, int) or context_limit <= 0:
            raise ValueError("context_limit must be a positive integer")
        unknown = {fault for fault in (faults or {}).values() if fault not in FAULTS}
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}; choose from {sorted(FAULTS)}")
        if context_overflow not in ("error", "truncate_front"):
            raise ValueError("context_overflow must be 'error' or 'truncate_front'")
        self.context_limit = context_limit
        self.context_overflow = context_overflow
        self.model_names = None if model_names is None else frozenset(model_names)
        self.encoding_name = encoding_name
        self.model_name = model_name
        self.faults = dict(faults or {})
        self.calls = 0
        self.requests = RequestLog(request_log_size)
        self._calls_lock = threading.Lock()
        self.responses = ResponsesEndpoint(self)  # /v1/responses, through the same core

    def client(self) -> openai.OpenAI:
        """A real ``openai.OpenAI`` client whose HTTP requests never leave the process."""
        transport = httpx2.MockTransport(self.handle)
        return openai.OpenAI(
            api_key="offline-stand-in",
            base_url=STANDIN_BASE_URL,
            http_client=httpx2.Client(transport=transport),
            max_retries=0,
        )

    def async_client(self) -> openai.AsyncOpenAI:
        """A real ``openai.AsyncOpenAI`` client on the same in-process endpoint (the Agents SDK uses one)."""
        async def handle(request: httpx2.Request) -> httpx2.Response:
            await request.aread()
            return self.handle(request)

        return openai.AsyncOpenAI(
            api_key="offline-stand-in", base_url=STANDIN_BASE_URL,
            http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handle)), max_retries=0,
        )

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """Serve one HTTP request the way the chat-completions or the Responses API would."""
        if request.method == "GET" and request.url.path.endswith("/models"):
            names = [self.model_name, *sorted(set(self.model_names or ()) - {self.model_name})]
            return httpx2.Response(200, json={"object": "list", "data": [self._model_card(name) for name in names]})
        if request.method == "GET" and "/models/" in request.url.path:
            model = unquote(request.url.path.rsplit("/models/", 1)[1])
            if self.accepts(model):
                return httpx2.Response(200, json=self._model_card(model))
            return model_not_found(model)
        responses = "/responses" in request.url.path
        if not responses and (request.method != "POST" or not request.url.path.endswith("/chat/completions")):
            return invalid_request(f"Invalid URL ({request.method} {request.url.path})", status=404)
        with self._calls_lock:
            self.calls += 1
            fault = self.faults.get(self.calls)
        if fault == "timeout":
            raise httpx2.ReadTimeout("the stand-in did not answer in time", request=request)
        if fault is not None:
            status, body = FAULTS[fault]
            return httpx2.Response(status, json=body)
        if responses and request.method in ("GET", "DELETE"):
            return self.responses.handle(request.method, request.url.path, None)
        try:
            body = json.loads(request.content, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return invalid_request("The request body is not valid JSON (NaN and Infinity are not JSON either).")
        if not isinstance(body, dict):
            return invalid_request("The request body must be a JSON object.")
        if responses:
            return self.responses.handle(request.method, request.url.path, body)
        return self.complete(body)

    def complete(self, body: dict[str, Any]) -> httpx2.Response:
        """The chat-completions adapter: parse the body, serve it, shape the chat completion."""
        try:
            chat = parse_chat_request(body)
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param)
        if not self.accepts(chat.model):
            return model_not_found(chat.model)
        try:
            served = self.serve(chat, truncate_front=self.context_overflow == "truncate_front")
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param)
        except ContextOverflow as over:
            return httpx2.Response(400, json=context_length_error(self.context_limit, over.prompt_tokens, over.reserved))
        message: dict[str, Any] = {"role": "assistant", "content": served.content, "refusal": None}
        if served.calls:
            message = {"role": "assistant", "content": None, "refusal": None,
                       "tool_calls": [call.as_json() for call in served.calls]}
        digest = hashlib.sha256(json.dumps(served.messages, ensure_ascii=False).encode()).hexdigest()[:16]
        completion = {
            "id": f"chatcmpl-standin-{digest}",
            "object": "chat.completion",
            "created": 0,
            "model": chat.model,
            "service_tier": "default",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": served.finish_reason}],
            "usage": {
                "prompt_tokens": served.prompt_tokens,
                "completion_tokens": served.completion_tokens,
                "total_tokens": served.prompt_tokens + served.completion_tokens,
            },
        }
        if chat.stream:
            return httpx2.Response(200, stream=EventStream(stream_events(completion, chat.include_usage)),
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=completion)

    def count(self, chat: ChatRequest, first: int = 0) -> int:
        """Prompt tokens of a normalized request from message ``first`` on: the library's one formula."""
        offered = [{"function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                   for t in chat.tools]
        return count_message_tokens((chat.counted or chat.messages)[first:], self.encoding_name, offered)

    def serve(self, chat: ChatRequest, truncate_front: bool = False, reserved: int | None = None) -> Served:
        """The core, for any API: the limit, then the reader, the tools and the schema, in that order.

        ``chat`` is the normalized request each API's adapter makes. Over the limit it raises
        ``ContextOverflow`` (the adapter words the refusal), unless ``truncate_front`` drops messages
        from the front until it fits, as a local server may. ``reserved`` is what the limit keeps
        for the reply (default: the request's own reply cap)."""
        messages, max_tokens = chat.messages, chat.max_tokens
        keep = max_tokens if reserved is None else reserved
        prompt_tokens = self.count(chat)
        cut = 0
        if truncate_front:  # what a local server may do: drop the oldest, say nothing
            # each message's share counted once, then taken off as it is dropped: linear in the messages
            count = lambda text: count_text_tokens(text, self.encoding_name)  # noqa: E731
            shares = [message_tokens(m, count) for m in (chat.counted or chat.messages)]
            while cut < len(messages) - 1 and prompt_tokens + (keep or 0) > self.context_limit:
                prompt_tokens -= shares[cut]
                cut += 1
        dropped, messages = tuple(messages[:cut]), messages[cut:]
        if prompt_tokens + (keep or 0) > self.context_limit:
            self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=True,
                                                 dropped=dropped))
            raise ContextOverflow(prompt_tokens, keep)
        answered, calls = self._answer(chat, messages, cut)
        self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=False,
                                             grounding=answered.grounding, act=answered.act, dropped=dropped))
        finish_reason, content = "stop", answered.content
        if calls:
            finish_reason, content = "tool_calls", None
        else:
            content, _ = apply_stop(answered.content, chat.stop)
            if max_tokens is not None and count_text_tokens(content, self.encoding_name) > max_tokens:
                encoding = get_encoding(self.encoding_name)
                content = encoding.decode(encoding.encode(content, disallowed_special=())[:max_tokens])
                finish_reason = "length"
        completion_tokens = count_text_tokens(
            content if content is not None else json.dumps([call.as_json() for call in calls]), self.encoding_name)
        return Served(messages, prompt_tokens, content, calls, finish_reason, completion_tokens, answered, dropped)

    def _answer(self, chat: ChatRequest, messages: list[dict[str, str]], cut: int) -> tuple[Reply, list[ToolCall]]:
        """The reply (or the tool calls) for a request that fits: what the reader makes of the
        question decides whether a tool is called (``tools.choose_calls``); after the results, the
        reply to the question with what the tools found (``tools.relay``)."""
        results = [index - cut for index in chat.answered_call if index >= cut]
        if results and chat.tool_choice in ("auto", "none"):
            answered = relay(messages, results, read)
        else:
            answered = read(messages)
            calls = choose_calls(chat, messages, answered)
            if calls:
                asked = source(messages, len(messages) - 1, messages[-1]["content"])
                return Reply("", (*answered.grounding, asked), "tool_call"), calls  # type: ignore[arg-type]
        if chat.response_format is not None:
            answered = Reply(shape(answered, chat.response_format, messages), answered.grounding, answered.act)
        return answered, []

    def accepts(self, model: str) -> bool:
        """Whether chat answers under this model name (any name, unless ``model_names`` was given)."""
        return self.model_names is None or model in self.model_names or model == self.model_name

    def _model_card(self, name: str) -> dict[str, Any]:
        return {"id": name, "object": "model", "created": 0, "owned_by": "nightwatch"}
