"""Counting as the server counts: a ratio learned, call by call, from its reported ``usage.prompt_tokens``.

Offline our count of a request is the stand-in's own (the same ``o200k_base`` table). A live server
may split text differently: a small open model's tokenizer can count Japanese twice as many tokens as
``o200k_base``, and then a budget computed with our counts does not protect that server.

``CalibratedCounter`` wraps a text counter. After each answer the agent hands it the request and the
size the server reported (``observe``); from then on every text counts ``ratio`` times as much,
rounded up. So the memory's threshold and budget are measured in the server's tokens, as nearly as
the night so far has shown them.

Three choices keep the budget on the safe side without letting one report end the night:

* the ratio is the largest of the last ``RECENT_CALLS`` reports: a budget must hold for the request
  that counts most unlike ours, and counting too much costs a little room, never a refusal; but a
  high ratio that the calls since have not shown again ages out, so the ratio can fall as well as rise;
* it is bounded (at most ``MAX_RATIO``): a report that shows a ratio outside ``PLAUSIBLE_RATIOS`` (a server that claims a
  million tokens for a short request, or none for a long one) is ignored, and noted in ``ignored``;
  so is anything that is not a count (a float, a string, 10**400): the answer has arrived, and
  nothing here may raise after it;
* it is learned from the texts alone (the request's count minus its per-message framing), while the
  framing stays as we count it, so the calibrated count of any recent request is at least what the
  server reported for it.

Before the first answer nothing is known and the ratio is 1: the first request is counted as offline.

>>> counter = CalibratedCounter()
>>> request = [{"role": "user", "content": "hi"}]  # 8 tokens: 6 of framing, 1 for "user", 1 for "hi"
>>> counter("hi"), counter.observe(request, reported_prompt_tokens=10), counter("hi")
(1, 2.0, 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from nightwatch.tokens.counting import chat_request_tokens, count_text_tokens


RECENT_CALLS = 8
"""How many of the latest reports the ratio is the largest of."""
PLAUSIBLE_RATIOS = (0.25, 4.0)
"""The whole request's ratios a tokenizer can plausibly show against ``o200k_base`` (the widest known
differ by about two); a report outside them says more about the server than about its tokenizer."""
MAX_RATIO = 8.0
"""The most the texts' ratio may be: on a short request the framing, counted as ours, leaves few text
tokens to divide by, so a plausible report can still show a text ratio above the request's."""


class CalibratedCounter:
    """A text counter that counts as the server does, learning the ratio from its usage reports."""

    def __init__(self, count_text: Callable[[str], int] = count_text_tokens) -> None:
        if not callable(count_text):
            raise TypeError("count_text must count the tokens of one string")
        self.count_text = count_text
        self.ratio = 1.0
        self.observed: list[float] = []  # the ratio each answered call showed, in order
        self.ignored: list[str] = []  # why a report taught nothing, one line per report

    def __call__(self, text: str) -> int:
        counted = self.count_text(text)
        return counted if self.ratio == 1.0 else math.ceil(counted * self.ratio)

    def observe(self, messages: Sequence[Mapping[str, str]], reported_prompt_tokens: object) -> float:
        """Learn from one answered request and the ``usage.prompt_tokens`` the server reported for it.

        Never raises: a report it cannot use is noted in ``ignored`` and the ratio stays as it was."""
        reported = reported_prompt_tokens
        if reported is None:
            return self.ratio  # a server that reports no usage teaches nothing, and says so itself
        if type(reported) is not int or reported < 0:
            return self._ignore(f"usage.prompt_tokens {_shown(reported)} is not a count of tokens")
        texts = sum(self.count_text(value) for message in messages for value in message.values())
        framing = chat_request_tokens(messages, self.count_text) - texts
        if texts <= 0:
            return self.ratio
        low, high = PLAUSIBLE_RATIOS
        ours = texts + framing
        if not low * ours <= reported <= high * ours:  # compared as integers: no overflow however large
            return self._ignore(f"usage.prompt_tokens {_shown(reported)} for a request of {ours} tokens here "
                                f"is outside the plausible ratios {low:g}..{high:g}; ignored")
        self.observed.append(min(max((reported - framing) / texts, low), MAX_RATIO))
        self.ratio = max(self.observed[-RECENT_CALLS:])
        return self.ratio

    def _ignore(self, why: str) -> float:
        self.ignored.append(why)
        return self.ratio

    def __repr__(self) -> str:
        return f"CalibratedCounter(ratio={self.ratio:.2f}, {len(self.observed)} calls observed)"


def _shown(value: object, limit: int = 40) -> str:
    """A report as a line can show it: an integer of 10**400 is named by its size, not printed."""
    if type(value) is int and value.bit_length() > 128:
        return f"(an integer of about {int(value.bit_length() * math.log10(2)) + 1} digits)"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
