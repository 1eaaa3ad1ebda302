"""Tools, deterministically: when the stand-in calls a function, and what it says after the result.

``choose_call`` relates the latest ask to each offered function by the reader's own content match
(the content lemmas the ask shares with the function's name and description, no lists of words),
and calls the best related one with arguments filled from the ask (``fill``), valid against the
function's parameter schema. ``tool_choice`` decides how far it may go: ``none`` never calls,
``auto`` calls only a related function whose arguments the ask can fill, ``required`` and a named
function always call (the best match, or the named one) or refuse with a 400 naming the parameter
the ask cannot fill. The reader's reading of the question comes first (``choose_calls``): a clock
call answered by a duty carries the duty out with the function that shares its words, a forbidden
ask calls nothing, a question answered from a result already present calls nothing. ``relay`` is
the reply after tool results: the answer to the question, then what the tools found, grounded on
the tool messages themselves, so the trace shows which part came from the tool.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nightwatch.standin.fill import Unfillable, fill_schema, numbers_in
from nightwatch.standin.protocol import ChatRequest, ProtocolError, ToolSpec
from nightwatch.standin.reader import Reply
from nightwatch.standin.reader.grounding import source
from nightwatch.standin.reader.phrases import phrase
from nightwatch.standin.reader.text import find_clock, language, quoted
from nightwatch.standin.reader.words import content_lemmas

CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class ToolCall:
    """One function call the stand-in makes, in the shape of the API's ``tool_calls`` items."""

    id: str
    name: str
    arguments: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": json.dumps(self.arguments, ensure_ascii=False)}}


def tool_words(tool: ToolSpec) -> str:
    """A function's name and description as text: ``check_door``/``checkDoor`` read as "check door"."""
    return f"{CAMEL.sub(' ', tool.name).replace('_', ' ').replace('-', ' ')}. {tool.description}"


def relatedness(ask: str, tool: ToolSpec) -> int:
    """How many content lemmas the ask shares with the function's name and description."""
    return len(content_lemmas(ask) & content_lemmas(tool_words(tool)))


def latest_ask(messages: Sequence[Mapping[str, str]]) -> str | None:
    """The text of the last message, if it is the user's: only a fresh ask can call a tool."""
    return messages[-1]["content"] if messages and messages[-1].get("role") == "user" else None


def duty_acted_on(reply: Reply) -> str | None:
    """The duty clause a reply acts on (a clock call answered by its duty), if it acts on one."""
    if reply.act != "periodic":
        return None
    return next((s.quote for s in reply.grounding if s.duty_kind and s.tier == "instruction" and s.quote), None)


def answered_from_a_result(reply: Reply) -> bool:
    """A question the reader answered from a tool result already in the request: no new call."""
    return reply.act == "recall" and any(s.role == "tool" for s in reply.grounding)


def refused_beyond_tools(reply: Reply, tools: Sequence[ToolSpec]) -> bool:
    """A refusal no offered tool can serve: the rule it quotes shares no word with any tool.

    A rule's clause can hold a duty beside what it forbids ("check the locks, and open the stage door
    to no one"); a tool that shares the clause's words does its duty part, so it may still be called."""
    if reply.act != "refuse":
        return False
    clauses = [s.quote for s in reply.grounding if s.duty_kind == "prohibition" and s.quote]
    return not any(relatedness(clause, tool) > 0 for clause in clauses for tool in tools)


def choose_calls(chat: ChatRequest, messages: Sequence[Mapping[str, str]], reply: Reply) -> list[ToolCall]:
    """The calls this request makes (often none); ``ProtocolError`` when a forced call cannot be filled.

    What the reader made of the question (``reply``) comes first: an ask refused under a rule calls
    nothing (``refused_beyond_tools``); a clock call answered by its duty calls the offered function that shares the duty's words
    (``for_duty``), so a duty that is no longer in the request is no longer carried out; a question
    answered from a result already in the request calls nothing. Anything else may call a function
    that shares content with the ask itself (``choose_call``)."""
    if chat.tool_choice == "none" or not chat.tools:
        return []
    forced = chat.tool_choice != "auto"
    if not forced and (answered_from_a_result(reply) or refused_beyond_tools(reply, chat.tools)):
        return []
    duty = duty_acted_on(reply)
    if duty is not None and latest_ask(messages) is not None:
        calls = for_duty(chat, messages, duty)
        if calls:
            return calls
    call = choose_call(chat, messages)
    return [] if call is None else [call]


