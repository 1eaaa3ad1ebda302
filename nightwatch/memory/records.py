"""What the memory holds and what it logs: exchanges, compactions and the failures it survived.

Plain validated records, so a saved night (``saved``) and a notebook's plot read the same data.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from nightwatch.memory.strict import SaveableStr, StrictModel


class Exchange(StrictModel, frozen=True):
    """One round trip, question and reply together: the window never splits a pair."""

    user_text: SaveableStr
    watchman_reply: SaveableStr


class Compaction(StrictModel, frozen=True):
    """A record of one compaction: a draft summary committed and the oldest exchanges moved out."""

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

    ``fallback`` False: the compaction was abandoned and memory left as it was. True: the memory
    went ahead with its own draft (see ``compaction``)."""

    after_exchange: int = Field(ge=0)
    error: str
    fallback: bool = False
