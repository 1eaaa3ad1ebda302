"""Notebook set-up and the few pictures every chapter shares.

The collection speaks one picture language, so a reader learns each picture once and then watches
each design change it:

- the request of each call as a stack of tiers (mission / summary / window / question) against the
  context limit (``plot_request_stacks``; ``plot_tier_stacks`` when the tiers are already counted);
  with ``tool_results=True`` the ``tool`` messages are a tier of their own (chapter 9);
  a Responses API night's input as the same stack, instructions / compaction item / user messages /
  other items / question (``plot_response_stacks``, chapter 10);
- the messages of one request laid end to end, e.g. just before and just after a compaction
  (``plot_request_blocks``);
- where each answer came from: which tiers of its request the reply drew on, read from the
  stand-in's grounding trace (``plot_grounding``);
- the tokens sent so far, per design (``plot_cumulative_tokens``);
- the summary's length call by call, against the same axes in every chapter (``plot_summary_lengths``);
- the three tiers themselves, as one diagram (``plot_three_tiers``).

One palette (``PALETTE``) gives every colour, so a colour means one thing in every chapter: yellow is
the mission, light blue the summary, green the exchanges, violet the tool results, pink the question,
red the limit and the reply reserve (red means "what a request must stay under" and nothing else); the designs and summarizers have colours of their own. The x axis says what its ticks
are: call numbers (``CALL_AXIS``) or clock times (``CLOCK_AXIS``).

A message's tier is read from its position and role alone, exactly as a model would see it
(``memory.budget.request_tiers``): the first message when it is a system message is the mission, a
system message right after it is the summary, the last message is the question, and everything
between is the window. The Before and
trimmed designs therefore simply have no summary tier, and a trimmed request that has lost its
mission starts straight with the window. A design with no summary in any of its requests has no
tiers at all, only a history, and its legend says so (履歴, not 窓).

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
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch

from nightwatch.memory.budget import TIERS, request_tiers, tier_sizes
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_text_tokens, message_tokens
from nightwatch.tokens.tool_tokens import definition_tokens

PALETTE: dict[str, str] = {
    # the tiers of a request
    "mission": "#f4d03f", "summary": "#5dade2", "window": "#58d68d", "question": "#e377c2",
    "tool": "#a569bd",  # tool results, drawn as a tier of their own only when asked (chapter 9)
    # what a request must stay under
    "limit": "#c0392b", "reserve": "#c0392b",
    # the designs, and the summarizers a three-tier design can run with
    "before": "#7f8c8d", "trimmed": "#e67e22", "three_tier": "#2471a3",
    "three_line": "#2471a3", "concatenating": "#8e44ad",
    # marks and ink; the darker ink of a tier draws its outlines and notes in the diagram
    "compaction": "#34495e", "evicted": "#d5d8dc", "ink": "#34495e",
    "mission_ink": "#9a7d0a", "summary_ink": "#2471a3", "window_ink": "#1e8449", "evicted_ink": "#7f8c8d",
}
LIMIT_COLOR = PALETTE["limit"]
DESIGN_COLORS = {design: PALETTE[design] for design in ("before", "trimmed", "three_tier")}

TIER_LABELS = {"mission": "銘（務めの命令）", "summary": "束ね（要約）", "window": "窓（直近の往復）", "question": "今の問い",
               "tool": "ツール結果"}
UNTIERED_LABELS = {**TIER_LABELS, "mission": "務めの命令（system）", "window": "履歴（それまでの往復）"}
TIER_COLORS = {tier: PALETTE[tier] for tier in TIERS}
TOOL_TIER = "tool"
TOOL_STACK = ("mission", "summary", "window", TOOL_TIER, "question")
"""The stack with tool results split out: each ``tool`` message, wherever it stands, is its own tier."""

CALL_AXIS = "呼び出しの回数"
CLOCK_AXIS = "時刻"
RESERVE_ALPHA = 0.15

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
    ax.axhline(limit, color=PALETTE["limit"], linestyle="--", linewidth=1.5,
               label=label or f"コンテキスト上限（{limit:,} トークン）")


def draw_reserve(ax: plt.Axes, limit: int, reserve: int, label: str | None = None) -> None:
    """The reply reserve as a band just under the limit: a request reaching it leaves the answer no room."""
    ax.axhspan(limit - reserve, limit, color=PALETTE["reserve"], alpha=RESERVE_ALPHA, linewidth=0,
               label=label or f"返答の予約（{reserve:,} トークン）")


def mark_compactions(ax: plt.Axes, turns: Sequence[int], color: str | None = None,
                     label: str | None = "束ねの発火", *, alpha: float = 0.25, linewidth: float = 1,
                     linestyle: str = "-") -> None:
    """Vertical lines at the calls after which a compaction happened: light by default, behind bars;
    a line plot that must be read against them passes a stronger ``alpha``, ``linewidth`` or ``linestyle``."""
    for index, turn in enumerate(turns):
        ax.axvline(turn, color=color or PALETTE["compaction"], alpha=alpha, linewidth=linewidth,
                   linestyle=linestyle, label=label if index == 0 else None)


def is_tiered(requests: Sequence[Sequence[Message]]) -> bool:
    """Whether a design has tiers at all: some request of it carries a summary."""
    return any("summary" in request_tiers(messages) for messages in requests if messages)


def tier_labels(tiered: bool = True) -> dict[str, str]:
    """The legend's words: 銘・束ね・窓 for a tiered design, 務めの命令・履歴 for one without tiers."""
    return TIER_LABELS if tiered else UNTIERED_LABELS


