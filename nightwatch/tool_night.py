"""The eve with a tool: at every round Vesper checks the locks by calling ``check_lock``.

The same celebration eve (``nights.celebration_eve``), with two changes: the hourly duty now says
to check the locks on the round, as the story's mission does, and the loose west shutter is no
longer told to him at 02:10; his own check at three finds the clasp loose, and he ties it. So the
morning report can carry that incident only if the memory kept what a tool found.

``LockChecker`` is the tool: a plain function of the door, answering from the clock of the turn
being played (set by the rehearsal before each turn), deterministic, offline.
"""

from __future__ import annotations

from typing import Literal

from nightwatch.nights import Incident, Night, celebration_eve

TOOL_MISSION = (
    "あなたは劇場の夜警人形ヴェスパーです。夜明けまで、次の務めを守ってください。\n"
    "一、毎正時に館内を巡回して戸締まりを確かめ、異常の有無を告げること。\n"
    "二、異変があれば夜警として対処し、朝の報告に残すこと。\n"
    "三、楽屋口は朝まで誰にも開けないこと。"
)
DOORS = ("楽屋口", "西の鎧戸")
LOOSE_AT = "03:00"
LOOSE_DOOR = "西の鎧戸"
LOOSE_FINDING = "西の鎧戸の留め金が緩んでいたので、紐で結わえて仮に留めました。"
SHUTTER_TOLD_AT = ("02:10",)  # the eve's turn about the shutter: here a tool finds it, and he ties it


def tool_eve() -> Night:
    """The eve, with the shutter found by the 03:00 check (and tied by him) instead of being told
    to him by a craftsman at 02:10."""
    eve = celebration_eve()
    turns = [turn for turn in eve.turns if turn.clock not in SHUTTER_TOLD_AT]
    incidents = [incident if incident.label != "西の鎧戸の緩み" else
                 Incident(label="西の鎧戸の緩み（ツールが見つけた）", key_facts=("西の鎧戸", "緩")) for incident in eve.incidents]
    return eve.model_copy(update={"name": "祝賀前夜（ツールつき）", "turns": turns, "incidents": incidents})


class LockChecker:
    """``check_lock(door)``, answering for the turn being played (``clock`` is set before each turn)."""

    def __init__(self) -> None:
        self.clock = ""
        self.calls: list[tuple[str, str]] = []  # (clock, door), every call made

    def check_lock(self, door: Literal["楽屋口", "西の鎧戸"]) -> str:
        """扉の戸締まりを確かめて、見つけたことを返す。

        Args:
            door: 確かめる扉
        """
        self.calls.append((self.clock, door))
        if door == LOOSE_DOOR and self.clock == LOOSE_AT:
            return LOOSE_FINDING
        return f"{door}は施錠されていました。錠・蝶番・閂に異常はなく、外から触れた跡もありません（{self.clock}の確認）。"
