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
from dataclasses import dataclass
from typing import Any

import httpx2

from nightwatch.frameworks import EXTRA_HINT, FrameworkAgent
from nightwatch.standin import STANDIN_BASE_URL, StandInModel
from nightwatch.tokens import count_message_tokens

try:
    from langchain.agents import create_agent
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain.agents.middleware.summarization import ContextSize
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


ROLES = {"system": "system", "human": "user", "ai": "assistant"}


def count_langchain_tokens(messages: Sequence[BaseMessage]) -> int:
    """Prompt tokens of LangChain messages, counted exactly as the stand-in counts a request.

    ``trim_messages`` calls its counter again and again on overlapping slices of the history, so a
    plain text message is counted from its role and text (through nightwatch's count cache); any
    other message goes through LangChain's own conversion first."""
    plain = []
    for message in messages:
        role = ROLES.get(message.type)
        if role and isinstance(message.content, str) and not getattr(message, "tool_calls", None):
            plain.append({"role": role, "content": message.content})
        else:
            converted = convert_to_openai_messages([message])[0]
            plain.append({"role": converted["role"], "content": converted.get("content") or ""})
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


@dataclass(frozen=True)
class Firing:
    """One time the middleware summarized: the state as its counter saw it, and the usage the
    provider reported for the last reply (system prompt and reply included)."""

    counted: int
    reported: int | None
    threshold: int

    @property
    def path(self) -> str:
        """Which of the two tests fired: the count of the state, or only the reported usage."""
        return "count" if self.counted >= self.threshold else "reported usage"


class ObservedSummarization(SummarizationMiddleware):
    """LangChain's ``SummarizationMiddleware``, unchanged, noting why each summary was made.

    The middleware summarizes when its own count of the state reaches ``trigger`` *or* when the
    provider-reported ``usage_metadata["total_tokens"]`` of the last reply does; this subclass
    records both numbers whenever it fires, so a chapter can count the calls from each path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not (isinstance(self.trigger, tuple) and self.trigger[0] == "tokens"):
            raise ValueError('ObservedSummarization needs one trigger=("tokens", n)')
        self.threshold: int = self.trigger[1]
        self.firings: list[Firing] = []

    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        counted = self.token_counter(messages)
        last_reply = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        usage = last_reply.usage_metadata if last_reply is not None else None
        update = super().before_model(state, runtime)
        if update is not None:
            self.firings.append(Firing(counted, usage.get("total_tokens") if usage else None, self.threshold))
        return update


class SummarizingAgent(FrameworkAgent):
    """A LangChain v1 agent with ``SummarizationMiddleware``; the mission is the agent's
    ``system_prompt`` (added to every call, never in the state) or, for contrast, the first
    message of the state, where the middleware may summarize it away.

    ``keep`` is the middleware's own ``ContextSize`` (``("messages", n)`` or ``("tokens", n)``);
    ``trim_tokens_to_summarize`` is passed through when given, else the framework's default."""

    def __init__(
        self,
        standin: StandInModel,
        mission: str,
        *,
        trigger_tokens: int,
        keep_messages: int | None = None,
        keep: ContextSize | None = None,
        mission_in_history: bool = False,
        **middleware_options: Any,
    ) -> None:
        super().__init__(standin, mission)
        if (keep_messages is None) == (keep is None):
            raise ValueError("give exactly one of keep_messages or keep")
        self.chat_model = chat_model(standin, self.model)
        self.middleware = ObservedSummarization(
            self.chat_model,
            trigger=("tokens", trigger_tokens),
            keep=keep or ("messages", keep_messages),
            token_counter=count_langchain_tokens,
            **middleware_options,
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
