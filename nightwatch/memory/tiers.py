"""The three-tier memory: 銘 (pinned mission), 束ね (running summary) and 窓 (sliding window).

The heart of it is ``ConversationMemory``'s first four methods: the mission is a field of its own,
in neither the window nor the summary, so compaction cannot reach it; ``add_exchange`` slides the
window by whole round trips; ``build_messages`` lays the tiers out in order. Everything beyond the
story lives in modules of its own and is only called from here:

* ``compaction``: a compaction is a transaction; the summarizer's draft is checked before anything
  leaves the window, and every evicted exchange is kept whole in ``archive``.
* ``budget``: with ``context_window`` set, a request is built whenever mission + capped summary +
  question + reply reserve fit (``_make_room``), and refused, memory untouched, only when they cannot.
* ``saved``: the whole memory as versioned JSON, validated when it is read back.
* ``strict``, ``policy``, ``records``: bad configuration and text that could not be saved are
  refused at the door.

>>> from nightwatch.tokens import estimate_tokens_by_chars
>>> from nightwatch.summarizers import concatenating_summarizer
>>> memory = ConversationMemory("Keep watch.", MemoryPolicy(window_size=1, token_threshold=10),
...                             estimate_tokens_by_chars, concatenating_summarizer)
>>> memory.add_exchange("Ten o'clock.", "All quiet.")
>>> memory.add_exchange("A fox ran by.", "Noted.")  # the window is over 10 tokens: the oldest folds
>>> memory.summary, len(memory.window), len(memory.archive)
("Ten o'clock. → All quiet.", 1, 1)
>>> [message["role"] for message in memory.build_messages("Anything else?")]
['system', 'system', 'user', 'assistant', 'user']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from nightwatch.agent import said
from nightwatch.memory import budget, clearing, compaction, saved
from nightwatch.memory.policy import MemoryPolicy
from nightwatch.memory.records import (
    Compaction, CompactionFailure, Exchange, ToolResultsCleared, ToolStep, step_order_problem,
)
from nightwatch.memory.strict import saveable_text
from nightwatch.tokens import clip_to_tokens, message_tokens

TokenEstimator = Callable[[str], int]
"""Counts the tokens of one string (a real tokenizer, or the character-count fake in tests)."""

Summarizer = Callable[[str, list[Exchange]], str]
"""(summary so far, exchanges leaving the window) -> new summary.

A summarizer may also offer ``shorten(summary, token_limit, estimate_tokens) -> str`` to compress a
summary that came out over the cap; without it, the memory clips an over-long summary itself."""

SUMMARY_HEADER = "これまでの夜の束ね:"


class ReentrantCallError(RuntimeError):
    """The memory was called from inside its own summarizer; the call is refused, nothing changes."""


ShownContent = Callable[[ToolStep], str]
"""What a request shows of a tool result: the result itself, or its cleared or clipped form."""


def _as_is(step: ToolStep) -> str:
    return step.content


def step_messages(steps: Sequence[ToolStep], shown: ShownContent = _as_is) -> list[dict[str, Any]]:
    """Tool steps as chat messages, in order; a result's content as ``shown`` gives it."""
    return [step.as_message(shown(step) if step.role == "tool" else None) for step in steps]


def compose_request(
    mission: str, summary: str, window: Sequence[Exchange], question: str,
    steps: Sequence[ToolStep] = (), shown: ShownContent = _as_is,
) -> list[dict[str, Any]]:
    """The request, tier by tier: 銘, then 束ね if there is one, then 窓 pair by pair (each with its
    tool steps between question and reply), then the question and this turn's steps so far."""
    request: list[dict[str, Any]] = [said("system", mission)]
    if summary:
        request.append(said("system", f"{SUMMARY_HEADER}\n{summary}"))
    for pair in window:
        request += [said("user", pair.user_text), *step_messages(pair.steps, shown), said("assistant", pair.watchman_reply)]
    return request + [said("user", question), *step_messages(steps, shown)]


