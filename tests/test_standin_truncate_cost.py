"""``context_overflow="truncate_front"`` drops messages from the front in time linear in their number:
each message is counted once, not the whole request again after every message dropped."""

from __future__ import annotations

import pytest

import nightwatch.tokens.counting as counting
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_message_tokens

MESSAGES = 1000


def test_truncating_a_long_request_counts_each_message_a_bounded_number_of_times(monkeypatch):
    counted: list[int] = []
    real = counting._cached_count

    def counting_cache(*key: object) -> int:
        counted.append(1)
        return real(*key)

    messages = [{"role": "user" if n % 2 else "assistant", "content": f"{n}時の巡回、異常なし。"} for n in range(MESSAGES)]
    standin = StandInModel(context_limit=300, context_overflow="truncate_front")
    monkeypatch.setattr(counting, "_cached_count", counting_cache)
    response = standin.client().chat.completions.create(model="gpt-4o", messages=messages)
    monkeypatch.undo()
    texts = 2 * MESSAGES  # a role and a content per message
    assert len(counted) <= 4 * texts  # linear; recounting after each drop is about MESSAGES * texts / 2
    kept = standin.requests[-1]
    assert len(kept.dropped) + len(kept.messages) == MESSAGES and kept.dropped
    assert response.usage.prompt_tokens == count_message_tokens(kept.messages) <= 300
    assert count_message_tokens(messages[len(kept.dropped) - 1:]) > 300  # no message dropped that need not be


@pytest.mark.parametrize("limit", [40, 200, 2048])
def test_the_cut_is_the_same_as_recounting_after_each_drop(limit):
    messages = [{"role": "system", "content": "夜警の務め。"}] + [
        {"role": "user", "content": "扉" * (n % 7 + 1)} for n in range(60)]
    standin = StandInModel(context_limit=limit, context_overflow="truncate_front")
    standin.client().chat.completions.create(model="gpt-4o", messages=messages)
    cut = 0
    while cut < len(messages) - 1 and count_message_tokens(messages[cut:]) > limit:
        cut += 1
    assert len(standin.requests[-1].dropped) == cut
