"""Exercise 4's wrong answers: each forgotten term fails with the hint that names it with its size (the
pairs, the honest answer by another route, and the nights' promises are in test_workshop_policy_pairs.py).
Files of their own, so pytest-xdist's ``--dist loadfile`` runs these, the suite's slowest checks,
beside the rest.
"""

from __future__ import annotations

from workshop_answers import HARDCODED, WRONG
from workshop_cells import table_tests

EX4 = [answer for answer in WRONG + HARDCODED if answer.notebook.startswith("ex4") and " and the " not in answer.label]
test_a_wrong_or_hardcoded_answer_fails_with_the_reason, _ = table_tests(EX4, [])
