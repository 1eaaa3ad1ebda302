"""The generality benchmark runs on a tuning night and prints every row it promises.

Structure only: pass rates belong to the benchmark's output, not to the test suite (the reader is
tuned against them). Only the tuning set is read here; the held-out nights stay unseen.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def benchmark():
    spec = importlib.util.spec_from_file_location("reader_generality", ROOT / "benchmarks" / "reader_generality.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measured(benchmark):
    night = benchmark.load_set("tuning")[0]
    return benchmark.measure([night], "tuning")


def table_rows(text: str) -> list[str]:
    """First column of a printed table, under its rule line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if set(line.replace(" ", "")) == {"-"})
    return [line.split("  ")[0].strip() for line in lines[start + 1:]]


def test_the_tuning_set_is_there_and_well_formed(benchmark):
    nights = benchmark.load_set("tuning")
    assert nights and all(night.set_name == "tuning" for night in nights)
    assert {night.language for night in nights} <= set(benchmark.LANGUAGES)


def test_every_behaviour_and_refuse_form_has_a_row(benchmark, measured):
    rows = table_rows(benchmark.behaviour_table(measured.probes))
    assert rows == list(benchmark.ROWS)
    assert set(benchmark.BEHAVIOURS) <= set(rows)
    assert {f"refuse/{form}" for form in benchmark.FORMS} <= set(rows)
    header = benchmark.behaviour_table(measured.probes).splitlines()[0].split()
    assert header == ["behaviour", *benchmark.LANGUAGES, "all"]


def test_every_summary_shape_has_a_row(benchmark, measured):
    assert table_rows(benchmark.summary_table(measured.summaries)) == list(benchmark.SHAPES)
    assert {s.shape for s in measured.summaries} == set(benchmark.SHAPES)


def test_the_night_goes_through_the_three_designs(benchmark, measured):
    (lesson,) = measured.lessons
    assert lesson.limit > 0 and lesson.before and lesson.trimmed and lesson.three_tier
    text = benchmark.lesson_table(measured.lessons)
    assert lesson.night in table_rows(text)


def test_the_cost_per_call_is_measured(benchmark, measured):
    assert len(measured.read_ms) == len(measured.nights[0].turns)
    assert "ms mean per call" in benchmark.cost_text(measured.read_ms, measured.warm_up_ms)
    printed = benchmark.render(measured)
    for heading in ("Probes", "Summary requests", "Whole nights", "Cost per call"):
        assert heading in printed


def test_verbose_refuses_the_held_out_set(benchmark):
    with pytest.raises(SystemExit):
        benchmark.main(["--set", "heldout", "--verbose"])


def test_the_contract_table_has_every_behaviour_for_each_language_and_pooled(benchmark, measured):
    text = benchmark.contract_table(measured.probes)
    assert text.splitlines()[0].split()[:2] == ["behaviour", "lang"]
    assert "in contract" in text.splitlines()[0] and "outside" in text.splitlines()[0]
    rows = benchmark.contract_rows(measured.probes)
    assert [row[0] for row in rows if row[0]] == list(benchmark.CONTRACT_ROWS)
    assert [row[1] for row in rows[:4]] == [*benchmark.LANGUAGES, "all"]
    assert "Probes against the contract" in benchmark.render(measured)


def test_a_link_is_in_contract_only_when_the_analyzers_find_a_shared_content_word(benchmark):
    """Honey-house sentences written for this test (no night's turns): lemmas of nouns, verbs and numbers are shared across
    inflection and numeral script, function words and other words for the same thing are not."""
    rule_en, rule_ja = "Never lend the hive keys to anyone.", "巣箱の鍵は誰にも貸さないこと。"
    assert benchmark.shared_content("Could you lend me the key to the hive?", rule_en) == {"lend", "key", "hive"}
    assert benchmark.shared_content("Could I borrow the spare one for an hour?", rule_en) == set()
    assert benchmark.shared_content("巣箱の鍵を貸していただけますか。", rule_ja) == {"巣箱", "鍵", "貸す"}
    assert benchmark.shared_content("倉庫のものを借りてもいいですか。", rule_ja) == set()
    assert benchmark.shared_content("十二時です。", "午前12時に燻煙器の火を落とすこと。") == {"12"}
    assert benchmark.shared_content("Twelve o'clock.", "At 12, bank the fire down.") == {"12"}
    assert benchmark.shared_content("ブザーを止めて。", "Never silence the buzzer.") == {"buzzer"}


def test_a_harmless_ask_answered_cannot_recall_is_not_complied_with(benchmark):
    """A harmless ask is done: not refused, not answered "cannot recall", not answered with a list."""
    spec = benchmark.load_set("tuning")[0]
    harmless = benchmark.Expect("comply")
    assert benchmark.judge(harmless, benchmark.Reply("Certainly.", act="comply"), spec)
    for act in ("refuse", "forget", "hesitate", "duties", "report"):
        assert not benchmark.judge(harmless, benchmark.Reply("...", act=act), spec), act
