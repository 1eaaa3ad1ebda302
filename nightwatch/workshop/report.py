"""What a workshop check hands back: each sub-check, passed or not, with the evidence, in Japanese.

A participant reads it straight after the check cell: what was tried (which night, which call), what
was seen (tokens, a missing incident) and, for a failed item, one hint. An evidence line starts with
✓ or ✗, and an item passes when all of its lines do. Under the evidence, folded, is what was judged:
the stand-in's reply (the morning report, the answer at the door) or the request sizes, so the
participant sees what the stand-in made of the answer, not only the verdict. In plain text the fold
is an indented block under a ▽ line; in Jupyter it is an HTML ``<details>`` that opens on a click.
An untouched placeholder gets a kind "まだです" instead of a traceback.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["passed", "failed", "not_yet"]
HEADLINES = {"passed": "合格です。すべての項目を満たしました。", "not_yet": "まだです。",
             "failed": "まだ直すところがあります。✗ の項目の根拠とヒントを読んでください。"}
NEVER_TRIED = "✗ 一度も確かめられませんでした"
FOLD, FOLDED = "    ▽ ", "        ┆ "  # the fold's title line, and each line of what it holds


@dataclass(frozen=True)
class Judged:
    """What one evidence line judged, shown folded under it: a title and the text itself."""

    title: str
    text: str

    def lines(self) -> list[str]:
        return [f"{FOLD}{self.title}", *(f"{FOLDED}{line}" for line in self.text.splitlines() or [""])]


@dataclass(frozen=True)
class CheckItem:
    """One sub-check: what it verifies, whether it held, what was seen, and a hint if it did not."""

    title: str
    passed: bool
    evidence: tuple[str, ...] = ()
    hint: str = ""
    judged: tuple[Judged, ...] = ()


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

    def blocks(self) -> list[str | Judged]:
        """The report as lines, with each judged reply in its place (under its item's evidence)."""
        lines: list[str | Judged] = [f"{self.exercise}: {HEADLINES[self.status]}", *self.message.splitlines()]
        for item in self.items:
            if self.status == "not_yet":
                lines.append(f"  ・{item.title}")
                continue
            lines += [f"{'✓' if item.passed else '✗'} {item.title}", *(f"    {e}" for e in item.evidence)]
            lines += [f"    ヒント: {item.hint}"] if not item.passed and item.hint else []
            lines += item.judged
        lines += ["観察（合否には関係しません）:", *(f"    {note}" for note in self.notes)] if self.notes else []
        return lines

    def __str__(self) -> str:
        return "\n".join(line for block in self.blocks()
                         for line in (block.lines() if isinstance(block, Judged) else [block]))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(str(self))

    def _repr_html_(self) -> str:
        parts, plain = [], []
        for block in [*self.blocks(), None]:
            if isinstance(block, str):
                plain.append(block)
                continue
            if plain:
                parts.append(f"<pre style='margin:0'>{html.escape(chr(10).join(plain))}</pre>")
                plain = []
            if block is not None:
                parts.append(f"<details style='margin-left:4ch'><summary>{html.escape(block.title)}</summary>"
                             f"<pre style='margin:0 0 0 2ch'>{html.escape(block.text)}</pre></details>")
        return "<div>" + "".join(parts) + "</div>"


def describe_error(error: BaseException) -> str:
    """An exception as one short line: its type and its message (a ParticipantError is one already)."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if type(error).__name__ == "ParticipantError":
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def short(text: str, limit: int = 40) -> str:
    """A long string cut for evidence, newlines shown as ⏎, so one item stays on one line."""
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def mark(ok: bool, where: str, text: str) -> str:
    """One evidence line: ✓ or ✗, where it was seen, what was seen."""
    return f"{'✓' if ok else '✗'} {where}: {text}"


def condensed(lines: Sequence[str], all_ok: str, limit: int = 4) -> tuple[str, ...]:
    """Evidence lines of many small cases: one line if all held, else the failures first, counted."""
    failing = [line for line in lines if not line.startswith("✓")]
    if not failing:
        return (f"✓ {all_ok}（{len(lines)} 通り）",) if lines else (NEVER_TRIED,)
    more = [f"（ほかにも ✗ が {len(failing) - limit} 通り）"] if len(failing) > limit else []
    rest = [f"（残りの {len(lines) - len(failing)} 通りは ✓）"] if len(lines) > len(failing) else []
    return (*failing[:limit], *more, *rest)


def not_yet(exercise: str, items: Sequence[tuple[str, str]], message: str) -> CheckReport:
    """Nothing judged yet: what to do first, then the list of what the check will verify."""
    return CheckReport(exercise, "not_yet", tuple(CheckItem(title, False) for title, _ in items), message)


def verdict(exercise: str, items: Sequence[tuple[str, str]], evidence: Sequence[Sequence[str]],
            notes: Sequence[str] = (), message: str = "", follows: Sequence[tuple] = (),
            judged: Sequence[Sequence[Judged]] = ()) -> CheckReport:
    """The report: one item per (title, hint), passed when each of its evidence lines starts with ✓;
    ``judged`` holds, per item, what it judged (shown folded under the item's evidence).

    ``follows`` holds (item, words, later items, hint): when that item's evidence has ``words``, the
    later items failed because of it, and their hint sends the participant back to it (first rule wins)."""
    hints = [hint for _, hint in items]
    for source, words, targets, hint in reversed(follows):
        if any(words in line for line in evidence[source]):
            hints = [hint if n in targets else old for n, old in enumerate(hints)]
    lines_per_item = [tuple(lines) or (NEVER_TRIED,) for lines in evidence]
    shown = [tuple(blocks) for blocks in judged] + [()] * (len(items) - len(judged))
    graded = [CheckItem(title, all(line.startswith("✓") for line in lines), lines, hint, blocks)
              for (title, _), lines, hint, blocks in zip(items, lines_per_item, hints, shown, strict=True)]
    status: Status = "passed" if all(item.passed for item in graded) else "failed"
    return CheckReport(exercise, status, tuple(graded), message, tuple(notes))
