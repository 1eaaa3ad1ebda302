"""The workshop's exercises and their checks.

For every exercise notebook: run as handed out, its check says "まだです" (never a traceback); with
the answer cell filled from the worked solution, the check passes; with a typical wrong answer, or
one that hard-codes the notebook's example, the check fails and its evidence says why. Answer cells
are found by their ``answer`` tag, run in the exercise notebook's own namespace after the cells
above them, exactly as a participant would run them.
"""

from __future__ import annotations

import matplotlib
import nbformat
import pytest

from nightwatch import after
from nightwatch.memory import ConversationMemory
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin import ThreeLineSummarizer
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_message_tokens, count_text_tokens
from nightwatch.workshop import check_summarizer, crash, oversized, own_night, pinning, policy, summary
from nightwatch.workshop.stage import carriers, perform, unseen_night
from workshop_answers import HARDCODED, OTHER_ROUTES, WRONG, Answer
from workshop_cells import CHECKS, EXERCISES, NAMES, SOLUTIONS, checked, run_check, solution_answer, tagged

matplotlib.use("Agg")

MODULES = dict(zip(NAMES, [crash, pinning, summary, policy, oversized, own_night]))


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
