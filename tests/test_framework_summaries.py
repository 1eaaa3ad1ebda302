"""Summary requests shaped exactly as the frameworks send them, answered by the stand-in.

Where the framework is installed (the ``frameworks`` extra, which the test command installs), the
request is built by the framework's own code, so a new release that changes its shape changes
the test: LangChain v1's ``SummarizationMiddleware`` (its ``_format_summary_prompt``: the default
prompt with the messages tagged ``<message type="human">…</message>``, sent as one human message;
a previous summary is the human message its ``_build_new_messages`` writes) and LlamaIndex's
``ChatSummaryMemoryBuffer`` (a system message with ``summarize_prompt``, then a user message from
its ``_get_prompt_to_summarize``: ``"Transcript so far: user: …``; a previous summary is a system
message in the history). The last tests run whole nights through both and read the summary the
framework kept. For the two packages the extra does not install, the default prompts are copied:
LangChain's ``ConversationSummaryBufferMemory`` (``SUMMARY_PROMPT`` with ``get_buffer_string``
lines, sent as one human message) and langmem's ``summarize_messages`` (the messages themselves,
then a user message asking for the summary).
"""

from __future__ import annotations

import pytest

from nightwatch.nights import MISSION, celebration_eve
from nightwatch.standin.reader import read
from nightwatch.frameworks.published_prompts import LANGCHAIN_SUMMARY_PROMPT, LANGMEM_EXISTING, LANGMEM_INITIAL
from nightwatch.standin import StandInModel

ROUTINE = "職人さんたちが、舞台袖を出入りしています。"
EXAMPLE_WORDS = "artificial intelligence"


def conversation() -> list[dict[str, str]]:
    """The eve from 00:00 to 02:15 as the watchman answered it: chimes, routine, two incidents."""
    turns = [t for t in celebration_eve().turns if "00:00" <= t.clock <= "02:15"]
    messages: list[dict[str, str]] = []
    for turn in turns:
        messages.append({"role": "user", "content": turn.text})
        reply = read([{"role": "system", "content": MISSION}, *messages]).content
        messages.append({"role": "assistant", "content": reply})
    return messages


def buffer_string(messages) -> str:
    prefix = {"user": "Human", "assistant": "AI", "system": "System"}
    return "\n".join(f"{prefix[m['role']]}: {m['content']}" for m in messages)


def langchain_buffer(messages, summary=""):
    return [{"role": "user", "content": LANGCHAIN_SUMMARY_PROMPT.format(summary=summary, new_lines=buffer_string(messages))}]


def langchain_middleware(messages, summary=""):
    """The one human message ``SummarizationMiddleware`` sends, built by the middleware itself."""
    pytest.importorskip("langchain")
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from nightwatch.frameworks.with_langchain import chat_model

    middleware = SummarizationMiddleware(chat_model(StandInModel()), trigger=("tokens", 1000), keep=("messages", 4))
    kinds = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}
    listed = [kinds[m["role"]](m["content"]) for m in messages]
    if summary:
        listed = [*middleware._build_new_messages(summary), *listed]
    return [{"role": "user", "content": middleware._format_summary_prompt(listed)}]


def llamaindex(messages, summary=""):
    """The system + user pair ``ChatSummaryMemoryBuffer`` sends, built by the buffer itself."""
    pytest.importorskip("llama_index.core")
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory import ChatSummaryMemoryBuffer

    from nightwatch.frameworks.with_llamaindex import standin_llm

    buffer = ChatSummaryMemoryBuffer.from_defaults(llm=standin_llm(StandInModel()), token_limit=1000)
    history = [ChatMessage(role=MessageRole(m["role"]), content=m["content"]) for m in messages]
    if summary:
        history = [ChatMessage(role=MessageRole.SYSTEM, content=summary), *history]
    return [{"role": "system", "content": buffer.summarize_prompt},
            {"role": "user", "content": buffer._get_prompt_to_summarize(history)}]


def langmem(messages, summary=""):
    ask = LANGMEM_EXISTING.format(existing_summary=summary) if summary else LANGMEM_INITIAL
    return [*messages, {"role": "user", "content": ask}]


