"""What tools cost in a request: their definitions, the calls an assistant makes, the results sent back.

There is no official formula. OpenAI publishes one *estimate* for the definitions, in the Cookbook's
"How to count tokens with tiktoken" (``num_tokens_for_tools``, constants for gpt-4o / gpt-4o-mini):
7 tokens to open each function, its ``name:description`` line (a final period dropped), 3 to open
the properties, 3 per property plus its ``name:type:description`` line, enum values 3 each (-3 once
per enum), and 12 to close the list. ``definition_tokens`` is that method, unchanged, with any text
counter. It is an estimate: the server's real count may differ by a few tokens per tool.

For an assistant message's ``tool_calls`` nothing is published; here each call costs its function name
and its arguments text, plus ``TOKENS_PER_CALL`` of framing (our inference, not a documented number).
A ``tool`` message costs what any message costs (3 + role + content); its ``tool_call_id`` is
bookkeeping the model does not read as text, so it is not counted (also an inference).

The library's budget and the stand-in's ``usage`` both count with these functions, so they agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

FUNCTION_INIT = 7
PROPERTIES_INIT = 3
PROPERTY_KEY = 3
ENUM_INIT = -3
ENUM_ITEM = 3
FUNCTIONS_END = 12
TOKENS_PER_CALL = 3
"""Framing of one entry of ``tool_calls`` (an inference: the API does not publish it)."""


def _without_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def definition_tokens(tools: Sequence[Mapping[str, Any]], count_text: Callable[[str], int]) -> int:
    """The Cookbook's ``num_tokens_for_tools`` for gpt-4o: an estimate of what ``tools`` adds.

    >>> one_per_char = len
    >>> definition_tokens([{"type": "function", "function": {"name": "f", "description": "d.",
    ...     "parameters": {"type": "object", "properties": {}}}}], one_per_char)  # 7 + len("f:d") + 12
    22
    """
    if not tools:
        return 0
    total = 0
    for tool in tools:
        function = tool.get("function", tool)
        total += FUNCTION_INIT + count_text(f"{function['name']}:{_without_period(function.get('description') or '')}")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += PROPERTIES_INIT
            for key, spec in properties.items():
                spec = spec if isinstance(spec, Mapping) else {}
                total += PROPERTY_KEY
                enum = spec.get("enum")
                if isinstance(enum, list):
                    total += ENUM_INIT + sum(ENUM_ITEM + count_text(str(item)) for item in enum)
                kind = spec.get("type", "")
                line = f"{key}:{kind if isinstance(kind, str) else '/'.join(map(str, kind))}:"
                total += count_text(line + _without_period(str(spec.get("description") or "")))
    return total + FUNCTIONS_END


def calls_tokens(calls: Iterable[Mapping[str, Any]], count_text: Callable[[str], int]) -> int:
    """An assistant message's ``tool_calls``: each call's name and arguments text, and its framing."""
    total = 0
    for call in calls:
        function = call.get("function") or {}
        total += TOKENS_PER_CALL + count_text(str(function.get("name") or "")) + count_text(
            str(function.get("arguments") or ""))
    return total
