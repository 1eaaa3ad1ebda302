"""The check harness: what a misbehaving answer (a runaway, one that swallows the timer, a slow one,
one that interrupts or exits, one that prints a flood) can no longer do to a check cell."""

from __future__ import annotations

import pytest

from nightwatch.workshop import check_summarizer, harness, pinning
from workshop_cells import CHECKS, NAMES, SOLUTIONS, run_check, tagged

RUNAWAY = """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    while True:
        pass
"""
SWALLOWS = """
def predict_refused_call(limit, first_request_tokens, per_exchange_tokens):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass
"""
LOOSE = 120  # seconds: far above a one-second limit even on a loaded two-core machine; the claim is that it ends


@pytest.mark.parametrize("name, source, call", [
    ("ex1_predict_crash.ipynb", RUNAWAY, "predict_refused_call(2048"),
    ("ex1_predict_crash.ipynb", SWALLOWS, "predict_refused_call(2048"),
    ("ex3_three_line_summary.ipynb", """
def summarize(summary, overflow):
    if overflow and "巡回" in overflow[0].user_text:
        return "巡回: 異常なし"
    n = 0
    while True:
        try:
            n += 1
        except BaseException:
            continue
""", "summarize("),
], ids=["loop", "swallows-every-exception", "summarizer-loop"])
def test_a_runaway_answer_is_stopped_and_the_report_names_the_call(name, source, call, monkeypatch):
    check = CHECKS[NAMES.index(name)]
    monkeypatch.setattr(check, "budget", harness.Budget(per_call=1, per_check=LOOSE))
    report = run_check(name, source)
    assert report.status == "failed" and len(report.items) == 1
    # the per-call guard ended it (the per-check one, at LOOSE, would say チェック全体が…を超えた)
    assert "1 秒たっても終わらなかったので止めました" in report.message and call in report.message
    assert "呼びませんでした" not in str(report) and report.items[0].hint


def test_a_slow_answer_is_stopped_by_the_cap_on_the_whole_check(monkeypatch):
    monkeypatch.setattr(check_summarizer, "budget", harness.Budget(per_call=30, per_check=2))
    report = run_check("ex3_three_line_summary.ipynb", """
import time
def summarize(summary, overflow):
    time.sleep(0.4)
    return "巡回: 異常なし"
""")
    assert report.status == "failed"
    assert "チェック全体が 2 秒を超えたので止めました" in report.message and "遅すぎます" in report.items[0].hint


def test_a_stopped_answer_ends_the_check_no_more_nights_are_played(tmp_path):
    """Counted, not timed: the answer notes each call in a file; the check stops at the interrupt."""
    calls = tmp_path / "calls.txt"
    report = run_check("ex2_pin_mission.ipynb", f"""
def pin_and_trim(history, keep_last):
    with open({str(calls)!r}, "a") as log:
        log.write("call\\n")
    if len(history) > 30:
        raise KeyboardInterrupt
    return [history[0]] + history[1:][-keep_last:]
""")
    assert report.status == "failed" and "KeyboardInterrupt" in report.message
    made = calls.read_text().count("call")
    history_lengths = [2 * exchanges + 2 for exchanges, _ in pinning.UNIT_CASES]
    first_long = next(n for n, length in enumerate(history_lengths, start=1) if length > 30)
    assert made == first_long  # the unit cases up to the first long history, nothing after


@pytest.mark.parametrize("body, words", [
    ("raise KeyboardInterrupt", "KeyboardInterrupt"),
    ("import sys; sys.exit(3)", "exit()／sys.exit() を呼びました（code=3）"),
    ("exit()", "exit()／sys.exit() を呼びました"),
])
def test_keyboard_interrupt_and_exit_from_an_answer_become_evidence(body, words):
    source = f"""
def pin_and_trim(history, keep_last):
    if len(history) > 5:
        {body}
    return history
"""
    report = run_check("ex2_pin_mission.ipynb", source)
    assert report.status == "failed"
    assert words in str(report)


def test_what_an_answer_prints_is_capped(capsys):
    source = tagged(SOLUTIONS / "ex1_predict_crash.ipynb", "answer").source.replace(
        '    """代役に', '    print("あ" * 100_000)\n    """代役に', 1)
    assert 'print("あ"' in source
    report = run_check("ex1_predict_crash.ipynb", source)
    assert report.passed, str(report)
    printed = next(note for note in report.notes if note.startswith("答えの print の出力"))
    assert "文字だけ表示" in printed and len(printed) < harness.PRINT_SHOWN + 80
    assert len(str(report)) < 4000
    assert "ああ" not in capsys.readouterr().out  # nothing reached the notebook's output