SHAPES = {"langchain_buffer": langchain_buffer, "langchain_middleware": langchain_middleware,
          "llamaindex": llamaindex, "langmem": langmem}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_incidents_kept_routine_dropped_example_ignored(shape):
    summary = read(SHAPES[shape](conversation())).content
    assert "ハーロウ" in summary and "追加の木箱" in summary
    assert "西の鎧戸" in summary and "緩" in summary
    assert ROUTINE not in summary and "舞台袖を出入りしています" not in summary
    assert EXAMPLE_WORDS not in summary and "承知いたしました" not in summary
    assert "十二時〜二時" in summary  # the clock calls, kept as a count


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_previous_summary_is_carried(shape):
    previous = "出来事: 楽屋口の扉を叩く音がします。酔ったお客様が「開けてくれ」と言っています。"
    summary = read(SHAPES[shape](conversation()[:6], previous)).content
    assert "酔ったお客様" in summary and "楽屋口" in summary


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_max_tokens_is_honoured(shape):
    client = StandInModel().client()
    response = client.chat.completions.create(model="gpt-4o", messages=SHAPES[shape](conversation()), max_tokens=12)
    assert response.choices[0].finish_reason == "length"
    assert response.usage.completion_tokens <= 12


@pytest.mark.parametrize("shape", ["langchain_middleware", "llamaindex"])
def test_a_mission_kept_in_the_history_is_summarized_as_notes_not_events(shape):
    """Both frameworks summarize a mission placed first in the history; it must stay a fact."""
    summary = read(SHAPES[shape]([{"role": "system", "content": MISSION}, *conversation()])).content
    notes, events = summary.split("\n")[:2]
    assert notes.startswith("申し送り:") and "楽屋口は朝まで誰にも開けない" in notes
    assert events.startswith("出来事:") and "務め" not in events and "ハーロウ" in events


def test_english_transcript_gets_an_english_summary():
    messages = [
        {"role": "user", "content": "Handover: Guests of the wedding come and go through the lobby."},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "Guests of the wedding come and go through the lobby."},
        {"role": "assistant", "content": "Understood."},
        {"role": "user", "content": "A van from Marlow's Market dropped off three crates of oranges."},
        {"role": "assistant", "content": "Understood."},
    ]
    summary = read(langchain_buffer(messages)).content
    assert summary.startswith("Notes: Guests of the wedding")
    assert "Events: A van from Marlow's Market dropped off three crates of oranges." in summary
    assert EXAMPLE_WORDS not in summary


def test_a_question_and_its_answer_split_across_two_calls_lose_nothing():
    question = {"role": "user", "content": "コレットです。届け物のこと、教えてくれますか。"}
    answer = {"role": "assistant", "content": "はい。バロウズ鉱山会社のハーロウさんが、追加の木箱を三つ置いていきました。"}
    chime = {"role": "user", "content": "（柱時計が鳴る）一時です。"}
    first = read(langmem([chime, {"role": "assistant", "content": "一時、異常なし。"}, question])).content
    second = read(langmem([answer, chime], first)).content
    assert "ハーロウ" in second and "追加の木箱" in second


def eve_until(clock: str) -> list[str]:
    """The eve's turns from dusk up to ``clock`` after midnight."""
    texts = []
    for turn in celebration_eve().turns:
        if clock < turn.clock < "12:00":
            break
        texts.append(turn.text)
    return texts


def assert_incidents_kept(summary: str, kept: list[str]) -> None:
    """Each incident of the night so far is in the summary or still verbatim; at least one left."""
    incidents = {"ハーロウ": "追加の木箱", "西の鎧戸": "留め金"}
    left = [name for name in incidents if not any(name in text for text in kept)]
    assert left, "no incident has left the verbatim history yet: the night is too short to test"
    for name in left:
        assert name in summary and incidents[name] in summary
    assert ROUTINE not in summary


def test_the_middleware_keeps_the_incidents_of_a_whole_night():
    """The summary LangChain's middleware stored, after real summary calls on the eve until 03:30."""
    pytest.importorskip("langchain")
    from nightwatch.frameworks.with_langchain import SummarizingAgent

    standin = StandInModel()
    agent = SummarizingAgent(standin, MISSION, trigger_tokens=600, keep_messages=9)
    for text in eve_until("03:30"):
        agent.run(text)
    assert agent.summary_calls and sum(agent.summary_calls) >= 2
    summary, *kept = [message.text for message in agent.state_messages()]
    assert summary.startswith("Here is a summary of the conversation to date:")
    assert_incidents_kept(summary, kept)


def test_the_llamaindex_buffer_keeps_the_incidents_of_a_whole_night():
    """The system message ChatSummaryMemoryBuffer kept, after real summary calls on the same night."""
    pytest.importorskip("llama_index.core")
    from nightwatch.frameworks.with_llamaindex import ChatEngineAgent

    standin = StandInModel()
    agent = ChatEngineAgent(standin, MISSION, memory="summary", token_limit=600)
    for text in eve_until("03:30"):
        agent.run(text)
    assert agent.summary_calls and sum(agent.summary_calls) >= 2
    first, *rest = agent.framework_memory.get_all()
    assert first.role == "system"
    assert "Transcript so far" not in first.content
    assert_incidents_kept(first.content, [message.content for message in rest])
