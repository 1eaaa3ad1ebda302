"""The context budget: how big a request is, tier by tier, and how the memory makes it fit.

A request's size is counted the way the chat API counts it: every message costs 3 tokens of framing
plus its role and its content, and the reply's primer costs 3 more. ``estimate_tokens`` is the
memory's own estimator, so with ``count_text_tokens`` this is exactly ``count_message_tokens``.

The promise under a budget (``context_window``, ``reply_reserve``): when the mission, a summary
within its cap, the question and the reserve fit, a request is built, evicting even the newest
exchange when it must. Only when they cannot fit is ``ContextBudgetExceeded`` raised, and then the
memory is exactly as it was: every candidate summary is computed on the side and committed only
once the request it gives is known to fit.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from nightwatch.tokens import REPLY_PRIMER_TOKENS, chat_request_tokens, message_tokens

if TYPE_CHECKING:
    from nightwatch.memory import ConversationMemory, MemoryPolicy

SUMMARY_SHARE = 4
"""Without ``summary_token_limit``, the summary may take a quarter of what the mission leaves."""


def request_size(messages: Sequence[dict[str, str]], estimate_tokens: Callable[[str], int]) -> int:
    """Prompt tokens of ``messages`` by the chat formula, with the memory's estimator."""
    return chat_request_tokens(messages, estimate_tokens)


def tier_sizes(
    messages: Sequence[dict[str, str]], has_summary: bool, estimate_tokens: Callable[[str], int]
) -> dict[str, int]:
    """Tokens per tier of a request built as mission -> summary -> window -> question.

    The reply primer is counted with the question, so the four tiers add up to ``request_size``."""
    sizes = [message_tokens(m, estimate_tokens) for m in messages]
    summary = sizes[1] if has_summary else 0
    start = 2 if has_summary else 1
    return {
        "mission": sizes[0],
        "summary": summary,
        "window": sum(sizes[start:-1]),
        "question": sizes[-1] + REPLY_PRIMER_TOKENS,
    }


def summary_cap(policy: MemoryPolicy, mission_floor: int) -> int | None:
    """The summary's cap: the policy's own, or under a budget a share of the room left.

    ``mission_floor`` is the request of the mission and an empty question. Without a cap a growing
    summary would fill the budget by itself, and every later question would be refused."""
    if policy.summary_token_limit is not None:
        return policy.summary_token_limit
    if policy.context_window is None:
        return None
    room = policy.context_window - policy.reply_reserve - mission_floor
    return max(1, room // SUMMARY_SHARE)


class ContextBudgetExceeded(RuntimeError):
    """No request within the budget can be built; raised before any call is made."""

    def __init__(self, tiers: dict[str, int], reply_reserve: int, context_window: int) -> None:
        self.tiers = tiers
        self.reply_reserve = reply_reserve
        self.context_window = context_window
        total = sum(tiers.values()) + reply_reserve
        self.over_by = total - context_window
        parts = ", ".join(f"{name} {tokens}" for name, tokens in tiers.items())
        super().__init__(
            f"the request cannot fit the context window of {context_window} tokens even with the "
            f"whole window folded into the summary: {parts}, reply reserve {reply_reserve} "
            f"= {total} tokens, {self.over_by} over; the memory was left as it was"
        )


def make_room(memory: ConversationMemory, question: str) -> None:
    """Fold the fewest oldest exchanges into the summary so that the request for ``question`` fits.

    Candidates are tried oldest-first on the side; nothing is committed unless the request fits."""
    policy = memory.policy
    assert policy.context_window is not None
    room = policy.context_window - policy.reply_reserve
    estimate = memory.estimate_tokens
    frame = lambda summary: request_size(memory.compose(summary, [], question), estimate)  # noqa: E731
    pairs = [
        message_tokens({"role": "user", "content": e.user_text}, estimate)
        + message_tokens({"role": "assistant", "content": e.watchman_reply}, estimate)
        for e in memory.window
    ]
    if frame(memory.summary) + sum(pairs) <= room:
        return
    summary, evicted, problems = memory.summary, 0, []
    if frame("") <= room:  # else not even mission + question fit: refuse without calling anyone
        while evicted < len(pairs):
            # Assume the summary will not grow: that many exchanges must go at the least.
            base, rest, step = frame(summary), sum(pairs[evicted:]), 0
            while evicted + step < len(pairs) and (step == 0 or base + rest > room):
                rest -= pairs[evicted + step]
                step += 1
            folded = memory.fold_on_the_side(summary, memory.window[evicted : evicted + step])
            summary, evicted = folded.summary, evicted + step
            problems.append(folded.problem)
            if frame(summary) + sum(pairs[evicted:]) <= room:
                memory.commit_fold(evicted, summary, problems, reason="budget")
                return
    refused = memory.compose(summary, [], question)
    raise ContextBudgetExceeded(
        tier_sizes(refused, bool(summary), estimate), policy.reply_reserve, policy.context_window
    )
