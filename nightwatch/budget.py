"""The context budget: how big a request is, tier by tier, before it is sent.

A request's size is counted the way the chat API counts it: every message costs 3 tokens of framing
plus its role and its content, and the reply's primer costs 3 more. ``estimate_tokens`` is the
memory's own estimator, so with ``count_text_tokens`` this is exactly ``count_message_tokens``.
(The role is counted too: leaving it out would under-count every request by a token a message.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from nightwatch.tokens import REPLY_PRIMER_TOKENS, chat_request_tokens, message_tokens


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
            f"the request cannot fit the context window of {context_window} tokens even after "
            f"compacting down to the newest exchange: {parts}, reply reserve {reply_reserve} "
            f"= {total} tokens, {self.over_by} over"
        )
