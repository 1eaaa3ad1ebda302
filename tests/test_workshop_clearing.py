"""Exercise 7: answers of each kind, each judged by what happened on the unseen tool nights.

Honest answers in two styles pass; each single mistake (too few results kept, no batching, a batch
too large to ever happen, the chapter's numbers written in) fails the item the guide's table names,
with the evidence and the hint it lists; a pair of mistakes fails both items; a runaway and an
exception are reported; the placeholder is "まだです". The nights without clearing depend on no
answer and are played once per session, in this process, before any check forks.
"""

from __future__ import annotations

import inspect

import pytest

from nightwatch.workshop import clearing, harness
from workshop_cells import CHECKS, NAMES, SOLUTIONS, checked, run_check, tagged

NAME = "ex7_clear_tool_results.ipynb"


@pytest.fixture(scope="module", autouse=True)
def baselines_played_once():
    for seed in clearing.SEEDS:
        clearing.baseline(seed)


HONEST = {
    "one round and one token more, as the solution": tagged(SOLUTIONS / NAME, "answer").source,
    "half a round more, summed result by result": """
def choose_clearing(results_per_round, tokens_per_result, policy):
    freed = [tokens_per_result - PLACEHOLDER_TOKENS for _ in range(results_per_round)]
    return results_per_round, sum(freed) * 3 // 2
""",
}
ONE_ROUND = "results_per_round * (tokens_per_result - PLACEHOLDER_TOKENS)"
# label: (source, {item: (words in its evidence, words in its hint)})
WRONG = {
    "keeps one result only": (f"""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return 1, {ONE_ROUND} + 1
""", {2: (("が置き換え文になってモデルから隠れました", "keep_tool_results=1 では新しい 1 件しか残りません",
           "一回に 2 件の結果を返す"), "今の回の結果も含めて")}),
    "clears every round": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return results_per_round, 0
""", {4: (("見回り一回分（2 件）以下の結果しか片づけていません", "直前のリクエストの先頭を平均"), "プロンプトキャッシュ")}),
    "waits for more than the window ever holds": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return results_per_round, policy.context_window
""", {3: (("片づけなしの同じ夜では", "減っていません"), "大きすぎないか"),
      4: (("片づけが一度も起きませんでした", "いちばん多く空けられたのは", "clear_at_least=3,072 に届きません"),
          "いちばん多く空けられた量")}),
    "keeps three rounds and clears each": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return 3 * results_per_round, 0
""", {3: (("扉 3 つ", "減っていません"), "残す件数が多すぎないか"),
      4: (("以下の結果しか片づけていません",), "プロンプトキャッシュ")}),
    "the chapter's numbers written in": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return 2, 100
""", {2: (("keep_tool_results=2 では新しい 2 件しか残りません",), "今の回の結果も含めて"),
      4: (("見回り一回分（1 件）以下",), "プロンプトキャッシュ")}),
    "keeps one and clears every round (two mistakes)": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return 1, 0
""", {2: (("モデルから隠れました",), "今の回の結果も含めて"), 4: (("以下の結果しか片づけていません",), "プロンプトキャッシュ")}),
    "returns one number": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return results_per_round
""", {0: (("整数二つの組ではなく",), "整数二つの組")}),
    "keeps none": ("""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return 0, 100
""", {0: (("keep は 1 以上",), "keep は 1 以上")}),
}


@pytest.mark.parametrize("label", HONEST)
def test_an_honest_answer_passes(label):
    report = checked(NAME, HONEST[label])
    assert report.passed, str(report)


@pytest.mark.parametrize("label", WRONG)
def test_a_mistake_fails_its_item_with_the_evidence_and_the_hint(label):
    source, failing = WRONG[label]
    report = checked(NAME, source)
    assert report.status == "failed", str(report)
    for number, item in enumerate(report.items):
        if number not in failing:
            continue
        words, hint = failing[number]
        evidence = "\n".join(item.evidence)
        assert not item.passed, (item.title, evidence)
        assert all(word in evidence for word in words), (words, evidence)
        assert hint in item.hint, item.hint
    if 0 not in failing:  # the answer was played: the items the table does not name hold
        assert [number for number, item in enumerate(report.items) if not item.passed] == sorted(failing), str(report)


