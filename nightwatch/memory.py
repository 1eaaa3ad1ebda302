"""The three-tier memory: 銘 (pinned mission), 束ね (running summary) and 窓 (sliding window).

The mission is a field of its own, outside both the window and the summary, so no amount of
compaction can reach it: "the oldest thing goes first" cannot cut the root any more.

Compaction is a transaction. The evicted exchanges are handed to the summarizer first; only when a
new summary has come back does the window shrink. A summarizer that raises (or returns something
that is not a string) leaves ``window`` and ``summary`` exactly as they were, and compaction is
simply tried again after the next exchange. The story's code cut the window first and would have
lost the overflow.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

TokenEstimator = Callable[[str], int]
"""Counts the tokens of one string (a real tokenizer, or the character-count fake in tests)."""

Summarizer = Callable[[str, list["Exchange"]], str]
"""(summary so far, exchanges leaving the window) -> new summary."""

SUMMARY_HEADER = "これまでの夜の束ね:"


class Exchange(BaseModel):
    """One round trip: a question and the watchman's reply. The window slides by whole pairs."""

    model_config = ConfigDict(frozen=True)

    user_text: str
    watchman_reply: str


class MemoryPolicy(BaseModel):
    """How many exchanges stay verbatim, and how many window tokens trigger a compaction."""

    model_config = ConfigDict(frozen=True)

    window_size: int = Field(gt=0, description="exchanges kept verbatim after a compaction")
    token_threshold: int = Field(gt=0, description="window tokens above which compaction runs")


class Compaction(BaseModel):
    """A record of one compaction, kept so notebooks can mark and plot it."""

    model_config = ConfigDict(frozen=True)

    after_exchange: int = Field(description="1-based number of the exchange that triggered it")
    evicted: int = Field(description="exchanges that left the window into the summary")
    kept: int = Field(description="exchanges left in the window")
    window_tokens_before: int
    summary_tokens_before: int
    summary_tokens_after: int


class ConversationMemory:
    """Mission, summary and window, assembled into a chat request by ``build_messages``."""

    def __init__(
        self,
        mission: str,
        policy: MemoryPolicy,
        estimate_tokens: TokenEstimator,
        summarize: Summarizer,
    ) -> None:
        if not isinstance(mission, str):
            raise TypeError(f"mission must be a str, got {type(mission).__name__}")
        if not mission.strip():
            raise ValueError("mission must not be empty: the watchman needs a duty to pin")
        if not isinstance(policy, MemoryPolicy):
            raise TypeError(f"policy must be a MemoryPolicy, got {type(policy).__name__}")
        if not callable(estimate_tokens) or not callable(summarize):
            raise TypeError("estimate_tokens and summarize must be callables")
        self.mission = mission
        self.policy = policy
        self.estimate_tokens = estimate_tokens
        self.summarize = summarize
        self.summary: str = ""
        self.window: list[Exchange] = []
        self.compactions: list[Compaction] = []
        self.exchanges_added = 0

    def window_tokens(self) -> int:
        """Tokens of the verbatim window, measured with the injected estimator."""
        return sum(
            self.estimate_tokens(exchange.user_text) + self.estimate_tokens(exchange.watchman_reply)
            for exchange in self.window
        )

    def add_exchange(self, user_text: str, watchman_reply: str) -> None:
        """Append this round trip to the window, then compact if the window is over the threshold."""
        self.window.append(Exchange(user_text=user_text, watchman_reply=watchman_reply))
        self.exchanges_added += 1
        self._compact_if_needed()

    def _compact_if_needed(self) -> None:
        window_tokens = self.window_tokens()
        if window_tokens <= self.policy.token_threshold:
            return
        keep = self.policy.window_size
        # Not deque(maxlen=keep): a deque drops what falls out and never hands it back, and the
        # overflow is exactly what the summary is made from.
        overflow, kept = self.window[:-keep], self.window[-keep:]
        if not overflow:
            # The window is over the threshold with no more than window_size exchanges in it (one
            # very long exchange): there is nothing to evict, so nothing is summarized.
            return
        new_summary = self.summarize(self.summary, list(overflow))
        if not isinstance(new_summary, str):
            raise TypeError(
                f"summarizer returned {type(new_summary).__name__}, not str; memory left unchanged"
            )
        # Only now, with the new summary in hand, does anything leave the window.
        self.compactions.append(
            Compaction(
                after_exchange=self.exchanges_added,
                evicted=len(overflow),
                kept=len(kept),
                window_tokens_before=window_tokens,
                summary_tokens_before=self.estimate_tokens(self.summary),
                summary_tokens_after=self.estimate_tokens(new_summary),
            )
        )
        self.summary = new_summary
        self.window = kept

    def build_messages(self, user_input: str) -> list[dict[str, str]]:
        """Mission -> summary (omitted while empty) -> window pairs -> the current question.

        The mission sits first and the question last: the two seats a long context reads best."""
        messages: list[dict[str, str]] = [{"role": "system", "content": self.mission}]
        if self.summary:
            messages.append({"role": "system", "content": f"{SUMMARY_HEADER}\n{self.summary}"})
        for exchange in self.window:
            messages.append({"role": "user", "content": exchange.user_text})
            messages.append({"role": "assistant", "content": exchange.watchman_reply})
        messages.append({"role": "user", "content": user_input})
        return messages
