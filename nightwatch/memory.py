"""The three-tier memory: 銘 (pinned mission), 束ね (running summary) and 窓 (sliding window).

The heart of it is ``ConversationMemory``'s first four methods: the mission is a field of its own,
in neither the window nor the summary, so compaction cannot reach it; ``add_exchange`` slides the
window by whole round trips; ``build_messages`` lays the tiers out in order. Everything beyond the
story lives in modules of its own and is only called from here:

* ``compaction``: a fold is a transaction; the summarizer's answer is checked before anything leaves
  the window, and every evicted exchange is kept whole in ``archive``.
* ``budget``: with ``context_window`` set, a request is built whenever mission + capped summary +
  question + reply reserve fit, and refused (memory untouched) only when they cannot.
* ``saved``: the whole memory as versioned JSON, validated when it is read back.
* ``strict``: bad configuration and text that could not be saved are refused at the door.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from nightwatch import budget, compaction
from nightwatch.compaction import Compaction, CompactionFailure, SummaryRejected
from nightwatch.strict import StrictModel, saveable_text

TokenEstimator = Callable[[str], int]
"""Counts the tokens of one string (a real tokenizer, or the character-count fake in tests)."""

Summarizer = Callable[[str, list["Exchange"]], str]
"""(summary so far, exchanges leaving the window) -> new summary.

