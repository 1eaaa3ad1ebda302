"""What a workshop check hands back: each sub-check, passed or not, with the evidence, in Japanese.

A participant reads it straight after the check cell: what was tried (which night, which call), what
was seen (tokens, a missing incident) and, for a failed item, one hint. An untouched placeholder gets
a kind "まだです" instead of a traceback.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["passed", "failed", "not_yet"]
HEADLINES = {"passed": "合格です。すべての項目を満たしました。", "not_yet": "まだです。",
             "failed": "まだ直すところがあります。✗ の項目の根拠とヒントを読んでください。"}


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
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __str__(self) -> str:
        lines = [f"{self.exercise}: {HEADLINES[self.status]}", *self.message.splitlines()]
        for item in self.items:
            if self.status == "not_yet":
                lines.append(f"  ・{item.title}")
                continue
            lines += [f"{'✓' if item.passed else '✗'} {item.title}", *(f"    {line}" for line in item.evidence)]
            lines += [f"    ヒント: {item.hint}"] if not item.passed and item.hint else []
        if self.notes:
            lines += ["観察（合否には関係しません）:", *(f"    {note}" for note in self.notes)]
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))


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
    if not failing:
        return (f"✓ {all_ok}（{len(lines)} 通り）",) if lines else ("✗ 一度も確かめられませんでした",)
    more = [f"（ほかにも ✗ が {len(failing) - limit} 通り）"] if len(failing) > limit else []
    rest = [f"（残りの {len(lines) - len(failing)} 通りは ✓）"] if len(lines) > len(failing) else []
    return (*failing[:limit], *more, *rest)


def graded(planned: Sequence[str], evidence: Sequence[Sequence[str]], hints: Sequence[str]) -> list[CheckItem]:
    """One item per planned sub-check: passed when every evidence line starts with ✓."""
    items = []
    for title, lines, hint in zip(planned, evidence, hints, strict=True):
        lines = tuple(lines) or ("✗ 一度も確かめられませんでした",)
        items.append(CheckItem(title, all(line.startswith("✓") for line in lines), lines, hint))
    return items


def finish(exercise: str, items: Sequence[CheckItem], notes: Sequence[str] = (), message: str = "") -> CheckReport:
    status: Status = "passed" if items and all(item.passed for item in items) else "failed"
    return CheckReport(exercise, status, tuple(items), message, tuple(notes))
