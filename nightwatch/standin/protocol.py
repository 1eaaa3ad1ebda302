"""The chat-completions wire format as current clients speak it: every field honoured or refused.

``FIELDS`` is the one table of what the stand-in does with each field of a chat request (the list
is the openai SDK's ``CompletionCreateParams``): *honoured* (it has its documented effect),
*no-op* (accepted, with the reason that accepting it is honest for a deterministic local model), or
*refused* (a 400 naming the field whenever it asks for something other than its default). A field
the table does not name is refused the way OpenAI refuses it ("Unrecognized request argument").

SDKs and frameworks do not all send ``{"role": ..., "content": "text"}``: content may be a list of
parts, the instructions may come as a ``developer`` message, an assistant turn may carry
``tool_calls`` with ``content: null``, a ``tool`` message may answer it, ``name`` may be ``null``.
``parse_chat_request`` turns all of these into plain string messages (instructions as ``system``,
everything else as material), so the reader, the token count and the request log see one shape,
and checks the tool history as OpenAI does (a ``tool`` message answers a preceding ``tool_calls``;
every call is answered).

``stream_events`` writes a finished completion as the server-sent events OpenAI streams: a role
chunk, content (or tool-call) chunks, a chunk with the finish reason, optionally a usage chunk,
then ``[DONE]``; it is a generator, so a server can send each event as soon as it is made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from nightwatch.standin.schemas import MAX_SCHEMA_NESTING, keys_anywhere, nesting, schema_validator

ROLES = ("system", "developer", "user", "assistant", "tool", "function")
INSTRUCTION_ROLES = {"developer": "system"}  # the newer name for the same thing
TEXT_PART_TYPES = {"text": "text", "refusal": "refusal"}  # part type -> the key holding its text
STREAM_PIECE_CHARS = 4
MAX_STOP_SEQUENCES = 4
LONE_SURROGATE = re.compile("[\ud800-\udfff]")

Handling = Literal["honoured", "no-op", "refused"]


@dataclass(frozen=True)
class Field:
    """What the stand-in does with one request field, and why that is honest."""

    handling: Handling
    why: str


FIELDS: dict[str, Field] = {
    # honoured: the field has its documented effect
    "messages": Field("honoured", "read; tool histories checked as OpenAI checks them"),
    "model": Field("honoured", "echoed in the reply; a stand-in built with model_names refuses other names (404)"),
    "stream": Field("honoured", "server-sent events, one chunk per few characters, sent as they are made"),
    "stream_options": Field("honoured", "include_usage adds the usage chunk; include_obfuscation is a no-op: "
                                        "obfuscation pads chunks against network side channels, and loopback has none"),
    "max_completion_tokens": Field("honoured", "counted against the window; the reply is cut there (finish_reason 'length')"),
    "max_tokens": Field("honoured", "the deprecated name of max_completion_tokens, honoured the same way"),
    "stop": Field("honoured", f"a string or up to {MAX_STOP_SEQUENCES}; the reply ends before the first one"),
    "response_format": Field("honoured", "text, json_object, or json_schema (a reply valid against the schema, "
                                         "or a 400 naming the part of the schema it cannot fill)"),
    "tools": Field("honoured", "a function whose name and description share content with the latest ask is called, "
                               "with arguments from the ask, valid against its parameters"),
    "tool_choice": Field("honoured", "none, auto, required, or one named function"),
    "parallel_tool_calls": Field("honoured", "true (the default): one call per item a duty covers, in one message; "
                                             "false: at most one call per reply"),
    "n": Field("honoured", "1 only: more choices are refused (a deterministic model would repeat one reply)"),
    "logprobs": Field("honoured", "false only: the stand-in has no token probabilities to report, so true is refused"),
    "modalities": Field("honoured", "['text'] only; audio output is refused"),
    # no-op: accepted because ignoring it is what it would do on a deterministic local model
    "temperature": Field("no-op", "the stand-in does not sample: its one reply is the greedy limit every "
                                  "temperature approaches, so no value changes it (0..2 checked)"),
    "top_p": Field("no-op", "likewise: nucleus sampling only narrows a choice the stand-in never makes (0..1 checked)"),
    "seed": Field("no-op", "the same request always gets the same reply, which is all a seed asks for"),
    "user": Field("no-op", "an end-user id for abuse monitoring; it never changes a reply, and nothing is monitored here"),
    "safety_identifier": Field("no-op", "the newer name of user: likewise"),
    "metadata": Field("no-op", "tags for stored completions; they never change a reply"),
    "service_tier": Field("no-op", "one tier, no price: every tier is served alike and reported as 'default'"),
    "prompt_cache_key": Field("no-op", "a caching hint: it changes cost and latency, never the reply"),
    "prompt_cache_retention": Field("no-op", "likewise (deprecated in favour of prompt_cache_options)"),
    "prompt_cache_options": Field("no-op", "likewise"),
    "prediction": Field("no-op", "a predicted output only speeds a reply up; the reply is the same without it"),
    # refused whenever they ask for something other than their default
    "store": Field("refused", "true is refused: the stand-in keeps no completions to list or distil later"),
    "top_logprobs": Field("refused", "needs logprobs, which the stand-in does not have"),
    "logit_bias": Field("refused", "the stand-in does not choose tokens by probability, so it cannot bias them"),
    "frequency_penalty": Field("refused", "non-zero is refused: a penalty changes which reply is likeliest, "
                                          "and the stand-in has no likelihoods"),
    "presence_penalty": Field("refused", "likewise"),
    "reasoning_effort": Field("refused", "the stand-in is not a reasoning model (OpenAI refuses it for gpt-4o too)"),
    "verbosity": Field("refused", "the reply's length is the reader's; it cannot be made terser or longer"),
    "audio": Field("refused", "text only"),
    "web_search_options": Field("refused", "offline: there is no web to search"),
    "moderation": Field("refused", "there is no moderation model here"),
    "functions": Field("refused", "deprecated: send 'tools'"),
    "function_call": Field("refused", "deprecated: send 'tool_choice'"),
}
"""Every field of the chat request, and what the stand-in does with it."""


class ProtocolError(ValueError):
    """A request the stand-in refuses: ``message`` for the reader, ``param`` names the field."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass(frozen=True)
