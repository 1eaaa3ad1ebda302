"""``/v1/responses`` on the stand-in: create (plain and streamed), retrieve, delete, input items,
compact and input-token counts, through the one core (``StandInModel.serve``).

Where the story's three failures come back (chapter 10):

* **Growth on the server.** With ``previous_response_id`` the chain is kept here, and every call
  still reads all of it; ``truncation="disabled"`` (the default) refuses it over the window.
* **A root cut without slicing.** ``instructions`` are not carried to the next response (documented),
  and ``truncation="auto"`` drops items from the beginning (documented), after setting aside the
  model's output allowance (documented; ``OUTPUT_ALLOWANCE`` is the stand-in's). ``instructions``
  are not an input item, so truncation cannot drop them (inferred); a mission sent as the first
  input message is dropped with the oldest items.
* **Compaction by the server.** ``context_management`` and ``responses.compact`` keep every user
  message and fold the rest into one compaction item (documented), whose ``encrypted_content`` the
  client cannot read: here it is the stand-in's own summary sealed with a key only this process
  holds (``Seal``), so compaction needs no server state and the stand-in reads it back when it is
  sent again. What the key hides is exactly what a reader cannot inspect at dawn.

Stored responses keep their own input and output and a link to the one before (not a copy of the
chain), in a store bounded in bytes (``ResponseStore``): oldest first out, and a chain whose
ancestor is gone is refused as the API refuses a missing previous response.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx2

from nightwatch.standin import responses_protocol as wire
from nightwatch.standin.http import ContextOverflow, EventStream, context_length_error, invalid_request, model_not_found
from nightwatch.standin.protocol import ProtocolError, parse_chat_request
from nightwatch.standin.reader.summary import Summary, classify, fold
from nightwatch.standin.reader.text import language
from nightwatch.tokens import count_text_tokens, message_tokens
from nightwatch.tokens.bounded_cache import deep_size


class Core(Protocol):
    """What the endpoint needs of the stand-in (``StandInModel``): its one core, and its limit."""

    context_limit: int
    encoding_name: str

    def serve(self, chat: Any, truncate_front: bool = False, reserved: int | None = None) -> Any: ...
    def count(self, chat: Any, first: int = 0) -> int: ...
    def accepts(self, model: str) -> bool: ...

OUTPUT_ALLOWANCE = 256
"""The stand-in's maximum output allowance, set aside before ``truncation="auto"`` trims (the API does
so with the model's own allowance, documented; this number is ours)."""
STORE_BYTES = 8 * 2**20
"""What the store of responses may hold, in bytes of the Python objects (``bounded_cache.deep_size``);
a served stand-in states it within its one memory budget (``server.MEMORY_BUDGET_MB``)."""
CACHE_MINIMUM, CACHE_STEP = 1024, 128
"""gpt-4o's implicit caching: prefixes of 1,024 tokens or more, in steps of 128 (OpenAI's prompt
caching guide); the stand-in reports ``cached_tokens`` by this rule over the requests it has seen."""
CACHE_ENTRIES = 256
COMPACT_CALLS_KEPT = 64
"""The summaries of the newest ``responses.compact`` calls kept for a chapter to show (they store nothing)."""


