"""Live mode when a server's usage reports are wrong: one bad report never ends a night.

The server here is the doubling fake of ``test_live_calibration`` (it counts twice what
``o200k_base`` counts) with one call whose ``usage.prompt_tokens`` is replaced by something no
tokenizer would report: a million tokens, 10**400, a float. The calibrated three tiers must finish
the night, record every exchange, note the report they ignored, and the comparison table must take
whatever number the server sent."""

from __future__ import annotations

import json

import httpx2
import pytest

from nightwatch.nights import celebration_eve
from nightwatch.tokens import CalibratedCounter, count_message_tokens
from nightwatch.tokens.calibration import RECENT_CALLS
from test_live_calibration import DoublingServer, live_comparison

TURNS = len(celebration_eve().turns)


class OneBadReport(DoublingServer):
    """Doubles every count, except that call ``at`` reports ``prompt_tokens`` as ``reported``."""

    def __init__(self, reported: object, at: int = 3) -> None:
        super().__init__()
        self.reported, self.at, self.calls = reported, at, 0

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        response = super().handle(request)
        self.calls += 1
        if self.calls % (TURNS + 1) != self.at or response.status_code != 200:  # the same call of each design
            return response
        body = json.loads(response.content)
        body["usage"]["prompt_tokens"] = self.reported
        return httpx2.Response(200, content=json.dumps(body).encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("reported", [10**6, 10**400], ids=["a million", "10**400"])
def test_one_implausible_report_is_ignored_and_the_three_tiers_finish_the_night(reported):
    table, frames = live_comparison(OneBadReport(reported))
    three_tier = frames["three_tier"]
    assert three_tier["error"].isna().all() and len(three_tier) == TURNS
    assert table.loc["三層（銘・束ね・窓）", "survived"]


def test_the_ignored_report_is_noted_and_the_ratio_stays_what_the_server_showed():
    counter = CalibratedCounter()
    request = [{"role": "system", "content": "あなたは夜警です。"}, {"role": "user", "content": "十一時です。"}]
    counter.observe(request, 2 * count_message_tokens(request))
    learned = counter.ratio
    assert counter.observe(request, 10**6) == learned and counter.observe(request, 10**400) == learned
    assert len(counter.ignored) == 2 and "10**400" not in counter.ignored[1] and "401 digits" in counter.ignored[1]


@pytest.mark.parametrize("reported", [1.5, float("inf"), float("nan"), "many", True, -1, 10**5000],
                         ids=["float", "inf", "nan", "text", "bool", "negative", "5000 digits"])
def test_a_report_that_is_not_a_count_never_raises(reported):
    counter = CalibratedCounter()
    request = [{"role": "user", "content": "今夜の務めは何ですか。"}]
    assert counter.observe(request, reported) == 1.0 and len(counter.ignored) == 1


def test_the_ratio_falls_again_once_a_high_report_is_no_longer_recent():
    counter = CalibratedCounter()
    request = [{"role": "user", "content": "今夜の務めは何ですか。巡回の順番も教えてください。"}]
    counter.observe(request, 3 * count_message_tokens(request))
    high = counter.ratio
    for _ in range(RECENT_CALLS):
        counter.observe(request, count_message_tokens(request))
    assert counter.ratio < high and counter.ratio == pytest.approx(1.0)


@pytest.mark.parametrize("reported", [1234.5, 10**400], ids=["a float", "a huge integer"])
def test_the_comparison_table_takes_any_number_the_server_sends(reported):
    table, frames = live_comparison(OneBadReport(reported))
    assert len(table) == 3 and all(len(frame) >= 3 for frame in frames.values())
    assert reported in list(frames["three_tier"]["prompt_tokens"])
    assert table.loc["三層（銘・束ね・窓）", "largest_request"] >= 1234