class ToolSpec:
    """One function offered in ``tools``: its name, description and parameter schema."""

    name: str
    description: str
    parameters: dict[str, Any]
    where: str  # e.g. "tools[0]", for errors about it


@dataclass(frozen=True)
class ChatRequest:
    """What the stand-in needs from a chat-completions body."""

    messages: list[dict[str, str]]
    model: str = ""
    max_tokens: int | None = None
    stream: bool = False
    include_usage: bool = False
    stop: tuple[str, ...] = ()
    response_format: dict[str, Any] | None = None
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: str = "auto"  # "none", "auto", "required", or a function's name
    answered_call: tuple[int, ...] = field(default=())  # indices of the tool messages that end the request
    counted: list[dict[str, Any]] = field(default_factory=list)  # the messages as tokens are counted (below)
    parallel_tool_calls: bool = True


DEFAULTS: dict[str, tuple[Any, ...]] = {  # what a refused field may still say: "I ask for nothing"
    "store": (False,), "frequency_penalty": (0,), "presence_penalty": (0,), "logit_bias": ({},), "top_logprobs": (0,),
}
NO_OP_CHECKS: dict[str, tuple[type | tuple[type, ...], Any]] = {
    "temperature": ((int, float), lambda v: 0 <= v <= 2),
    "top_p": ((int, float), lambda v: 0 <= v <= 1),
    "seed": (int, None),
    "user": (str, None),
    "safety_identifier": (str, None),
    "metadata": (dict, lambda v: all(isinstance(x, str) for pair in v.items() for x in pair)),
    "service_tier": (str, lambda v: v in ("auto", "default", "flex", "scale", "priority", "fast")),
    "prompt_cache_key": (str, None),
    "prompt_cache_retention": (str, lambda v: v in ("in_memory", "24h")),
    "prompt_cache_options": (dict, None),
    "prediction": (dict, None),
}