def for_duty(chat: ChatRequest, messages: Sequence[Mapping[str, str]], duty: str) -> list[ToolCall]:
    """Calls that carry out ``duty``: the best related function, once per value of an enum parameter
    the duty covers (the values it names, or all of them when it names none: "check the locks"
    covers every door), in one message when ``parallel_tool_calls`` allows, else the first only."""
    related = [tool for tool in chat.tools if chat.tool_choice in ("auto", "required", tool.name)
               and relatedness(duty, tool) > 0]
    if not related:
        return []
    tool = max(related, key=lambda candidate: relatedness(duty, candidate))  # offered order breaks ties
    properties = tool.parameters.get("properties") or {}
    listed = [(name, spec["enum"]) for name, spec in properties.items()
              if isinstance(spec, dict) and isinstance(spec.get("enum"), list) and spec["enum"]]
    if not listed:
        try:
            arguments = fill_schema(tool.parameters, f"{tool.where}.function.parameters", texts=[duty],
                                    match_text=duty, numbers=numbers_in(duty))
        except Unfillable:
            return []
        return [ToolCall(call_id(messages, tool.name, arguments), tool.name, arguments)]
    name, values = listed[0]
    named = [value for value in values if content_lemmas(str(value)) & content_lemmas(duty)]
    chosen = (named or values) if chat.parallel_tool_calls else (named or values)[:1]
    calls = []
    for value in chosen:
        arguments = {name: value}
        try:  # the other parameters, if any, from the duty's words
            rest = {key: spec for key, spec in properties.items() if key != name}
            if rest:
                others = fill_schema({"type": "object", "properties": rest,
                                      "required": [k for k in tool.parameters.get("required", []) if k in rest]},
                                     f"{tool.where}.function.parameters", texts=[duty], match_text=duty,
                                     numbers=numbers_in(duty))
                arguments |= others
        except Unfillable:
            return []
        calls.append(ToolCall(call_id(messages, tool.name, arguments), tool.name, arguments))
    return calls


def choose_call(chat: ChatRequest, messages: Sequence[Mapping[str, str]]) -> ToolCall | None:
    """The call the ask itself makes, or None; ``ProtocolError`` when a forced call cannot be filled."""
    if chat.tool_choice == "none" or not chat.tools:
        return None
    ask = latest_ask(messages)
    forced = chat.tool_choice != "auto"
    if ask is None and not forced:
        return None
    ask = ask or messages[-1]["content"]
    candidates = [tool for tool in chat.tools if chat.tool_choice in ("auto", "required", tool.name)]
    scored = sorted(candidates, key=lambda tool: -relatedness(ask, tool))  # stable: offered order breaks ties
    if not forced:
        scored = [tool for tool in scored if relatedness(ask, tool) > 0]
    failures: list[tuple[ToolSpec, Unfillable]] = []
    for tool in scored:
        try:
            arguments = fill_schema(tool.parameters, f"{tool.where}.function.parameters",
                                    texts=quoted(ask) or [ask], match_text=ask, numbers=numbers_in(ask))
        except Unfillable as failed:
            failures.append((tool, failed))
            continue
        return ToolCall(call_id(messages, tool.name, arguments), tool.name, arguments)
    if forced and failures:
        tool, failed = failures[0]
        raise ProtocolError(f"The stand-in must call '{tool.name}' (tool_choice), but the ask gives nothing "
                            f"to fill '{failed.path}': {failed.why}.", failed.path)
    return None


def call_id(messages: Sequence[Mapping[str, str]], name: str, arguments: Mapping[str, Any]) -> str:
    """A call id that depends on the request alone: the same request, the same id."""
    seed = json.dumps([messages, name, arguments], ensure_ascii=False, sort_keys=True)
    return "call_" + hashlib.sha256(seed.encode()).hexdigest()[:24]


ANSWERS_FROM_MATERIAL = frozenset({"recall", "report", "duties", "summary"})
"""Acts whose reply stands beside the tools' findings; after any other, what the tools found is the reply."""


def relay(messages: Sequence[Mapping[str, str]], tool_indices: Sequence[int],
          read: Callable[[Sequence[Mapping[str, str]]], Reply]) -> Reply:
    """The reply after tool results: the reader's answer to the question the calls served, with what
    each call found, grounded on the tool messages themselves (so the trace shows the tool's part).

    A round made for a duty says what was checked, not "all quiet": whether a finding is trouble is
    for the reader of the reply to judge, not for a lexical stand-in."""
    asked_at = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    first = read(messages[: asked_at + 1]) if asked_at is not None else Reply("", (), "acknowledge")
    question = messages[asked_at]["content"] if asked_at is not None else ""
    lang = language(question) if question else "ja"
    found = phrase(lang, "separator").join(
        text for text in (messages[index]["content"].strip() for index in tool_indices) if text)
    sources = tuple(source(messages, index, messages[index]["content"]) for index in tool_indices)
    clock = find_clock(question)
    duty = duty_acted_on(first)
    if duty is not None and clock is not None:
        said = clock.words if lang == "ja" else clock.words[:1].upper() + clock.words[1:]
        text = phrase(lang, "round_checked", clock=said, found=found) + phrase(lang, "duty", clause=duty)
    elif first.act in ANSWERS_FROM_MATERIAL:
        text = f"{first.content}\n{phrase(lang, 'tools_found', found=found)}"
    else:  # the tool did what was asked: its result is the reply
        return Reply(found, sources, "tool_result")  # type: ignore[arg-type]
    return Reply(text, (*first.grounding, *sources), first.act)