def label_calls(ax: plt.Axes, calls: Sequence[int], clocks: Sequence[str] | None = None) -> None:
    """Say what the x ticks are: call numbers, or (given ``clocks``, one per call) the clock times."""
    if clocks is None:
        ax.set_xlabel(CALL_AXIS)
        return
    ticks = [(call, clock) for call, clock in zip(calls, clocks) if clock]
    ax.set_xticks([call for call, _ in ticks], [clock for _, clock in ticks], rotation=45, fontsize=8)
    ax.set_xlabel(CLOCK_AXIS)


Classify = Callable[[Sequence[Message]], Sequence[str]]
"""Tells the tier of each message of a request; by default by position (``request_tiers``)."""


def tier_tokens(messages: Sequence[Message], classify: Classify | None = None, *, tool_results: bool = False,
                tools: Sequence[Mapping] = ()) -> dict[str, int]:
    """Prompt tokens per tier (``memory.budget.tier_sizes``, counted in gpt-4o's encoding).

    With ``tool_results``, every ``tool`` message is counted as the tool tier, and the question is
    the last user message with this turn's calls after it; the ``tools`` definitions offered are
    counted with the question, as the memory's own refusal counts them, so the tiers add up to
    the stand-in's ``usage``."""
    tiers = list(classify(messages)) if classify else None
    if not tool_results:
        return tier_sizes(messages, count_text_tokens, tiers)
    tiers = tiers or request_tiers(messages)
    asked = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=len(messages) - 1)
    sizes = dict.fromkeys(TOOL_STACK, 0)
    for index, (message, tier) in enumerate(zip(messages, tiers)):
        tier = TOOL_TIER if message.get("role") == "tool" else "question" if index >= asked else tier
        sizes[tier] += message_tokens(message, count_text_tokens)
    sizes["question"] += REPLY_PRIMER_TOKENS + definition_tokens(tools, count_text_tokens)
    return sizes


def tier_table(requests: Sequence[Sequence[Message]], classify: Classify | None = None, *,
               tool_results: bool = False, tools: Sequence[Mapping] = ()) -> pd.DataFrame:
    """One row per call (numbered from 1), one column per tier, plus the total."""
    table = pd.DataFrame([tier_tokens(messages, classify, tool_results=tool_results, tools=tools)
                          for messages in requests], index=pd.RangeIndex(1, len(requests) + 1, name="呼び出し"))
    table["合計"] = table[list(TOOL_STACK if tool_results else TIERS)].sum(axis=1)
    return table


def tier_legend(ax: plt.Axes, tiers: Sequence[str] = TIERS, extra: Sequence = (), tiered: bool = True,
                **kwargs) -> None:
    """A legend listing the tiers top to bottom, as they are stacked, then any extra handles."""
    labels = tier_labels(tiered)
    handles = [Patch(color=PALETTE[tier], label=labels[tier]) for tier in reversed(tiers)]
    kwargs.setdefault("fontsize", 8)
    ax.legend(handles=[*handles, *extra], **kwargs)


