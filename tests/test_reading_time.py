"""Each chapter's stated reading time agrees with what ``notebooks/reading_time.py`` measures."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "notebooks" / "reading_time.py"
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb"))

spec = importlib.util.spec_from_file_location("reading_time", SCRIPT)
reading_time = importlib.util.module_from_spec(spec)
sys.modules["reading_time"] = reading_time  # dataclasses look the module up by name
spec.loader.exec_module(reading_time)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_the_chapter_states_the_time_it_measures(chapter: Path):
    time = reading_time.measure(chapter)
    assert time.stated is not None, f"{chapter.name} does not say 「読むのに N 分ほど。」"
    assert time.agrees, (f"{chapter.name} says {time.stated} minutes; its {time.prose_characters} characters of "
                         f"prose and {time.code_lines} lines of code measure {time.minutes:.1f} (→ {time.rounded})")


def notebook(tmp_path: Path, *cells: tuple[str, str]) -> Path:
    path = tmp_path / "99_sample.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": kind, "source": text, "metadata": {}} for kind, text in cells],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    return path


def test_prose_is_counted_without_spaces_and_code_by_its_non_blank_lines(tmp_path):
    path = notebook(tmp_path, ("markdown", "**所要時間**　読むのに15分ほど。\n\n" + "あ" * 4_000 + " \n"),
                    ("code", "x = 1\n\n\ny = 2\n" * 30))
    time = reading_time.measure(path)
    assert time.stated == 15
    assert time.prose_characters == len("**所要時間**読むのに15分ほど。") + 4_000  # the ideographic space is whitespace too
    assert time.code_lines == 60
    assert round(time.minutes, 3) == 12.036 and time.rounded == 10  # 4,018 / 500 + 60 / 15, to the nearest 5
    assert not time.agrees  # 15 is half again as much as 10


def test_the_check_fails_on_a_chapter_that_says_nothing_and_passes_one_that_is_close(tmp_path):
    silent = notebook(tmp_path, ("markdown", "あ" * 5_000))
    assert subprocess.run([sys.executable, str(SCRIPT), "--check", str(silent)], capture_output=True).returncode == 1
    close = notebook(tmp_path, ("markdown", "読むのに10分ほど。" + "あ" * 5_000))  # 10.0 minutes, stated 10
    done = subprocess.run([sys.executable, str(SCRIPT), "--check", str(close)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "99_sample.ipynb" in done.stdout


def test_the_readme_gives_the_core_path_and_the_optional_chapters_as_measured():
    """notebooks/README.md carries the tables ``reading_time.py --markdown`` prints, as they are measured now."""
    readme = (ROOT / "notebooks" / "README.md").read_text(encoding="utf-8")
    tables = reading_time.paths([reading_time.measure(path) for path in CHAPTERS])
    assert "| 核の道（四つの幕） |" in tables and "| 選んで読む章 |" in tables
    assert tables in readme, "notebooks/README.md: paste the output of `python notebooks/reading_time.py --markdown`"


def test_the_core_path_is_the_four_acts():
    names = [path.name for path in CHAPTERS if path.name.startswith(reading_time.CORE)]
    assert names == ["01_crash.ipynb", "02_trim.ipynb", "03_three_tiers.ipynb", "03b_rehearsal.ipynb",
                     "04_celebration_eve.ipynb"]
