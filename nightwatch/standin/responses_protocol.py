"""The Responses API's wire format, as a thin adapter onto the one normalized request.

``FIELDS`` is the table of every field of ``client.responses.create`` (the installed SDK's
``ResponseCreateParams``): honoured, a no-op with its reason, or refused with a 400 naming it.
``chat_body`` turns the items a response reads (its chain, then its own input) into the chat shape
``protocol.parse_chat_request`` already normalizes: instructions first as a system message, input
messages of every role, ``function_call`` items as an assistant's ``tool_calls``, their
``function_call_output`` as ``tool`` messages, a compaction item as the summary it carries. So the
core reads, counts and answers a Responses request exactly as it does a chat request.

What each behaviour rests on is said where it is emulated: *documented* (the SDK's docstrings for
openai 3.57, ``types/responses/response_create_params.py`` and ``compacted_response.py``) or
*inferred* (our reading where the documents are silent).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from nightwatch.standin.protocol import Field, ProtocolError

FIELDS: dict[str, Field] = {
    "input": Field("honoured", "a string or items: messages of every role, function_call, function_call_output, "
                               "compaction items and a final compaction_trigger"),
    "instructions": Field("honoured", "a system message before the input; not carried to the next response "
                                      "(documented: 'the instructions from a previous response will not be carried over')"),
    "model": Field("honoured", "echoed; a stand-in built with model_names refuses other names (404)"),
    "previous_response_id": Field("honoured", "the stored chain, each response's input and output, read first; "
                                              "an evicted or unknown id is refused as the API refuses it"),
    "store": Field("honoured", "true (default, documented): kept for retrieve, input_items and chaining, in a store "
                               "bounded in bytes, oldest first out; false: not kept"),
    "truncation": Field("honoured", "disabled (default): a 400 over the window (documented); auto: items dropped from "
                                    "the beginning after setting aside the output allowance (documented), never "
                                    "instructions and never a function_call without its output (inferred)"),
    "context_management": Field("honoured", "[{type: compaction, compact_threshold}]: over the threshold, the context "
                                            "is compacted as responses.compact does, before the answer (inferred order)"),
    "max_output_tokens": Field("honoured", "the reply is cut there: status incomplete, reason max_output_tokens"),
    "max_tool_calls": Field("honoured", "at most this many function calls in one response"),
    "tools": Field("honoured", "function tools, as chat's tools; other tool types are refused"),
    "tool_choice": Field("honoured", "none, auto, required, or {type: function, name}"),
    "parallel_tool_calls": Field("honoured", "true: one call per item a duty covers, in one response; false: one call"),
    "text": Field("honoured", "format text, json_object or json_schema (a reply valid against the schema); "
                              "verbosity is a no-op (one length of reply)"),
    "stream": Field("honoured", "the response's events, created to completed, as server-sent events"),
    "stream_options": Field("honoured", "include_obfuscation is a no-op: loopback has no side channel to pad against"),
    "metadata": Field("no-op", "echoed on the response; it never changes a reply"),
    "temperature": Field("no-op", "the stand-in does not sample: one reply, whatever the temperature (0..2 checked)"),
    "top_p": Field("no-op", "likewise (0..1 checked)"),
    "user": Field("no-op", "an end-user id; it never changes a reply"),
    "safety_identifier": Field("no-op", "likewise"),
    "service_tier": Field("no-op", "one tier here; reported as 'default'"),
    "prompt_cache_key": Field("no-op", "routing for a provider's cache; the stand-in's cache report is per process"),
    "prompt_cache_retention": Field("no-op", "likewise"),
    "prompt_cache_options": Field("no-op", "the stand-in reports implicit caching only (cached_tokens by gpt-4o's "
                                           "documented 1,024/128 rule; cache_write_tokens 0: inferred)"),
    "reasoning": Field("no-op", "the stand-in does not reason: reasoning_tokens is always 0"),
    "include": Field("refused", "the stand-in has no extra outputs to include (encrypted reasoning, logprobs, sources)"),
    "top_logprobs": Field("refused", "the stand-in has no token probabilities"),
    "background": Field("refused", "every response is answered at once; background mode is not served"),
    "background_options": Field("refused", "likewise"),
    "conversation": Field("refused", "the Conversations API is not served; chain with previous_response_id"),
    "prompt": Field("refused", "stored prompt templates are not served"),
    "moderation": Field("refused", "no moderation model here"),
    "image": Field("refused", "the stand-in reads text only"),
    "access_programs": Field("refused", "no access programs here"),
}
DEFAULTS: dict[str, tuple[Any, ...]] = {"background": (False,), "include": ([],), "top_logprobs": (0,)}
NO_OP_CHECKS: dict[str, Any] = {
    "temperature": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 2,
    "top_p": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1,
    "user": lambda v: isinstance(v, str), "safety_identifier": lambda v: isinstance(v, str),
    "service_tier": lambda v: v in ("auto", "default", "flex", "scale", "priority", "fast"),
    "prompt_cache_key": lambda v: isinstance(v, str), "prompt_cache_retention": lambda v: v in ("in_memory", "24h"),
    "prompt_cache_options": lambda v: isinstance(v, dict), "reasoning": lambda v: isinstance(v, dict),
    "metadata": lambda v: isinstance(v, dict) and all(isinstance(x, str) for pair in v.items() for x in pair),
}
COMPACTION_SUMMARY_HEADING = "これまでの夜の束ね（サーバ側の圧縮）:"
"""How the stand-in shows itself the summary a compaction item carries: a heading its reader takes
for a summary, so the 束ね is read as one (inferred: a provider's own form is not published)."""


def check_fields(body: Mapping[str, Any]) -> None:
    """Refuse an unknown field, a refused field asking for anything, or a no-op field of the wrong shape."""
    for key in body:
        if key not in FIELDS and key != "stream":
            raise ProtocolError(f"Unrecognized request argument supplied: {key}", key)
    for key, rule in FIELDS.items():
        value = body.get(key)
        if value is None:
            continue
        if rule.handling == "refused" and value not in DEFAULTS.get(key, ()):
            raise ProtocolError(f"The stand-in does not support '{key}': {rule.why}.", key)
        if rule.handling == "no-op" and not NO_OP_CHECKS[key](value):
            raise ProtocolError(f"Invalid value for '{key}': {value!r}.", key)
    for key in ("store", "stream", "parallel_tool_calls"):
        if body.get(key) is not None and not isinstance(body[key], bool):
            raise ProtocolError(f"'{key}' must be true or false.", key)
    if body.get("truncation") not in (None, "auto", "disabled"):
        raise ProtocolError("'truncation' must be 'auto' or 'disabled'.", "truncation")
    for key in ("max_output_tokens", "max_tool_calls"):
        value = body.get(key)
        if value is not None and (type(value) is not int or value <= 0):
            raise ProtocolError(f"'{key}' must be a positive integer.", key)


def input_items(value: object) -> list[dict[str, Any]]:
    """The request's ``input`` as items: a string is one user message."""
    if value is None:
        return []
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ProtocolError("'input' must be a string or an array of items.", "input")
    for index, item in enumerate(value):
        kind = item.get("type", "message")
        if kind not in ("message", "function_call", "function_call_output", "compaction", "compaction_trigger"):
            raise ProtocolError(f"The stand-in reads messages, function calls, their outputs and compaction items; "
                                f"'input[{index}].type' is {kind!r}.", f"input[{index}].type")
        if kind == "compaction_trigger" and index != len(value) - 1:
            raise ProtocolError("A compaction_trigger must be the final input item (documented).", f"input[{index}]")
    return [dict(item) for item in value]


def message_text(content: object, where: str) -> str:
    """A message item's content: a string, or its text parts (input_text, output_text) joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for index, part in enumerate(content):
            if not isinstance(part, dict) or part.get("type") not in ("input_text", "output_text", "text"):
                raise ProtocolError(f"'{where}[{index}]' must be a text part (images and files are not read).",
                                    f"{where}[{index}]")
            texts.append(str(part.get("text", "")))
        return "\n".join(texts)
    raise ProtocolError(f"'{where}' must be a string or an array of text parts.", where)


def as_chat_messages(items: Sequence[Mapping[str, Any]], unseal: Any) -> list[dict[str, Any]]:
    """Items as chat messages: consecutive function calls become one assistant message's tool_calls."""
    messages: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        kind = item.get("type", "message")
        where = f"input[{index}]"
        if kind == "message":
            role = item.get("role")
            if role not in ("user", "assistant", "system", "developer"):
                raise ProtocolError(f"'{where}.role' must be user, assistant, system or developer.", f"{where}.role")
            messages.append({"role": role, "content": message_text(item.get("content"), f"{where}.content")})
        elif kind == "function_call":
            call = {"id": item.get("call_id"), "type": "function",
                    "function": {"name": item.get("name"), "arguments": item.get("arguments", "")}}
            if messages and messages[-1]["role"] == "assistant" and messages[-1].get("tool_calls"):
                messages[-1]["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else message_text(output, f"{where}.output")
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": text})
        elif kind == "compaction":
            summary = unseal(item.get("encrypted_content"), f"{where}.encrypted_content")
            if summary:  # a compaction with nothing of the model's side to keep reads as nothing
                messages.append({"role": "system", "content": f"{COMPACTION_SUMMARY_HEADING}\n{summary}"})
    return messages


def chat_tools(tools: object, tool_choice: object) -> tuple[list[dict[str, Any]] | None, Any]:
    """Responses' flat function tools and tool_choice, in chat's nested shape."""
    if tools is None:
        return None, tool_choice
    if not isinstance(tools, list):
        raise ProtocolError("'tools' must be an array.", "tools")
    nested = []
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise ProtocolError(f"The stand-in calls functions only: 'tools[{index}].type' must be 'function'.",
                                f"tools[{index}].type")
        nested.append({"type": "function", "function": {key: tool[key] for key in
                                                        ("name", "description", "parameters", "strict") if key in tool}})
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        tool_choice = {"type": "function", "function": {"name": tool_choice.get("name")}}
    return nested, tool_choice


def chat_format(text: object) -> dict[str, Any] | None:
    """``text.format`` as chat's ``response_format``."""
    if text is None:
        return None
    if not isinstance(text, dict):
        raise ProtocolError("'text' must be an object.", "text")
    fmt = text.get("format")
    if fmt is None or fmt.get("type") == "text":
        return None
    if fmt.get("type") == "json_object":
        return {"type": "json_object"}
    if fmt.get("type") == "json_schema":
        return {"type": "json_schema", "json_schema": {key: fmt[key] for key in ("name", "schema", "strict") if key in fmt}}
    raise ProtocolError("'text.format.type' must be text, json_object or json_schema.", "text.format.type")


def output_items(served: Any, item_id: str) -> list[dict[str, Any]]:
    """The core's answer as output items: function calls, or one assistant message."""
    if served.calls:
        return [{"type": "function_call", "id": f"fc_{item_id}_{n}", "call_id": call.id, "name": call.name,
                 "arguments": json.dumps(call.arguments, ensure_ascii=False), "status": "completed"}
                for n, call in enumerate(served.calls)]
    status = "incomplete" if served.finish_reason == "length" else "completed"
    return [{"type": "message", "id": f"msg_{item_id}", "role": "assistant", "status": status,
             "content": [{"type": "output_text", "text": served.content or "", "annotations": [], "logprobs": []}]}]


def stream_events(response: Mapping[str, Any]) -> Iterator[bytes]:
    """A finished response as the events the API streams, created to completed, numbered."""
    number = 0

    def event(kind: str, **fields: Any) -> bytes:
        nonlocal number
        body = {"type": kind, "sequence_number": number, **fields}
        number += 1
        return f"event: {kind}\ndata: {json.dumps(body, ensure_ascii=False)}\n\n".encode()

    opening = dict(response) | {"status": "in_progress", "output": [], "usage": None}
    yield event("response.created", response=opening)
    yield event("response.in_progress", response=opening)
    for index, item in enumerate(response["output"]):
        if item["type"] == "compaction":
            yield event("response.compaction.compacting", item_id=item["id"], output_index=index)
        if item["type"] == "message":
            yield event("response.output_item.added", output_index=index, item=item | {"content": [], "status": "in_progress"})
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            yield event("response.content_part.added", item_id=item["id"], output_index=index, content_index=0, part=part)
            for start in range(0, len(text), 4):
                yield event("response.output_text.delta", item_id=item["id"], output_index=index, content_index=0,
                            delta=text[start:start + 4], logprobs=[])
            yield event("response.output_text.done", item_id=item["id"], output_index=index, content_index=0,
                        text=text, logprobs=[])
            yield event("response.content_part.done", item_id=item["id"], output_index=index, content_index=0,
                        part=part | {"text": text})
        elif item["type"] == "function_call":
            yield event("response.output_item.added", output_index=index, item=item | {"arguments": "", "status": "in_progress"})
            yield event("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                        delta=item["arguments"])
            yield event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                        arguments=item["arguments"], name=item["name"])
        else:
            yield event("response.output_item.added", output_index=index, item=item)
        yield event("response.output_item.done", output_index=index, item=item)
    yield event("response.incomplete" if response["status"] == "incomplete" else "response.completed",
                response=response)
