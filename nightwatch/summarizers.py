"""Summarizers with the story's signature ``(summary, overflow) -> new summary``.

* ``concatenating_summarizer`` is the story's fake: it strings every evicted exchange onto the
  summary. Deterministic, loses nothing, and therefore grows without bound: the ceiling returns.
* ``ThreeLineSummarizer`` keeps the three-line contract deterministically (see ``folding``).
* ``LLMSummarizer`` asks a model, through the ``openai`` client, to do the same in at most three
  lines with ``max_tokens``; offline, the stand-in model answers it.
"""

from __future__ import annotations

import openai

from nightwatch.folding import fold, shorten
from nightwatch.memory import Exchange


def concatenating_summarizer(summary: str, overflow: list[Exchange]) -> str:
    """Append every evicted exchange verbatim: nothing is dropped, so nothing stays short."""
    lines = [summary] if summary else []
    lines += [f"{exchange.user_text} → {exchange.watchman_reply}" for exchange in overflow]
    return "\n".join(lines)


class CountingSummarizer:
    """Wraps a summarizer and remembers every call, so tests can see what was handed over."""

    def __init__(self, inner=concatenating_summarizer) -> None:
        self.inner = inner
        self.calls: list[list[Exchange]] = []

    @property
    def call_count(self) -> int:
        return len(self.calls)

    def __call__(self, summary: str, overflow: list[Exchange]) -> str:
        self.calls.append(list(overflow))
        return self.inner(summary, overflow)


class ThreeLineSummarizer:
    """At most three lines: handover notes, events (what happened once), and the routine as counts."""

    def __init__(self, max_items: int | None = None, max_chars: int = 60) -> None:
        if (max_items is not None and max_items <= 0) or max_chars <= 1:
            raise ValueError("max_items must be > 0 (or None: no cap) and max_chars > 1")
        self.max_items = max_items
        self.max_chars = max_chars

    def __call__(self, summary: str, overflow: list[Exchange]) -> str:
        pairs = [(exchange.user_text, exchange.watchman_reply) for exchange in overflow]
        return fold(summary, pairs, self.max_items, self.max_chars)

    def shorten(self, summary: str, token_limit: int, estimate_tokens) -> str:
        """Compress an over-cap summary by dropping whole items (see ``folding.shorten``)."""
        return shorten(summary, token_limit, estimate_tokens)


SUMMARY_INSTRUCTION = (
    "あなたは夜警の記録係です。これまでの束ねと、窓から押し出された往復を、"
    "三行以内に束ね直してください。一行目は申し送り、二行目は一度きりの出来事、"
    "三行目はいつものやりとりの数です。"
)
PREVIOUS_SUMMARY_HEADING = "これまでの束ね:"
OVERFLOW_HEADING = "押し出された往復:"
NO_SUMMARY_YET = "（まだありません）"


def summary_request(summary: str, overflow: list[Exchange]) -> list[dict[str, str]]:
    """The chat request an LLM summarizer sends: instruction, previous summary, evicted pairs."""
    pairs = "\n".join(
        f"問: {exchange.user_text}\n答: {exchange.watchman_reply}" for exchange in overflow
    )
    body = f"{PREVIOUS_SUMMARY_HEADING}\n{summary or NO_SUMMARY_YET}\n\n{OVERFLOW_HEADING}\n{pairs}"
    return [
        {"role": "system", "content": SUMMARY_INSTRUCTION},
        {"role": "user", "content": body},
    ]


class SummaryTruncatedError(RuntimeError):
    """The model stopped at max_tokens: a cut summary is refused rather than stored."""


class LLMSummarizer:
    """Folds the overflow with a model call; a cut-off or empty answer raises, losing nothing."""

    def __init__(self, client: openai.OpenAI, model: str = "gpt-4o", max_tokens: int = 200) -> None:
        if max_tokens <= 0:
            raise ValueError("max_tokens must be > 0")
        self.client = client
        self.model = model
        self.max_tokens = max_tokens

    def __call__(self, summary: str, overflow: list[Exchange]) -> str:
        response = self.client.chat.completions.create(
            model=self.model,
            messages=summary_request(summary, overflow),
            max_tokens=self.max_tokens,
        )
        choice = response.choices[0]
        if choice.finish_reason == "length":
            raise SummaryTruncatedError(
                f"the summary was cut at max_tokens={self.max_tokens}; memory left unchanged"
            )
        text = (choice.message.content or "").strip()
        if not text:
            raise SummaryTruncatedError("the model returned an empty summary; memory left unchanged")
        return text