def parse_chat_request(body: Mapping[str, Any]) -> ChatRequest:
    """Validate a request body and normalize its messages; raise ``ProtocolError`` on what it cannot serve."""
    for key in body:
        if key not in FIELDS:
            raise ProtocolError(f"Unrecognized request argument supplied: {key}")
    for key, rule in FIELDS.items():
        value = body.get(key)
        if rule.handling == "refused" and value is not None and not _is_default(key, value):
            raise ProtocolError(f"The stand-in does not support '{key}': {rule.why}.", key)
        if rule.handling == "no-op" and value is not None:
            kind, fits = NO_OP_CHECKS[key]
            if isinstance(value, bool) or not isinstance(value, kind) or (fits is not None and not fits(value)):
                raise ProtocolError(f"Invalid value for '{key}': {value!r}.", key)
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ProtocolError("'model' must be a non-empty string.", "model")
    n = body.get("n")
    if n is not None and (type(n) is not int or n != 1):
        raise ProtocolError("The stand-in returns exactly one choice per request: 'n' must be 1 or omitted.", "n")
    for key in ("parallel_tool_calls", "logprobs"):  # honoured fields whose value is a yes or a no
        _boolean(body.get(key), key)
    if body.get("logprobs") not in (None, False):
        raise ProtocolError("The stand-in has no token probabilities: 'logprobs' must be false or omitted.", "logprobs")
    modalities = body.get("modalities")
    if modalities is not None and modalities != ["text"]:
        raise ProtocolError("The stand-in writes text only: 'modalities' must be [\"text\"] or omitted.", "modalities")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise ProtocolError("'stream' must be true or false.", "stream")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise ProtocolError("'stream_options' must be an object.", "stream_options")
    if options is not None and not stream:
        raise ProtocolError("'stream_options' is only allowed when 'stream' is true.", "stream_options")
    unknown_options = set(options or {}) - {"include_usage", "include_obfuscation"}
    if unknown_options:
        raise ProtocolError(f"Unrecognized stream option: {sorted(unknown_options)[0]}.", "stream_options")
    for key in ("include_usage", "include_obfuscation"):
        _boolean((options or {}).get(key), f"stream_options.{key}")
    raw = body.get("messages")
    messages = normalize_messages(raw)
    tools = _tools(body.get("tools"))
    parallel = body.get("parallel_tool_calls")  # a boolean: checked above
    return ChatRequest(
        messages=messages,
        model=model,
        max_tokens=_max_tokens(body),
        stream=bool(stream),
        include_usage=bool((options or {}).get("include_usage")),
        stop=_stop(body.get("stop")),
        response_format=_response_format(body.get("response_format")),
        tools=tools,
        tool_choice=_tool_choice(body.get("tool_choice"), tools),
        answered_call=check_tool_history(raw),
        counted=counted_messages(raw, messages),
        parallel_tool_calls=parallel is not False,
    )


def counted_messages(raw: list[Any], messages: list[dict[str, str]]) -> list[dict[str, Any]]:
    """The messages as ``nightwatch.tokens`` counts them, the same way the library's budget does:
    an assistant's ``tool_calls`` as a list (name and arguments), not as the text the reader sees."""
    counted: list[dict[str, Any]] = []
    for message, normalized in zip(raw, messages):
        if normalized["role"] == "assistant" and message.get("tool_calls"):
            own = _clean(_content_text(message.get("content"), "content", allow_empty=True))
            calls = [{"function": {"name": call["function"]["name"], "arguments": call["function"].get("arguments", "")}}
                     for call in message["tool_calls"]]
            counted.append(normalized | {"content": own, "tool_calls": calls})
        else:
            counted.append(normalized)
    return counted


def _boolean(value: object, where: str) -> None:
    """A field that is true or false (or absent): "no" is not false, and 1 is not true."""
    if value is not None and not isinstance(value, bool):
        raise ProtocolError(f"Invalid type for '{where}': expected a boolean, but got {type(value).__name__} "
                            "instead.", where)


def _is_default(key: str, value: Any) -> bool:
    return any(type(value) is type(default) and value == default for default in DEFAULTS.get(key, ()))


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


def _stop(stop: object) -> tuple[str, ...]:
    if stop is None:
        return ()
    sequences = [stop] if isinstance(stop, str) else stop
    if (not isinstance(sequences, list) or not 1 <= len(sequences) <= MAX_STOP_SEQUENCES
            or not all(isinstance(s, str) and s for s in sequences)):
        raise ProtocolError(f"'stop' must be a non-empty string or a list of 1 to {MAX_STOP_SEQUENCES} "
                            "non-empty strings.", "stop")
    return tuple(sequences)


