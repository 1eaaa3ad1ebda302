"""Workshop checks: each exercise notebook's answer, tried on nights the participant has not seen.

Each exercise notebook ends with a check cell that calls one function here and displays the
``CheckReport`` it returns: every sub-check with ✓ or ✗, the evidence and a hint, in Japanese. One
module per idea: ``harness`` (the one place the participant's code is called: time limits,
interrupts, printing), ``report`` (the result and its wording), ``stage`` (unseen nights from a
seed, playing them, and judging a morning), and one short module per exercise.
"""

from nightwatch.workshop.clearing import check_clearing_choice
from nightwatch.workshop.crash import check_refused_call
from nightwatch.workshop.own_night import check_my_night
from nightwatch.workshop.oversized import ShrinkingNightWatchAgent, check_shrink_exchange
from nightwatch.workshop.pinning import PinnedTrimAgent, check_pinned_trim
from nightwatch.workshop.policy import SCRIPT_PROMISES, check_policy_choice
from nightwatch.workshop.report import CheckItem, CheckReport
from nightwatch.workshop.summary import SUMMARY_TOKEN_CAP, check_summarizer

__all__ = [
    "SCRIPT_PROMISES", "SUMMARY_TOKEN_CAP", "CheckItem", "CheckReport", "PinnedTrimAgent", "check_clearing_choice",
    "check_my_night",
    "ShrinkingNightWatchAgent", "check_pinned_trim", "check_policy_choice", "check_refused_call",
    "check_shrink_exchange", "check_summarizer",
]
