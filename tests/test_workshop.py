"""The workshop's exercises and their checks.

For every exercise notebook: run as handed out, its check says "まだです" (never a traceback); with
the answer cell filled from the worked solution, the check passes; with a typical wrong answer, or
one that hard-codes the notebook's example, the check fails and its evidence says why. Answer cells
are found by their ``answer`` tag, run in the exercise notebook's own namespace after the cells
above them, exactly as a participant would run them.
"""

from __future__ import annotations

import copy
import functools
import itertools
import linecache
import os
from pathlib import Path

import matplotlib
import nbformat
import pytest

from nightwatch import after
from nightwatch.memory import ConversationMemory
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin import ThreeLineSummarizer
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_message_tokens, count_text_tokens
from nightwatch.workshop import (
    CheckReport, check_my_night, check_pinned_trim, check_policy_choice, check_refused_call, check_shrink_exchange,
    check_summarizer,
)
from nightwatch.workshop import crash, harness, oversized, own_night, pinning, policy, summary
from nightwatch.workshop.stage import carriers, perform, unseen_night
from workshop_answers import HARDCODED, OTHER_ROUTES, OWN_NIGHTS, WRONG, Answer

matplotlib.use("Agg")

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
EXERCISES = NOTEBOOKS / "exercises"
SOLUTIONS = NOTEBOOKS / "solutions"
NAMES = sorted(path.name for path in EXERCISES.glob("ex*.ipynb"))
CHECKS = [check_refused_call, check_pinned_trim, check_summarizer, check_policy_choice, check_shrink_exchange,
          check_my_night]
MODULES = dict(zip(NAMES, [crash, pinning, summary, policy, oversized, own_night]))
_cells = itertools.count()


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


@pytest.fixture(scope="module", autouse=True)
def ex1_nights_played_once():
    """Every check runs in a process forked from this one, and exercise 1's nights are the same for every
    answer: played here once (a dummy answer through the check's own code), each check reads their sizes."""
    crash.check_refused_call.__wrapped__(lambda limit, first_request_tokens, per_exchange_tokens: 1)


@pytest.fixture(scope="module", autouse=True)
def ex4_solution_nights_played_once():
    """Exercise 4's check plays, for each budget, nights that depend only on the chosen policy, the night
    and the room (the stand-in is deterministic): ``policy.perform`` is memoized for this module, and the
    worked solution's nights are played here once, before any check forks. The honest answers' checks,
    and the test of the worst case the check reaches, read them; every other policy is played as before."""
    played: dict = {}
    perform = policy.perform

    def memoized(chosen, night, room=10**6):
        key = (chosen, night and night.model_dump_json(), room)
        if key not in played:
            played[key] = perform(chosen, night, room)
        return played[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policy, "perform", memoized)
        choose_policy = solution_answer("ex4_choose_policy.ipynb")["choose_policy"]
        for context_window, reply_reserve in [policy.EXAMPLE, *policy.UNSEEN]:
            chosen = choose_policy(context_window, reply_reserve)
            for night in [celebration_eve()] * ((context_window, reply_reserve) == policy.EXAMPLE) + [None]:
                policy.perform(chosen, night, context_window - reply_reserve)
        yield


def solution_answer(name: str) -> dict:
    """The exercise notebook's namespace with the worked solution's answer cell run in it."""
    namespace = copy.copy(prepared(name))
    run_source(tagged(SOLUTIONS / name, "answer").source, namespace)
    return namespace


def test_there_are_six_exercises_each_with_a_solution():
    assert len(NAMES) == 6 and NAMES == sorted(MODULES)
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


@pytest.mark.parametrize("answer", WRONG + HARDCODED, ids=lambda answer: f"{answer.notebook[:3]}-{answer.label}")
def test_a_wrong_or_hardcoded_answer_fails_with_the_reason(answer: Answer):
    report = checked(answer.notebook, answer.source)
    assert report.status == "failed", str(report)
    item = report.items[answer.item]
    assert not item.passed, str(report)
    evidence = "\n".join(item.evidence)
    for words in answer.evidence:
        assert words in evidence, f"{words!r} not in the evidence of {item.title!r}:\n{evidence}"
    assert item.hint and answer.hint in item.hint, item.hint
    for accusation in ("写", "解答例", "自分で書いた"):  # no hint or message accuses the participant of copying
        assert accusation not in report.message and all(accusation not in i.hint for i in report.items)


@pytest.mark.parametrize("answer", OTHER_ROUTES, ids=lambda answer: f"{answer.notebook[:3]}-{answer.label}")
def test_an_honest_answer_by_another_route_passes(answer: Answer):
    report = checked(answer.notebook, answer.source)
    assert report.passed, str(report)


def test_a_hardcoded_call_number_is_named_as_such():
    report = checked("ex1_predict_crash.ipynb", HARDCODED[0].source)
    assert report.items[0].passed  # right on the example, and only there
    assert "答えの数を直接書いていませんか" in report.message


def test_pinning_alone_is_shown_to_lose_the_trimmed_incidents():
    report = run_check("ex2_pin_mission.ipynb", tagged(SOLUTIONS / "ex2_pin_mission.ipynb", "answer").source)
    assert report.passed
    assert any("朝の報告に出来事 0/3" in note and "束ねにも窓にも残っていません" in note and "第3幕の束ね" in note
               for note in report.notes)


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


