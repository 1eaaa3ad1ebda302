"""How long each chapter takes to read, measured from its cells, and whether its opening says so.

    python notebooks/reading_time.py                   # a table: every chapter's prose, code and minutes
    python notebooks/reading_time.py --check           # exit 1 if a chapter's 「読むのに N 分ほど。」 is off
    python notebooks/reading_time.py --check notebooks/01_crash.ipynb   # one chapter (or several)
    python notebooks/reading_time.py --markdown        # the core path and the optional chapters, for README.md

A chapter's stated time is a promise to the reader planning a session, so it is measured rather than
guessed: prose at 500 characters a minute (the markdown cells' characters, spaces and line breaks
left out) and code at 15 lines a minute (the code cells' non-blank lines). Outputs are not counted:
a reader glances at a table, but reads the text that explains it. The measured time is rounded to
5 minutes (at least 5), and ``--check`` fails when the stated N is more than 20 % away from it.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHAPTERS = sorted(HERE.glob("[0-9][0-9]*.ipynb"))
PROSE_PER_MINUTE = 500  # Japanese characters of prose a minute
CODE_PER_MINUTE = 15  # lines of code a minute
ROUND_TO = 5  # minutes
TOLERANCE = 0.20  # how far the stated time may be from the measured one
STATED = re.compile(r"読むのに\s*(\d+)\s*分ほど")
CORE = ("01", "02", "03_", "03b", "04")  # the four acts; every other chapter is optional


@dataclass(frozen=True)
class ReadingTime:
    """One chapter's measure: what there is to read, the minutes it takes, and what the chapter says."""

    name: str
    prose_characters: int
    code_lines: int
    stated: int | None  # the N of 「読むのに N 分ほど」, or None when the chapter does not say

    @property
    def minutes(self) -> float:
        return self.prose_characters / PROSE_PER_MINUTE + self.code_lines / CODE_PER_MINUTE

    @property
    def rounded(self) -> int:
        """The measured minutes to the nearest 5 (halves up), never less than 5."""
        return rounded(self.minutes)

    @property
    def agrees(self) -> bool:
        """The stated time is within 20 % of the rounded measurement."""
        return self.stated is not None and abs(self.stated - self.rounded) <= TOLERANCE * self.rounded


def cell_text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def measure(path: Path) -> ReadingTime:
    """Count one notebook's prose characters and code lines, and find the time its text states."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    markdown = [cell_text(cell) for cell in cells if cell["cell_type"] == "markdown"]
    code = [cell_text(cell) for cell in cells if cell["cell_type"] == "code"]
    prose_characters = sum(len(re.sub(r"\s", "", text)) for text in markdown)
    code_lines = sum(1 for text in code for line in text.splitlines() if line.strip())
    stated = next((int(match[1]) for text in markdown if (match := STATED.search(text))), None)
    return ReadingTime(path.name, prose_characters, code_lines, stated)


def table(times: list[ReadingTime]) -> str:
    """A plain-text table, one chapter a line, then the total."""
    lines = [f"{'chapter':<28} {'prose chars':>11} {'code lines':>10} {'minutes':>8} {'rounded':>7} {'stated':>6}"]
    for time in times:
        stated = "—" if time.stated is None else str(time.stated)
        mark = "" if time.agrees else "  ← off by more than 20 %"
        lines.append(f"{time.name:<28} {time.prose_characters:>11,} {time.code_lines:>10} "
                     f"{time.minutes:>8.1f} {time.rounded:>7} {stated:>6}{mark}")
    total = sum(time.minutes for time in times)
    lines.append(f"{'total':<28} {sum(t.prose_characters for t in times):>11,} "
                 f"{sum(t.code_lines for t in times):>10} {total:>8.1f} {sum(t.rounded for t in times):>7}")
    return "\n".join(lines)


def rounded(minutes: float) -> int:
    """Minutes to the nearest 5 (halves up), never less than 5."""
    return max(ROUND_TO, ROUND_TO * math.floor(minutes / ROUND_TO + 0.5))


def paths(times: list[ReadingTime]) -> str:
    """Two Markdown tables, the core path (the four acts) and the optional chapters, each with its total."""
    core = [time for time in times if time.name.startswith(CORE)]
    optional = [time for time in times if not time.name.startswith(CORE)]
    blocks = []
    for title, group in (("核の道（四つの幕）", core), ("選んで読む章", optional)):
        if not group:
            continue
        lines = [f"| {title} | 読むのに |", "|---|---|"]
        lines += [f"| [{time.name}]({time.name}) | {time.rounded} 分 |" for time in group]
        lines.append(f"| 計 | {sum(time.rounded for time in group)} 分 |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="chapters to measure (default: every chapter)")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if a chapter's stated reading time is more than 20 %% off the measurement")
    parser.add_argument("--markdown", action="store_true",
                        help="print the core path and the optional chapters as Markdown tables instead")
    args = parser.parse_args(argv)
    times = [measure(path) for path in (args.notebooks or CHAPTERS)]
    print(paths(times) if args.markdown else table(times))
    if args.check:
        off = [time for time in times if not time.agrees]
        for time in off:
            said = "states no 「読むのに N 分ほど」" if time.stated is None else f"states {time.stated} minutes"
            print(f"{time.name}: {said}, the measurement is {time.rounded} ({time.minutes:.1f})", file=sys.stderr)
        return 1 if off else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
