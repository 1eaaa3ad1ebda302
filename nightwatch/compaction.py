"""One fold of the window into the summary, and the records kept of it.

The summarizer is outside code, so its answer is checked before it can become the summary: it must
be a non-empty string that can be saved, and within the cap (after the summarizer's own ``shorten``,
if it has one). What happens when it is not depends on who asked:

* the threshold (``add_exchange``) can wait: the fold is abandoned, logged as a failure, and the
  window keeps everything until the next try. Memory is exactly as it was.
* the budget (``build_messages``) cannot wait, or the watchman stops answering: the memory folds
  on its own (``shortening``), logs that it did, and the archive keeps every exchange whole.

An answer over the cap is clipped in both cases (and logged): it is a summary, only too long.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from nightwatch.redaction import redact
from nightwatch.shortening import clip_to_tokens, own_fold
from nightwatch.strict import StrictModel, saveable_text


class Compaction(StrictModel, frozen=True):
    """A record of one compaction, kept so notebooks can mark and plot it."""

    after_exchange: int = Field(ge=0, description="1-based number of the exchange that triggered it")
    evicted: int = Field(gt=0, description="exchanges that left the window into the summary")
    kept: int = Field(ge=0, description="exchanges left in the window")
    window_tokens_before: int = Field(ge=0)
    summary_tokens_before: int = Field(ge=0)
    summary_tokens_after: int = Field(ge=0)
    reason: Literal["threshold", "budget"] = Field(
        default="threshold", description="the window went over token_threshold, or a request had to fit"
    )


class CompactionFailure(StrictModel, frozen=True):
    """A summarizer answer that could not be used as it was.

    ``fallback`` False: the fold was abandoned and memory left as it was. True: the memory went
    ahead with its own shortening (see ``shortening``)."""

    after_exchange: int = Field(ge=0)
    error: str
    fallback: bool = False


class SummaryRejected(ValueError):
    """The summarizer's answer cannot become the summary (not a string, empty, or unsaveable)."""


class FoldAbandoned(Exception):
    """The summarizer failed and the caller could wait: nothing was changed."""


@dataclass(frozen=True)
class Fold:
    """A new summary and, if the summarizer's answer was not used as it was, why."""

    summary: str
    problem: str | None = None


def checked_answer(answer: object, evicted: int) -> str:
    """The summarizer's answer if it can be a summary at all; SummaryRejected otherwise."""
    if not isinstance(answer, str):
        raise SummaryRejected(f"the summarizer returned {type(answer).__name__}, not str")
    if not answer.strip():
        raise SummaryRejected(f"the summarizer returned an empty summary for {evicted} exchanges")
    try:
        return saveable_text(answer, "the summarizer's answer")
    except ValueError as exc:
        raise SummaryRejected(str(exc)) from None


def describe(exc: BaseException) -> str:
    """The failure as one line for the log, with any API key in it masked (errors may echo one)."""
    return redact(f"{type(exc).__name__}: {exc}")


def fold(
    previous: str,
    overflow: Sequence,
    summarize: Callable[[str, list], object],
    shorten: Callable[[str, int, Callable[[str], int]], object] | None,
    cap: int | None,
    estimate_tokens: Callable[[str], int],
    *,
    must_succeed: bool,
) -> Fold:
    """Fold ``overflow`` into ``previous``; see the module docstring for what a failure does."""
    try:
        summary = checked_answer(summarize(previous, list(overflow)), len(overflow))
    except Exception as exc:  # any summarizer failure, including a refused re-entrant call
        if not must_succeed:
            raise FoldAbandoned(describe(exc)) from exc
        fallback = own_fold(previous, overflow)
        if cap is not None:
            fallback = clip_to_tokens(fallback, cap, estimate_tokens)
        return Fold(fallback, f"{describe(exc)}; the memory folded on its own")
    if cap is None or estimate_tokens(summary) <= cap:
        return Fold(summary)
    over = estimate_tokens(summary)
    if shorten is not None:
        try:
            shorter = checked_answer(shorten(summary, cap, estimate_tokens), len(overflow))
        except Exception:  # a shorten that fails is no worse than none: clip below
            shorter = summary
        if estimate_tokens(shorter) <= cap:
            return Fold(shorter)
    clipped = clip_to_tokens(summary, cap, estimate_tokens)
    return Fold(clipped, f"SummaryRejected: the summary is {over} tokens, over the cap of {cap}; clipped by the memory")