def draw_bars(ax: plt.Axes, x: Sequence[float], heights: Sequence[float], bottoms: Sequence[float],
              color: str, width: float = 0.85) -> PolyCollection:
    """Bars as one collection: the same picture as ``ax.bar``, drawn in one go (a long night has
    hundreds of calls, and one patch per bar makes a chapter slow)."""
    half = width / 2
    rectangles = [[(at - half, low), (at - half, low + height), (at + half, low + height), (at + half, low)]
                  for at, height, low in zip(x, heights, bottoms) if height > 0]
    bars = PolyCollection(rectangles, facecolors=color, edgecolors="none", linewidths=0)
    ax.add_collection(bars)
    return bars


def plot_request_stacks(
    ax: plt.Axes,
    requests: Sequence[Sequence[Message]],
    limit: int,
    refused: Sequence[bool] | None = None,
    title: str | None = None,
    legend: bool = True,
    *,
    reserve: int | None = None,
    calls: Sequence[int] | None = None,
    clocks: Sequence[str] | None = None,
    tiered: bool | None = None,
    classify: Classify | None = None,
    tool_results: bool = False,
    tools: Sequence[Mapping] = (),
) -> pd.DataFrame:
    """Each call's request as a bar stacked mission / summary / window / question, against the limit.

    ``requests`` are the messages of each call in order (e.g. ``[r.messages for r in standin.requests]``);
    calls the model refused are hatched. ``reserve`` draws the reply reserve under the limit; ``calls``
    numbers a slice of a night (default 1, 2, …); ``clocks`` puts clock times under the bars; ``tiered``
    (default: whether any request carries a summary) chooses 銘・窓 or 務めの命令・履歴 for the legend.
    A framework lays its request out its own way, so chapter 8 passes ``classify``
    (``FrameworkAgent.tiers``). ``tool_results`` stacks the tool messages as a tier of their own and
    counts the ``tools`` definitions with the question (chapter 9). Returns the table the bars were drawn from."""
    table = tier_table(requests, classify, tool_results=tool_results, tools=tools)
    if calls is not None:
        table.index = pd.Index(list(calls), name=table.index.name)
    return plot_tier_stacks(ax, table, limit, refused, title, legend, reserve=reserve, clocks=clocks, tiered=tiered)


def plot_tier_stacks(
    ax: plt.Axes,
    table: pd.DataFrame,
    limit: int,
    refused: Sequence[bool] | None = None,
    title: str | None = None,
    legend: bool = True,
    *,
    reserve: int | None = None,
    clocks: Sequence[str] | None = None,
    tiered: bool | None = None,
) -> pd.DataFrame:
    """The same stacked bars from tokens already split by tier: one row per call (indexed by call
    number), one column per tier in ``TIERS`` order (a framework's request, split its own way), or
    in ``TOOL_STACK`` order when it has a ``tool`` column."""
    order = TOOL_STACK if TOOL_TIER in table.columns else TIERS
    table = table.set_axis(list(TIERS), axis=1) if list(table.columns)[:len(order)] != list(order) else table.copy()
    table["合計"] = table[list(order)].sum(axis=1)
    numbers = table.index.to_numpy()
    bottom = pd.Series(0, index=table.index)
    for tier in order:
        draw_bars(ax, numbers, table[tier], bottom, PALETTE[tier])
        bottom = bottom + table[tier]
    extra = []
    if refused is not None and any(refused):
        over = [call for call, was_refused in zip(numbers, refused) if was_refused]
        ax.bar(over, table.loc[over, "合計"], width=0.85, fill=False, hatch="xx", edgecolor=PALETTE["limit"],
               linewidth=0)
        extra.append(Patch(facecolor="none", hatch="xx", edgecolor=PALETTE["limit"], label="拒まれたリクエスト"))
    draw_limit(ax, limit)
    extra.insert(0, ax.get_legend_handles_labels()[0][-1])
    if reserve:
        draw_reserve(ax, limit, reserve)
        extra.insert(1, ax.get_legend_handles_labels()[0][-1])
    ax.set_xlim(numbers[0] - 0.7, numbers[-1] + 0.7)
    ax.set_ylim(0, max(limit, int(table["合計"].max())) * 1.15)
    label_calls(ax, numbers, clocks)
    ax.set_ylabel("リクエストのトークン数")
    if title:
        ax.set_title(title)
    if legend:
        present = [tier for tier in order if table[tier].any()]
        tiered = bool(table["summary"].any()) if tiered is None else tiered
        tier_legend(ax, present, extra, tiered=tiered, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return table


def plot_request_blocks(ax: plt.Axes, rows: Mapping[str, Sequence[Message]], title: str | None = None,
                        *, tiered: bool | None = None) -> None:
    """Requests drawn as horizontal bars, one block per message, coloured by tier.

    Put the request just before a compaction next to the one just after it, and the reader sees which
    window blocks left and how little the summary grew to hold them."""
    labels = list(rows)
    for row, label in enumerate(labels):
        left = 0
        for message, tier in zip(rows[label], request_tiers(rows[label])):
            width = message_tokens(message, count_text_tokens)
            ax.barh(row, width, left=left, color=PALETTE[tier], edgecolor="white", linewidth=1.2, height=0.6)
            left += width
        ax.text(left + 8, row, f"{left + REPLY_PRIMER_TOKENS} トークン・{len(rows[label])} 件", va="center", fontsize=9)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel("トークン（左から、送られる順）")
    ax.grid(axis="y", visible=False)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.3)
    if title:
        ax.set_title(title)
    tiered = is_tiered(list(rows.values())) if tiered is None else tiered
    tier_legend(ax, list(reversed(TIERS)), tiered=tiered, loc="upper left", bbox_to_anchor=(1.01, 1.0))


