"""Counting as the server counts: a ratio learned, call by call, from its reported ``usage.prompt_tokens``.

Offline our count of a request is the stand-in's own (the same ``o200k_base`` table). A live server
may split text differently: a small open model's tokenizer can count Japanese twice as many tokens as
``o200k_base``, and then a budget computed with our counts does not protect that server.

``CalibratedCounter`` wraps a text counter. After each answer the agent hands it the request and the
size the server reported (``observe``); from then on every text counts ``ratio`` times as much,
rounded up. So the memory's threshold and budget are measured in the server's tokens, as nearly as
the night so far has shown them.

Two choices keep the budget on the safe side:

* the ratio only grows (the largest seen so far): a budget must hold for the request that counts
  most unlike ours, and counting too much costs a little room, never a refusal;
* it is learned from the texts alone (the request's count minus its per-message framing), while the
  framing stays as we count it, so the calibrated count of any request already observed is at least
  what the server reported for it.

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


class CalibratedCounter:
    """A text counter that counts as the server does, learning the ratio from its usage reports."""

    def __init__(self, count_text: Callable[[str], int] = count_text_tokens) -> None:
        if not callable(count_text):
            raise TypeError("count_text must count the tokens of one string")
        self.count_text = count_text
        self.ratio = 1.0
        self.observed: list[float] = []  # the ratio each answered call showed, in order

    def __call__(self, text: str) -> int:
        counted = self.count_text(text)
        return counted if self.ratio == 1.0 else math.ceil(counted * self.ratio)

    def observe(self, messages: Sequence[Mapping[str, str]], reported_prompt_tokens: int) -> float:
        """Learn from one answered request and the ``usage.prompt_tokens`` the server reported for it."""
        if type(reported_prompt_tokens) is not int or reported_prompt_tokens < 0:
            return self.ratio  # a server that reports no usable size teaches nothing
        texts = sum(self.count_text(value) for message in messages for value in message.values())
        framing = chat_request_tokens(messages, self.count_text) - texts
        if texts > 0:
            shown = (reported_prompt_tokens - framing) / texts
            self.observed.append(shown)
            self.ratio = max(self.ratio, shown)
        return self.ratio

    def __repr__(self) -> str:
        return f"CalibratedCounter(ratio={self.ratio:.2f}, {len(self.observed)} calls observed)"
