"""Exercise notebooks as a participant runs them: the cells above the answer cell, then an answer,
then the check cell, in the notebook's own namespace (shared by the workshop test files)."""

from __future__ import annotations

import copy
import functools
import itertools
import linecache
import os
from pathlib import Path

import matplotlib
import nbformat

from nightwatch.workshop import (
    CheckReport, check_clearing_choice, check_my_night, check_pinned_trim, check_policy_choice, check_refused_call,
    check_shrink_exchange, check_summarizer,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXERCISES = NOTEBOOKS / "exercises"
SOLUTIONS = NOTEBOOKS / "solutions"
NAMES = sorted(path.name for path in EXERCISES.glob("ex*.ipynb"))
CHECKS = [check_refused_call, check_pinned_trim, check_summarizer, check_policy_choice, check_shrink_exchange,
          check_my_night, check_clearing_choice]
"""Each exercise's check, in the order of NAMES."""
_cells = itertools.count()
matplotlib.use("Agg")  # the notebooks' plots are drawn, never shown


def run_source(source: str, namespace: dict) -> None:
    """Run a cell's source the way IPython does: registered in linecache, so inspect.getsource works."""
    filename = f"<answer-cell-{next(_cells)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the notebook's own cells


def tagged(path: Path, tag: str) -> nbformat.NotebookNode:
    cells = [cell for cell in nbformat.read(path, as_version=4).cells if tag in cell.metadata.get("tags", [])]
    assert len(cells) == 1, f"{path.name} needs exactly one cell tagged {tag!r}"
    return cells[0]


@functools.cache
def prepared(name: str) -> dict:
    """The exercise notebook's namespace after every code cell above the answer cell has run."""
    namespace: dict = {"__name__": "__main__"}
    cwd = os.getcwd()
    os.chdir(EXERCISES)
    try:
        for cell in nbformat.read(EXERCISES / name, as_version=4).cells:
            if "answer" in cell.metadata.get("tags", []):
                break
            if cell.cell_type == "code":
                exec(cell.source, namespace)  # noqa: S102 - the notebook's own cells
    finally:
        os.chdir(cwd)
        import matplotlib.pyplot as plt  # the notebook's set-up cell has imported it by now

        plt.close("all")
    return namespace


def run_check(name: str, answer_source: str) -> CheckReport:
    """Fill the answer cell with ``answer_source`` and run the notebook's check cell."""
    namespace = copy.copy(prepared(name))
    run_source(answer_source, namespace)
    run_source(tagged(EXERCISES / name, "check").source, namespace)
    report = namespace["report"]
    assert isinstance(report, CheckReport)
    return report


@functools.cache
def checked(name: str, answer_source: str) -> CheckReport:
    """``run_check``, once per answer: the table checks some answers for more than one item."""
    return run_check(name, answer_source)


def judged_as_in_the_table(answer) -> None:
    """The answer's check fails on the item the table names, with the evidence and the hint it lists;
    no message or hint accuses the participant of copying."""
    report = checked(answer.notebook, answer.source)
    assert report.status == "failed", str(report)
    item = report.items[answer.item]
    assert not item.passed, str(report)
    evidence = "\n".join(item.evidence)
    for words in answer.evidence:
        assert words in evidence, f"{words!r} not in the evidence of {item.title!r}:\n{evidence}"
    assert item.hint and answer.hint in item.hint, item.hint
    for accusation in ("写", "解答例", "自分で書いた"):
        assert accusation not in report.message and all(accusation not in i.hint for i in report.items)


def answer_id(answer) -> str:
    return f"{answer.notebook[:3]}-{answer.label}"


def passes(answer) -> None:
    """An honest answer's check passes every item."""
    report = checked(answer.notebook, answer.source)
    assert report.passed, str(report)


def table_tests(wrong: list, honest: list) -> tuple:
    """The two tests of an answer table, for the file that holds those answers: each wrong answer is
    judged as its row says; each honest answer passes."""
    import pytest

    @pytest.mark.parametrize("answer", wrong, ids=answer_id)
    def test_a_wrong_or_hardcoded_answer_fails_with_the_reason(answer):
        judged_as_in_the_table(answer)

    @pytest.mark.parametrize("answer", honest, ids=answer_id)
    def test_an_honest_answer_by_another_route_passes(answer):
        passes(answer)

    return test_a_wrong_or_hardcoded_answer_fails_with_the_reason, test_an_honest_answer_by_another_route_passes


def solution_answer(name: str) -> dict:
    """The exercise notebook's namespace with the worked solution's answer cell run in it."""
    namespace = copy.copy(prepared(name))
    run_source(tagged(SOLUTIONS / name, "answer").source, namespace)
    return namespace