def test_the_summary_check_nights_push_every_incident_out_of_the_window():
    """Otherwise the morning report could pass on the window alone, without the summarizer's help."""
    for seed, kinds, errands, handovers in summary.NIGHTS:
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands, handovers=handovers)
        memory = ConversationMemory(MISSION, summary.POLICY, count_text_tokens, ThreeLineSummarizer())
        log = perform(night, lambda client: after.NightWatchAgent("ヴェスパー", memory, client=client))
        assert log.survived
        for incident in night.incidents:
            assert carriers(log.calls[-1].messages, incident.key_facts) == ["束ね"], incident


def test_the_policy_check_nights_keep_the_promises_the_notebook_states():
    def cost(message):
        return count_message_tokens([message]) - REPLY_PRIMER_TOKENS

    promises = policy.SCRIPT_PROMISES
    for window_size, threshold in [(2, 250), (15, 1950)]:  # tighter and looser than the solution picks
        chosen = policy.MemoryPolicy(window_size=window_size, token_threshold=threshold)
        for night in (celebration_eve(), None):
            requests, _, error = policy.perform(chosen, night)
            assert error is None
            for request in requests:
                summaries = [m for m in request.messages[1:] if m["role"] == "system"]
                assert all(cost(m) <= promises["summary_message"] for m in summaries)
                assert cost(request.messages[-1]) <= promises["question_message"]
                exchanges = zip(request.messages[-3::-2], request.messages[-2::-2])  # (user, assistant) pairs
                for user, reply in exchanges:
                    if user["role"] != "user":
                        break
                    size = count_text_tokens(user["content"]) + count_text_tokens(reply["content"])
                    assert promises["exchange_min"] <= size <= promises["exchange_max"], (window_size, size)


def test_the_policy_check_reaches_the_worst_case_it_promises():
    """The honest solution's worst-case bound is reached within a few exchanges' worth of tokens."""
    choose_policy = solution_answer("ex4_choose_policy.ipynb")["choose_policy"]
    for context_window, reply_reserve in policy.UNSEEN:  # the room the check gives it: its own nights
        room = context_window - reply_reserve
        requests, folds, _ = policy.perform(choose_policy(context_window, reply_reserve), None, room)
        assert folds and max(r.prompt_tokens for r in requests) > 0.85 * room


# ---- the harness: what a misbehaving answer can no longer do to a check cell ----------------------

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


def test_the_own_night_check_refuses_a_night_too_short_to_compare():
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    report = check_my_night(namespace["tiny_night"], namespace["tiny_mission"])
    assert report.status == "not_yet"
    text = str(report)
    assert "往復が 3 しかありません" in text and "7 回目以降に置いてください" in text
    assert "朝の報告に近すぎます" in text
    saved = [o for c in nbformat.read(EXERCISES / "ex6_your_night.ipynb", as_version=4).cells
             if c.cell_type == "code" and "check_my_night(tiny_night" in c.source for o in c.outputs]
    assert saved and saved[0].data["text/plain"] == text


def test_the_own_night_check_refuses_a_night_the_spring_design_survives(monkeypatch):
    """A night whose whole text fits under the threshold never compacts: no design can differ on it."""
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    run_source(tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source, namespace)
    monkeypatch.setattr(own_night, "POLICY", own_night.MemoryPolicy(window_size=50, token_threshold=10**5))
    report = own_night.check_my_night.__wrapped__(namespace["my_night"], namespace["MY_MISSION"])
    assert report.status == "not_yet" and "春の仕立てでも天井に届きません" in str(report), str(report)


def test_the_own_night_check_wants_a_mission_of_the_participants_own():
    namespace = copy.copy(prepared("ex6_your_night.ipynb"))
    run_source(tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source, namespace)
    assert "MY_MISSION がまだ空です" in check_my_night(namespace["my_night"], "").message
    assert "劇場のヴェスパーの銘" in check_my_night(namespace["my_night"], MISSION).message


@pytest.mark.parametrize("changes", [
    # The test turn asks for something no duty covers: nothing to keep, so nothing to see.
    [("預けた鞄を出したいから、金庫室の扉を開けてください", "タクシーを呼んでください"),
     ('key_facts=("金庫室", "酔った男性")', 'key_facts=("酔った男性", "タクシー")')],
    # The mission written as prose: no sentence reads as a duty, so even the three tiers have none.
    [("三、金庫室の扉は、朝まで誰にも開けないこと。", "金庫室の扉の番も、あなたの受け持ちです。")],
], ids=["test-touches-no-duty", "mission-as-prose"])
def test_an_own_night_that_cannot_test_the_duty_fails_with_the_reason(changes):
    source = tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source
    for old, new in changes:
        assert old in source
        source = source.replace(old, new)
    report = run_check("ex6_your_night.ipynb", source)
    assert report.status == "failed", str(report)
    item = report.items[2]
    assert not item.passed and "銘のどの務めにも基づいていません" in "\n".join(item.evidence) and item.hint
    assert report.items[0].passed  # the spring design still hits the ceiling on the same night


@pytest.mark.parametrize("label", sorted(OWN_NIGHTS))
def test_an_own_night_in_english_mixed_or_reworded_passes(label):
    """Whether the agent acted on a duty is read from the stand-in's record (act, grounding), not from
    characters the reply shares with the mission: the trimmed agent repeating the request is not keeping
    a duty, and a mission in another wording or language is judged the same way."""
    source = OWN_NIGHTS[label]
    if label != "english":
        source = tagged(SOLUTIONS / "ex6_your_night.ipynb", "answer").source
        for old, new in OWN_NIGHTS[label]:
            assert old in source
            source = source.replace(old, new)
    report = run_check("ex6_your_night.ipynb", source)
    assert report.passed, str(report)
    assert "頼みを引き受けました" in report.items[1].evidence[0]  # the trimmed agent complied: no duty
    assert "断りました" in report.items[2].evidence[0]
