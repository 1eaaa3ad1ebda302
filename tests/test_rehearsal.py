"""run_night reads the model's own count; its own count of the request encodes nothing new."""

from __future__ import annotations

import pytest

from nightwatch import before
from nightwatch.lab import rehearsal
from nightwatch.lab.compare import make_agent
from nightwatch.nights import MISSION, spring_night
from nightwatch.lab.rehearsal import local_encoding, run_night
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_cache_info


def test_prompt_tokens_are_the_servers_and_counted_tokens_are_the_agents_models():
    # A server counting in gpt-4's table, an agent that says gpt-4o: prompt_tokens is what the server
    # reported, counted_tokens is gpt-4o's count, and Japanese costs fewer tokens in gpt-4o's table.
    server = StandInModel(encoding_name="cl100k_base", context_limit=10**6)
    agent = before.NightWatchAgent("ヴェスパー", MISSION, "gpt-4o", client=server.client())
    frame = run_night(agent, spring_night())
    assert list(frame["prompt_tokens"]) == [r.prompt_tokens for r in server.requests]
    assert (frame["counted_tokens"] < frame["prompt_tokens"]).all()


@pytest.mark.parametrize("design", ["before", "three_tier"])
def test_the_local_count_of_a_request_encodes_no_text_again(monkeypatch, design):
    misses_in_run_night = []
    count = rehearsal.count_message_tokens

    def watched(messages, encoding_name):
        before_call = count_cache_info().misses
        size = count(messages, encoding_name)
        misses_in_run_night.append(count_cache_info().misses - before_call)
        return size

    monkeypatch.setattr(rehearsal, "count_message_tokens", watched)
    standin = StandInModel()
    frame = run_night(make_agent(design, standin.client()), spring_night())
    assert len(misses_in_run_night) == len(frame) and set(misses_in_run_night) == {0}
    assert list(frame["counted_tokens"]) == [r.prompt_tokens for r in standin.requests]


@pytest.mark.parametrize(
    ("model", "encoding_name"),
    [("gpt-4o-mini", "o200k_base"), ("gpt-4", "cl100k_base"), ("a-local-model", "o200k_base")],
)
def test_the_local_count_uses_the_agents_model(model, encoding_name):
    assert local_encoding(model) == encoding_name