def as_steps(steps: Sequence[ToolStep | Mapping[str, Any]]) -> tuple[ToolStep, ...]:
    """Tool steps given as records or as chat messages (what an agent's loop holds), as records;
    a result is told which function it came from (the chat API's tool message does not say)."""
    records: list[ToolStep] = []
    names: dict[str, str] = {}
    for step in steps:
        record = step if isinstance(step, ToolStep) else ToolStep.from_message(step)
        if record.role == "assistant":
            names |= {call.id: call.name for call in record.tool_calls}
        elif not record.tool_name and record.tool_call_id in names:
            record = record.model_copy(update={"tool_name": names[record.tool_call_id]})
        records.append(record)
    return tuple(records)


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
        self.cleared_results: set[str] = set()  # ids of tool results the requests show as a placeholder
        self.clearings: list[ToolResultsCleared] = []
        self._clipped: dict[str, str] = {}  # this request's clipped results (the current turn's only)
        self._configure(policy, estimate_tokens, summarize)  # policy, estimator, summarizer: checked

    def add_exchange(
        self, user_text: str, watchman_reply: str, steps: Sequence[ToolStep | Mapping[str, Any]] = ()
    ) -> None:
        """Record a finished round trip (with its tool steps, if any); fold the oldest ones away if
        the window grew too heavy."""
        self._refuse_reentry("add_exchange")
        pair = Exchange(
            user_text=saveable_text(user_text, "user_text"),
            watchman_reply=saveable_text(watchman_reply, "watchman_reply"),
            steps=as_steps(steps),
        )
        self.window.append(pair)
        self.exchanges_added += 1
        self._clear_old_results()
        self._compact_if_needed()

    def _compact_if_needed(self) -> None:
        # A slice rather than deque(maxlen=...): what falls out is exactly what the summary needs.
        surplus = len(self.window) - self.policy.window_size
        if self.window_tokens() > self.policy.token_threshold and surplus > 0:
            try:
                draft = self.draft_summary(self.summary, self.window[:surplus], must_succeed=False)
            except compaction.CompactionAbandoned as gave_up:  # the window keeps everything; retried later
                self.failures.append(CompactionFailure(after_exchange=self.exchanges_added, error=str(gave_up)))
                return
            self._commit(surplus, draft.summary, [draft.problem], reason="threshold")

    def build_messages(
        self, user_input: str, steps: Sequence[ToolStep | Mapping[str, Any]] = (),
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> list[dict[str, Any]]:
        """The request for ``user_input``: mission first and the question last, where a long context
        is read best. Under a budget, room is made first (or ContextBudgetExceeded, nothing changed).

        ``steps`` are this turn's tool calls and results so far, ``tools`` the definitions the call
        offers: both are counted in the budget. Old tool results are cleared first (``clearing``)."""
        self._refuse_reentry("build_messages")
        question = saveable_text(user_input, "user_input")
        current = as_steps(steps)
        problem = step_order_problem(current)
        if problem and not problem.startswith("the calls"):  # the newest calls may still be waiting
            raise ValueError(f"steps must be whole rounds of calls and results: {problem}")
        self._clipped = {}
        self._clear_old_results(current)
        if self.policy.context_window is not None:
            self._make_room(question, current, tools)
        return self.compose(self.summary, self.window, question, current)

    # --- beyond the story: configuration, compaction as a transaction, the budget, saving ------

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
        self._summarizer_depth = 0  # > 0 while the summarizer runs, however deeply nested
        floor = budget.request_size(self.compose("", [], ""), estimate_tokens)
        if policy.context_window is not None and floor + policy.reply_reserve > policy.context_window:
            need = floor + policy.reply_reserve
            raise ValueError(
                f"the mission alone (with the reply reserve of {policy.reply_reserve}) needs {need} "
                f"tokens, {need - policy.context_window} more than the context window of "
                f"{policy.context_window}"
            )
        self.summary_cap = budget.summary_cap(policy, floor)
        if self.summary_cap is not None:
            frame = message_tokens(said("system", f"{SUMMARY_HEADER}\n"), estimate_tokens)
            problem = budget.summary_cap_problem(policy, floor, frame, self.summary_cap)
            if problem:
                raise ValueError(problem)

    def compose(
        self, summary: str, window: Sequence[Exchange], question: str, steps: Sequence[ToolStep] = ()
    ) -> list[dict[str, Any]]:
        return compose_request(self.mission, summary, window, question, steps, self.shown_content)

    def shown_content(self, step: ToolStep) -> str:
        """A tool result as requests show it: clipped to fit, cleared to a placeholder, or whole."""
        call_id = str(step.tool_call_id)
        if call_id in self._clipped:
            return self._clipped[call_id]
        if call_id in self.cleared_results:
            return clearing.CLEARED_RESULT[clearing.mission_language(self.mission)]
        return step.content

    def window_tokens(self) -> int:
        """Tokens of the verbatim window (text only, tool results as requests show them), measured
        with the injected estimator."""
        count = self.estimate_tokens
        return sum(count(pair.user_text) + count(pair.watchman_reply) + self._steps_text_tokens(pair.steps)
                   for pair in self.window)

    def _steps_text_tokens(self, steps: Sequence[ToolStep]) -> int:
        count = self.estimate_tokens
        return sum(count(self.shown_content(step)) if step.role == "tool"
                   else sum(count(call.name) + count(call.arguments) for call in step.tool_calls)
                   for step in steps)

    def _clear_old_results(self, current: Sequence[ToolStep] = ()) -> None:
        """Clear what ``keep_tool_results`` and ``clear_at_least`` say is due (``clearing``)."""
        if self.policy.keep_tool_results is None:
            return
        placeholder = clearing.CLEARED_RESULT[clearing.mission_language(self.mission)]
        due, freed = clearing.due_for_clearing(
            clearing.tool_results(self.window, current), self.cleared_results, self.policy.keep_tool_results,
            self.policy.clear_at_least, placeholder, self.estimate_tokens)
        if due:
            self.cleared_results |= due
            self.clearings.append(ToolResultsCleared(
                after_exchange=self.exchanges_added, cleared=len(due), tokens_freed=freed))

    def _refuse_reentry(self, method: str) -> None:
        if self._summarizer_depth:
            raise ReentrantCallError(
                f"{method} was called while the memory's summarizer is running; a summarizer must "
                "not change the memory it summarizes (the call was refused and nothing was recorded)"
            )

    @contextmanager
    def _summarizer_running(self) -> Iterator[None]:
        # A depth, not a flag: a nested call must not switch the guard off for the rest of the
        # outer call on its way out.
        self._summarizer_depth += 1
        try:
            yield
        finally:
            self._summarizer_depth -= 1

    def _ask(self, ask: Callable[..., object]) -> Callable[..., object]:
        def guarded(*args: object) -> object:
            with self._summarizer_running():
                return ask(*args)

        return guarded

    def draft_summary(
        self, previous: str, overflow: Sequence[Exchange], *, must_succeed: bool = True
    ) -> compaction.Draft:
        """A draft summary with ``overflow`` folded in; the memory itself is not changed."""
        shorten = getattr(self.summarize, "shorten", None)
        return compaction.draft(
            previous, overflow, self._ask(self.summarize), self._ask(shorten) if shorten else None,
            self.summary_cap, self.estimate_tokens, must_succeed=must_succeed,
        )

    def _make_room(self, question: str, steps: Sequence[ToolStep] = (), tools: Sequence[Mapping[str, Any]] = ()) -> None:
        """Fold the fewest oldest exchanges into the summary so that the request for ``question`` fits.

        Drafts are made oldest-first on the side; nothing is committed unless the request fits. A
        result of this turn too large for any request is clipped to what fits (``_clip_to_fit``)."""
        assert self.policy.context_window is not None
        room = self.policy.context_window - self.policy.reply_reserve
        estimate = self.estimate_tokens

        def frame(summary: str) -> int:  # the request with no window at all
            return budget.request_size(self.compose(summary, [], question, steps), estimate, tools)

        pairs = [sum(message_tokens(message, estimate) for message in self.compose("", [pair], "")[1:-1])
                 for pair in self.window]
        if frame(self.summary) + sum(pairs) <= room:
            return
        self._clip_to_fit(steps, lambda: frame(""), room)
        if frame(self.summary) + sum(pairs) <= room:
            return
        summary, evicted, problems = self.summary, 0, []
        if frame("") <= room:  # else not even mission + question fit: refuse without calling anyone
            while evicted < len(pairs):
                step = budget.evictions_needed(frame(summary), pairs[evicted:], room)
                draft = self.draft_summary(summary, self.window[evicted : evicted + step])
                summary, evicted = draft.summary, evicted + step
                problems.append(draft.problem)
                if frame(summary) + sum(pairs[evicted:]) <= room:
                    self._commit(evicted, summary, problems, reason="budget")
                    return
        refused = self.compose(summary, [], question, steps)
        sizes = budget.tier_sizes(refused, estimate)
        sizes["question"] += budget.request_size([], estimate, tools) - budget.request_size([], estimate)
        raise budget.ContextBudgetExceeded(sizes, self.policy.reply_reserve, self.policy.context_window)

    def _clip_to_fit(self, steps: Sequence[ToolStep], frame: Callable[[], int], room: int) -> None:
        """Clip this turn's results, largest first, until mission + question + steps fit ``room``.

        Only the request is clipped (``_clipped``); the exchange recorded afterwards keeps every
        result whole, so the summarizer and the archive get all of it."""
        marker = clearing.CLIPPED_RESULT[clearing.mission_language(self.mission)]
        results = sorted((step for step in steps if step.role == "tool"),
                         key=lambda step: -self.estimate_tokens(step.content))
        for step in results:
            over = frame() - room
            if over <= 0:
                return
            keep = self.estimate_tokens(step.content) - over - self.estimate_tokens(marker)
            self._clipped[str(step.tool_call_id)] = (
                clip_to_tokens(step.content, keep, self.estimate_tokens) if keep > 0 else "") + marker

    def _commit(self, evicted: int, summary: str, problems: list[str | None], reason: str) -> None:
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
        held = {str(step.tool_call_id) for step in clearing.tool_results(self.window)}
        self.cleared_results &= held  # an evicted result is in the archive, whole: nothing to clear

    def rebuild_summary(self) -> str:
        """Fold the whole archive again from nothing, e.g. after changing the summarizer."""
        self._refuse_reentry("rebuild_summary")
        if not self.archive:
            return ""
        return compaction.checked_answer(self._ask(self.summarize)("", list(self.archive)), len(self.archive))

    def to_json(self) -> str:
        """The whole memory as versioned JSON; the estimator and summarizer are code, given on load."""
        return saved.dump(self)

    @classmethod
    def from_json(cls, text: str, estimate_tokens: TokenEstimator, summarize: Summarizer) -> ConversationMemory:
        """Rebuild a memory from ``to_json``'s output, refusing inconsistent or unknown-version state."""
        return saved.load(cls, text, estimate_tokens, summarize)
