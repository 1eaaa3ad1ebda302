"""One compaction, as a transaction: the summarizer drafts a new summary on the side, and only a
usable draft is committed (by ``ConversationMemory._commit``).

Words, one for each idea: the summarizer *folds* evicted exchanges into the summary; what it gives
back is a *draft* until the memory commits it; a committed draft is a *compaction* (its record is
``records.Compaction``); a text cut mechanically to a token count is *clipped*.

The summarizer is outside code, so its answer is checked before it can become the summary: it must
be a non-empty string that can be saved, and within the cap (after the summarizer's own ``shorten``,
if it has one). What happens when it is not depends on who asked:

* the threshold (``add_exchange``) can wait: the compaction is abandoned, logged as a failure, and
  the window keeps everything until the next try. Memory is exactly as it was.
* the budget (``build_messages``) cannot wait, or the watchman stops answering: the memory drafts
  on its own (the story's concatenating summarizer, clipped to the cap), logs that it did, and the
  archive keeps every exchange whole, so a better summary can be rebuilt later.

An answer over the cap is clipped in both cases (and logged): it is a summary, only too long.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nightwatch.memory.redaction import redact
from nightwatch.memory.strict import saveable_text
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.tokens import clip_to_tokens


class SummaryRejected(ValueError):
    """The summarizer's answer cannot become the summary (not a string, empty, or unsaveable)."""


class CompactionAbandoned(Exception):
    """The summarizer failed and the caller could wait: nothing was changed."""


@dataclass(frozen=True)
class Draft:
    """A candidate summary and, if the summarizer's answer was not used as it was, why."""

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


def draft(
    previous: str,
    overflow: Sequence,
    summarize: Callable[[str, list], object],
    shorten: Callable[[str, int, Callable[[str], int]], object] | None,
    cap: int | None,
    estimate_tokens: Callable[[str], int],
    *,
    must_succeed: bool,
) -> Draft:
    """A draft of ``previous`` with ``overflow`` folded in; see the module docstring for a failure."""
    try:
        summary = checked_answer(summarize(previous, list(overflow)), len(overflow))
    except Exception as exc:  # any summarizer failure, including a refused re-entrant call
        if not must_succeed:
            raise CompactionAbandoned(describe(exc)) from exc
        fallback = concatenating_summarizer(previous, overflow)
        if cap is not None:
            fallback = clip_to_tokens(fallback, cap, estimate_tokens)
        return Draft(fallback, f"{describe(exc)}; the memory folded on its own")
    if cap is None or estimate_tokens(summary) <= cap:
        return Draft(summary)
    over = estimate_tokens(summary)
    if shorten is not None:
        try:
            shorter = checked_answer(shorten(summary, cap, estimate_tokens), len(overflow))
        except Exception:  # a shorten that fails is no worse than none: clip below
            shorter = summary
        if estimate_tokens(shorter) <= cap:
            return Draft(shorter)
    clipped = clip_to_tokens(summary, cap, estimate_tokens)
    return Draft(clipped, f"SummaryRejected: the summary is {over} tokens, over the cap of {cap}; clipped by the memory")
