"""Clearing old tool results: the newest few stay verbatim, older ones are replaced in the request.

Tool results are most of what fills an agent's window, and an old one is rarely read again. With
``MemoryPolicy(keep_tool_results=N)`` the request shows the newest N results as they came (the
current turn's included) and every older one as a short placeholder; the call and its id stay,
so the request is still a valid tool history. Only the request changes: the exchange keeps the
full result, so the summarizer folds it and the archive holds it whole. The cost is plain: the
model can no longer read a cleared result, only the archive can.

Every clearing rewrites the middle of the request, so the provider's cached prefix ends there.
``clear_at_least`` batches, as Anthropic's ``clear_tool_uses`` and LangChain's ``ClearToolUsesEdit``
do: nothing is cleared until clearing would free at least that many tokens, and then everything
due is cleared in one step. A result shorter than the placeholder is never cleared.

Cleared ids are remembered, so a result once cleared stays cleared: the request only changes when
a new batch goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from nightwatch.memory.records import Exchange, ToolStep

CLEARED_RESULT = {
    "ja": "（古い結果のため片づけ済み。全文は書庫に）",
    "en": "[old tool result cleared; full text in the archive]",
}
"""The placeholder for a cleared result, in the mission's language."""

CLIPPED_RESULT = {
    "ja": "…（長すぎるため、ここまでで切りました。全文は書庫に残ります）",
    "en": "… [clipped to fit the request; the full text is kept in the archive]",
}
"""The marker ending a result too large for any request, clipped to what fits."""

JAPANESE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")


def mission_language(mission: str) -> str:
    """``ja`` if the mission is written in Japanese script at all, else ``en``."""
    return "ja" if JAPANESE_SCRIPT.search(mission) else "en"


def tool_results(window: Iterable[Exchange], current: Sequence[ToolStep] = ()) -> list[ToolStep]:
    """Every tool result a request would carry, oldest first: the window's, then this turn's."""
    results = [step for pair in window for step in pair.tool_results()]
    return results + [step for step in current if step.role == "tool"]


def due_for_clearing(
    results: Sequence[ToolStep], cleared: set[str], keep: int, at_least: int, placeholder: str,
    count: Callable[[str], int],
) -> tuple[set[str], int]:
    """The ids to clear now and the tokens that frees: all but the newest ``keep`` results, if
    together they free at least ``at_least`` tokens (and at least one); else nothing."""
    cost = count(placeholder)
    older = results[: max(0, len(results) - keep)]
    candidates = [step for step in older if step.tool_call_id not in cleared and count(step.content) > cost]
    freed = sum(count(step.content) - cost for step in candidates)
    if not candidates or freed < max(at_least, 1):
        return set(), 0
    return {str(step.tool_call_id) for step in candidates}, freed