def test_a_result_hidden_in_its_own_round_is_named_with_the_reply_that_read_the_placeholder():
    """On the two-door night the loose door is called first: keeping one result and clearing every
    round hides the very result that found the clasp, and that round's reply reads out the placeholder.
    The morning still has the clasp: the summarizer folds the full result, not the request's form."""
    report = checked(NAME, WRONG["keeps one and clears every round (two mistakes)"][0])
    night = clearing.tool_night(7)
    assert night.doors[0] == night.loose_door
    line = next(line for line in report.items[2].evidence if night.name in line)
    assert f"{night.loose_at} の見回りで、{night.loose_door}の結果" in line and "その回の異変を告げた結果です" in line
    assert "その回の返答は『" in line and clearing.PLACEHOLDER[:8] in line
    assert next(line for line in report.items[1].evidence if night.name in line).startswith("✓")


def test_batching_two_whole_rounds_can_cost_the_fewer_folds_on_a_night_of_three_doors():
    """What the solution's explanation says: on the three-door night a two-round batch folds as often
    as no clearing at all."""
    report = checked(NAME, f"""
def choose_clearing(results_per_round, tokens_per_result, policy):
    return results_per_round, 2 * {ONE_ROUND}
""")
    failed = [line for line in report.items[3].evidence if line.startswith("✗")]
    assert len(failed) == 1 and "扉 3 つ" in failed[0], report.items[3].evidence


def test_a_runaway_and_an_exception_are_reported(monkeypatch):
    check = CHECKS[NAMES.index(NAME)]
    assert check.budget.per_call == 5  # what a participant's runaway waits for
    monkeypatch.setattr(check, "budget", harness.Budget(per_call=1, per_check=check.budget.per_check))
    runaway = run_check(NAME, """
def choose_clearing(results_per_round, tokens_per_result, policy):
    while True:
        pass
""")
    assert runaway.status == "failed" and "1 秒たっても終わらなかったので止めました" in str(runaway)
    raising = checked(NAME, """
def choose_clearing(results_per_round, tokens_per_result, policy):
    return results_per_round, 100 // (results_per_round - 1)
""")
    assert not raising.items[0].passed and "ZeroDivisionError" in "\n".join(raising.items[0].evidence)


def test_the_placeholder_is_not_yet():
    report = run_check(NAME, tagged(SOLUTIONS.parent / "exercises" / NAME, "answer").source)
    assert report.status == "not_yet" and "まだです" in str(report)


def test_the_unseen_nights_differ_in_doors_verbosity_and_window_and_only_a_tool_finds_the_clasp():
    nights = [clearing.tool_night(seed) for seed in clearing.SEEDS]
    assert sorted(len(night.doors) for night in nights) == [1, 2, 3]
    assert len({night.tokens_per_result() for night in nights}) == 3
    assert len({night.policy.context_window for night in nights}) >= 2
    assert clearing.EXAMPLE.doors not in [night.doors for night in nights]
    for night in nights:
        told = [turn.text for turn in night.night().turns if night.loose_door in turn.text and "緩" in turn.text]
        assert not told, told
        assert clearing.baseline(night.seed).report is not None  # the night without clearing reaches dawn


def test_the_solution_report_folds_the_per_round_table_and_the_morning_report():
    saved = tagged(SOLUTIONS / NAME, "check").outputs[0].data["text/plain"]
    assert "合格です" in saved and "✗" not in saved
    assert "見回りの結果を運んだリクエスト" in saved and "それまでの束ね" in saved and "六時のご報告です" in saved


def test_the_check_module_computes_no_answer():
    source = inspect.getsource(clearing)
    assert "- PLACEHOLDER_TOKENS" not in source and "results_per_round *" not in source
    assert "keep_tool_results=len(" not in source
