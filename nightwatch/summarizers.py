"""Summarizers with the story's signature ``(summary, overflow) -> new summary``.

* ``concatenating_summarizer`` is the story's fake: it strings every evicted exchange onto the
  summary. Deterministic, loses nothing, and therefore grows without bound: the ceiling returns.
* ``ThreeLineSummarizer`` (in ``nightwatch.standin``) keeps the three-line contract deterministically.
* ``LLMSummarizer`` asks a model, through the ``openai`` client, to do the same in at most three
  lines with ``max_completion_tokens``; offline, the stand-in model answers it. Its own requests are budgeted
  against the model's context, like the watchman's.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

import openai

from typing import Protocol

from nightwatch.tokens import chat_request_tokens, clip_to_tokens, count_text_tokens


class Pair(Protocol):
    """What a summarizer reads of an exchange (``nightwatch.memory.Exchange`` is one)."""

    user_text: str
    watchman_reply: str


def concatenating_summarizer(summary: str, overflow: list[Pair]) -> str:
    """Append every evicted exchange verbatim: nothing is dropped, so nothing stays short.

    The memory also uses it, clipped to the cap, when a summarizer fails and a request must fit.

    >>> from nightwatch.memory import Exchange
    >>> concatenating_summarizer("", [Exchange(user_text="Ten o'clock.", watchman_reply="All quiet.")])
    "Ten o'clock. → All quiet."
    """
    lines = [summary] if summary else []
    for exchange in overflow:  # what the tools found sits between the question and the reply
        found = [step.content for step in getattr(exchange, "steps", ()) if step.role == "tool"]
        lines.append(" → ".join([exchange.user_text, *found, exchange.watchman_reply]))
    return "\n".join(lines)


class CountingSummarizer:
    """Wraps a summarizer and remembers every call, so tests can see what was handed over."""

    def __init__(self, inner=concatenating_summarizer) -> None:
        self.inner = inner
        self.calls: list[list[Pair]] = []

    @property
    def call_count(self) -> int:
        return len(self.calls)

    def __call__(self, summary: str, overflow: list[Pair]) -> str:
        self.calls.append(list(overflow))
        return self.inner(summary, overflow)


SUMMARY_INSTRUCTION = (
    "あなたは夜警の記録係です。これまでの束ねと、窓から押し出された往復を、"
    "三行以内に束ね直してください。一行目は申し送り、二行目は一度きりの出来事、"
    "三行目はいつものやりとりの数です。"
)
PREVIOUS_SUMMARY_HEADING = "これまでの束ね:"
OVERFLOW_HEADING = "押し出された往復:"
NO_SUMMARY_YET = "（まだありません）"


def summary_request(summary: str, overflow: list[Pair]) -> list[dict[str, str]]:
    """The chat request an LLM summarizer sends: instruction, previous summary, evicted pairs."""
    pairs = "\n".join(
        "\n".join([f"問: {exchange.user_text}",
                   *(f"ツール（{step.tool_name or 'tool'}）: {step.content}" for step in getattr(exchange, "steps", ())
                     if step.role == "tool"),
                   f"答: {exchange.watchman_reply}"])
        for exchange in overflow
    )
    body = f"{PREVIOUS_SUMMARY_HEADING}\n{summary or NO_SUMMARY_YET}\n\n{OVERFLOW_HEADING}\n{pairs}"
    return [
        {"role": "system", "content": SUMMARY_INSTRUCTION},
        {"role": "user", "content": body},
    ]


class SummaryTruncatedError(RuntimeError):
    """The model stopped at max_completion_tokens before finishing even one line: nothing usable came back."""


GPT_4O_CONTEXT_WINDOW = 128_000
CONTEXT_LIMIT_IN_ERROR = re.compile(
    r"(?:maximum context length is|exceed the configured limit of) (\d+) tokens"
)
"""The limit a ``context_length_exceeded`` refusal names, in the API's older and current wording."""
CLIPPED_MARK = "（長いため一部を省略）"