class Seal:
    """Authenticated encryption with a key this process alone holds (HMAC-SHA256 keystream and tag):
    the client gets text it cannot read or alter, and the same text seals the same way."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def _stream(self, nonce: bytes, length: int) -> bytes:
        blocks = (hmac.new(self._key, nonce + n.to_bytes(4, "big"), hashlib.sha256).digest()
                  for n in range((length + 31) // 32))
        return b"".join(blocks)[:length]

    def seal(self, text: str) -> str:
        plain = text.encode()
        nonce = hmac.new(self._key, b"nonce" + plain, hashlib.sha256).digest()[:16]
        cipher = bytes(a ^ b for a, b in zip(plain, self._stream(nonce, len(plain))))
        tag = hmac.new(self._key, nonce + cipher, hashlib.sha256).digest()[:16]
        return base64.b64encode(nonce + tag + cipher).decode()

    def open(self, sealed: object, where: str) -> str:
        try:
            raw = base64.b64decode(str(sealed), validate=True)
        except ValueError:
            raw = b""
        nonce, tag, cipher = raw[:16], raw[16:32], raw[32:]
        if len(raw) < 32 or not hmac.compare_digest(tag, hmac.new(self._key, nonce + cipher, hashlib.sha256).digest()[:16]):
            raise ProtocolError("The encrypted content could not be verified or decrypted.", where)
        return bytes(a ^ b for a, b in zip(cipher, self._stream(nonce, len(cipher)))).decode()


@dataclass
class Stored:
    """One stored response: its own input and output, and the one before it (a link, not a copy)."""

    response: dict[str, Any]
    input: list[dict[str, Any]]
    previous: str | None
    replaces_before: list[dict[str, Any]] | None = None  # a compaction's items, standing for all before
    compacted: str | None = None  # the summary its compaction item seals (only a stand-in can show it)
    dropped: list[dict[str, Any]] = field(default_factory=list)  # what truncation dropped from its input
    size: int = 0


class ResponseStore:
    """Stored responses by id, bounded in bytes, oldest first out; safe across threads."""

    def __init__(self, max_bytes: int = STORE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.evicted = 0
        self._items: OrderedDict[str, Stored] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, stored: Stored) -> None:
        stored.size = deep_size([stored.response, stored.input, stored.replaces_before, stored.compacted,
                                 stored.dropped], levels=8)
        with self._lock:
            old = self._items.pop(stored.response["id"], None)
            self.bytes += stored.size - (old.size if old else 0)
            self._items[stored.response["id"]] = stored
            while self.bytes > self.max_bytes and len(self._items) > 1:
                _, gone = self._items.popitem(last=False)
                self.bytes -= gone.size
                self.evicted += 1

    def get(self, response_id: str) -> Stored | None:
        with self._lock:
            return self._items.get(response_id)

    def delete(self, response_id: str) -> bool:
        with self._lock:
            gone = self._items.pop(response_id, None)
            if gone:
                self.bytes -= gone.size
            return gone is not None

    def __len__(self) -> int:
        return len(self._items)

    def entries(self) -> list[Stored]:
        with self._lock:
            return list(self._items.values())

    def chain(self, response_id: str) -> list[dict[str, Any]]:
        """Every item the response ``response_id`` and its ancestors read and wrote, oldest first."""
        links: list[Stored] = []
        at: str | None = response_id
        while at is not None:
            stored = self.get(at)
            if stored is None:
                raise ProtocolError(f"Previous response with id '{at}' not found.", "previous_response_id")
            links.append(stored)
            at = stored.previous
        items: list[dict[str, Any]] = []
        for stored in reversed(links):
            items = list(stored.replaces_before) if stored.replaces_before is not None else items + stored.input
            items += [item for item in stored.response["output"] if item["type"] != "compaction"]
        return items


@dataclass
class PromptCache:
    """The prefixes of recent requests, to report ``cached_tokens`` by gpt-4o's implicit rule."""

    seen: OrderedDict[str, None] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def cached(self, messages: Sequence[Mapping[str, Any]], count: Any) -> int:
        running, keys, best = 0, [], 0
        digest = hashlib.sha256()
        for message in messages:
            digest.update(json.dumps(message, ensure_ascii=False, sort_keys=True).encode())
            running += message_tokens(message, count)
            keys.append((digest.hexdigest(), running))
        with self.lock:
            for key, tokens in keys:
                if key in self.seen:
                    best = tokens
            for key, _ in keys:
                self.seen[key] = None
                self.seen.move_to_end(key)
            while len(self.seen) > CACHE_ENTRIES * 8:
                self.seen.popitem(last=False)
        if best < CACHE_MINIMUM:
            return 0
        return CACHE_MINIMUM + (best - CACHE_MINIMUM) // CACHE_STEP * CACHE_STEP


def usage(prompt: int, completion: int, cached: int) -> dict[str, Any]:
    """``ResponseUsage`` with every field it requires (reasoning 0: the stand-in does not reason)."""
    return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": completion, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion}


