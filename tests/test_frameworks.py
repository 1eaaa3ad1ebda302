"""The framework adapters of chapter 8: what LangChain and LlamaIndex actually send to the stand-in.

Every check reads the stand-in's record of the requests, not the adapters' own bookkeeping. The tests
that need LangChain or LlamaIndex are skipped, with the reason, when the ``frameworks`` extra is not
installed; the packaging checks run everywhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.util import find_spec
from pathlib import Path

import pytest

from nightwatch.before import TrimmedNightWatchAgent
from nightwatch.nights import MISSION, Night, celebration_eve
from nightwatch.standin.reader import read
from nightwatch.lab.rehearsal import run_night
from nightwatch.standin import StandInModel

ROOT = Path(__file__).resolve().parents[1]
MISSING = [name for name in ("langchain", "langchain_openai", "llama_index.core") if find_spec(name.split(".")[0]) is None]
needs_frameworks = pytest.mark.skipif(
    bool(MISSING),
    reason=f"the 'frameworks' extra is not installed (missing {', '.join(MISSING)}): "
    'pip install -c constraints.txt -e ".[frameworks]"',
)


def first_turns(count: int) -> Night:
    eve = celebration_eve()
    return Night(name=f"{eve.name}（{count}回）", turns=eve.turns[:count])


def mission_sent(request) -> bool:
    return any(m["role"] == "system" and m["content"] == MISSION for m in request.messages)


# --- packaging: these run without the extra ---------------------------------------------------


def test_import_nightwatch_does_not_import_any_framework():
    code = (
        "import sys, nightwatch, nightwatch.frameworks; "
        "print(sorted(m for m in ('langchain', 'langchain_core', 'llama_index') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == "[]"


def test_the_frameworks_extra_is_pinned_and_leaves_out_the_openai_2_only_package():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"][
        "frameworks"
    ]
    names = {re.split(r"[<>=!~ \[]", requirement, maxsplit=1)[0].lower() for requirement in extra}
    pinned = {
        line.split("==")[0].lower().replace("_", "-")
        for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line
    }
    assert names <= pinned
    assert "llama-index-llms-openai" not in pinned  # it requires openai<3


def chapter_8_first_code_cell() -> str:
    import json

    notebook = json.loads((ROOT / "notebooks" / "08_frameworks.ipynb").read_text(encoding="utf-8"))
    return next("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code")


def hide_the_frameworks(monkeypatch) -> None:
    """As after the README's first command alone: none of the extra's packages can be imported."""
    for name in [m for m in sys.modules if m.split(".")[0] in ("langchain", "langchain_core", "langchain_openai",
                                                              "llama_index")]:
        monkeypatch.delitem(sys.modules, name)
    for name in ("langchain", "langchain_core", "langchain_openai", "llama_index"):
        monkeypatch.setitem(sys.modules, name, None)  # import and find_spec both fail, as when not installed


def test_without_the_extra_chapter_8_stops_with_the_install_command_in_japanese(monkeypatch):
    from nightwatch.frameworks import INSTALL_COMMAND, FrameworksNotInstalled, require_frameworks

    assert INSTALL_COMMAND == 'pip install -c constraints.txt -e ".[frameworks]"'
    hide_the_frameworks(monkeypatch)
    with pytest.raises(ModuleNotFoundError) as caught:  # still what code catching the usual error expects
        require_frameworks()
    refusal = caught.value
    assert isinstance(refusal, FrameworksNotInstalled) and refusal.name == "langchain"
    assert refusal.missing == ["langchain", "langchain-core", "langchain-openai", "llama-index-core"]
    message = str(refusal)
    assert INSTALL_COMMAND in message and "まだ入っていません" in message and "カーネルを再起動" in message
    # Jupyter shows the message alone, not a traceback into the library
    assert refusal._render_traceback_() == [f"FrameworksNotInstalled: {message}"]


def test_chapter_8s_first_code_cell_checks_the_extra_before_importing_it(monkeypatch):
    from nightwatch.frameworks import FrameworksNotInstalled

    cell = chapter_8_first_code_cell()
    check, rest = cell.split("require_frameworks()", 1)
    assert not re.search(r"langchain|llama_index", check), "a framework is imported before the check"
    assert re.search(r"^from langchain_core", rest, flags=re.MULTILINE)
    hide_the_frameworks(monkeypatch)
    with pytest.raises(FrameworksNotInstalled):
        exec(compile(cell, "08_frameworks.ipynb[1]", "exec"), {})


@needs_frameworks
def test_with_the_extra_the_check_is_silent(capsys):
    from nightwatch.frameworks import require_frameworks

    require_frameworks()
    assert capsys.readouterr() == ("", "")  # the saved output of chapter 8's first cell is unchanged


# --- LangChain ---------------------------------------------------------------------------------


@needs_frameworks
def test_langchain_token_count_matches_what_the_standin_counts_of_the_sent_request():
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from nightwatch.frameworks.with_langchain import chat_model, count_langchain_tokens

    standin = StandInModel()
    messages = [
        SystemMessage(MISSION),
        HumanMessage("申し送り: 楽屋口の鍵を新しいものに替えました。"),
        AIMessage("申し送り、確かに承りました。"),
        HumanMessage("（柱時計が鳴る）七時です。巡回をお願いします。"),
    ]
    reply = chat_model(standin).invoke(messages)
    assert [m["role"] for m in standin.requests[-1].messages] == ["system", "user", "assistant", "user"]
    assert count_langchain_tokens(messages) == standin.requests[-1].prompt_tokens
    assert reply.usage_metadata["input_tokens"] == standin.requests[-1].prompt_tokens


@needs_frameworks
def test_trim_messages_counting_messages_sends_exactly_what_history_minus_12_sends():
    from nightwatch.frameworks.with_langchain import TrimmingAgent

    night = first_turns(16)
    by_hand, framework = StandInModel(), StandInModel()
    run_night(TrimmedNightWatchAgent("ヴェスパー", MISSION, client=by_hand.client()), night)
    run_night(
        TrimmingAgent(framework, MISSION, max_tokens=12, include_system=False, start_on=None, count_messages=True),
        night,
    )
    assert [r.messages for r in framework.requests] == [r.messages for r in by_hand.requests]
    assert not mission_sent(framework.requests[-1])  # the root is cut, as in act 2


@needs_frameworks
def test_include_system_decides_whether_trim_messages_keeps_the_mission():
    from nightwatch.frameworks.with_langchain import TrimmingAgent

    night = first_turns(14)
    kept, dropped = StandInModel(), StandInModel()
    run_night(TrimmingAgent(kept, MISSION, max_tokens=400, include_system=True), night)
    run_night(TrimmingAgent(dropped, MISSION, max_tokens=400, include_system=False), night)
    assert all(mission_sent(request) for request in kept.requests)
    assert max(r.prompt_tokens for r in kept.requests) <= 400
    # start_on="human" drops everything before the first human message, the mission included
    assert not any(mission_sent(request) for request in dropped.requests)


@needs_frameworks
def test_summarization_middleware_pins_a_system_prompt_and_its_summary_calls_are_counted():
    from nightwatch.frameworks.with_langchain import SummarizingAgent

    standin = StandInModel()
    agent = SummarizingAgent(standin, MISSION, trigger_tokens=300, keep_messages=5)
    frame = run_night(agent, first_turns(14))
    assert frame["error"].isna().all()
    assert len(standin.requests) == len(frame) + sum(agent.summary_calls)
    assert sum(agent.summary_calls) > 0
    assert frame["mission_in_request"].all()
    # the middleware swapped the old messages for its summary: the state no longer holds the first turn
    assert all(frame["user_text"].iloc[0] != m.text for m in agent.state_messages())


@needs_frameworks
def test_summarization_middleware_summarizes_away_a_mission_kept_in_the_history():
    from nightwatch.frameworks.with_langchain import SummarizingAgent

    standin = StandInModel()
    agent = SummarizingAgent(standin, MISSION, trigger_tokens=300, keep_messages=5, mission_in_history=True)
    frame = run_night(agent, first_turns(14))
    assert frame["mission_in_request"].iloc[0]
    assert not frame["mission_in_request"].iloc[-1]


# --- LlamaIndex --------------------------------------------------------------------------------


@needs_frameworks
def test_llamaindex_llm_sends_roles_intact_through_the_standins_client():
    from llama_index.core.base.llms.types import ChatMessage, MessageRole

    from nightwatch.frameworks.with_llamaindex import standin_llm

    standin = StandInModel()
    question = "（柱時計が鳴る）八時です。巡回をお願いします。"
    response = standin_llm(standin).chat(
        [ChatMessage(role=MessageRole.SYSTEM, content=MISSION), ChatMessage(role=MessageRole.USER, content=question)]
    )
    plain = [{"role": "system", "content": MISSION}, {"role": "user", "content": question}]
    assert standin.requests[-1].messages == plain
    # the reply reaches LlamaIndex unchanged: what the stand-in says to exactly this request
    assert response.message.content == read(plain).content


@needs_frameworks
@pytest.mark.parametrize("memory", ["summary", "memory"])
def test_chat_engine_system_prompt_pins_the_mission_and_history_placement_loses_it(memory):
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    night = first_turns(18)
    pinned = run_night(ChatEngineAgent(StandInModel(), MISSION, memory=memory, token_limit=250), night)
    stored = run_night(
        ChatEngineAgent(StandInModel(), MISSION, memory=memory, token_limit=250, mission_in_history=True), night
    )
    assert pinned["mission_in_request"].all()
    assert not stored["mission_in_request"].iloc[-1]  # pushed out (Memory) or folded into a summary


@needs_frameworks
def test_request_stack_bands_add_up_to_the_standins_count():
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    standin = StandInModel()
    agent = ChatEngineAgent(standin, MISSION, memory="summary", token_limit=300)
    frame = run_night(agent, first_turns(14))
    stacks = [agent.request_stack(messages) for messages in agent.answer_requests]
    assert [sum(stack.values()) for stack in stacks] == frame["prompt_tokens"].tolist()
    assert stacks[0]["束ね"] == 0 and stacks[-1]["束ね"] > 0  # a summary appears once the buffer overflows
    assert all(stack["銘"] > 0 for stack in stacks)


@needs_frameworks
def test_adapters_refuse_bad_configuration():
    from nightwatch.frameworks.with_langchain import TrimmingAgent
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    with pytest.raises(ValueError, match="memory must be"):
        ChatEngineAgent(StandInModel(), MISSION, memory="vector", token_limit=300)
    with pytest.raises(ValueError, match="max_tokens"):
        TrimmingAgent(StandInModel(), MISSION, max_tokens=0, include_system=True)
    with pytest.raises(ValueError, match="mission"):
        TrimmingAgent(StandInModel(), "  ", max_tokens=100, include_system=True)
    with pytest.raises(TypeError, match="StandInModel"):
        TrimmingAgent(object(), MISSION, max_tokens=100, include_system=True)
