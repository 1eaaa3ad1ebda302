"""The three-tier memory: 銘 (pinned mission), 束ね (running summary) and 窓 (sliding window).

The mission is a field of its own, outside both the window and the summary, so no amount of
compaction can reach it: "the oldest thing goes first" cannot cut the root any more.

Compaction is a transaction. The evicted exchanges are handed to the summarizer first; only when a
usable new summary has come back does the window shrink. A summarizer that raises, returns something
that is not a string, returns nothing for a non-empty overflow, or cannot meet the summary cap
leaves ``window`` and ``summary`` exactly as they were; the failure is logged in ``failures`` and
compaction is tried again after the next exchange. Every evicted exchange is also kept in
``archive``, so nothing said during the night is ever gone and a summary can be rebuilt.

Beyond the story, a policy may carry a budget (``context_window``, ``reply_reserve``): then
``build_messages`` never returns a request that would not fit. It compacts further first, down to
the newest exchange kept verbatim, and raises ``ContextBudgetExceeded`` (with the size of each tier)
if even that cannot fit, before any call is made.

One exchange longer than the threshold: it stays verbatim in the window (nothing is lost), no
compaction can evict it while it is among the newest ``window_size``, and it leaves through the
summary like any other once newer exchanges push it out. Under a budget it is evicted early if the
request would not fit; if it is the newest exchange and still does not fit, the error says so.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from nightwatch.budget import ContextBudgetExceeded, request_size, tier_sizes
from nightwatch.redaction import redact

TokenEstimator = Callable[[str], int]
"""Counts the tokens of one string (a real tokenizer, or the character-count fake in tests)."""

Summarizer = Callable[[str, list["Exchange"]], str]
"""(summary so far, exchanges leaving the window) -> new summary.

A summarizer may also offer ``shorten(summary, token_limit, estimate_tokens) -> str`` to compress a
summary that came out over ``summary_token_limit``; without it, an over-long summary is refused."""

SUMMARY_HEADER = "これまでの夜の束ね:"


class Exchange(BaseModel):
    """One round trip: a question and the watchman's reply. The window slides by whole pairs."""

    model_config = ConfigDict(frozen=True, strict=True)

    user_text: str
    watchman_reply: str


class MemoryPolicy(BaseModel):
    """How many exchanges stay verbatim, when compaction runs, and (optionally) the budget."""

    model_config = ConfigDict(frozen=True)

    window_size: int = Field(gt=0, description="exchanges kept verbatim after a compaction")
    token_threshold: int = Field(gt=0, description="window tokens above which compaction runs")
    context_window: int | None = Field(default=None, gt=0, description="the model's context window")
    reply_reserve: int = Field(default=0, ge=0, description="tokens kept free for the reply")
    summary_token_limit: int | None = Field(default=None, gt=0, description="cap on the summary")

    @model_validator(mode="after")
    def _reserve_fits(self) -> MemoryPolicy:
        if self.context_window is None:
            if self.reply_reserve:
                raise ValueError("reply_reserve needs a context_window to be reserved from")
        elif self.reply_reserve >= self.context_window:
            raise ValueError(
                f"reply_reserve ({self.reply_reserve}) must be smaller than context_window "
                f"({self.context_window}); it is over by {self.reply_reserve - self.context_window + 1}"
            )
        return self


class Compaction(BaseModel):
    """A record of one compaction, kept so notebooks can mark and plot it."""

    model_config = ConfigDict(frozen=True)

    after_exchange: int = Field(description="1-based number of the exchange that triggered it")
    evicted: int = Field(description="exchanges that left the window into the summary")
    kept: int = Field(description="exchanges left in the window")
    window_tokens_before: int
    summary_tokens_before: int
    summary_tokens_after: int


class CompactionFailure(BaseModel):
    """A compaction that did not happen because the summarizer failed; memory was left as it was."""

    model_config = ConfigDict(frozen=True)

    after_exchange: int
    error: str


class MemoryState(BaseModel):
    """Everything a memory holds, as data: what a night interrupted at 03:00 resumes from."""

    mission: str
    policy: MemoryPolicy
    summary: str = ""
    window: list[Exchange] = []
    archive: list[Exchange] = []
    compactions: list[Compaction] = []
    failures: list[CompactionFailure] = []
    exchanges_added: int = 0