def color_of(name: str) -> str:
    """A palette key (``"three_tier"``) or a colour already (``"#2471a3"``), as a colour."""
    return PALETTE.get(name, name)


def plot_cumulative_tokens(ax: plt.Axes, sent: Mapping[str, Sequence[int]], colors: Mapping[str, str],
                           title: str | None = None) -> None:
    """Prompt tokens sent so far, call by call, one line per design: the bill, and the time to read it.

    ``colors`` maps each label to a palette key (``"before"``) or a colour."""
    for label, sizes in sent.items():
        series = pd.Series(list(sizes), index=range(1, len(sizes) + 1)).cumsum()
        color = color_of(colors[label])
        ax.plot(series.index, series, color=color, linewidth=2, label=label)
        ax.annotate(f"{int(series.iloc[-1]):,}", (series.index[-1], series.iloc[-1]), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize=9, color=color)
    ax.set_xlabel(CALL_AXIS)
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
                   title: str | None = None, *, tiered: bool | None = None) -> pd.DataFrame:
    """Where each answer came from: one column per call, a dot in each tier the reply drew on.

    ``labels`` (the clock of each call, or "" to leave a column unlabelled) replace the call numbers,
    and the axis then says 時刻. ``tiered`` as in ``plot_request_stacks``."""
    drawn = pd.DataFrame([{tier: tier in grounding_tiers(request) for tier in TIERS} for request in requests],
                         index=pd.RangeIndex(1, len(requests) + 1, name="呼び出し"))
    rows = list(reversed(TIERS))  # mission on top, as in the request
    for row, tier in enumerate(rows):
        calls = drawn.index[drawn[tier]]
        ax.scatter(calls, [row] * len(calls), s=60, marker="s", color=PALETTE[tier], edgecolor=PALETTE["ink"],
                   linewidth=0.5, zorder=3)
    tiered = is_tiered([request.messages for request in requests]) if tiered is None else tiered
    words = tier_labels(tiered)
    ax.set_yticks(range(len(rows)), [words[tier] for tier in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0.3, len(requests) + 0.7)
    label_calls(ax, list(drawn.index), labels)
    ax.grid(axis="y", visible=False)
    if title:
        ax.set_title(title)
    return drawn


def plot_summary_lengths(
    ax: plt.Axes,
    lengths: Mapping[str, Sequence[int]],
    colors: Mapping[str, str] | None = None,
    cap: int | None = None,
    cap_label: str | None = None,
    styles: Mapping[str, str] | None = None,
    title: str | None = None,
) -> None:
    """The summary's length after each call, one line per run, on the axes every chapter uses.

    ``lengths`` maps a label to the summary tokens after each call (a Series indexed by call number,
    or a plain sequence for calls 1, 2, …); ``colors`` maps a label to a palette key or a colour
    (default: the summary's colour); ``styles`` to a line style; ``cap`` draws the summary's cap."""
    for label, sizes in lengths.items():
        series = sizes if isinstance(sizes, pd.Series) else pd.Series(list(sizes), index=range(1, len(sizes) + 1))
        ax.plot(series.index, series.astype(float), color=color_of((colors or {}).get(label, "summary")),
                linestyle=(styles or {}).get(label, "-"), linewidth=1.6, label=label)
    if cap is not None:
        ax.axhline(cap, color=PALETTE["limit"], linestyle="--", linewidth=1.5,
                   label=cap_label or f"束ねの上限（{cap:,} トークン）")
    ax.set_xlabel(CALL_AXIS)
    ax.set_ylabel("束ねのトークン数")
    ax.set_ylim(bottom=0)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)