def _check_schema(schema: object, where: str) -> dict[str, Any]:
    """A schema the stand-in can read within its bounds (``nightwatch.standin.schemas``), or a 400."""
    if not isinstance(schema, dict):
        raise ProtocolError(f"'{where}' must be a JSON schema object.", where)
    if nesting(schema) > MAX_SCHEMA_NESTING:
        raise ProtocolError(f"The schema in '{where}' nests deeper than the stand-in's cap of {MAX_SCHEMA_NESTING} "
                            "JSON levels.", where)
    if keys_anywhere(schema, frozenset({"patternProperties", "unevaluatedProperties"})) == {
            "patternProperties", "unevaluatedProperties"}:
        raise ProtocolError(f"The schema in '{where}' uses 'unevaluatedProperties' beside 'patternProperties'; the "
                            "stand-in cannot check that pair within its time bound: use 'additionalProperties'.",
                            where)
    validator = schema_validator()
    from jsonschema import SchemaError  # imported by schema_validator

    try:
        validator.check_schema(schema)
    except SchemaError as invalid:
        raise ProtocolError(f"Invalid schema in '{where}': {invalid.message}", where) from None
    return schema


def _response_format(value: object) -> dict[str, Any] | None:
    if value is None:
        return None
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    if kind == "json_schema":
        spec = value.get("json_schema")
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise ProtocolError("'response_format.json_schema' must be an object with a 'name'.",
                                "response_format.json_schema")
        _boolean(spec.get("strict"), "response_format.json_schema.strict")
        schema = _check_schema(spec.get("schema", {}), "response_format.json_schema.schema")
        if spec.get("strict"):
            check_strict(schema, f"response_format '{spec['name']}'", "response_format")
        return {"type": "json_schema", "name": spec["name"], "schema": schema}
    raise ProtocolError("'response_format.type' must be 'text', 'json_object' or 'json_schema'.",
                        "response_format.type")


def check_strict(schema: Mapping[str, Any], what: str, param: str, context: tuple[str, ...] = ()) -> None:
    """Refuse a strict schema OpenAI refuses: every object closed, every property required.

    Structured outputs in strict mode need ``additionalProperties: false`` and a ``required`` list
    naming every property, at every level; the messages are the API's."""
    def refuse(rule: str) -> ProtocolError:
        return ProtocolError(f"Invalid schema for {what}: In context={context!r}, {rule}", param)

    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            raise refuse("'additionalProperties' is required to be supplied and to be false.")
        properties = schema.get("properties") or {}
        missing = [name for name in properties if name not in (schema.get("required") or [])]
        if missing:
            raise refuse("'required' is required to be supplied and to be an array including every key in "
                         f"properties. Missing '{missing[0]}'.")
    children: list[tuple[tuple[str, ...], Any]] = []
    for key in ("properties", "$defs", "definitions"):
        children += [((key, name), sub) for name, sub in (schema.get(key) or {}).items()]
    for key in ("anyOf", "oneOf", "allOf"):
        children += [((key, str(index)), sub) for index, sub in enumerate(schema.get(key) or [])]
    if isinstance(schema.get("items"), dict):
        children.append((("items",), schema["items"]))
    for path, sub in children:
        if isinstance(sub, dict):
            check_strict(sub, what, param, context + path)


