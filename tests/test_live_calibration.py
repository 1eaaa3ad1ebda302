"""Live mode against a server that counts tokens its own way: every call carries a reply cap, and the
three-tier memory learns the server's count from its reported ``usage.prompt_tokens``.

The server here is a fake, in-process OpenAI-compatible endpoint (an ``httpx2.MockTransport`` behind
the real ``openai`` client) whose tokenizer counts twice what ``o200k_base`` counts, as a small open
model's tokenizer may count Japanese. It answers with the stand-in's reader, refuses a request whose
prompt plus reply cap exceed its window (as OpenAI and llama.cpp's server do), and cuts a reply at
its cap.
"""

from __future__ import annotations

import json

import httpx2
import openai
import pytest

from nightwatch.__main__ import TERMINAL_WIDTH, display_width, main
from nightwatch.after import NightWatchAgent
from nightwatch.lab import live
from nightwatch.lab.compare import DEFAULT_POLICY, LIVE_REPLY_CAP, compare_designs, live_policy
from nightwatch.memory import ConversationMemory
from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin import StandInModel, ThreeLineSummarizer
from nightwatch.standin.model import context_length_error
from nightwatch.standin.reader import read
from nightwatch.tokens import CalibratedCounter, count_message_tokens, count_text_tokens, get_encoding

WINDOW = 2048


class DoublingServer:
    """A chat endpoint whose tokenizer counts every request at ``factor`` times ``o200k_base``."""

    def __init__(self, context_window: int = WINDOW, factor: int = 2) -> None:
        self.context_window = context_window
        self.factor = factor
        self.bodies: list[dict] = []

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        messages = body["messages"]
        prompt = self.factor * count_message_tokens(messages)
        cap = body.get("max_completion_tokens")
        if prompt + (cap or 0) > self.context_window:
            return httpx2.Response(400, json=context_length_error(self.context_window, prompt, cap))
        reply = read(messages).content
        if cap is not None and count_text_tokens(reply) > cap:
            encoding = get_encoding()
            reply = encoding.decode(encoding.encode(reply)[:cap])
        return httpx2.Response(200, json={
            "id": "chatcmpl-doubling", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": count_text_tokens(reply),
                      "total_tokens": prompt + count_text_tokens(reply)},
        })

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(api_key="local", base_url="http://doubling.invalid/v1", max_retries=0,
                             http_client=httpx2.Client(transport=httpx2.MockTransport(self.handle)))


def live_comparison(server: DoublingServer, calibrate: bool = True):
    return compare_designs(celebration_eve(), WINDOW, live_policy(WINDOW, LIVE_REPLY_CAP), client_factory=server.client,
                           model="local-model", reply_cap=LIVE_REPLY_CAP, calibrate=calibrate)


# --- the counter itself ------------------------------------------------------------------------------


def test_the_counter_learns_the_ratio_and_then_counts_at_least_what_the_server_reported():
    counter = CalibratedCounter()
    request = [{"role": "system", "content": MISSION}, {"role": "user", "content": "十一時です。"}]
    assert counter("十一時です。") == count_text_tokens("十一時です。")  # nothing learned yet: offline counts
    reported = 2 * count_message_tokens(request)
    assert counter.observe(request, reported) >= 2.0
    assert counter.observed == [counter.ratio]
    recounted = sum(3 + counter(m["role"]) + counter(m["content"]) for m in request) + 3
    assert reported <= recounted <= reported + 3 * (len(request) + 1)  # never under, over by framing at most


def test_the_ratio_only_grows_and_ignores_a_missing_report():
    counter = CalibratedCounter()
    request = [{"role": "user", "content": "今夜の務めは何ですか。"}]
    counter.observe(request, 3 * count_message_tokens(request))
    high = counter.ratio
    counter.observe(request, count_message_tokens(request))  # a call that counted like ours
    counter.observe(request, None)  # a server that sent no usage
    assert counter.ratio == high and len(counter.observed) == 2


# --- the reply cap ---------------------------------------------------------------------------------


def test_every_live_call_of_every_design_carries_the_reply_cap():
    server = DoublingServer()
    live_comparison(server)
    assert server.bodies and all(body.get("max_completion_tokens") == LIVE_REPLY_CAP for body in server.bodies)


def test_an_agent_without_a_cap_sends_none_so_the_offline_story_is_unchanged():
    server = DoublingServer(context_window=100_000)
    memory = ConversationMemory(MISSION, DEFAULT_POLICY, count_text_tokens, ThreeLineSummarizer())
    NightWatchAgent("ヴェスパー", memory, client=server.client()).run("十一時です。")
    assert "max_completion_tokens" not in server.bodies[0]


@pytest.mark.parametrize("cap", [0, -1, 2.5, True])
def test_a_reply_cap_that_is_not_a_positive_int_is_refused(cap):
    memory = ConversationMemory(MISSION, DEFAULT_POLICY, count_text_tokens, ThreeLineSummarizer())
    with pytest.raises(ValueError, match="reply_cap"):
        NightWatchAgent("ヴェスパー", memory, client=StandInModel().client(), reply_cap=cap)


def test_the_stand_in_honours_max_completion_tokens_like_max_tokens():
    standin = StandInModel(context_limit=WINDOW)
    client = standin.client()
    request = [{"role": "system", "content": MISSION}, {"role": "user", "content": "今夜の務めは何ですか。"}]
    prompt = count_message_tokens(request)
    for field in ("max_tokens", "max_completion_tokens"):
        cut = client.chat.completions.create(model="gpt-4o", messages=request, **{field: 3})
        assert cut.choices[0].finish_reason == "length" and cut.usage.completion_tokens == 3
        with pytest.raises(openai.BadRequestError) as refused:  # prompt + cap over the window: refused
            client.chat.completions.create(model="gpt-4o", messages=request, **{field: WINDOW - prompt + 1})
        assert refused.value.code == "context_length_exceeded"


# --- calibration keeps the budget on a server that counts double -----------------------------------


def test_calibrated_three_tiers_survive_a_server_that_counts_double():
    server = DoublingServer()
    table, frames = live_comparison(server)
    three_tier = frames["three_tier"]
    assert three_tier["error"].isna().all() and len(three_tier) == len(celebration_eve().turns)
    assert (three_tier["prompt_tokens"] + LIVE_REPLY_CAP <= WINDOW).all()
    assert table.loc["三層（銘・束ね・窓）", "count_ratio"] == pytest.approx(2.0)
    # the designs without a memory to calibrate are refused by this server, as they would be by any
    assert frames["before"]["error"].notna().iloc[-1]


def test_without_calibration_the_same_budget_does_not_protect_that_server():
    table, frames = live_comparison(DoublingServer(), calibrate=False)
    stopped = frames["three_tier"]["error"].dropna()
    assert len(stopped) == 1 and stopped.iloc[0].startswith("400 context_length_exceeded")


def test_the_live_cli_shows_the_ratio_and_still_fits_80_columns(monkeypatch, capsys):
    server = DoublingServer()
    monkeypatch.setattr(live, "choose_model", lambda **_: live.ModelChoice(
        client=server.client(), model="local-model", live=True, standin=None))
    main([])
    out = capsys.readouterr().out
    assert max(display_width(line) for line in out.splitlines()) <= TERMINAL_WIDTH
    ratio = next(line for line in out.splitlines() if line.startswith("数え方の比（最大）"))
    assert ratio.split()[1:] == ["2.00", "2.00", "2.00"]
    assert all(body.get("max_completion_tokens") == LIVE_REPLY_CAP for body in server.bodies)
