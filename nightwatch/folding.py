"""How evicted exchanges are folded into a summary of at most three lines.

Shared by the deterministic ``ThreeLineSummarizer`` and by the stand-in model when it is asked to
summarize (both call ``nightwatch.reader.summary.fold``), so the offline LLM path and the offline
function give the same 束ね. The three lines:

    申し送り: every handover note (a labelled line), word for word
    出来事: the events: what was said once and not announced (newest kept when the line is full)
    いつもの: the routine as counts: the clock calls from first to last, lines that recurred, the rest

What recurs or was announced loses its words; what happened once keeps them.
"""

from __future__ import annotations

from nightwatch.reader.summary import Summary, fold as fold_lines, pairs_to_lines


def fold(summary: str, exchanges: list[tuple[str, str]], max_items: int | None = None, max_chars: int = 60) -> str:
    """Fold (user_text, watchman_reply) pairs into the three-line summary ``summary``."""
    return fold_lines(summary, pairs_to_lines(exchanges), max_items, max_chars)


def shorten(summary: str, token_limit: int, estimate_tokens) -> str:
    """Drop whole items, least needed first, until the summary fits ``token_limit``.

    The routine line goes first, then the oldest notes (one is kept while there are events), then
    the oldest events; an item is never cut in the middle. Returns "" when not even one item fits."""
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
