"""Summary requests shaped exactly as the frameworks send them, answered by the stand-in.

The prompt texts below are the frameworks' own defaults, copied so the test sends what they send:
LangChain's ``ConversationSummaryBufferMemory`` (``SUMMARY_PROMPT`` with ``get_buffer_string``
lines, sent as one human message), LangChain v1's ``SummarizationMiddleware``
(``DEFAULT_SUMMARY_PROMPT.format(messages=<list of messages>)``, the list printed as message
objects), LlamaIndex's ``ChatSummaryMemoryBuffer`` (one system message: ``"Transcript so far: …"``
then ``SUMMARIZE_PROMPT``) and langmem's ``summarize_messages`` (the messages themselves, then a
user message asking for the summary).
"""

from __future__ import annotations

import pytest

from nightwatch.nights import MISSION, celebration_eve
from nightwatch.reader import read
from nightwatch.standin import StandInModel

LANGCHAIN_SUMMARY_PROMPT = """Progressively summarize the lines of conversation provided, adding onto the previous summary returning a new summary.

EXAMPLE
Current summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good.

New lines of conversation:
Human: Why do you think artificial intelligence is a force for good?
AI: Because artificial intelligence will help humans reach their full potential.

New summary:
The human asks what the AI thinks of artificial intelligence. The AI thinks artificial intelligence is a force for good because it will help humans reach their full potential.
END OF EXAMPLE

Current summary:
{summary}

New lines of conversation:
{new_lines}

New summary:"""

MIDDLEWARE_SUMMARY_PROMPT = """<role>
Context Extraction Assistant
</role>

<primary_objective>
Your sole objective in this task is to extract the highest quality/most relevant context from the conversation history below.
</primary_objective>

<objective_information>
You're nearing the total number of input tokens you can accept, so you must extract the highest quality/most relevant pieces of information from your conversation history.
This context will then overwrite the conversation history presented below. Because of this, ensure the context you extract is only the most important information to your overall goal.
</objective_information>

<instructions>
The conversation history below will be replaced with the context you extract in this step. Because of this, you must do your very best to extract and record all of the most important context from the conversation history.
You want to ensure that you don't repeat any actions you've already completed, so the context you extract from the conversation history should be focused on the most important information to your overall goal.
</instructions>

The user will message you with the full message history you'll be extracting context from, to then replace. Carefully read over it all, and think deeply about what information is most important to your overall goal that should be saved:

With all of this in mind, please carefully read over the entire conversation history, and extract the most important and relevant context to replace it so that you can free up space in the conversation history.
Respond ONLY with the extracted context. Do not include any additional information, or text before or after the extracted context.

<messages>
Messages to summarize:
{messages}
</messages>"""
MIDDLEWARE_SUMMARY_MESSAGE = "Here is a summary of the conversation to date:\n\n{summary}"

LLAMAINDEX_SUMMARIZE_PROMPT = (
    "The following is a conversation between the user and assistant. "
    "Write a concise summary about the contents of this conversation."
)
LANGMEM_INITIAL = "Create a summary of the conversation above:"
LANGMEM_EXISTING = "This is summary of the conversation so far: {existing_summary}\n\nExtend this summary by taking into account the new messages above:"

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


def message_repr(message: dict[str, str], number: int) -> str:
    kind = {"user": "HumanMessage", "assistant": "AIMessage", "system": "SystemMessage"}[message["role"]]
    extra = ", tool_calls=[], invalid_tool_calls=[]" if kind == "AIMessage" else ""
    return (f"{kind}(content={message['content']!r}, additional_kwargs={{}}, response_metadata={{}}, "
            f"id='run-{number:04d}'{extra})")


def langchain_buffer(messages, summary=""):
    return [{"role": "user", "content": LANGCHAIN_SUMMARY_PROMPT.format(summary=summary, new_lines=buffer_string(messages))}]


def langchain_middleware(messages, summary=""):
    if summary:
        messages = [{"role": "user", "content": MIDDLEWARE_SUMMARY_MESSAGE.format(summary=summary)}, *messages]
    listed = "[" + ", ".join(message_repr(m, n) for n, m in enumerate(messages)) + "]"
    return [{"role": "user", "content": MIDDLEWARE_SUMMARY_PROMPT.format(messages=listed)}]


def llamaindex(messages, summary=""):
    if summary:
        messages = [{"role": "system", "content": summary}, *messages]
    prompt = '"Transcript so far: '
    for m in messages:
        prompt += m["role"] + ": " + m["content"] + "\n\n"
    prompt += '"\n\n' + LLAMAINDEX_SUMMARIZE_PROMPT
    return [{"role": "system", "content": prompt}]


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
