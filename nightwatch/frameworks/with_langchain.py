"""LangChain pointed at the stand-in: ``trim_messages`` and the v1 ``SummarizationMiddleware``.

The chat model is LangChain's own ``ChatOpenAI``; only its HTTP client is swapped for one whose
transport is the stand-in, so the request LangChain builds is the request the stand-in reads.
Token counts: left to itself, ``ChatOpenAI.get_num_tokens_from_messages`` asks tiktoken for gpt-4o's
table and downloads it at first use. After ``nightwatch.tokens.register_offline_encodings()`` tiktoken
serves the packaged, hash-checked table instead, so LangChain's own count works offline; the agents
here pass ``count_langchain_tokens`` (the same formula and table, through nightwatch's count cache).
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx2

from nightwatch.frameworks import EXTRA_HINT, FrameworkAgent
from nightwatch.standin import STANDIN_BASE_URL, StandInModel
from nightwatch.tokens import count_message_tokens

try:
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
    from langchain_core.messages.utils import convert_to_openai_messages, trim_messages
    from langchain_openai import ChatOpenAI
    from langgraph.checkpoint.memory import InMemorySaver
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"nightwatch.frameworks.with_langchain needs LangChain; {EXTRA_HINT}") from exc


def chat_model(standin: StandInModel, model: str = "gpt-4o") -> ChatOpenAI:
    """LangChain's ``ChatOpenAI`` whose requests go to ``standin`` and never leave the process."""
    return ChatOpenAI(
        model=model,
        api_key="offline-stand-in",
        base_url=STANDIN_BASE_URL,
        http_client=httpx2.Client(transport=httpx2.MockTransport(standin.handle)),
        http_async_client=httpx2.AsyncClient(transport=httpx2.MockTransport(standin.handle)),
        max_retries=0,
    )


def count_langchain_tokens(messages: Sequence[BaseMessage]) -> int:
    """Prompt tokens of LangChain messages, counted exactly as the stand-in counts a request.

    ``trim_messages`` calls its counter again and again on overlapping slices of the history; this
    counter goes through nightwatch's count cache, so a message already counted costs a lookup."""
    plain = [{"role": m["role"], "content": m["content"]} for m in convert_to_openai_messages(list(messages))]
    return count_message_tokens(plain)


class TrimmingAgent(FrameworkAgent):
    """Mission first in one history list; ``trim_messages`` picks what is sent on every call."""

    def __init__(
        self,
        standin: StandInModel,
        mission: str,
        *,
        max_tokens: int,
        include_system: bool,
        start_on: str | None = "human",
        count_messages: bool = False,
    ) -> None:
        super().__init__(standin, mission)
        if not isinstance(max_tokens, int) or max_tokens <= 0:
            raise ValueError("max_tokens must be a positive integer")
        self.chat_model = chat_model(standin, self.model)
        self.history: list[BaseMessage] = [SystemMessage(mission)]
        # token_counter=len counts messages, not tokens: then max_tokens=12 is history[-12:].
        self.options = {
            "max_tokens": max_tokens,
            "token_counter": len if count_messages else count_langchain_tokens,
            "strategy": "last",
            "include_system": include_system,
            "start_on": start_on,
        }

    def answer(self, user_input: str) -> str:
        self.history.append(HumanMessage(user_input))
        reply = self.chat_model.invoke(trim_messages(self.history, **self.options))
        self.history.append(AIMessage(reply.text))
        return reply.text


class SummarizingAgent(FrameworkAgent):
    """A LangChain v1 agent with ``SummarizationMiddleware``; the mission is the agent's
    ``system_prompt`` (added to every call, never in the state) or, for contrast, the first
    message of the state, where the middleware may summarize it away."""

    def __init__(
        self,
        standin: StandInModel,
        mission: str,
        *,
        trigger_tokens: int,
        keep_messages: int,
        mission_in_history: bool = False,
    ) -> None:
        super().__init__(standin, mission)
        self.chat_model = chat_model(standin, self.model)
        self.middleware = SummarizationMiddleware(
            self.chat_model,
            trigger=("tokens", trigger_tokens),
            keep=("messages", keep_messages),
            token_counter=count_langchain_tokens,
        )
        self.mission_in_history = mission_in_history
        self.graph = create_agent(
            self.chat_model,
            tools=[],
            system_prompt=None if mission_in_history else mission,
            middleware=[self.middleware],
            checkpointer=InMemorySaver(),
        )
        self.config = {"configurable": {"thread_id": "night"}}
        self.turns = 0

    def answer(self, user_input: str) -> str:
        new: list[BaseMessage] = [HumanMessage(user_input)]
        if self.mission_in_history and self.turns == 0:
            new.insert(0, SystemMessage(self.mission))
        self.turns += 1
        state = self.graph.invoke({"messages": new}, self.config)
        return state["messages"][-1].text

    def state_messages(self) -> list[BaseMessage]:
        """What the agent's state holds now (summary message first, once there is one)."""
        return list(self.graph.get_state(self.config).values["messages"])
