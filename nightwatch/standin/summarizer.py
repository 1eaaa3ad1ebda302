"""The stand-in's own three-line summary, called as a plain function: ``ThreeLineSummarizer``.

When ``LLMSummarizer`` asks the stand-in to summarize, the reader folds the evicted lines into three
labelled lines (``reader.summary``). This class gives the memory the very same fold without the
HTTP round trip, so the offline function and the offline model path write the same 束ね:

    申し送り: every handover note (a labelled line), word for word
    出来事: the events: what was said once and not announced (newest kept when the line is full)
    いつもの: the routine as counts: the clock calls from first to last, lines that recurred, the rest

What recurs or was announced loses its words; what happened once keeps them.
"""

from __future__ import annotations

from collections.abc import Callable

from nightwatch.standin.reader.summary import ITEM_CHARS, Summary, fold, pairs_to_lines
from nightwatch.summarizers import Pair


class ThreeLineSummarizer:
    """At most three lines: handover notes, events (what happened once), and the routine as counts."""

    def __init__(self, max_items: int | None = None, max_chars: int = ITEM_CHARS) -> None:
        if (max_items is not None and max_items <= 0) or max_chars <= 1:
            raise ValueError("max_items must be > 0 (or None: no cap) and max_chars > 1")
        self.max_items = max_items
        self.max_chars = max_chars

    def __call__(self, summary: str, overflow: list[Pair]) -> str:
        lines = []
        for exchange in overflow:  # what the tools found is material, read like what was said
            found = [step.content for step in getattr(exchange, "steps", ()) if step.role == "tool"]
            lines += pairs_to_lines([(exchange.user_text, exchange.watchman_reply)], found)
        return fold(summary, lines, self.max_items, self.max_chars)

    def shorten(self, summary: str, token_limit: int, estimate_tokens: Callable[[str], int]) -> str:
        """Drop whole items, least needed first, until the summary fits ``token_limit``.

        The routine line goes first, then the oldest notes (one is kept while there are events),
        then the oldest events; an item is never cut in the middle. "" when not even one fits."""
        lines = Summary.parse(summary)
        while lines.render() and estimate_tokens(lines.render()) > token_limit:
            if lines.calls or lines.others or lines.routine:
                lines.calls = lines.others = 0
                lines.routine = []
            elif len(lines.notes) > (1 if lines.events else 0):
                lines.notes.pop(0)
            elif lines.events:
                lines.events.pop(0)
            else:
                lines.notes.pop(0)
        return lines.render()
