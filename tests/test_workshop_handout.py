"""What a participant sees and holds: under every verdict the reply that was judged; nothing in the
shipped check modules that computes an answer; no link in the handout that leads nowhere; the guide's
recipe for gathering exercise 6's nights carries helpers defined beside the night."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
from pathlib import Path

import pytest

from nightwatch.standin.reader.summary import Summary
from nightwatch.workshop import oversized, own_night, pinning, policy, stage, summary
from nightwatch.workshop.report import CheckItem, CheckReport, Judged
from workshop_answers import HARDCODED, WRONG
from workshop_cells import EXERCISES, SOLUTIONS, checked, prepared, run_source, tagged

ROOT = Path(__file__).resolve().parents[1]
EXCLUDED = ("notebooks/solutions/", "tests/test_workshop", "tests/workshop_")  # the guide's git archive command


def test_a_judged_reply_is_folded_under_its_verdict_in_text_and_html():
    item = CheckItem("朝の報告", False, ("✗ 夜: 出来事 0/1",), "ヒント", (Judged("06:00 の朝の報告", "一、鎧戸。\n二、猫。"),))
    report = CheckReport("演習", "failed", (item,))
    text = str(report).splitlines()
    assert text[text.index("    ヒント: ヒント") + 1:] == ["    ▽ 06:00 の朝の報告", "        ┆ 一、鎧戸。", "        ┆ 二、猫。"]
    html = report._repr_html_()
    assert "<details" in html and "<summary>06:00 の朝の報告</summary>" in html and "一、鎧戸。\n二、猫。" in html


@pytest.mark.parametrize("name, item", [("ex3_three_line_summary.ipynb", 3), ("ex5_oversized_exchange.ipynb", 5),
                                        ("ex6_your_night.ipynb", 3), ("ex2_pin_mission.ipynb", 3),
                                        ("ex4_choose_policy.ipynb", 1)])
def test_the_solution_report_shows_what_was_judged(name, item):
    """The saved solution report, re-run by nbval on every test run, folds the judged reply under the item."""
    saved = tagged(SOLUTIONS / name, "check").outputs[0].data
    text = saved["text/plain"]
    assert "▽" in text and "┆" in text and "<details" in saved["text/html"]
    if name in ("ex3_three_line_summary.ipynb", "ex5_oversized_exchange.ipynb", "ex6_your_night.ipynb"):
        assert "06:00 の朝の報告（代役の返答そのまま）" in text and "六時のご報告です" in text
    if name == "ex4_choose_policy.ipynb":
        assert "リクエストの大きさ（代役の記録。判定した" in text and "┆ ▶ " in text


def test_a_failed_morning_shows_the_report_and_the_summary_the_standin_read():
    answer = next(a for a in WRONG if a.label == "lists the dusk handovers as incidents")
    report = checked(answer.notebook, answer.source)
    folded = [block for item in report.items for block in item.judged]
    assert any("朝の報告（代役の返答そのまま）" in block.title and "六時のご報告です" in block.text for block in folded)
    assert any("代役はこれを読みました" in block.title and "・出来事：" in block.text for block in folded)


@pytest.mark.parametrize("typed", ["出来事：A が起きた。 | B が壊れた。｜C が来た。", "- 出来事: A が起きた。 / B が壊れた。／C が来た。",
                                   "・出来事：A が起きた。／B が壊れた。／C が来た。"])
def test_a_summary_typed_as_people_type_reads_as_the_same_structure(typed):
    assert Summary.parse(typed).events == Summary.parse("出来事: A が起きた。／B が壊れた。／C が来た。").events


def test_no_shipped_check_module_computes_an_answer():
    """The handout's check modules judge properties; none holds the slice or the threshold formula."""
    sources = {module.__name__: inspect.getsource(module) for module in (pinning, summary, policy, oversized, own_night, stage)}
    for name, source in sources.items():
        assert "[1:][-" not in source and "[-keep_last:]]" not in source, name  # act 2's own line may be named
        assert "(1 + share)" not in source and "/ (1 +" not in source, name  # no window budget / (1 + framing_share)
    # exercise 4's hint diagnoses from the participant's own threshold, it never works out a right one
    assert "token_threshold=" not in inspect.getsource(policy.missing_terms) + inspect.getsource(policy.forgotten)


def test_hints_of_exercises_2_and_5_name_the_mistake_not_the_code():
    for _, hint in pinning.ITEMS + oversized.ITEMS:
        assert "history[1:]" not in hint and "「。」で文に分け" not in hint and "文を一つずつ足して" not in hint, hint


def handout_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [path for path in listed if not path.startswith(EXCLUDED)]


def links(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        import nbformat

        text = "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    return [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target and not target.startswith(("#", "mailto:"))]


def test_the_handout_has_no_dead_links():
    files = handout_files()
    present = set(files) | {str(Path(f).parent) for f in files}
    dead = [(path, target) for path in files if path.endswith((".md", ".ipynb"))
            for target in links(ROOT / path)
            if os.path.normpath(str(Path(path).parent / target.split("#")[0])) not in present]
    assert not dead


def recipe_cells() -> list[str]:
    guide = (EXERCISES / "README.md").read_text(encoding="utf-8")
    section = guide[guide.index("### 演習6の夜を集めて映す"):guide.index("## チェックの読み方")]
    return re.findall(r"```python\n(.*?)```", section, re.DOTALL)


def test_the_gathering_recipe_carries_helpers_defined_beside_the_night(tmp_path, monkeypatch):
    save, show = recipe_cells()
    cell = tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source
    chime = '    chime = "（ロビーの時計が鳴る）{}です。"\n'
    assert chime in cell
    cell = "CHIME = " + chime.strip().removeprefix("chime = ") + "\n\n" + cell.replace(chime, "").replace("chime.format", "CHIME.format")
    participant = dict(prepared("ex6_your_night.ipynb"))
    run_source(cell, participant)
    participant["In"] = ["import pandas", cell, "report = check_my_night(my_night, MY_MISSION)"]
    monkeypatch.chdir(tmp_path)
    run_source(save.replace("名前", "aki"), participant)
    (tmp_path / "nights").mkdir()
    (tmp_path / "my_night_aki.py").rename(tmp_path / "nights" / "my_night_aki.py")
    facilitator = dict(prepared("ex6_your_night.ipynb"))
    printed: list[str] = []
    facilitator["print"] = lambda *args: printed.append(" ".join(map(str, args)))
    run_source(show, facilitator)
    assert len(printed) == 1 and "===== my_night_aki" in printed[0] and "合格です" in printed[0], printed


def test_the_seam_for_the_words_an_ask_needs_uses_the_readers_word_analysis():
    shared, missing = own_night.words_to_share("金庫室の扉を開けてください", "金庫室の扉は、朝まで誰にも開けないこと")
    assert {"扉", "開ける"} <= shared and "朝" in missing and not shared & missing



