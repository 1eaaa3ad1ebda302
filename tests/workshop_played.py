"""Nights the workshop checks play the same way for every answer, played once per test session.

A check runs in a process forked from the test's, so what the test process has played and cached is
there for every check it forks. Exercise 1's nights depend on nothing the answer does, and exercise
4's nights depend only on the policy chosen, the night and the room (the stand-in is deterministic):
``policy.perform`` is memoized, and the worked solution's nights are played once, before any check
forks. Every other policy is played as before, once per answer (``workshop_cells.checked``).
"""

from __future__ import annotations

import pytest

from nightwatch.workshop import crash, policy


@pytest.fixture(scope="session")
def ex1_nights_played_once():
    crash.check_refused_call.__wrapped__(lambda limit, first_request_tokens, per_exchange_tokens: 1)


@pytest.fixture(scope="session")
def ex4_nights_played_once():
    """``policy.perform`` memoized for the session: a night a test plays in this process is there, in
    the fork, for every later check that chooses the same policy for the same room."""
    played: dict = {}
    perform = policy.perform

    def memoized(chosen, night, room=10**6):
        key = (chosen, night and night.model_dump_json(), room)
        if key not in played:
            played[key] = perform(chosen, night, room)
        return played[key]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(policy, "perform", memoized)
        yield