log = logging.getLogger(__name__)


def positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


class LLMSummarizer:
    """Folds the overflow with a model call, keeping every request within the model's context.

    * Budgeted: the request (instruction, previous summary, evicted pairs) plus ``max_completion_tokens`` must
      fit ``context_window``. A large overflow is folded in consecutive batches that each fit; a
      single exchange too long for any request is sent clipped (it stays whole in the archive). If
      the endpoint still refuses with ``context_length_exceeded``, the limit it names is adopted.
    * A reply cut at ``max_completion_tokens`` keeps the lines the model finished and the finished sentences of
      the cut one, so a long summary shrinks instead of failing on every later fold. Only a reply
      with no finished sentence raises ``SummaryTruncatedError``; an empty one raises too.
    * ``max_completion_tokens`` (the chat API's current name for the reply cap; ``max_tokens`` is
      its deprecated older name) defaults to 400: three lines of a whole night in Japanese run to about 300
      tokens, and a reply limit below the summary the memory allows only forces cuts.
    """

    def __init__(
        self,
        client: openai.OpenAI,
        model: str = "gpt-4o",
        max_completion_tokens: int = 400,
        *,
        context_window: int = GPT_4O_CONTEXT_WINDOW,
        estimate_tokens: Callable[[str], int] = count_text_tokens,
    ) -> None:
        self.max_completion_tokens = positive_int(max_completion_tokens, "max_completion_tokens")
        self.context_window = positive_int(context_window, "context_window")
        if self.max_completion_tokens >= self.context_window:
            raise ValueError(
                f"max_completion_tokens ({max_completion_tokens}) leaves no room in context_window ({context_window})"
            )
        self.client = client
        self.model = model
        self.estimate_tokens = estimate_tokens
        self.calls = 0
        self.cut_replies = 0
        self._limits_learned = 0  # refusals' limits adopted within the fold under way

    def __call__(self, summary: str, overflow: list[Pair]) -> str:
        pending = list(overflow)
        while pending:
            batch, pending = self._next_batch(summary, pending)
            summary = self._ask(summary, batch)
        return summary

    def _room(self) -> int:
        return self.context_window - self.max_completion_tokens

    def _size(self, summary: str, batch: list[Pair]) -> int:
        return chat_request_tokens(summary_request(summary, batch), self.estimate_tokens)

    def _next_batch(self, summary: str, pending: list[Pair]) -> tuple[list[Pair], list[Pair]]:
        """The longest run of ``pending`` that fits one request with ``summary``, at least one pair."""
        taken = 0
        while taken < len(pending) and self._size(summary, pending[: taken + 1]) <= self._room():
            taken += 1
        if taken:
            return pending[:taken], pending[taken:]
        return [self._clipped(summary, pending[0])], pending[1:]

    def _clipped(self, summary: str, exchange: Pair) -> Pair:
        """``exchange`` shortened until it fits one request with ``summary``."""
        limit = max(1, (self._room() - self._size(summary, [])) // 2)
        while limit > 1:
            pair = exchange.model_copy(update={  # a memory.Exchange, clipped (its archive keeps it whole)
                "user_text": self._clip(exchange.user_text, limit),
                "watchman_reply": self._clip(exchange.watchman_reply, limit),
            })
            if self._size(summary, [pair]) <= self._room():
                return pair
            limit //= 2
        raise SummaryRequestTooLarge(
            f"the previous summary alone leaves no room for an exchange in {self.context_window} tokens"
        )

    def _clip(self, text: str, limit: int) -> str:
        if self.estimate_tokens(text) <= limit:
            return text
        return clip_to_tokens(text, max(1, limit - self.estimate_tokens(CLIPPED_MARK)), self.estimate_tokens) + CLIPPED_MARK

    def _ask(self, summary: str, batch: list[Pair]) -> str:
        self.calls += 1
        try:
            response = self.client.chat.completions.create(
                model=self.model,
                messages=summary_request(summary, batch),
                max_completion_tokens=self.max_completion_tokens,
            )
        except openai.BadRequestError as exc:
            named = CONTEXT_LIMIT_IN_ERROR.search(str(exc))
            if exc.code != "context_length_exceeded" or not named or int(named[1]) >= self.context_window:
                raise
            if self._limits_learned >= MAX_LIMITS_LEARNED_PER_FOLD:  # a server naming ever-smaller limits
                raise
            log.warning("the model's context is %s tokens, not %s: folding in smaller batches",
                        named[1], self.context_window)
            self.context_window = positive_int(int(named[1]), "the model's context window")
            self._limits_learned += 1
            try:
                return self(summary, batch)
            finally:
                self._limits_learned -= 1
        except ValueError as exc:  # the SDK could not parse the answer: JSON cut short, or none at all
            raise UnusableAnswerError(f"the server's answer is not valid JSON ({exc})") from exc
        choice = first_choice(response)
        text = (choice.message.content or "").strip()
        if choice.finish_reason == "length":
            finished = finished_part(text)
            if not finished:
                raise SummaryTruncatedError(
                    f"the summary was cut at max_completion_tokens={self.max_completion_tokens} "
                    f"before its first sentence ended{reasoning_note(response, self.max_completion_tokens)}"
                )
            self.cut_replies += 1
            log.warning("summary cut at max_completion_tokens=%d: keeping the %d finished line(s) and sentence(s)",
                        self.max_completion_tokens, finished.count("\n") + 1)
            return finished
        if not text:
            raise SummaryTruncatedError("the model returned an empty summary")
        return text


def reasoning_note(response: object, cap: int) -> str:
    """Why a reasoning model's answer can be empty: the cap counts its hidden reasoning too.

    ``max_completion_tokens`` bounds visible and reasoning tokens together (the SDK's docstring), so a
    model that reasons for the whole cap writes nothing; the note names how much of it went there."""
    details = getattr(getattr(response, "usage", None), "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None)
    if not isinstance(reasoning, int) or isinstance(reasoning, bool) or reasoning <= 0:
        return ""
    return (f": {reasoning} of the {cap} tokens went to the model's reasoning, which max_completion_tokens "
            "includes; leave room for the summary itself (a larger cap, or a lower reasoning effort)")


MAX_LIMITS_LEARNED_PER_FOLD = 3
"""A refusal's smaller limit is adopted at most this many times within one fold: each adoption
costs a request, and a server naming a smaller limit every time once drove a thousand of them."""


class UnusableAnswerError(RuntimeError):
    """The endpoint answered, but with nothing a summary can be read from; the message says what."""


def first_choice(response: object):
    """The first choice of a chat completion, or UnusableAnswerError saying what came instead."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices or getattr(choices[0], "message", None) is None:
        what = "a completion with no choices" if isinstance(choices, list) and not choices else (
            "a choice with no message" if choices else f"{type(response).__name__} {str(response)[:80]!r}")
        raise UnusableAnswerError(f"the server's answer has no message to summarize from: it sent {what}")
    return choices[0]


SENTENCE_END = re.compile(r"[。！？!?]|\.(?=\s|$)")


def finished_part(text: str) -> str:
    """What a reply cut mid-way had finished: its whole lines, and the finished sentences of the cut one.

    Keeping only whole lines is not enough: a model that writes a long first line (every handover note
    on one line) is cut inside it on every fold, and would fail on every fold for the rest of the night."""
    head, _, cut = text.rpartition("\n")
    ends = [m.end() for m in SENTENCE_END.finditer(cut)]
    kept = f"{head}\n{cut[: ends[-1]]}" if ends else head
    return kept.strip()


class SummaryRequestTooLarge(ValueError):
    """Even one clipped exchange cannot fit the summarizer's own request."""
