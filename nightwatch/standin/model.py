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
from collections.abc import AsyncIterator, Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload
from urllib.parse import unquote

import httpx2
import openai

from nightwatch.standin.fill import Unfillable, fill_schema, numbers_in
from nightwatch.standin.protocol import ChatRequest, ProtocolError, apply_stop, parse_chat_request, stream_events
from nightwatch.standin.reader import Reply, Source, read
from nightwatch.standin.reader.grounding import source
from nightwatch.standin.tools import ToolCall, choose_call, relay
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


def _not_json(constant: str) -> None:
    """Python's json reads ``NaN``, ``Infinity`` and ``-Infinity``; JSON has none of them."""
    raise ValueError(f"{constant} is not JSON")


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


class EventStream(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """Server-sent events handed over one at a time, to a sync or an async client alike."""

    def __init__(self, events: Iterator[bytes]) -> None:
        self._events = events

    def __iter__(self) -> Iterator[bytes]:
        yield from self._events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event


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
            names = [self.model_name, *sorted(set(self.model_names or ()) - {self.model_name})]
            return httpx2.Response(200, json={"object": "list", "data": [self._model_card(name) for name in names]})
        if request.method == "GET" and "/models/" in request.url.path:
            model = unquote(request.url.path.rsplit("/models/", 1)[1])
            if self.accepts(model):
                return httpx2.Response(200, json=self._model_card(model))
            return model_not_found(model)
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
            body = json.loads(request.content, parse_constant=_not_json)
        except (ValueError, RecursionError):
            return invalid_request("The request body is not valid JSON (NaN and Infinity are not JSON either).")
        if not isinstance(body, dict):
            return invalid_request("The request body must be a JSON object.")
        return self.complete(body)

    def complete(self, body: dict[str, Any]) -> httpx2.Response:
        try:
            chat = parse_chat_request(body)
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param)
        if not self.accepts(chat.model):
            return model_not_found(chat.model)
        messages, max_tokens = chat.messages, chat.max_tokens
        offered = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in chat.tools]
        # tool definitions are read too: counted (approximately) as their JSON text
        tool_tokens = count_text_tokens(json.dumps(offered, ensure_ascii=False), self.encoding_name) if offered else 0

        def size(sent: list[dict[str, str]]) -> int:
            return count_message_tokens(sent, self.encoding_name) + tool_tokens

        prompt_tokens = size(messages)
        cut = 0
        if self.context_overflow == "truncate_front":  # what a local server may do: drop the oldest, say nothing
            # each message's share counted once, then taken off as it is dropped: linear in the messages
            shares = [message_tokens(m, lambda text: count_text_tokens(text, self.encoding_name)) for m in messages]
            while cut < len(messages) - 1 and prompt_tokens + (max_tokens or 0) > self.context_limit:
                prompt_tokens -= shares[cut]
                cut += 1
        dropped, messages = tuple(messages[:cut]), messages[cut:]
        if prompt_tokens + (max_tokens or 0) > self.context_limit:
            self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=True,
                                                 dropped=dropped))
            return httpx2.Response(400, json=context_length_error(self.context_limit, prompt_tokens, max_tokens))

        try:
            answered, call = self._answer(chat, messages, cut)
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param)
        self.requests.append(RecordedRequest(messages=messages, prompt_tokens=prompt_tokens, refused=False,
                                             grounding=answered.grounding, act=answered.act, dropped=dropped))
        message: dict[str, Any] = {"role": "assistant", "content": answered.content, "refusal": None}
        finish_reason = "stop"
        if call is not None:
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [call.as_json()]}
            finish_reason = "tool_calls"
        else:
            reply, _ = apply_stop(answered.content, chat.stop)
            if max_tokens is not None and count_text_tokens(reply, self.encoding_name) > max_tokens:
                encoding = get_encoding(self.encoding_name)
                reply = encoding.decode(encoding.encode(reply, disallowed_special=())[:max_tokens])
                finish_reason = "length"
            message["content"] = reply
        completion_tokens = count_text_tokens(message["content"] or json.dumps(message.get("tool_calls")),
                                              self.encoding_name)
        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).hexdigest()[:16]
        completion = {
            "id": f"chatcmpl-standin-{digest}",
            "object": "chat.completion",
            "created": 0,
            "model": chat.model,
            "service_tier": "default",
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        if chat.stream:
            return httpx2.Response(200, stream=EventStream(stream_events(completion, chat.include_usage)),
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=completion)

    def _answer(self, chat: ChatRequest, messages: list[dict[str, str]], cut: int) -> tuple[Reply, ToolCall | None]:
        """The reply (or the tool call) for a request that fits: tools first, then the reader."""
        results = [index - cut for index in chat.answered_call if index >= cut]
        if results and chat.tool_choice in ("auto", "none"):
            answered = relay(messages, results)
        else:
            call = choose_call(chat, messages)
            if call is not None:
                asked = source(messages, len(messages) - 1, messages[-1]["content"])
                return Reply("", (asked,), "tool_call"), call  # type: ignore[arg-type]
            answered = read(messages)
        if chat.response_format is not None:
            answered = Reply(shape(answered, chat.response_format, messages), answered.grounding, answered.act)
        return answered, None

    def accepts(self, model: str) -> bool:
        """Whether chat answers under this model name (any name, unless ``model_names`` was given)."""
        return self.model_names is None or model in self.model_names or model == self.model_name

    def _model_card(self, name: str) -> dict[str, Any]:
        return {"id": name, "object": "model", "created": 0, "owned_by": "nightwatch"}