class ResponsesEndpoint:
    """The Responses API around one stand-in."""

    def __init__(self, standin: Core, store_bytes: int = STORE_BYTES, key: bytes | None = None) -> None:
        self.standin = standin
        self.store = ResponseStore(store_bytes)
        self.seal = Seal(key)
        self.cache = PromptCache()
        self._compact_calls: OrderedDict[str, str] = OrderedDict()  # responses.compact's summaries, the newest

    @property
    def dropped(self) -> dict[str, list[dict[str, Any]]]:
        """Response id -> the items truncation dropped from it (stored responses only, so bounded)."""
        return {s.response["id"]: s.dropped for s in self.store.entries() if s.dropped}

    @property
    def compacted(self) -> dict[str, str]:
        """Response (or compaction) id -> the summary its compaction item seals, which only a stand-in
        can show; kept with the stored response, so it goes when the response does."""
        found = {s.response["id"]: s.compacted for s in self.store.entries() if s.compacted is not None}
        return found | dict(self._compact_calls)

    # --- routing ---------------------------------------------------------------------------

    def handle(self, method: str, path: str, body: dict[str, Any] | None) -> httpx2.Response:
        tail = path.split("/responses", 1)[1].strip("/")
        try:
            if method == "POST" and tail == "":
                return self.create(body or {})
            if method == "POST" and tail == "compact":
                return httpx2.Response(200, json=self.compact(body or {}))
            if method == "POST" and tail == "input_tokens":
                return httpx2.Response(200, json=self.input_tokens(body or {}))
            if method == "GET" and tail.endswith("/input_items"):
                return httpx2.Response(200, json=self.input_items(tail.rsplit("/", 1)[0]))
            if method == "GET" and "/" not in tail:
                return httpx2.Response(200, json=self._stored(tail).response)
            if method == "DELETE" and "/" not in tail:
                self._stored(tail)
                self.store.delete(tail)
                return httpx2.Response(200, json={"id": tail, "object": "response.deleted", "deleted": True})
        except ProtocolError as refused:
            return invalid_request(refused.message, refused.param, 404 if refused.param == "response_id" else 400)
        return invalid_request(f"Invalid URL ({method} {path})", status=404)

    def _stored(self, response_id: str) -> Stored:
        stored = self.store.get(response_id)
        if stored is None:
            raise ProtocolError(f"Response with id '{response_id}' not found.", "response_id")
        return stored

    # --- reading a request -----------------------------------------------------------------

    def context(self, body: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(the chain's items, this request's own input items)."""
        previous = body.get("previous_response_id")
        chain = self.store.chain(previous) if previous else []
        return chain, wire.input_items(body.get("input"))

    def normalized(self, body: Mapping[str, Any], items: Sequence[Mapping[str, Any]]):
        """The one normalized request (``protocol.ChatRequest``) for ``items`` under ``body``'s options.

        A compaction item stands for the conversation before the messages it was returned with, so it is
        read first, right after the instructions, where the chat designs put their summary, and the
        last message stays the one to answer (inferred: the order a provider's model reads is not published)."""
        readable = [i for i in items if i.get("type") != "compaction_trigger"]
        readable = [i for i in readable if i.get("type") == "compaction"] + [i for i in readable if i.get("type") != "compaction"]
        messages = wire.as_chat_messages(readable, self.seal.open)
        if body.get("instructions"):
            messages.insert(0, {"role": "system", "content": body["instructions"]})
        if not messages:
            raise ProtocolError("The request has no input to answer.", "input")
        tools, tool_choice = wire.chat_tools(body.get("tools"), body.get("tool_choice"))
        chat_body: dict[str, Any] = {"model": body.get("model") or "", "messages": messages}
        for key, value in (("tools", tools), ("tool_choice", tool_choice), ("max_tokens", body.get("max_output_tokens")),
                           ("parallel_tool_calls", body.get("parallel_tool_calls")),
                           ("response_format", wire.chat_format(body.get("text")))):
            if value is not None:
                chat_body[key] = value
        return parse_chat_request(chat_body)

    def _count(self, text: str) -> int:
        return count_text_tokens(text, self.standin.encoding_name)

    # --- truncation and compaction ---------------------------------------------------------

    def truncate(self, body: Mapping[str, Any], items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Drop items from the beginning until the request fits beside the output allowance; a
        function call goes with its output, and an output never stays without its call."""
        room = self.standin.context_limit - max(OUTPUT_ALLOWANCE, body.get("max_output_tokens") or 0)
        dropped: list[dict[str, Any]] = []
        while items and self.standin.count(self.normalized(body, items)) > room:
            first = items.pop(0)
            dropped.append(first)
            if first.get("type") == "function_call":
                dropped += [i for i in items if i.get("type") == "function_call_output"
                            and i.get("call_id") == first.get("call_id")]
                items = [i for i in items if not (i.get("type") == "function_call_output"
                                                  and i.get("call_id") == first.get("call_id"))]
            while items and items[0].get("type") == "function_call_output":
                dropped.append(items.pop(0))
        return items, dropped

    def summarize(self, items: Sequence[Mapping[str, Any]]) -> str:
        """The stand-in's own 束ね of what the compaction does not keep word for word: the model's
        side. Every user message stays verbatim beside the item (documented), so what the tools found
        is folded as ``ThreeLineSummarizer`` folds it, and the model's own replies only as a count
        (as that summarizer keeps replies: their words add no event). What an earlier compaction item
        sealed is read back and carried, and only what came after it is folded in. A provider's own
        encoding is not published: all of this is the stand-in's (inferred)."""
        last = max((n for n, item in enumerate(items) if item.get("type") == "compaction"), default=None)
        previous = "" if last is None else self.seal.open(items[last].get("encrypted_content"), "encrypted_content")
        since = items[(last + 1) if last is not None else 0:]
        found = [classify("tool", str(item.get("output", ""))) for item in since if item.get("type") == "function_call_output"]
        said = " ".join(wire.message_text(i.get("content"), "content") for i in items
                        if i.get("type", "message") == "message")
        summary = Summary.parse(fold(previous, found) if found else previous, language(said) if said else "ja")
        summary.others += sum(1 for item in since if item.get("type", "message") == "message" and item.get("role") == "assistant")
        return summary.render()

    def compacted_items(self, items: Sequence[Mapping[str, Any]], item_id: str) -> tuple[list[dict[str, Any]], str]:
        """Every user message, then one compaction item sealing the rest (documented shape)."""
        users = [{"type": "message", "role": "user", "id": item.get("id") or f"msg_{item_id}_{n}", "status": "completed",
                  "content": [{"type": "input_text", "text": wire.message_text(item.get("content"), "content")}]}
                 for n, item in enumerate(items) if item.get("type", "message") == "message" and item.get("role") == "user"]
        summary = self.summarize(items)
        compaction = {"type": "compaction", "id": f"cmp_{item_id}", "encrypted_content": self.seal.seal(summary)}
        return users + [compaction], summary

    # --- the endpoints ---------------------------------------------------------------------

    def create(self, body: dict[str, Any]) -> httpx2.Response:
        wire.check_fields(body)
        if not self.standin.accepts(str(body.get("model") or "")):
            return model_not_found(str(body.get("model")))
        chain, own = self.context(body)
        items = chain + own
        item_id = hashlib.sha256(json.dumps([body, chain], ensure_ascii=False, sort_keys=True,
                                            default=str).encode()).hexdigest()[:16]
        response_id = f"resp_standin_{item_id}"
        replaces, output_before, summary = None, [], None
        threshold = next((entry.get("compact_threshold") for entry in body.get("context_management") or []
                          if isinstance(entry, dict) and entry.get("type") == "compaction"), None)
        triggered = bool(own) and own[-1].get("type") == "compaction_trigger"
        if triggered or (threshold is not None and self.standin.count(self.normalized(body, items)) > threshold):
            replaces, summary = self.compacted_items(items[:-1] if triggered else items, item_id)
            items = list(replaces)
            output_before = [replaces[-1]]
        dropped: list[dict[str, Any]] = []
        if body.get("truncation") == "auto":
            items, dropped = self.truncate(body, items)
        if triggered:  # the response is the compaction itself
            chat = self.normalized(body, items)
            prompt = self.standin.count(chat)
            response = self._response(body, response_id, output_before, "completed", usage(prompt, 0, 0))
        else:
            chat = self.normalized(body, items)
            try:
                served = self.standin.serve(chat, reserved=body.get("max_output_tokens"))
            except ContextOverflow as over:
                error = context_length_error(self.standin.context_limit, over.prompt_tokens, over.reserved)
                error["error"]["param"] = "input"
                return httpx2.Response(400, json=error)
            calls_cap = body.get("max_tool_calls")
            if calls_cap is not None and len(served.calls) > calls_cap:
                served.calls[calls_cap:] = []
            cached = self.cache.cached(chat.counted or chat.messages, self._count)
            output = output_before + wire.output_items(served, item_id)
            status = "incomplete" if served.finish_reason == "length" else "completed"
            response = self._response(body, response_id, output, status,
                                      usage(served.prompt_tokens, served.completion_tokens, cached))
        if body.get("store") is not False:
            self.store.put(Stored(response, own, body.get("previous_response_id"), replaces, summary, dropped))
        if body.get("stream"):
            return httpx2.Response(200, stream=EventStream(wire.stream_events(response)),
                                   headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json=response)

    def _response(self, body: Mapping[str, Any], response_id: str, output: list[dict[str, Any]], status: str,
                  used: dict[str, Any]) -> dict[str, Any]:
        tools = [dict(tool) for tool in body.get("tools") or []]
        return {
            "id": response_id, "object": "response", "created_at": 0, "status": status, "model": body.get("model"),
            "output": output, "instructions": body.get("instructions"), "previous_response_id": body.get("previous_response_id"),
            "parallel_tool_calls": body.get("parallel_tool_calls") is not False, "tool_choice": body.get("tool_choice") or "auto",
            "tools": tools, "truncation": body.get("truncation") or "disabled", "store": body.get("store") is not False,
            "max_output_tokens": body.get("max_output_tokens"), "metadata": body.get("metadata") or {},
            "text": body.get("text") or {"format": {"type": "text"}}, "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if status == "incomplete" else None,
            "usage": used, "service_tier": "default", "temperature": None, "top_p": None,
        }

    def compact(self, body: dict[str, Any]) -> dict[str, Any]:
        """``responses.compact``: all user messages, then one compaction item (documented)."""
        unknown = set(body) - {"model", "input", "instructions", "previous_response_id", "prompt_cache_key",
                               "prompt_cache_options", "prompt_cache_retention", "service_tier"}
        if unknown:
            raise ProtocolError(f"Unrecognized request argument supplied: {sorted(unknown)[0]}", sorted(unknown)[0])
        chain, own = self.context(body)
        items = chain + own
        item_id = hashlib.sha256(json.dumps(items, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]
        compacted, summary = self.compacted_items(items, item_id)
        prompt = self.standin.count(self.normalized(body, items)) if items else 0
        self._compact_calls[f"cmp_{item_id}"] = summary
        while len(self._compact_calls) > COMPACT_CALLS_KEPT:
            self._compact_calls.popitem(last=False)
        return {"id": f"cmp_{item_id}", "object": "response.compaction", "created_at": 0, "output": compacted,
                "usage": usage(prompt, self._count(summary), 0)}

    def input_tokens(self, body: dict[str, Any]) -> dict[str, Any]:
        """``responses.input_tokens.count``: what the same create would read, counted by the core."""
        chain, own = self.context(body)
        return {"object": "response.input_tokens",
                "input_tokens": self.standin.count(self.normalized(body, chain + own))}

    def input_items(self, response_id: str) -> dict[str, Any]:
        stored = self._stored(response_id)
        data = [{"type": "message", "status": "completed"} | item | {"id": item.get("id") or f"item_{response_id}_{n}"}
                if item.get("type", "message") == "message" else item | {"id": item.get("id") or f"item_{response_id}_{n}"}
                for n, item in enumerate(stored.input)]
        data = [item | ({"content": [{"type": "input_text", "text": item["content"]}]}
                        if isinstance(item.get("content"), str) else {}) for item in reversed(data)]
        return {"object": "list", "data": data, "first_id": data[0]["id"] if data else "",
                "last_id": data[-1]["id"] if data else "", "has_more": False}