def _tools(value: object) -> tuple[ToolSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ProtocolError("'tools' must be an array.", "tools")
    specs = []
    for index, tool in enumerate(value):
        where = f"tools[{index}]"
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise ProtocolError(f"The stand-in calls functions only: '{where}.type' must be 'function'.",
                                f"{where}.type")
        function = tool.get("function")
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise ProtocolError(f"'{where}.function.name' must be a non-empty string.", f"{where}.function.name")
        description = function.get("description") or ""
        if not isinstance(description, str):
            raise ProtocolError(f"'{where}.function.description' must be a string.", f"{where}.function.description")
        _boolean(function.get("strict"), f"{where}.function.strict")
        parameters = _check_schema(function.get("parameters") or {"type": "object", "properties": {}},
                                   f"{where}.function.parameters")
        if function.get("strict"):
            check_strict(parameters, f"function '{function['name']}'", f"{where}.function.parameters")
        specs.append(ToolSpec(function["name"], description, parameters, where))
    return tuple(specs)


def _tool_choice(value: object, tools: tuple[ToolSpec, ...]) -> str:
    if value is None:
        return "auto" if tools else "none"
    if not tools:
        raise ProtocolError("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are "
                            "specified.", "tool_choice")
    if value in ("none", "auto", "required"):
        return str(value)
    function = value.get("function") if isinstance(value, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(value, dict) or value.get("type") != "function" or not isinstance(name, str):
        raise ProtocolError("'tool_choice' must be 'none', 'auto', 'required' or "
                            "{\"type\": \"function\", \"function\": {\"name\": ...}}.", "tool_choice")
    if name not in {tool.name for tool in tools}:
        raise ProtocolError(f"Invalid value for 'tool_choice': no function named '{name}' in 'tools'.", "tool_choice")
    return name


def check_tool_history(messages: list[Any]) -> tuple[int, ...]:
    """Refuse what OpenAI refuses; return the indices of the tool messages that end the request.

    A ``tool`` message must answer a call of the assistant message just before it (or before the
    tool messages that follow that one), and every call must be answered before anything else is
    said. The wording of the two errors is the API's, typo included."""
    open_at: int | None = None
    waiting: list[str] = []
    answered: list[int] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            if open_at is None:
                raise ProtocolError("Invalid parameter: messages with role 'tool' must be a response to a "
                                    "preceeding message with 'tool_calls'.", f"messages.[{index}].role")
            call_id = message.get("tool_call_id")
            if call_id not in waiting:
                raise ProtocolError(f"Invalid parameter: 'tool_call_id' of '{call_id}' not found in 'tool_calls' "
                                    "of previous message.", f"messages.[{index}].tool_call_id")
            waiting.remove(call_id)
            answered.append(index)
            continue
        _unanswered(open_at, waiting)
        open_at, waiting, answered = None, [], []
        if role == "assistant" and message.get("tool_calls"):
            open_at, waiting = index, [call.get("id") for call in message["tool_calls"]]
    _unanswered(open_at, waiting)
    return tuple(answered)


def _unanswered(open_at: int | None, waiting: list[str]) -> None:
    if open_at is not None and waiting:
        raise ProtocolError("An assistant message with 'tool_calls' must be followed by tool messages responding "
                            "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                            + ", ".join(map(str, waiting)), f"messages.[{open_at}].role")


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
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        raise ProtocolError(f"'{where}.tool_call_id' must be a string.", f"{where}.tool_call_id")
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
        if not isinstance(call.get("id"), str):
            raise ProtocolError(f"'{where}[{index}].id' must be a string.", f"{where}[{index}].id")
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):
            raise ProtocolError(f"'{where}[{index}].function.arguments' must be a string.", f"{where}[{index}]")
        lines.append(f"{function['name']}({arguments})")
    return "\n".join(lines)


def _clean(text: str) -> str:
    """JSON can carry a lone surrogate (``"\\ud800"``) that no tokenizer can encode: show it as U+FFFD."""
    return LONE_SURROGATE.sub("\ufffd", text)


def apply_stop(text: str, stop: tuple[str, ...]) -> tuple[str, bool]:
    """The text up to the first stop sequence (excluded), and whether one was found."""
    cuts = [text.find(sequence) for sequence in stop if sequence in text]
    return (text[:min(cuts)], True) if cuts else (text, False)


def stream_events(completion: Mapping[str, Any], include_usage: bool) -> Iterator[bytes]:
    """A finished ``chat.completion`` as the ``chat.completion.chunk`` events a streaming client reads."""
    choice = completion["choices"][0]
    message = choice["message"]
    text = message.get("content") or ""
    head = {key: completion[key] for key in ("id", "created", "model")}

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        body: dict[str, Any] = {
            **head, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if include_usage:
            body["usage"] = None  # as the API does: null on every chunk but the last
        return _event(body)

    yield chunk({"role": "assistant", "content": "" if message.get("content") is not None else None})
    for start in range(0, len(text), STREAM_PIECE_CHARS):
        yield chunk({"content": text[start:start + STREAM_PIECE_CHARS]})
    for index, call in enumerate(message.get("tool_calls") or []):
        opening = {"index": index, "id": call["id"], "type": "function",
                   "function": {"name": call["function"]["name"], "arguments": ""}}
        yield chunk({"tool_calls": [opening]})
        arguments = call["function"]["arguments"]
        for start in range(0, len(arguments), STREAM_PIECE_CHARS * 4):
            piece = arguments[start:start + STREAM_PIECE_CHARS * 4]
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, choice["finish_reason"])
    if include_usage:
        yield _event({**head, "object": "chat.completion.chunk", "choices": [], "usage": completion["usage"]})
    yield b"data: [DONE]\n\n"


def _event(body: Mapping[str, Any]) -> bytes:
    return b"data: " + json.dumps(body, ensure_ascii=False).encode() + b"\n\n"
