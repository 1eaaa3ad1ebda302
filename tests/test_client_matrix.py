"""Real clients against the stand-in, offline: the openai SDK's four paths, LangChain's ChatOpenAI with
tools and structured output, LangChain's ``create_agent`` and LlamaIndex's ``FunctionAgent`` each
running a night with one tool. Every client goes through the stand-in's HTTP handler in-process."""

from __future__ import annotations

import asyncio
import json
from typing import Literal

import httpx2
import openai
import pytest
from pydantic import BaseModel

from nightwatch.nights import MISSION
from nightwatch.standin import STANDIN_BASE_URL, StandInModel

DOOR_ASK = "楽屋口の扉の施錠を確かめてください。"
CHIME = "（柱時計が鳴る）一時です。"
LOCKED = "楽屋口の扉は施錠されています。"
ASKS = [{"role": "system", "content": MISSION}, {"role": "user", "content": CHIME}]


def check_door(door: str) -> str:
    """扉の施錠を確かめる。"""
    return LOCKED


class Report(BaseModel):
    """One line of the night's report."""

    reply: str
    severity: Literal["平穏", "異常"]


@pytest.fixture
def standin():
    return StandInModel()


def test_sync(standin):
    response = standin.client().chat.completions.create(model="gpt-4o", messages=ASKS)
    assert response.choices[0].message.content.startswith("一時、異常なし")
    assert response.usage.prompt_tokens == standin.requests[-1].prompt_tokens


def test_async(standin):
    async def run() -> list[str]:
        client = openai.AsyncOpenAI(api_key="offline", base_url=STANDIN_BASE_URL, max_retries=0,
                                    http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(standin.handle)))
        replies = await asyncio.gather(*(client.chat.completions.create(model="gpt-4o", messages=ASKS)
                                         for _ in range(3)))
        stream = await client.chat.completions.create(model="gpt-4o", messages=ASKS, stream=True)
        pieces = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices]
        assert len([piece for piece in pieces if piece]) > 3
        return [reply.choices[0].message.content for reply in replies] + ["".join(p for p in pieces if p)]

    replies = asyncio.run(run())
    assert len(replies) == 4 and len(set(replies)) == 1 and replies[0].startswith("一時、異常なし")


def test_stream_arrives_in_pieces_that_add_up(standin):
    whole = standin.client().chat.completions.create(model="gpt-4o", messages=ASKS).choices[0].message.content
    pieces = [chunk.choices[0].delta.content for chunk in
              standin.client().chat.completions.create(model="gpt-4o", messages=ASKS, stream=True)
              if chunk.choices and chunk.choices[0].delta.content]
    assert len(pieces) > 3 and "".join(pieces) == whole


def test_stream_of_a_tool_call_is_assembled_by_the_sdk(standin):
    tool = {"type": "function", "function": {"name": "check_door", "description": "扉の施錠を確かめる。",
                                             "parameters": {"type": "object", "properties": {"door": {"type": "string"}},
                                                            "required": ["door"]}}}
    with standin.client().chat.completions.stream(model="gpt-4o", tools=[tool],
                                                  messages=[{"role": "user", "content": DOOR_ASK}]) as stream:
        final = stream.get_final_completion()
    [call] = final.choices[0].message.tool_calls
    assert call.function.name == "check_door" and json.loads(call.function.arguments) == {"door": DOOR_ASK}


def test_parse_with_a_pydantic_model(standin):
    parsed = standin.client().chat.completions.parse(model="gpt-4o", messages=ASKS, response_format=Report)
    report = parsed.choices[0].message.parsed
    assert isinstance(report, Report) and report.reply.startswith("一時、異常なし")


def test_langchain_bind_tools_and_structured_output(standin):
    from langchain_core.tools import tool

    from nightwatch.frameworks.with_langchain import chat_model

    model = chat_model(standin)
    message = model.bind_tools([tool(check_door)]).invoke(DOOR_ASK)
    assert [(call["name"], call["args"]) for call in message.tool_calls] == [("check_door", {"door": DOOR_ASK})]
    report = model.with_structured_output(Report).invoke(ASKS)
    assert isinstance(report, Report) and report.reply.startswith("一時、異常なし")


def test_langchain_create_agent_runs_a_night_with_one_tool(standin):
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    from nightwatch.frameworks.with_langchain import chat_model

    agent = create_agent(chat_model(standin), tools=[tool(check_door)], system_prompt=MISSION)
    messages = agent.invoke({"messages": [{"role": "user", "content": DOOR_ASK}]})["messages"]
    assert [type(m).__name__ for m in messages] == ["HumanMessage", "AIMessage", "ToolMessage", "AIMessage"]
    assert messages[-1].content == LOCKED
    assert [r.act for r in standin.requests] == ["tool_call", "tool_result"]
    assert [(s.role, s.quote) for s in standin.requests[-1].grounding] == [("tool", LOCKED)]


# LlamaIndex's workflows walk the agent's attributes with inspect.getmembers, touching pydantic's
# deprecated ones: its warnings, not ours.
@pytest.mark.filterwarnings("ignore::DeprecationWarning:inspect")
def test_llamaindex_function_agent_runs_a_night_with_one_tool(standin):
    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.tools import FunctionTool

    from nightwatch.frameworks.with_llamaindex import OpenAIClientToolLLM

    agent = FunctionAgent(tools=[FunctionTool.from_defaults(check_door)], system_prompt=MISSION,
                          llm=OpenAIClientToolLLM(client=standin.client()))
    async def run() -> str:
        return str(await agent.run(DOOR_ASK))

    answer = asyncio.run(run())
    assert answer == LOCKED
    assert [r.act for r in standin.requests] == ["tool_call", "tool_result"]
