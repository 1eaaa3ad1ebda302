"""The memory's own shortening: the bounded fallback when a summarizer cannot give a usable summary.

Under a budget the memory must be able to evict even when the summarizer is down, returns nothing
usable, or cannot bring its summary under the cap. Then the memory folds on its own: the previous
summary followed by each evicted pair on one line, clipped to the cap by keeping its beginning and
its end (the oldest handovers and the newest events) around a "…". Crude, deterministic and always
within the cap; the exchanges themselves stay whole in the archive, so a better summary can be
rebuilt later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

ELLIPSIS = "…"


class Pair(Protocol):
    user_text: str
    watchman_reply: str


def own_fold(previous: str, overflow: Sequence[Pair]) -> str:
    """The previous summary and every evicted pair, one line each (before any clipping)."""
    lines = [previous] if previous else []
    lines.extend(f"{pair.user_text} → {pair.watchman_reply}" for pair in overflow)
    return "\n".join(lines)


def clip_to_tokens(text: str, limit: int, estimate_tokens: Callable[[str], int]) -> str:
    """``text`` if it fits ``limit`` tokens, else its head and tail around "…" (or "" if nothing fits).

    Binary search on the number of characters kept, so a long text costs a few dozen counts."""
    if estimate_tokens(text) <= limit:
        return text

    def kept(chars: int) -> str:
        head = (chars + 1) // 2
        return text[:head] + ELLIPSIS + text[len(text) - (chars - head):]

    low, high = 0, len(text) - 1  # kept(low) is the shortest candidate, kept(high) the longest
    if estimate_tokens(kept(low)) > limit:
        return ""
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(kept(middle)) <= limit:
            low = middle
        else:
            high = middle - 1
    return kept(low)
