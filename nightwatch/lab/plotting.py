"""Notebook set-up and the few pictures every chapter shares.

The collection speaks one picture language, so a reader learns each picture once and then watches
each design change it:

- the request of each call as a stack of tiers (mission / summary / window / question) against the
  context limit (``plot_request_stacks``);
- the messages of one request laid end to end, e.g. just before and just after a compaction
  (``plot_request_blocks``);
- where each answer came from: which tiers of its request the reply drew on, read from the
  stand-in's grounding trace (``plot_grounding``);
- the tokens sent so far, per design (``plot_cumulative_tokens``).

A message's tier is read from its position and role alone, exactly as a model would see it
(``memory.budget.request_tiers``): the first message when it is a system message is the mission, a
system message right after it is the summary, the last message is the question, and everything
between is the window. The Before and
trimmed designs therefore simply have no summary tier, and a trimmed request that has lost its
mission starts straight with the window.

Imported only by notebooks (``import nightwatch`` does not pull in matplotlib or pandas). The
Japanese font is IPAexGothic, bundled in the ``matplotlib-fontja`` package, so labels render the same
on every machine with no system font installed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

import matplotlib
import matplotlib.pyplot as plt
import matplotlib_fontja  # noqa: F401  (registers IPAexGothic and selects it)
import pandas as pd
from matplotlib.patches import Patch

from nightwatch.memory.budget import TIERS, request_tiers, tier_sizes
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_text_tokens, message_tokens

LIMIT_COLOR = "#c0392b"
DESIGN_COLORS = {"before": "#7f8c8d", "trimmed": "#e67e22", "three_tier": "#2471a3"}

TIER_LABELS = {"mission": "銘（務めの命令）", "summary": "束ね（要約）", "window": "窓（直近の往復）", "question": "今の問い"}
TIER_COLORS = {"mission": "#f4d03f", "summary": "#5dade2", "window": "#58d68d", "question": "#ec7063"}

Message = Mapping[str, str]


class Grounded(Protocol):
    """A recorded request with its grounding trace (``nightwatch.standin.RecordedRequest``)."""

    messages: list[dict[str, str]]
    grounding: tuple




def setup_notebook() -> None:
    """Fonts, figure size and table display for a chapter, identical on every run."""
    matplotlib_fontja.japanize()
    matplotlib.rcParams.update(
        {
            "figure.figsize": (8.0, 4.0),
            "figure.dpi": 100,
            "axes.unicode_minus": False,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "legend.frameon": False,
            "svg.hashsalt": "nightwatch",
        }
    )
    pd.set_option("display.width", 120)
    pd.set_option("display.max_columns", 20)
    pd.set_option("display.max_colwidth", 100)
    # Japanese characters are two columns wide in a terminal and in text output; without this,
    # pandas counts them as one and the columns of a printed table drift apart.
    pd.set_option("display.unicode.east_asian_width", True)


def draw_limit(ax: plt.Axes, limit: int, label: str | None = None) -> None:
    """The context window as a horizontal line, labelled with its size."""
    ax.axhline(limit, color=LIMIT_COLOR, linestyle="--", linewidth=1.5,
               label=label or f"コンテキスト上限（{limit:,} トークン）")


def mark_compactions(ax: plt.Axes, turns: Sequence[int], color: str, label: str | None = "束ねの発火") -> None:
    """Light vertical lines at the calls after which a compaction happened."""
    for index, turn in enumerate(turns):
        ax.axvline(turn, color=color, alpha=0.25, linewidth=1, label=label if index == 0 else None)


Classify = Callable[[Sequence[Message]], Sequence[str]]
"""Tells the tier of each message of a request; by default by position (``request_tiers``)."""


def tier_tokens(messages: Sequence[Message], classify: Classify | None = None) -> dict[str, int]:
    """Prompt tokens per tier (``memory.budget.tier_sizes``, counted in gpt-4o's encoding)."""
    return tier_sizes(messages, count_text_tokens, classify(messages) if classify else None)


def tier_table(requests: Sequence[Sequence[Message]], classify: Classify | None = None) -> pd.DataFrame:
    """One row per call (numbered from 1), one column per tier, plus the total."""
    table = pd.DataFrame([tier_tokens(messages, classify) for messages in requests],
                         index=pd.RangeIndex(1, len(requests) + 1, name="呼び出し"))
    table["合計"] = table[list(TIERS)].sum(axis=1)
    return table


def tier_legend(ax: plt.Axes, tiers: Sequence[str] = TIERS, extra: Sequence = (), **kwargs) -> None:
    """A legend listing the tiers top to bottom, as they are stacked, then any extra handles."""
    handles = [Patch(color=TIER_COLORS[tier], label=TIER_LABELS[tier]) for tier in reversed(tiers)]
    kwargs.setdefault("fontsize", 8)
    ax.legend(handles=[*handles, *extra], **kwargs)


def plot_request_stacks(
    ax: plt.Axes,
    requests: Sequence[Sequence[Message]],
    limit: int,
    refused: Sequence[bool] | None = None,
    title: str | None = None,
    legend: bool = True,
    classify: Classify | None = None,
) -> pd.DataFrame:
    """Each call's request as a bar stacked mission / summary / window / question, against the limit.

    ``requests`` are the messages of each call in order (e.g. ``[r.messages for r in standin.requests]``);
    calls the model refused are hatched. A framework lays its request out its own way, so chapter 8
    passes ``classify`` (``FrameworkAgent.tiers``). Returns the table the bars were drawn from."""
    table = tier_table(requests, classify)
    calls = table.index.to_numpy()
    bottom = pd.Series(0, index=table.index)
    for tier in TIERS:
        ax.bar(calls, table[tier], bottom=bottom, width=0.85, color=TIER_COLORS[tier], linewidth=0)
        bottom = bottom + table[tier]
    extra = []
    if refused is not None and any(refused):
        over = [call for call, was_refused in zip(calls, refused) if was_refused]
        ax.bar(over, table.loc[over, "合計"], width=0.85, fill=False, hatch="xx", edgecolor=LIMIT_COLOR, linewidth=0)
        extra.append(Patch(facecolor="none", hatch="xx", edgecolor=LIMIT_COLOR, label="拒まれたリクエスト"))
    draw_limit(ax, limit)
    extra.insert(0, ax.get_legend_handles_labels()[0][-1])
    ax.set_xlim(0.3, len(calls) + 0.7)
    ax.set_ylim(0, max(limit, int(table["合計"].max())) * 1.15)
    ax.set_xlabel("呼び出し（何回目）")
    ax.set_ylabel("リクエストのトークン数")
    if title:
        ax.set_title(title)
    if legend:
        present = [tier for tier in TIERS if table[tier].any()]
        tier_legend(ax, present, extra, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return table


def plot_request_blocks(ax: plt.Axes, rows: Mapping[str, Sequence[Message]], title: str | None = None) -> None:
    """Requests drawn as horizontal bars, one block per message, coloured by tier.

    Put the request just before a compaction next to the one just after it, and the reader sees which
    window blocks left and how little the summary grew to hold them."""
    labels = list(rows)
    for row, label in enumerate(labels):
        left = 0
        for message, tier in zip(rows[label], request_tiers(rows[label])):
            width = message_tokens(message, count_text_tokens)
            ax.barh(row, width, left=left, color=TIER_COLORS[tier], edgecolor="white", linewidth=1.2, height=0.6)
            left += width
        ax.text(left + 8, row, f"{left + REPLY_PRIMER_TOKENS} トークン・{len(rows[label])} 件", va="center", fontsize=9)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("トークン（左から、送られる順）")
    ax.grid(axis="y", visible=False)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.3)
    if title:
        ax.set_title(title)
    tier_legend(ax, list(reversed(TIERS)), loc="upper left", bbox_to_anchor=(1.01, 1.0))


def plot_cumulative_tokens(ax: plt.Axes, sent: Mapping[str, Sequence[int]], colors: Mapping[str, str],
                           title: str | None = None) -> None:
    """Prompt tokens sent so far, call by call, one line per design: the bill, and the time to read it."""
    for label, sizes in sent.items():
        series = pd.Series(list(sizes), index=range(1, len(sizes) + 1)).cumsum()
        ax.plot(series.index, series, color=colors[label], linewidth=2, label=label)
        ax.annotate(f"{int(series.iloc[-1]):,}", (series.index[-1], series.iloc[-1]), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=9, color=colors[label])
    ax.set_xlabel("呼び出し（何回目）")
    ax.set_ylabel("送ったトークンの累計")
    ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left", fontsize=8)


def grounding_tiers(request: Grounded) -> set[str]:
    """The tiers (mission / summary / window / question) of the messages the reply drew on."""
    tiers = request_tiers(request.messages)
    return {tiers[source.index] for source in request.grounding if 0 <= source.index < len(tiers)}


def plot_grounding(ax: plt.Axes, requests: Sequence[Grounded], labels: Sequence[str] | None = None,
                   title: str | None = None) -> pd.DataFrame:
    """Where each answer came from: one column per call, a dot in each tier the reply drew on.

    ``labels`` (e.g. the clock of each call) replace the call numbers under the chosen columns."""
    drawn = pd.DataFrame([{tier: tier in grounding_tiers(request) for tier in TIERS} for request in requests],
                         index=pd.RangeIndex(1, len(requests) + 1, name="呼び出し"))
    rows = list(reversed(TIERS))  # mission on top, as in the request
    for row, tier in enumerate(rows):
        calls = drawn.index[drawn[tier]]
        ax.scatter(calls, [row] * len(calls), s=60, marker="s", color=TIER_COLORS[tier], edgecolor="#34495e",
                   linewidth=0.5, zorder=3)
    ax.set_yticks(range(len(rows)), [TIER_LABELS[tier] for tier in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0.3, len(requests) + 0.7)
    ax.set_xlabel("呼び出し（何回目）")
    if labels is not None:
        ticks = [call for call, label in zip(drawn.index, labels) if label]
        ax.set_xticks(ticks, [label for label in labels if label], rotation=45, fontsize=8)
    ax.grid(axis="y", visible=False)
    if title:
        ax.set_title(title)
    return drawn
