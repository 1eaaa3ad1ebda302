"""What a workshop check hands back: each sub-check, passed or not, with the evidence, in Japanese.

A participant reads this in the notebook straight after running the check cell, so it says what was
tried (which night, which call), what was seen (how many tokens, which incident was missing) and,
for a failed item, one hint. A placeholder that has not been filled in yet gets a kind "まだです"
instead of a traceback; so does any exception from the participant's code, reported as evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["passed", "failed", "not_yet"]


@dataclass(frozen=True)
class CheckItem:
    """One sub-check: what it verifies, whether it held, what was seen, and a hint if it did not."""

    title: str
    passed: bool
    evidence: tuple[str, ...] = ()
    hint: str = ""


@dataclass(frozen=True)
class CheckReport:
    """The answer to one check cell. ``passed`` is True only when every item passed."""

    exercise: str
    status: Status
    items: tuple[CheckItem, ...] = ()
    message: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def failed_items(self) -> list[CheckItem]:
        return [item for item in self.items if not item.passed]

    def lines(self) -> list[str]:
        lines = [f"{self.exercise}: {HEADLINES[self.status]}"]
        if self.message:
            lines += self.message.splitlines()
        for item in self.items:
            if self.status == "not_yet":
                lines.append(f"  ・{item.title}")
                continue
            lines.append(f"{'✓' if item.passed else '✗'} {item.title}")
            lines += [f"    {line}" for line in item.evidence]
            if not item.passed and item.hint:
                lines.append(f"    ヒント: {item.hint}")
        if self.notes:
            lines.append("観察（合否には関係しません）:")
            lines += [f"    {note}" for note in self.notes]
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


HEADLINES: dict[Status, str] = {
    "passed": "合格です。すべての項目を満たしました。",
    "failed": "まだ直すところがあります。✗ の項目の根拠とヒントを読んでください。",
    "not_yet": "まだです。",
}


def describe_error(error: BaseException) -> str:
    """An exception as one short line: its type and its message."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if type(error).__name__ == "ParticipantError":  # already a sentence about the answer's call
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def short(text: str, limit: int = 40) -> str:
    """A long string cut for evidence, newlines shown as ⏎, so one item stays on one line."""
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def condensed(lines: Sequence[str], all_ok: str, limit: int = 4) -> tuple[str, ...]:
    """Evidence lines ("✓ ..." / "✗ ..."): one line if all held, else the failures first, counted."""
    failing = [line for line in lines if not line.startswith("✓")]
    if not lines:
        return ("✗ 一度も確かめられませんでした",)
    if not failing:
        return (f"✓ {all_ok}（{len(lines)} 通り）",)
    shown = list(failing[:limit])
    if len(failing) > limit:
        shown.append(f"（ほかにも ✗ が {len(failing) - limit} 通り）")
    if len(lines) > len(failing):
        shown.append(f"（残りの {len(lines) - len(failing)} 通りは ✓）")
    return tuple(shown)


def finish(exercise: str, items: Sequence[CheckItem], notes: Sequence[str] = (), message: str = "") -> CheckReport:
    status: Status = "passed" if items and all(item.passed for item in items) else "failed"
    return CheckReport(exercise, status, tuple(items), message, tuple(notes))
