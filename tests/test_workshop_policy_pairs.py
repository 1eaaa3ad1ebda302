"""Exercise 4, the rest: terms forgotten two at a time (each pair gets the hint naming its larger term,
with its size); the nights the check plays keep the notebook's promises and reach the worst case; an
honest answer by another route passes.
A file of its own beside test_workshop_policy.py, so ``--dist loadfile`` runs the two side by side.
"""

from __future__ import annotations

from itertools import combinations

import pytest

from nightwatch.nights import MISSION, celebration_eve
from nightwatch.tokens import REPLY_PRIMER_TOKENS, count_message_tokens, count_text_tokens
from nightwatch.workshop import policy
from workshop_answers import OTHER_ROUTES, WRONG, Answer
from workshop_cells import judged_as_in_the_table, passes, solution_answer
from workshop_played import ex4_nights_played_once  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("ex4_nights_played_once")
PAIRS = [answer for answer in WRONG if answer.notebook.startswith("ex4") and " and the " in answer.label]
ROUTES = [answer for answer in OTHER_ROUTES if answer.notebook.startswith("ex4")]


@pytest.mark.parametrize("answer", PAIRS, ids=lambda answer: answer.label)
def test_two_forgotten_terms_get_the_hint_for_the_larger(answer: Answer):
    judged_as_in_the_table(answer)


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


@pytest.mark.parametrize("answer", ROUTES, ids=lambda answer: answer.label)
def test_an_honest_answer_by_another_route_passes(answer: Answer):
    """After the worst-case test above: the solution's worst nights it played are reused here."""
    passes(answer)


@pytest.mark.parametrize("forgot", [names for count in range(len(policy.TERMS) + 1)
                                    for names in combinations(policy.TERMS, count)], ids=lambda names: "+".join(names) or "none")
def test_every_set_of_forgotten_terms_is_told_apart(forgot):
    """Without playing a night: a plan that leaves out exactly these terms, at every budget, is
    diagnosed as leaving out exactly these (the budget formula lives here, in the tests, not in the check)."""
    mission = count_message_tokens([{"role": "system", "content": MISSION}]) - REPLY_PRIMER_TOKENS
    share = policy.framing_share()

    def plan(context_window, reply_reserve):
        room = context_window - (0 if "reserve" in forgot else reply_reserve)
        fixed = mission + (0 if "summary" in forgot else policy.SCRIPT_PROMISES["summary_message"])
        budget = room - fixed - policy.SCRIPT_PROMISES["question_message"] - (0 if "primer" in forgot else REPLY_PRIMER_TOKENS)
        threshold = int(budget if "framing" in forgot else budget / (1 + share))
        return policy.MemoryPolicy(window_size=2, token_threshold=threshold)

    plans = [(plan(cw, rr), cw, rr) for cw, rr in [policy.EXAMPLE, *policy.UNSEEN]]
    assert set(policy.missing_terms(plans)) == set(forgot)
