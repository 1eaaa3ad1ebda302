"""Notebook set-up and the few drawing helpers the chapters share.

Imported only by notebooks (``import nightwatch`` does not pull in matplotlib or pandas). The
Japanese font is IPAexGothic, bundled in the ``matplotlib-fontja`` package, so labels render the same
on every machine with no system font installed.
"""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import matplotlib_fontja  # noqa: F401  (registers IPAexGothic and selects it)
import pandas as pd

LIMIT_COLOR = "#c0392b"
DESIGN_COLORS = {"before": "#7f8c8d", "trimmed": "#e67e22", "three_tier": "#2471a3"}


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
    pd.set_option("display.max_colwidth", 60)


def draw_limit(ax: plt.Axes, limit: int, label: str | None = None) -> None:
    """The context window as a horizontal line, labelled with its size."""
    ax.axhline(limit, color=LIMIT_COLOR, linestyle="--", linewidth=1.5,
               label=label or f"コンテキスト上限（{limit:,} トークン）")


def mark_compactions(ax: plt.Axes, turns: pd.Series, color: str, label: str | None = "束ねの発火") -> None:
    """Light vertical lines at the calls after which a compaction happened."""
    for index, turn in enumerate(turns):
        ax.axvline(turn, color=color, alpha=0.25, linewidth=1, label=label if index == 0 else None)
