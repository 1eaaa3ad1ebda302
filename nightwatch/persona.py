"""The stand-in's answer as plain text: a thin wrapper over ``nightwatch.reader``.

Kept as the public entry point other code calls (``persona.answer(messages) -> str``); the reader
itself, its rules and its grounding trace live in ``nightwatch.reader``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nightwatch.reader import Reply, read


def answer(messages: Sequence[Mapping[str, str]]) -> str:
    """The stand-in's reply: a pure function of the messages."""
    return read(messages).content


__all__ = ["Reply", "answer", "read"]
