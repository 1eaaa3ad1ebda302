"""The context budget as arithmetic: how big a request is, tier by tier, and what the summary may take.

A request's size is counted the way the chat API counts it: every message costs 3 tokens of framing
plus its role and its content, and the reply's primer costs 3 more. ``estimate_tokens`` is the
memory's own estimator, so with ``count_text_tokens`` this is exactly ``count_message_tokens``.

Nothing here changes a memory: ``ConversationMemory._make_room`` uses these sums to decide how many
exchanges must leave the window, and ``ContextBudgetExceeded`` is what it raises when none will do.

>>> from nightwatch.tokens import estimate_tokens_by_chars as one_per_char
>>> request = [{"role": "system", "content": "watch"}, {"role": "user", "content": "hi"}]
>>> request_size(request, one_per_char)  # (3 + 6 + 5) + (3 + 4 + 2) + 3
26
>>> tier_sizes(request, one_per_char)
{'mission': 14, 'summary': 0, 'window': 0, 'question': 12}
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from nightwatch.memory.policy import MemoryPolicy
from nightwatch.tokens import REPLY_PRIMER_TOKENS, chat_request_tokens, message_tokens

TIERS = ("mission", "summary", "window", "question")
SUMMARY_SHARE = 4
"""Without ``summary_token_limit``, the summary may take a quarter of what the mission leaves."""

Message = Mapping[str, Any]


def request_size(
    messages: Sequence[Message], estimate_tokens: Callable[[str], int], tools: Sequence[Mapping[str, Any]] = ()
) -> int:
    """Prompt tokens of ``messages`` by the chat formula, with the memory's estimator, and of the
    ``tools`` offered (the Cookbook's estimate, ``nightwatch.tokens.tool_tokens``)."""
    return chat_request_tokens(messages, estimate_tokens, tools)


def request_tiers(
    messages: Sequence[Message], mission: str | None = None, spoken: Collection[str] | None = None
) -> list[str]:
    """The tier of each message of a request: 銘, 束ね, 窓 or the question.

    Without ``mission``, by position, as the three-tier memory lays a request out: a first system
    message is the mission and a second one the summary. With ``mission`` (a framework's request,
    laid out its own way): the message that is the mission word for word is 銘, a user or assistant
    message said during the night (``spoken``) is 窓, anything else the framework added is 束ね."""
    if not messages:
        raise ValueError("a request has at least one message")
    tiers = []
    for index, message in enumerate(messages):
        role, content = message.get("role"), message.get("content")
        if index == len(messages) - 1:
            tiers.append("question")
        elif mission is None:
            first_system = index == 0 and role == "system"
            second_system = index == 1 and role == "system" and messages[0].get("role") == "system"
            tiers.append("mission" if first_system else "summary" if second_system else "window")
        elif role == "system" and content == mission:
            tiers.append("mission")
        elif role in ("user", "assistant") and (spoken is None or content in spoken):
            tiers.append("window")
        else:
            tiers.append("summary")
    return tiers


def tier_sizes(
    messages: Sequence[Message], estimate_tokens: Callable[[str], int], tiers: Sequence[str] | None = None
) -> dict[str, int]:
    """Tokens per tier (``request_tiers`` unless given); the reply primer is counted with the
    question, so the four add up to ``request_size``."""
    sizes = dict.fromkeys(TIERS, 0)
    for message, tier in zip(messages, tiers or request_tiers(messages)):
        sizes[tier] += message_tokens(message, estimate_tokens)
    sizes["question"] += REPLY_PRIMER_TOKENS
    return sizes


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


QUESTION_ROOM_TOKENS = 100
"""The question a summary at the cap a policy sets (``summary_token_limit``) must still leave room
for: an ordinary question (a sentence or two, up to 100 tokens), not only the one-token question a
cap that leaves no other room would allow. A cap derived from the budget is a share of the room, so
it leaves more than that wherever the window has it; it is only checked to leave room for a
question at all (``MINIMAL_QUESTION_TOKENS``), so that a small window still makes a valid policy."""
MINIMAL_QUESTION_TOKENS = 1


def summary_cap_problem(policy: MemoryPolicy, mission_floor: int, summary_frame: int, cap: int) -> str | None:
    """Why a summary grown to ``cap`` could not sit beside the mission, a question of up to
    ``QUESTION_ROOM_TOKENS`` (for a policy's own cap) and the reserve (None if it can), with the numbers.

    ``summary_frame`` is the summary message without its text (framing, role, header). Without this
    check a cap larger than the room is accepted, and once the summary grows past what fits beside a
    question, every later question is refused for the rest of the night: nothing can shrink it."""
    if policy.context_window is None:
        return None
    own = policy.summary_token_limit is not None
    question = QUESTION_ROOM_TOKENS if own else MINIMAL_QUESTION_TOKENS
    need = mission_floor + summary_frame + cap + question + policy.reply_reserve
    if need <= policy.context_window:
        return None
    over = need - policy.context_window
    largest = f"the largest cap that fits is {cap - over}" if cap > over else "no summary fits at all"
    return (
        f"{'summary_token_limit' if own else 'the summary cap'} of {cap} tokens cannot fit beside the mission: "
        f"mission with an empty question {mission_floor} + the summary's framing {summary_frame} + summary {cap} "
        f"+ room for a question of up to {question} tokens + reply reserve {policy.reply_reserve} "
        f"= {need} tokens, "
        f"{over} more than the context window of {policy.context_window}; {largest}"
    )


def evictions_needed(base: int, pairs: Sequence[int], room: int) -> int:
    """How many of the oldest ``pairs`` (tokens each) must go so that ``base`` + the rest fit ``room``,
    assuming the summary does not grow; at least one, at most all.

    >>> evictions_needed(base=50, pairs=[30, 30, 30], room=100)
    2
    """
    rest, step = sum(pairs), 0
    while step < len(pairs) and (step == 0 or base + rest > room):
        rest -= pairs[step]
        step += 1
    return step


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
