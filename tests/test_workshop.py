"""The workshop's exercises and their checks.

For every exercise notebook: run as handed out, its check says "まだです" (never a traceback); every
cell but the answer and the check is the solution's, outputs included; the saved solution report
passes; no check ever raises. The answers of each kind are in test_workshop_answers.py (exercises
1-3, 5), test_workshop_policy*.py (exercise 4) and test_workshop_clearing.py (exercise 7); what a check shows and what the handout holds in
test_workshop_handout.py: several files, so pytest-xdist's ``--dist loadfile`` can spread them.
Answer cells are found by their ``answer`` tag, run in the exercise notebook's own namespace after the cells
above them, exactly as a participant would run them.
"""

from __future__ import annotations

import matplotlib
import nbformat
import pytest

from nightwatch.standin import ThreeLineSummarizer
from nightwatch.workshop import check_summarizer, clearing, crash, oversized, own_night, pinning, policy, summary
from workshop_cells import CHECKS, EXERCISES, NAMES, SOLUTIONS, run_check, tagged
from workshop_played import ex1_nights_played_once  # noqa: F401 - a fixture

matplotlib.use("Agg")

MODULES = dict(zip(NAMES, [crash, pinning, summary, policy, oversized, own_night, clearing]))


pytestmark = pytest.mark.usefixtures("ex1_nights_played_once")


def test_there_are_seven_exercises_each_with_a_solution():
    assert len(NAMES) == 7 and NAMES == sorted(MODULES)
    assert NAMES == sorted(path.name for path in SOLUTIONS.glob("ex*.ipynb"))
    assert (EXERCISES / "README.md").is_file()


@pytest.mark.parametrize("name", NAMES)
def test_every_other_exercise_cell_is_its_solutions_cell_outputs_included(name):
    """nbval runs the solutions only (notebooks/exercises/conftest.py), so the exercise's own cells
    must be the solution's, saved outputs and all; the answer and check cells are tested below."""
    def plain(outputs):
        return [{key: value for key, value in output.items() if key != "execution_count"} for output in outputs]

    solution = {cell.source: cell for cell in nbformat.read(SOLUTIONS / name, as_version=4).cells
                if cell.cell_type == "code"}
    for cell in nbformat.read(EXERCISES / name, as_version=4).cells:
        if cell.cell_type != "code" or {"answer", "check"} & set(cell.metadata.get("tags", [])):
            continue
        assert cell.source in solution, f"{name}: a cell the solution does not have: {cell.source[:60]!r}"
        assert plain(cell.outputs) == plain(solution[cell.source].outputs), f"{name}: outputs differ: {cell.source[:60]!r}"


@pytest.mark.parametrize("name", NAMES)
def test_the_untouched_placeholder_says_not_yet(name):
    placeholder = tagged(EXERCISES / name, "answer").source
    assert "raise NotImplementedError" in placeholder
    report = run_check(name, placeholder)
    assert report.status == "not_yet" and not report.passed
    text = str(report)
    assert "まだです" in text and "NotImplementedError のままです" in text
    assert "Traceback" not in text
    # The handed-out notebook was saved with exactly that kind message, not an error.
    outputs = tagged(EXERCISES / name, "check").outputs
    assert [output.output_type for output in outputs] == ["execute_result"]
    assert outputs[0].data["text/plain"] == text


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_solution_report_passes(name):
    """The report saved in the solution notebook passes every item; nbval re-runs that very cell on
    every test run and fails if the report it gets differs, so the check is not run a second time here."""
    saved = tagged(SOLUTIONS / name, "check").outputs[0].data["text/plain"]
    assert "合格です" in saved.splitlines()[0] and "✗" not in saved


@pytest.mark.parametrize("check", CHECKS, ids=lambda check: check.__name__)
def test_no_check_ever_raises(check):
    assert check(42).status == "not_yet"  # not even a function

    def broken(*args):
        raise ZeroDivisionError("わざと")

    report = check(broken)
    assert report.status == "failed"
    assert "ZeroDivisionError: わざと" in str(report)


def test_the_library_summarizer_itself_is_not_an_answer():
    report = check_summarizer(ThreeLineSummarizer())
    assert report.status == "not_yet" and "ThreeLineSummarizer" in report.message