def _box(ax: plt.Axes, x: float, y: float, w: float, h: float, text: str, face: str, edge: str,
         size: float = 10, dashed: bool = False) -> None:
    """A rounded box in axes coordinates (0..1) with its label centred; face "none" leaves it open."""
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.006", edgecolor=edge,
                                facecolor="none" if face == "none" else to_rgba(face, 0.55),
                                linewidth=1.6 if dashed else 1.2, linestyle="--" if dashed else "-"))
    if text:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, color=PALETTE["ink"])


def _arrow(ax: plt.Axes, start: tuple[float, float], end: tuple[float, float], color: str) -> None:
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=14, color=color, linewidth=1.3))


def _note(ax: plt.Axes, x: float, y: float, text: str, color: str) -> None:
    ax.text(x, y, text, fontsize=8.5, color=color, ha="center", va="center",
            bbox=dict(facecolor="white", edgecolor="none", pad=1.0))


def plot_three_tiers(ax: plt.Axes, exchanges: int = 7, window: int = 4) -> None:
    """The three tiers as one diagram: 銘 outside the flow, 窓 sliding over it, the overflow folded into
    束ね, and the order in which ``build_messages`` lays them out. Tier colours as in every stack."""
    ink, mission, summary = PALETTE["ink"], PALETTE["mission"], PALETTE["summary"]
    gold, blue, green, grey = (PALETTE["mission_ink"], PALETTE["summary_ink"], PALETTE["window_ink"],
                               PALETTE["evicted_ink"])
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.axis("off")

    _box(ax, 0.02, 0.80, 0.30, 0.13, "銘（mission）\n務めの命令を生のまま固定", mission, gold)
    _note(ax, 0.17, 0.96, "流れの外にピン留め", gold)

    ax.text(0.02, 0.655, "夜の往復の流れ（古い → 新しい）", fontsize=9.5, color=ink)
    width, gap, y_flow, h_flow = 0.062, 0.010, 0.47, 0.12
    evicted = exchanges - window
    for i in range(exchanges):
        gone = i < evicted
        _box(ax, 0.02 + i * (width + gap), y_flow, width, h_flow, f"往復{i + 1}",
             PALETTE["evicted"] if gone else PALETTE["window"], grey if gone else green, size=9)
    left = 0.02 + evicted * (width + gap) - 0.007
    right = 0.02 + exchanges * (width + gap) - gap + 0.007
    _box(ax, left, y_flow - 0.02, right - left, h_flow + 0.04, "", "none", green, dashed=True)
    _note(ax, (left + right) / 2, 0.40, "窓（window）\n直近の往復を生のまま", green)
    _note(ax, 0.12, 0.425, "押し出し（overflow）", grey)
    _arrow(ax, (right - 0.04, 0.75), (right - 0.04, y_flow + h_flow + 0.025), green)
    _note(ax, right - 0.04, 0.775, "新しい往復は右端へ", green)

    _box(ax, 0.02, 0.08, 0.30, 0.14, "束ね（summary）\n押し出された往復を短く畳む", summary, blue)
    _arrow(ax, (0.12, 0.395), (0.12, 0.23), blue)
    _note(ax, 0.36, 0.305, "窓のトークンが閾値を超え、\n窓幅より多く往復があれば、\n"
                           "先に束ねを作り、窓を縮める", blue)

    ax.text(0.86, 0.96, "build_messages() の並び", ha="center", fontsize=10, color=ink)
    stack = [("① 銘（system）", mission, 0.80), ("② 束ね（system）", summary, 0.62),
             ("③ 窓の往復\n（user と assistant の対）", PALETTE["window"], 0.44),
             ("④ 今の問い（user）", PALETTE["question"], 0.26)]
    for text, face, y in stack:
        _box(ax, 0.74, y, 0.24, 0.11, text, face, ink, size=9)
    for (_, _, upper), (_, _, lower) in zip(stack, stack[1:]):
        _arrow(ax, (0.86, upper - 0.005), (0.86, lower + 0.115), grey)
    _arrow(ax, (0.86, 0.255), (0.86, 0.17), grey)
    _note(ax, 0.86, 0.14, "この順で代役（LLM）へ送る", ink)

    _arrow(ax, (0.325, 0.865), (0.733, 0.865), gold)
    _note(ax, 0.53, 0.865, "毎回そのまま先頭へ", gold)
    _arrow(ax, (right + 0.01, y_flow + h_flow / 2), (0.733, 0.495), green)
    ax.plot([0.325, 0.68, 0.68], [0.15, 0.15, 0.675], color=blue, linewidth=1.3)
    _arrow(ax, (0.68, 0.675), (0.733, 0.675), blue)
    _note(ax, 0.52, 0.15, "束ねが空なら省く", blue)
    ax.set_title("三つの置き場：銘は流れの外、窓は滑り、こぼれた分は束ねへ", fontsize=12)


