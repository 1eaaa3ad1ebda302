"""Answers a participant might really write, for exercises 1-3 and 5 (exercise 4's are in
test_workshop_policy*.py, exercise 6's in test_workshop_own_night.py): each single mistake, and a
mistake that makes a later item fail, gets the hint that names it; honest answers written in other
styles than the solutions' pass. Each answer's check runs once (``workshop_cells.checked``).
"""

from __future__ import annotations

import pytest

from nightwatch import after
from nightwatch.memory import ConversationMemory
from nightwatch.nights import MISSION
from nightwatch.standin import ThreeLineSummarizer
from nightwatch.tokens import count_text_tokens
from nightwatch.workshop import summary
from nightwatch.workshop.stage import carriers, perform, unseen_night
from workshop_answers import HARDCODED, OTHER_ROUTES, WRONG
from workshop_cells import SOLUTIONS, checked, run_check, table_tests, tagged
from workshop_played import ex1_nights_played_once  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("ex1_nights_played_once")
NOT_EX4 = [answer for answer in WRONG + HARDCODED if not answer.notebook.startswith("ex4")]
ROUTES = [answer for answer in OTHER_ROUTES if not answer.notebook.startswith("ex4")]


test_a_wrong_or_hardcoded_answer_fails_with_the_reason, test_an_honest_answer_by_another_route_passes = \
    table_tests(NOT_EX4, ROUTES)


def test_a_hardcoded_call_number_is_named_as_such():
    report = checked("ex1_predict_crash.ipynb", HARDCODED[0].source)
    assert report.items[0].passed  # right on the example, and only there
    assert "答えの数を直接書いていませんか" in report.message


def test_pinning_alone_is_shown_to_lose_the_trimmed_incidents():
    report = run_check("ex2_pin_mission.ipynb", tagged(SOLUTIONS / "ex2_pin_mission.ipynb", "answer").source)
    assert report.passed
    assert any("朝の報告に出来事 0/3" in note and "束ねにも窓にも残っていません" in note and "第3幕の束ね" in note
               for note in report.notes)


def test_a_night_that_lost_its_mission_is_not_told_it_kept_it():
    story = "def pin_and_trim(history, keep_last):\n    return history[-keep_last:]\n"
    report = run_check("ex2_pin_mission.ipynb", story)
    assert not report.passed and not any("銘は守れても" in note for note in report.notes)


def test_the_summary_check_nights_push_every_incident_out_of_the_window():
    """Otherwise the morning report could pass on the window alone, without the summarizer's help."""
    for seed, kinds, errands, handovers in summary.NIGHTS:
        night = unseen_night(seed, kinds=kinds, errands_per_hour=errands, handovers=handovers)
        memory = ConversationMemory(MISSION, summary.POLICY, count_text_tokens, ThreeLineSummarizer())
        log = perform(night, lambda client: after.NightWatchAgent("ヴェスパー", memory, client=client))
        assert log.survived
        for incident in night.incidents:
            assert carriers(log.calls[-1].messages, incident.key_facts) == ["束ね"], incident
