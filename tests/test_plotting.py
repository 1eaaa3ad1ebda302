"""The one picture language: one palette, honest legends and axes, and old call sites still working."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from nightwatch.lab import plotting  # noqa: E402
from nightwatch.lab.plotting import PALETTE  # noqa: E402
from nightwatch.memory.budget import TIERS  # noqa: E402

MISSION = {"role": "system", "content": "夜通し劇場を見回り、正時に異常の有無を告げること。"}
SUMMARY = {"role": "system", "content": "これまでの夜の束ね:\n西の鎧戸が緩んでいる。"}


def exchange(hour: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{hour}です。巡回を。"}, {"role": "assistant", "content": f"{hour}、異常なし。"}]


def question(text: str = "報告を。") -> dict[str, str]:
    return {"role": "user", "content": text}


HISTORY = [[MISSION, *exchange("七時"), question()], [MISSION, *exchange("七時"), *exchange("八時"), question()]]
TIERED = [[MISSION, *exchange("七時"), question()], [MISSION, SUMMARY, *exchange("八時"), question()]]


@pytest.fixture
def ax():
    figure, axes = plt.subplots()
    yield axes
    plt.close(figure)


def legend_texts(ax) -> list[str]:
    return [text.get_text() for text in ax.get_legend().get_texts()]


def drawn_colors(ax) -> set[str]:
    colors = {to_hex(patch.get_facecolor()) for patch in ax.patches if patch.get_fill()}
    colors |= {to_hex(line.get_color()) for line in ax.lines}
    colors |= {to_hex(face) for collection in ax.collections for face in collection.get_facecolor()}
    return colors


def bars(ax, color: str) -> list[tuple[float, float, float]]:
    """(centre, bottom, top) of every bar drawn in ``color``."""
    found = []
    for collection in ax.collections:
        if len(collection.get_facecolor()) and to_hex(collection.get_facecolor()[0]) == color:
            for path in collection.get_paths():
                xs, ys = path.vertices[:, 0], path.vertices[:, 1]
                found.append(((xs.min() + xs.max()) / 2, ys.min(), ys.max()))
    return found


def test_the_tier_colours_and_design_colours_are_read_from_the_one_palette():
    assert plotting.TIER_COLORS == {tier: PALETTE[tier] for tier in TIERS}
    assert plotting.DESIGN_COLORS == {d: PALETTE[d] for d in ("before", "trimmed", "three_tier")}
    assert plotting.LIMIT_COLOR == PALETTE["limit"]
    # a colour means one thing: no two tiers, and no tier and design, share a colour
    meanings = [PALETTE[key] for key in (*TIERS, "before", "trimmed", "three_tier", "concatenating")]
    assert len(set(meanings)) == len(meanings)


def test_request_stacks_are_bars_in_palette_colours_only(ax):
    plotting.plot_request_stacks(ax, TIERED, limit=500, reserve=100)
    assert drawn_colors(ax) <= {to_hex(color) for color in PALETTE.values()}
    assert len(bars(ax, PALETTE["summary"])) == 1  # only the second call carries a summary
    assert len(bars(ax, PALETTE["mission"])) == len(TIERED)  # every call starts with the mission
    (centre, low, high), = bars(ax, PALETTE["summary"])
    (_, _, mission_top), = [bar for bar in bars(ax, PALETTE["mission"]) if bar[0] == centre]
    assert centre == 2 and low == mission_top < high  # stacked on the mission, as the request is laid out


def test_a_design_without_tiers_is_labelled_as_a_history_not_a_window(ax):
    plotting.plot_request_stacks(ax, HISTORY, limit=500)
    texts = legend_texts(ax)
    assert any(text.startswith("履歴") for text in texts)
    assert not any(text.startswith("窓") or text.startswith("銘") for text in texts)


def test_a_tiered_design_keeps_the_words_of_the_tiers(ax):
    plotting.plot_request_stacks(ax, TIERED, limit=500)
    texts = legend_texts(ax)
    assert {"銘（務めの命令）", "束ね（要約）", "窓（直近の往復）"} <= set(texts)
    assert not any(text.startswith("履歴") for text in texts)


def test_the_words_can_be_chosen_when_a_night_never_folded(ax):
    plotting.plot_request_stacks(ax, HISTORY, limit=500, tiered=True)
    assert "窓（直近の往復）" in legend_texts(ax)


def test_the_x_axis_says_call_numbers_or_clock_times(ax):
    plotting.plot_request_stacks(ax, TIERED, limit=500)
    assert ax.get_xlabel() == plotting.CALL_AXIS
    ax.clear()
    plotting.plot_request_stacks(ax, TIERED, limit=500, clocks=["19:00", "20:00"])
    assert ax.get_xlabel() == plotting.CLOCK_AXIS
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["19:00", "20:00"]


def test_a_slice_of_a_night_keeps_its_call_numbers(ax):
    table = plotting.plot_request_stacks(ax, TIERED, limit=500, calls=[118, 119])
    assert list(table.index) == [118, 119]
    assert sorted(centre for centre, _, _ in bars(ax, PALETTE["mission"])) == [118, 119]


def test_the_reserve_band_sits_just_under_the_limit(ax):
    plotting.plot_request_stacks(ax, TIERED, limit=500, reserve=120)
    bands = [patch for patch in ax.patches if patch.get_label().startswith("返答の予約")]
    assert len(bands) == 1
    low = bands[0].get_y()
    assert (round(low), round(low + bands[0].get_height())) == (380, 500)


def test_stack_totals_add_up_the_tiers(ax):
    table = plotting.plot_request_stacks(ax, TIERED, limit=500)
    assert (table["合計"] == table[list(TIERS)].sum(axis=1)).all()
    assert table.loc[1, "summary"] == 0 and table.loc[2, "summary"] > 0


def test_grounding_rows_use_the_same_words_and_the_clock_axis(ax):
    class Recorded:
        def __init__(self, messages):
            self.messages, self.grounding = messages, ()

    plotting.plot_grounding(ax, [Recorded(m) for m in HISTORY], ["19:00", ""])
    assert ax.get_xlabel() == plotting.CLOCK_AXIS
    assert any(tick.get_text().startswith("履歴") for tick in ax.get_yticklabels())


def test_summary_lengths_share_the_axes_of_every_chapter(ax):
    plotting.plot_summary_lengths(ax, {"三行": pd.Series([0, 30, 30], index=[5, 6, 7]), "連ねる": [0, 40, 80]},
                                  colors={"三行": "three_line", "連ねる": "concatenating"}, cap=60)
    assert ax.get_xlabel() == plotting.CALL_AXIS
    assert ax.get_ylabel() == "束ねのトークン数"
    assert {PALETTE["three_line"], PALETTE["concatenating"], PALETTE["limit"]} == drawn_colors(ax)
    assert list(ax.lines[0].get_xdata()) == [5, 6, 7]


def test_the_old_call_sites_still_run(ax):
    plotting.mark_compactions(ax, [3, 5], "#7f8c8d", "束ねの発火")
    plotting.mark_compactions(ax, [4])
    plotting.plot_cumulative_tokens(ax, {"A": [1, 2]}, {"A": plotting.DESIGN_COLORS["before"]}, "title")
    plotting.plot_request_stacks(ax, TIERED, 500, [False, True], "title", False)
    assert ax.get_title() == "title"


def test_the_diagram_is_drawn_in_the_tier_colours(ax):
    plotting.plot_three_tiers(ax)
    faces = {to_hex(patch.get_facecolor(), keep_alpha=False) for patch in ax.patches if patch.get_fill()}
    assert {PALETTE[tier] for tier in TIERS} <= faces
    assert "往復7" in {text.get_text() for text in ax.texts}


def test_tokens_already_split_by_tier_draw_the_same_stacks(ax):
    figure, other = plt.subplots()
    try:
        drawn = plotting.plot_request_stacks(ax, TIERED, limit=500)
        counted = drawn[list(TIERS)].rename(columns=dict(zip(TIERS, ["銘", "束ね", "窓", "今の問い"])))
        again = plotting.plot_tier_stacks(other, counted, limit=500)
        assert again["合計"].tolist() == drawn["合計"].tolist()
        assert bars(other, PALETTE["summary"]) == bars(ax, PALETTE["summary"])
        assert "束ね（要約）" in legend_texts(other)
    finally:
        plt.close(figure)