class SummaryRejected(ValueError):
    """The summarizer's answer cannot become the summary (not a string, empty, or over the cap)."""


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
        self.archive: list[Exchange] = []
        self.compactions: list[Compaction] = []
        self.failures: list[CompactionFailure] = []
        self.exchanges_added = 0
        if policy.context_window is not None:
            floor = request_size(self._assemble(""), estimate_tokens) + policy.reply_reserve
            if floor > policy.context_window:
                raise ValueError(
                    f"the mission alone (with the reply reserve of {policy.reply_reserve}) needs {floor} "
                    f"tokens, {floor - policy.context_window} more than the context window of "
                    f"{policy.context_window}"
                )

    def window_tokens(self) -> int:
        """Tokens of the verbatim window, measured with the injected estimator."""
        return sum(
            self.estimate_tokens(exchange.user_text) + self.estimate_tokens(exchange.watchman_reply)
            for exchange in self.window
        )

    def add_exchange(self, user_text: str, watchman_reply: str) -> None:
        """Append this round trip to the window, then compact if the window is over the threshold."""
        if not isinstance(user_text, str) or not isinstance(watchman_reply, str):
            raise TypeError("user_text and watchman_reply must both be str")
        self.window.append(Exchange(user_text=user_text, watchman_reply=watchman_reply))
        self.exchanges_added += 1
        if self.window_tokens() > self.policy.token_threshold:
            self._compact(keep=self.policy.window_size)

    def _compact(self, keep: int) -> bool:
        """Fold all but the newest ``keep`` exchanges into the summary; False if nothing changed."""
        # Not deque(maxlen=keep): a deque drops what falls out and never hands it back, and the
        # overflow is exactly what the summary is made from.
        overflow, kept = self.window[:-keep], self.window[-keep:]
        if not overflow:
            # Over the threshold with no more than ``keep`` exchanges (one very long exchange):
            # there is nothing to evict, so nothing is summarized.
            return False
        window_tokens = self.window_tokens()
        try:
            new_summary = self._new_summary(self.summary, overflow)
        except Exception as exc:  # any summarizer failure: keep everything, log it, retry later
            self.failures.append(
                CompactionFailure(after_exchange=self.exchanges_added, error=redact(f"{type(exc).__name__}: {exc}"))
            )
            return False
        # Only now, with a usable summary in hand, does anything leave the window.
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
        self.archive.extend(overflow)
        self.summary = new_summary
        self.window = kept
        return True

    def _new_summary(self, previous: str, overflow: list[Exchange]) -> str:
        """Ask the summarizer, and accept only a non-empty string within the cap."""
        new_summary = self.summarize(previous, list(overflow))
        if not isinstance(new_summary, str):
            raise SummaryRejected(f"the summarizer returned {type(new_summary).__name__}, not str")
        if not new_summary.strip():
            raise SummaryRejected(f"the summarizer returned an empty summary for {len(overflow)} exchanges")
        limit = self.policy.summary_token_limit
        if limit is not None and self.estimate_tokens(new_summary) > limit:
            shorten = getattr(self.summarize, "shorten", None)
            if shorten is not None:
                new_summary = shorten(new_summary, limit, self.estimate_tokens)
            if not isinstance(new_summary, str) or not new_summary.strip():
                raise SummaryRejected(f"the summarizer could not shorten the summary to {limit} tokens")
            if self.estimate_tokens(new_summary) > limit:
                raise SummaryRejected(
                    f"the summary is {self.estimate_tokens(new_summary)} tokens, over the cap of {limit}"
                )
        return new_summary

    def build_messages(self, user_input: str) -> list[dict[str, str]]:
        """Mission -> summary (omitted while empty) -> window pairs -> the current question.

        The mission sits first and the question last: the two seats a long context reads best.
        Under a budget, compact further until the request fits, or raise ``ContextBudgetExceeded``."""
        if not isinstance(user_input, str):
            raise TypeError(f"user_input must be a str, got {type(user_input).__name__}")
        messages = self._assemble(user_input)
        window_limit = self.policy.context_window
        if window_limit is None:
            return messages
        room = window_limit - self.policy.reply_reserve
        while request_size(messages, self.estimate_tokens) > room and len(self.window) > 1:
            if not self._compact(keep=len(self.window) - 1):
                break
            messages = self._assemble(user_input)
        if request_size(messages, self.estimate_tokens) > room:
            tiers = tier_sizes(messages, bool(self.summary), self.estimate_tokens)
            raise ContextBudgetExceeded(tiers, self.policy.reply_reserve, window_limit)
        return messages

    def _assemble(self, user_input: str) -> list[dict[str, str]]:
        messages: list[dict[str, str]] = [{"role": "system", "content": self.mission}]
        if self.summary:
            messages.append({"role": "system", "content": f"{SUMMARY_HEADER}\n{self.summary}"})
        for exchange in self.window:
            messages.append({"role": "user", "content": exchange.user_text})
            messages.append({"role": "assistant", "content": exchange.watchman_reply})
        messages.append({"role": "user", "content": user_input})
        return messages

    def rebuild_summary(self) -> str:
        """Fold the whole archive again from nothing, e.g. after changing the summarizer."""
        return self._new_summary("", self.archive) if self.archive else ""

    def to_state(self) -> MemoryState:
        return MemoryState(
            mission=self.mission, policy=self.policy, summary=self.summary, window=list(self.window),
            archive=list(self.archive), compactions=list(self.compactions),
            failures=list(self.failures), exchanges_added=self.exchanges_added,
        )

    def to_json(self) -> str:
        """The whole memory as JSON; the estimator and summarizer are code, supplied again on load."""
        return self.to_state().model_dump_json()

    @classmethod
    def from_json(cls, text: str, estimate_tokens: TokenEstimator, summarize: Summarizer) -> ConversationMemory:
        state = MemoryState.model_validate_json(text)
        memory = cls(state.mission, state.policy, estimate_tokens, summarize)
        memory.summary = state.summary
        memory.window = list(state.window)
        memory.archive = list(state.archive)
        memory.compactions = list(state.compactions)
        memory.failures = list(state.failures)
        memory.exchanges_added = state.exchanges_added
        return memory
