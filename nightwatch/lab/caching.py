"""Prompt caching counted on the requests a night really sent, and the one cost table the chapters share.

A cache can only serve the **prefix** a request shares with an earlier one, so everything here works on
the request as the model reads it: one list of token ids (``prompt_token_ids``, each message's role
and text inside its framing tokens, the same count as ``nightwatch.tokens``). Two rule sets are
modelled, each from its source (the installed openai SDK 3.57.0, ``openai/_version.py``; OpenAI's
prompt caching guide where the SDK points to it):

- **implicit, gpt-4o's** (``implicit_calls``): a request of 1,024 tokens or more reads from the cache
  the longest prefix it shares with a recent request, counted in whole steps of 128 tokens
  (1,024, 1,152, ...). Writes carry no fee on models before the GPT-5.6 family (the guide), so the
  written count is left at 0 here (whether gpt-4o reports ``cache_write_tokens`` at all: 未確認).
- **explicit breakpoints, gpt-5.6 and later** (``explicit_calls``): ``prompt_cache_options``
  (``mode`` implicit/explicit, ``ttl``) and ``prompt_cache_breakpoint`` on a content block, which
  "marks the exact end of a reusable prompt prefix ... not rounded to a token block"
  (``types/chat/completion_create_params.py``, ``types/chat/chat_completion_content_part_text_param.py``).
  This models ``mode="explicit"``, where a request writes up to the latest four explicit breakpoints
  (with ``mode="implicit"`` OpenAI adds one breakpoint of its own and writes up to the latest three
  explicit ones, ``PromptCacheOptions.mode``); a later request reads the longest written prefix it
  starts with. On these models a write costs 1.25 times the uncached input rate (the guide, read
  2026-12-04); the dollar prices themselves are always a parameter. What the SDK does not say, and
  this model assumes (推測): a breakpoint shorter than ``minimum`` is not written (1,024 by default,
  the implicit rule's floor), and the tokens a request writes are those from the end of what it
  read to its furthest newly written breakpoint.

``Call.from_usage`` reads the same four counts from a real ``usage`` (chat completions or Responses),
so a live night goes into the same table.

Neither model expires entries: the chapters print the gaps between calls beside the ``ttl`` instead.

``cost_table`` turns either model's calls into one row per design: tokens sent, read from the cache,
written to it, reply tokens, and the cost at the prices given. Prices are always a parameter
(``Prices``), with the model, the source and the date they were read, because they change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nightwatch.tokens.counting import REPLY_PRIMER_TOKENS, get_encoding

if TYPE_CHECKING:
    import pandas as pd

FRAME_START, FRAME_SEPARATOR, FRAME_END = -1, -2, -3
"""Stand-ins for the three framing tokens around every message (ids no real token has)."""
CACHE_MINIMUM, CACHE_STEP = 1024, 128
"""gpt-4o's implicit rule: nothing under 1,024 shared tokens, then whole 128-token steps."""
MAX_BREAKPOINT_WRITES = 4
"""How many breakpoints one request can write with ``mode="explicit"`` (SDK 3.57.0, ``PromptCacheOptions``)."""
CACHE_WRITE_FACTOR = 1.25
"""What a cache write costs on GPT-5.6 and later, as a multiple of the uncached input rate (the guide)."""

COST_COLUMNS = ("送ったトークン", "キャッシュから読んだ", "キャッシュへの書き込み", "返答のトークン", "費用")
"""The columns of ``cost_table``, in this order in every chapter."""


@dataclass(frozen=True)
class Call:
    """One call as a bill sees it: tokens sent (``prompt_tokens``), of them read from the cache
    (``cached_tokens``) and written to it (``cache_write_tokens``), and the reply's tokens."""

    sent: int
    cached: int
    written: int
    reply: int

    @classmethod
    def from_usage(cls, usage: Any) -> Call:
        """The call a real ``usage`` reports: chat completions' ``CompletionUsage`` (``prompt_tokens``,
        ``prompt_tokens_details``) or the Responses API's ``ResponseUsage`` (``input_tokens``,
        ``input_tokens_details``); a detail the model did not report counts as 0."""
        if hasattr(usage, "prompt_tokens"):
            sent, reply, details = usage.prompt_tokens, usage.completion_tokens, usage.prompt_tokens_details
        else:
            sent, reply, details = usage.input_tokens, usage.output_tokens, usage.input_tokens_details
        cached = getattr(details, "cached_tokens", None) or 0
        written = getattr(details, "cache_write_tokens", None) or 0
        return cls(sent, cached, written, reply)

    def __post_init__(self) -> None:
        if min(self.sent, self.cached, self.written, self.reply) < 0:
            raise ValueError(f"token counts cannot be negative: {self}")
        if self.cached + self.written > self.sent:
            raise ValueError(f"cached + written ({self.cached} + {self.written}) exceed the tokens sent ({self.sent})")


@dataclass(frozen=True)
class Prices:
    """What one million tokens cost, per kind, for one model; ``source`` says where and when they were read."""

    model: str
    input: float
    cached_input: float
    cache_write: float
    output: float
    source: str
    currency: str = "USD"

    def __post_init__(self) -> None:
        if min(self.input, self.cached_input, self.cache_write, self.output) < 0:
            raise ValueError(f"prices cannot be negative: {self}")

    def cost(self, call: Call) -> float:
        """A call's cost: every input token is billed at exactly one of the three input rates.

        A written token is billed at ``cache_write`` instead of ``input``, not on top of it: the guide
        gives the write price as 1.25 times the uncached rate, read here as a replacement (推測)."""
        uncached = call.sent - call.cached - call.written
        return (uncached * self.input + call.cached * self.cached_input + call.written * self.cache_write
                + call.reply * self.output) / 1_000_000