A summarizer may also offer ``shorten(summary, token_limit, estimate_tokens) -> str`` to compress a
summary that came out over the cap; without it, the memory clips an over-long summary itself."""

SUMMARY_HEADER = "これまでの夜の束ね:"

__all__ = [
    "Compaction", "CompactionFailure", "ConversationMemory", "Exchange", "MemoryPolicy",
    "ReentrantCallError", "SUMMARY_HEADER", "SummaryRejected", "Summarizer", "TokenEstimator",
]

SaveableStr = Annotated[str, AfterValidator(lambda text: saveable_text(text, "text"))]


class Exchange(StrictModel, frozen=True):
    """One round trip, question and reply together: the window never splits a pair."""

    user_text: SaveableStr
    watchman_reply: SaveableStr


class MemoryPolicy(StrictModel, frozen=True):
    """Window width in exchanges, the compaction trigger in tokens, and optionally a budget."""

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


class ReentrantCallError(RuntimeError):
    """The memory was called from inside its own summarizer; the call is refused, nothing changes."""


def said(role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content}


def compose_request(mission: str, summary: str, window: Sequence[Exchange], question: str) -> list[dict[str, str]]:
    """The request, tier by tier: 銘, then 束ね if there is one, then 窓 pair by pair, then the question."""
    request = [said("system", mission)]
    if summary:
        request.append(said("system", f"{SUMMARY_HEADER}\n{summary}"))
    for pair in window:
        request += [said("user", pair.user_text), said("assistant", pair.watchman_reply)]
    return request + [said("user", question)]


class ConversationMemory:
    """銘・束ね・窓: a pinned mission, a running summary and the newest exchanges, verbatim."""

    def __init__(
        self, mission: str, policy: MemoryPolicy, estimate_tokens: TokenEstimator, summarize: Summarizer
    ) -> None:
        self.mission = saveable_text(mission, "mission")  # 銘: never in the window, never summarized
        self.summary = ""  # 束ね: what has left the window, folded
        self.window: list[Exchange] = []  # 窓: the newest round trips, word for word
        self.archive: list[Exchange] = []  # every exchange that left the window, whole
        self.compactions: list[Compaction] = []
        self.failures: list[CompactionFailure] = []
        self.exchanges_added = 0
        self._configure(policy, estimate_tokens, summarize)  # policy, estimator, summarizer: checked

    def add_exchange(self, user_text: str, watchman_reply: str) -> None:
        """Record a finished round trip; fold the oldest ones away if the window grew too heavy."""
        self._refuse_reentry("add_exchange")
        pair = Exchange(
            user_text=saveable_text(user_text, "user_text"),
            watchman_reply=saveable_text(watchman_reply, "watchman_reply"),
        )
        self.window.append(pair)
        self.exchanges_added += 1
        self._compact_if_needed()

    def _compact_if_needed(self) -> None:
        # A slice rather than deque(maxlen=...): what falls out is exactly what the summary needs.
        surplus = len(self.window) - self.policy.window_size
        if self.window_tokens() > self.policy.token_threshold and surplus > 0:
            try:
                folded = self.fold_on_the_side(self.summary, self.window[:surplus], must_succeed=False)
            except compaction.FoldAbandoned as gave_up:  # the window keeps everything; retried later
                self.failures.append(CompactionFailure(after_exchange=self.exchanges_added, error=str(gave_up)))
                return
            self.commit_fold(surplus, folded.summary, [folded.problem], reason="threshold")

    def build_messages(self, user_input: str) -> list[dict[str, str]]:
        """The request for ``user_input``: mission first and the question last, where a long context
        is read best. Under a budget, room is made first (or ContextBudgetExceeded, nothing changed)."""
        self._refuse_reentry("build_messages")
        question = saveable_text(user_input, "user_input")
        if self.policy.context_window is not None:
            budget.make_room(self, question)
        return self.compose(self.summary, self.window, question)

    # --- beyond the story: configuration, folds as transactions, saving ------------------------

    def _configure(self, policy: MemoryPolicy, estimate_tokens: TokenEstimator, summarize: Summarizer) -> None:
        if not self.mission.strip():
            raise ValueError("mission must not be empty: the watchman needs a duty to pin")
        if not isinstance(policy, MemoryPolicy):
            raise TypeError(f"policy must be a MemoryPolicy, got {type(policy).__name__}")
        if not callable(estimate_tokens) or not callable(summarize):
            raise TypeError("estimate_tokens and summarize must be callables")
        self.policy = policy
        self.estimate_tokens = estimate_tokens
        self.summarize = summarize
        self._summarizing = False
        floor = budget.request_size(self.compose("", [], ""), estimate_tokens)
        if policy.context_window is not None and floor + policy.reply_reserve > policy.context_window:
            need = floor + policy.reply_reserve
            raise ValueError(
                f"the mission alone (with the reply reserve of {policy.reply_reserve}) needs {need} "
                f"tokens, {need - policy.context_window} more than the context window of "
                f"{policy.context_window}"
            )
        self.summary_cap = budget.summary_cap(policy, floor)

    def compose(self, summary: str, window: Sequence[Exchange], question: str) -> list[dict[str, str]]:
        return compose_request(self.mission, summary, window, question)

    def window_tokens(self) -> int:
        """Tokens of the verbatim window (text only), measured with the injected estimator."""
        count = self.estimate_tokens
        return sum(count(pair.user_text) + count(pair.watchman_reply) for pair in self.window)

    def _refuse_reentry(self, method: str) -> None:
        if self._summarizing:
            raise ReentrantCallError(
                f"{method} was called while the memory's summarizer is running; a summarizer must "
                "not change the memory it summarizes (the call was refused and nothing was recorded)"
            )

    def _ask(self, ask: Callable[..., object]) -> Callable[..., object]:
        def guarded(*args: object) -> object:
            self._summarizing = True
            try:
                return ask(*args)
            finally:
                self._summarizing = False

        return guarded

    def fold_on_the_side(
        self, previous: str, overflow: Sequence[Exchange], *, must_succeed: bool = True
    ) -> compaction.Fold:
        """A candidate summary with ``overflow`` folded in; the memory itself is not changed."""
        shorten = getattr(self.summarize, "shorten", None)
        return compaction.fold(
            previous, overflow, self._ask(self.summarize), self._ask(shorten) if shorten else None,
            self.summary_cap, self.estimate_tokens, must_succeed=must_succeed,
        )

    def commit_fold(self, evicted: int, summary: str, problems: list[str | None], reason: str) -> None:
        """Move the ``evicted`` oldest exchanges to the archive and install the new summary."""
        self.compactions.append(Compaction(
            after_exchange=self.exchanges_added, evicted=evicted, kept=len(self.window) - evicted,
            window_tokens_before=self.window_tokens(), reason=reason,
            summary_tokens_before=self.estimate_tokens(self.summary),
            summary_tokens_after=self.estimate_tokens(summary),
        ))
        self.failures += [
            CompactionFailure(after_exchange=self.exchanges_added, error=problem, fallback=True)
            for problem in problems if problem is not None
        ]
        self.archive += self.window[:evicted]
        self.window = self.window[evicted:]
        self.summary = summary

    def rebuild_summary(self) -> str:
        """Fold the whole archive again from nothing, e.g. after changing the summarizer."""
        if not self.archive:
            return ""
        return compaction.checked_answer(self._ask(self.summarize)("", list(self.archive)), len(self.archive))

    def to_json(self) -> str:
        """The whole memory as versioned JSON; the estimator and summarizer are code, given on load."""
        from nightwatch import saved  # saved imports this module's models

        return saved.dump(self)

    @classmethod
    def from_json(cls, text: str, estimate_tokens: TokenEstimator, summarize: Summarizer) -> ConversationMemory:
        """Rebuild a memory from ``to_json``'s output, refusing inconsistent or unknown-version state."""
        from nightwatch import saved

        return saved.load(cls, text, estimate_tokens, summarize)
