"""What chapter 8 claims about the pinned frameworks' knobs and failures, checked at the stand-in's door.

Each test states one behaviour of LangChain 1.5.2 or LlamaIndex 0.14.25 the chapter shows (the knobs are
not budgets; a failed summary call loses turns; the summary input is trimmed from the oldest side; the
chars/4 estimate undercounts Japanese). If an upgrade changes the behaviour, the test fails and the
chapter's text must change with it.
"""

from __future__ import annotations

import pytest

from nightwatch.lab.rehearsal import run_night
from nightwatch.nights import MISSION
from nightwatch.standin import StandInModel
from nightwatch.tokens import count_message_tokens
from tests.test_frameworks import first_turns, needs_frameworks

pytestmark = needs_frameworks


def test_the_middleware_fires_on_reported_usage_when_its_own_count_is_below_the_trigger():
    from nightwatch.frameworks.with_langchain import SummarizingAgent

    agent = SummarizingAgent(StandInModel(), MISSION, trigger_tokens=300, keep_messages=5)
    run_night(agent, first_turns(16))
    firings = agent.middleware.firings
    assert len(firings) == sum(agent.summary_calls) > 0
    # every firing passed one of the two tests, and the system prompt kept the state's count low
    assert all(f.counted >= f.threshold or f.reported >= f.threshold for f in firings)
    by_usage = [f for f in firings if f.path == "reported usage"]
    assert by_usage and all(f.counted < f.threshold <= f.reported for f in by_usage)


def test_summary_buffer_sends_more_than_its_token_limit():
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    limit = 300
    agent = ChatEngineAgent(StandInModel(), MISSION, memory="summary", token_limit=limit)
    frame = run_night(agent, first_turns(20))
    stacks = [agent.request_stack(messages) for messages in agent.answer_requests]
    largest = max(stacks, key=lambda stack: sum(stack.values()))
    # the verbatim part alone fills the limit; the summary and the mission come on top of it
    assert largest["束ね"] > 0 and largest["銘"] > 0
    assert frame["prompt_tokens"].max() > limit + largest["銘"] + largest["束ね"] // 2


def test_a_static_memory_block_pins_the_mission_in_a_system_message():
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    agent = ChatEngineAgent(StandInModel(), MISSION, memory="static", token_limit=250)
    run_night(agent, first_turns(18))
    assert all(agent.mission_sent())
    first_system = [m for m in agent.answer_requests[-1] if m["role"] == "system"]
    assert len(first_system) == 1 and first_system[0]["content"] != MISSION  # wrapped in <memory>…
    assert agent.tiers(agent.answer_requests[-1])[0] == "mission"
    with pytest.raises(ValueError, match="static block"):
        ChatEngineAgent(StandInModel(), MISSION, memory="static", token_limit=250, mission_in_history=True)


def test_a_failed_summary_call_loses_the_newest_turns_of_the_summary_buffer():
    import openai

    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    night = first_turns(20)
    healthy = ChatEngineAgent(StandInModel(), MISSION, memory="summary", token_limit=300)
    run_night(healthy, night)
    first_summary = next(n for n, r in enumerate(healthy.standin.requests, 1) if r.messages not in healthy.answer_requests)

    failing = ChatEngineAgent(StandInModel(faults={first_summary: "server_error"}), MISSION,
                              memory="summary", token_limit=300)
    for turn in night.turns[: first_summary - 1]:
        failing.run(turn.text)
    before = list(failing.framework_memory.get_all())
    with pytest.raises(openai.InternalServerError):
        failing.run(night.turns[first_summary - 1].text)
    after = failing.framework_memory.get_all()
    assert 0 < len(after) < len(before)
    assert after == before[: len(after)]  # what is left is the oldest part: the newest turns are gone


def test_a_small_trim_tokens_to_summarize_leaves_the_previous_summary_out_of_the_summary_request():
    from nightwatch.frameworks.with_langchain import SummarizingAgent

    def previous_summary_sent(trim: int | None) -> list[bool]:
        agent = SummarizingAgent(StandInModel(), MISSION, trigger_tokens=300, keep_messages=5,
                                 trim_tokens_to_summarize=trim)
        run_night(agent, first_turns(24))
        asks = [r for r in agent.standin.requests if r.messages not in agent.answer_requests]
        return ["Here is a summary" in r.messages[-1]["content"] for r in asks]

    untrimmed, trimmed = previous_summary_sent(None), previous_summary_sent(150)
    assert len(untrimmed) > 1 and all(untrimmed[1:])  # every later request carries the last summary
    assert len(trimmed) > 1 and not all(trimmed[1:])  # some were written without the summary before them


def test_the_chars_over_four_estimate_counts_japanese_at_about_half():
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.messages.utils import count_tokens_approximately

    from nightwatch.frameworks.with_langchain import count_langchain_tokens

    turns = first_turns(20).turns
    messages = [m for turn in turns for m in (HumanMessage(turn.text), AIMessage("承知いたしました。"))]
    approx, exact = count_tokens_approximately(messages), count_langchain_tokens(messages)
    assert 0.4 < approx / exact < 0.6
    roles = {"human": "user", "ai": "assistant"}
    assert exact == count_message_tokens([{"role": roles[m.type], "content": m.text} for m in messages])


def test_plot_request_stacks_draws_a_framework_request_with_its_own_tiers():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent
    from nightwatch.lab.plotting import plot_request_stacks

    agent = ChatEngineAgent(StandInModel(), MISSION, memory="summary", token_limit=300)
    run_night(agent, first_turns(14))
    fig, ax = plt.subplots()
    table = plot_request_stacks(ax, agent.answer_requests, 2048, classify=agent.tiers)
    plt.close(fig)
    stacks = [agent.request_stack(messages) for messages in agent.answer_requests]
    assert table["summary"].tolist() == [stack["束ね"] for stack in stacks]
    assert table["合計"].tolist() == [r.prompt_tokens for r in agent.standin.requests
                                     if r.messages in agent.answer_requests]
