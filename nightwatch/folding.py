"""How evicted exchanges are folded into a summary of at most three lines.

Shared by the deterministic ``ThreeLineSummarizer`` and by the stand-in model when it is asked to
summarize, so the offline LLM path and the offline function give the same 束ね.

The three lines sort what left the window by what a night watchman must still carry:

    申し送り: the open dusk handovers (oldest first: they are the ones asked about later)
    出来事: incidents the watchman flagged for the morning report (newest kept when full)
    巡回: the routine patrols collapsed into one range and a count, plus how much chatter was dropped

Routine "異常なし" reports and small talk lose their words; incidents and handovers keep theirs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

HANDOVER_PREFIX = "申し送り"
MORNING_REPORT_FLAG = "朝の報告に残します"
ROUTINE_PATROL = re.compile(r"^(?P<hour>[一二三四五六七八九十]+時)、異常なし。$")

ExchangeKind = Literal["handover", "incident", "patrol", "other"]

LINE_HANDOVERS = "申し送り: "
LINE_INCIDENTS = "出来事: "
LINE_ROUTINE = "巡回: "
ITEM_SEPARATOR = "／"


def classify(user_text: str, watchman_reply: str) -> ExchangeKind:
    """What kind of exchange this is, read from its text alone."""
    if user_text.startswith(HANDOVER_PREFIX):
        return "handover"
    if MORNING_REPORT_FLAG in watchman_reply:
        return "incident"
    if ROUTINE_PATROL.match(watchman_reply.strip()):
        return "patrol"
    return "other"


def first_sentence(text: str, max_chars: int) -> str:
    """The first sentence, which in this script carries the fact; shortened only if very long."""
    text = text.strip()
    end = text.find("。")
    sentence = text if end == -1 else text[: end + 1]
    if len(sentence) > max_chars:
        sentence = sentence[: max_chars - 1] + "…"
    return sentence


@dataclass
class ThreeLines:
    """The parsed form of a three-line summary."""

    handovers: list[str] = field(default_factory=list)
    incidents: list[str] = field(default_factory=list)
    first_patrol: str = ""
    last_patrol: str = ""
    patrols: int = 0
    others: int = 0

    @classmethod
    def parse(cls, summary: str) -> ThreeLines:
        lines = cls()
        for line in summary.splitlines():
            if line.startswith(LINE_HANDOVERS):
                lines.handovers = _items(line[len(LINE_HANDOVERS) :])
            elif line.startswith(LINE_INCIDENTS):
                lines.incidents = _items(line[len(LINE_INCIDENTS) :])
            elif line.startswith(LINE_ROUTINE):
                match = re.search(
                    r"(?P<first>\S+?時)〜(?P<last>\S+?時) 異常なし（(?P<n>\d+)回）", line
                )
                if match:
                    lines.first_patrol = match["first"]
                    lines.last_patrol = match["last"]
                    lines.patrols = int(match["n"])
                others = re.search(r"ほか(?P<n>\d+)件", line)
                if others:
                    lines.others = int(others["n"])
        return lines

    def render(self) -> str:
        rendered = []
        if self.handovers:
            rendered.append(LINE_HANDOVERS + ITEM_SEPARATOR.join(self.handovers))
        if self.incidents:
            rendered.append(LINE_INCIDENTS + ITEM_SEPARATOR.join(self.incidents))
        routine = []
        if self.patrols:
            routine.append(f"{self.first_patrol}〜{self.last_patrol} 異常なし（{self.patrols}回）")
        if self.others:
            routine.append(f"ほか{self.others}件")
        if routine:
            rendered.append(LINE_ROUTINE + "、".join(routine))
        return "\n".join(rendered)


def _items(text: str) -> list[str]:
    return [item for item in text.split(ITEM_SEPARATOR) if item]


def fold(
    summary: str,
    exchanges: list[tuple[str, str]],
    max_items: int = 3,
    max_chars: int = 48,
) -> str:
    """Fold (user_text, watchman_reply) pairs into the three-line summary ``summary``."""
    lines = ThreeLines.parse(summary)
    for user_text, reply in exchanges:
        kind = classify(user_text, reply)
        if kind == "handover":
            gist = first_sentence(user_text.removeprefix(HANDOVER_PREFIX).lstrip(":： "), max_chars)
            if len(lines.handovers) < max_items:
                lines.handovers.append(gist)
            else:
                lines.others += 1
        elif kind == "incident":
            lines.incidents.append(first_sentence(reply, max_chars))
            if len(lines.incidents) > max_items:
                lines.incidents.pop(0)
                lines.others += 1
        elif kind == "patrol":
            hour = ROUTINE_PATROL.match(reply.strip())["hour"]  # type: ignore[index]
            lines.first_patrol = lines.first_patrol or hour
            lines.last_patrol = hour
            lines.patrols += 1
        else:
            lines.others += 1
    return lines.render()


def shorten(summary: str, token_limit: int, estimate_tokens) -> str:
    """Drop whole items, least needed first, until the summary fits ``token_limit``.

    Routine counts go first, then the oldest handovers, then the oldest incidents; an item is never
    cut in the middle. Returns "" when even a single item does not fit."""
    lines = ThreeLines.parse(summary)
    while lines.render() and estimate_tokens(lines.render()) > token_limit:
        if lines.patrols or lines.others:
            lines.patrols = lines.others = 0
        elif len(lines.handovers) > (1 if lines.incidents else 0):
            lines.handovers.pop(0)
        elif lines.incidents:
            lines.incidents.pop(0)
        else:
            lines.handovers.pop(0)
    return lines.render()