def prompt_token_ids(messages: Sequence[Mapping[str, str]]) -> list[int]:
    """The request as the model reads it: each message's role and text inside its framing tokens."""
    encoding = get_encoding()
    ids: list[int] = []
    for message in messages:
        ids += [FRAME_START, *encoding.encode(message["role"]), FRAME_SEPARATOR,
                *encoding.encode(message["content"], disallowed_special=()), FRAME_END]
    return ids


def message_ends(messages: Sequence[Mapping[str, str]]) -> list[int]:
    """Where each message ends in ``prompt_token_ids(messages)``: the places a breakpoint can mark."""
    ends, running = [], 0
    for message in messages:
        running += len(prompt_token_ids([message]))
        ends.append(running)
    return ends


def tier_breakpoints(messages: Sequence[Mapping[str, str]]) -> list[int]:
    """Where the chapters put explicit breakpoints: after the mission (the first system message), after
    the summary (a second system message, when the request carries one), and after the last message
    before the current question, so the next call can read the window as it stood.

    Offsets into ``prompt_token_ids(messages)``, as ``explicit_calls`` takes them."""
    ends = message_ends(messages)
    marks = [ends[0]] if messages and messages[0]["role"] == "system" else []
    if len(messages) > 1 and messages[1]["role"] == "system":
        marks.append(ends[1])
    if len(messages) > 1:
        marks.append(ends[-2])
    return sorted(set(marks))


def common_prefix(previous: Sequence[int], current: Sequence[int]) -> int:
    """How many leading tokens two requests share."""
    shared = 0
    for old, new in zip(previous, current):
        if old != new:
            break
        shared += 1
    return shared


def implicit_cached(prefix: int, minimum: int = CACHE_MINIMUM, step: int = CACHE_STEP) -> int:
    """What gpt-4o's cache can serve of a shared prefix: nothing under ``minimum``, else whole steps."""
    return 0 if prefix < minimum else prefix // step * step


def implicit_calls(requests: Sequence[Sequence[int]], replies: Sequence[int], *, minimum: int = CACHE_MINIMUM,
                   step: int = CACHE_STEP, primer: int = REPLY_PRIMER_TOKENS) -> list[Call]:
    """gpt-4o's rule over a night: each request reads the longest prefix it shares with any earlier one.

    ``sent`` is the request's tokens plus ``primer`` (the reply's opening tokens, counted in
    ``prompt_tokens``); nothing is counted as written (no write fee before GPT-5.6)."""
    _same_length(requests, replies)
    calls = []
    for index, ids in enumerate(requests):
        shared = max((common_prefix(earlier, ids) for earlier in requests[:index]), default=0)
        calls.append(Call(len(ids) + primer, implicit_cached(shared, minimum, step), 0, replies[index]))
    return calls


def explicit_calls(requests: Sequence[Sequence[int]], breakpoints: Sequence[Iterable[int]], replies: Sequence[int],
                   *, minimum: int = CACHE_MINIMUM, primer: int = REPLY_PRIMER_TOKENS) -> list[Call]:
    """Breakpoints over a night: each request reads the longest written prefix it starts with, then
    writes its own breakpoints (the latest four) that are not written yet.

    ``breakpoints[i]`` are token offsets into ``requests[i]`` (the ends of the prefixes to keep, e.g.
    from ``message_ends``). A write counts the tokens from what was read to the furthest new
    breakpoint (推測: the SDK defines ``cache_write_tokens`` only as the tokens written)."""
    _same_length(requests, replies)
    if len(breakpoints) != len(requests):
        raise ValueError(f"{len(breakpoints)} breakpoint lists for {len(requests)} requests")
    written: set[tuple[int, ...]] = set()
    calls = []
    for ids, marks, reply in zip(requests, breakpoints, replies):
        marks = sorted(set(marks))
        if marks and not 0 < marks[0] <= marks[-1] <= len(ids):
            raise ValueError(f"breakpoints {marks} fall outside a request of {len(ids)} tokens")
        read = max((len(entry) for entry in written if tuple(ids[:len(entry)]) == entry), default=0)
        new = [mark for mark in marks[-MAX_BREAKPOINT_WRITES:] if mark >= minimum and tuple(ids[:mark]) not in written]
        written |= {tuple(ids[:mark]) for mark in new}
        furthest = max(new, default=0)
        calls.append(Call(len(ids) + primer, read, max(furthest - read, 0), reply))
    return calls


def cost_table(nights: Mapping[str, Sequence[Call]], prices: Prices) -> pd.DataFrame:
    """One row per night (or design): the totals of ``COST_COLUMNS``, the cost at ``prices``.

    The cost column is named with the currency; ``table.attrs["prices"]`` keeps the prices used."""
    import pandas as pd

    rows = {}
    for label, calls in nights.items():
        rows[label] = {
            COST_COLUMNS[0]: sum(call.sent for call in calls),
            COST_COLUMNS[1]: sum(call.cached for call in calls),
            COST_COLUMNS[2]: sum(call.written for call in calls),
            COST_COLUMNS[3]: sum(call.reply for call in calls),
            f"{COST_COLUMNS[4]}（{prices.currency}）": sum(prices.cost(call) for call in calls),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.attrs["prices"] = prices
    return table


def _same_length(requests: Sequence[Sequence[int]], replies: Sequence[int]) -> None:
    if len(requests) != len(replies):
        raise ValueError(f"{len(replies)} reply counts for {len(requests)} requests")