RESPONSE_TIER_COLORS = {"instructions": PALETTE["mission"], "compaction": PALETTE["summary"], "user": PALETTE["window"],
                        "other": "#abebc6", "question": PALETTE["question"]}
RESPONSE_TIER_LABELS = {"instructions": "銘（instructions・developer の入力）", "compaction": "束ね（圧縮アイテム）",
                        "user": "窓：user メッセージ", "other": "窓：そのほかのアイテム（返答など）", "question": "今の問い"}


def plot_response_stacks(ax: plt.Axes, table: pd.DataFrame, limit: int, refused: Sequence[bool] | None = None,
                         title: str | None = None, *, reserve: int | None = None,
                         clocks: Sequence[str] | None = None) -> None:
    """A Responses API night as the same stacks (chapter 10): ``table`` has one column per tier of
    ``lab.responses_night.RESPONSE_TIERS``, one row per call; instructions are 銘, the compaction item
    束ね, the user messages and the other items the two shades of 窓."""
    tiers = list(RESPONSE_TIER_COLORS)
    numbers = table.index.to_numpy()
    bottom = pd.Series(0, index=table.index)
    for tier in tiers:
        draw_bars(ax, numbers, table[tier], bottom, RESPONSE_TIER_COLORS[tier])
        bottom = bottom + table[tier]
    total = table[tiers].sum(axis=1)
    handles = [Patch(color=RESPONSE_TIER_COLORS[t], label=RESPONSE_TIER_LABELS[t]) for t in reversed(tiers) if table[t].any()]
    if refused is not None and any(refused):
        over = [call for call, was_refused in zip(numbers, refused) if was_refused]
        ax.bar(over, total.loc[over], width=0.85, fill=False, hatch="xx", edgecolor=PALETTE["limit"], linewidth=0)
        handles.append(Patch(facecolor="none", hatch="xx", edgecolor=PALETTE["limit"], label="拒まれたリクエスト"))
    draw_limit(ax, limit)
    handles.append(ax.get_legend_handles_labels()[0][-1])
    if reserve:  # what truncation="auto" sets aside for the output before it drops items
        draw_reserve(ax, limit, reserve, label=f"出力の上限のぶん（{reserve:,} トークン）")
        handles.append(ax.get_legend_handles_labels()[0][-1])
    ax.set_xlim(numbers[0] - 0.7, numbers[-1] + 0.7)
    ax.set_ylim(0, max(limit, int(total.max())) * 1.15)
    label_calls(ax, numbers, clocks)
    ax.set_ylabel("入力のトークン数")
    if title:
        ax.set_title(title)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
