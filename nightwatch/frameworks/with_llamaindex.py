"""LlamaIndex pointed at the stand-in: ``ChatSummaryMemoryBuffer`` and ``Memory`` in a chat engine.

``ChatSummaryMemoryBuffer`` is deprecated in LlamaIndex 0.14 (its docstring says to use ``Memory``);
it is kept here because many applications still run it. ``Memory`` pins a mission with a
``StaticMemoryBlock`` (priority 0: never truncated), which it renders into a system message.

``llama-index-llms-openai`` requires ``openai<3``, and this collection runs on openai 3.x (whose
transport, httpx2, is what the stand-in plugs into). So the LLM is a small ``CustomLLM`` that sends
LlamaIndex's chat messages, roles intact, through the stand-in's real ``openai`` client. The memories
count with nightwatch's packaged encoding, never with a table fetched at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import openai

from nightwatch.frameworks import EXTRA_HINT, FrameworkAgent
from nightwatch.standin import StandInModel
from nightwatch.tokens import get_encoding

try:
    from llama_index.core.base.llms.types import (
        ChatMessage,
        ChatResponse,
        CompletionResponse,
        CompletionResponseGen,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.memory import ChatSummaryMemoryBuffer, Memory, StaticMemoryBlock
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"nightwatch.frameworks.with_llamaindex needs LlamaIndex; {EXTRA_HINT}") from exc


def tokenize(text: str) -> list[int]:
    """LlamaIndex's ``tokenizer_fn``: the packaged encoding the stand-in counts with."""
    return get_encoding().encode(text, disallowed_special=())


class OpenAIClientLLM(CustomLLM):
    """A LlamaIndex LLM around any ``openai.OpenAI`` client (here the stand-in's)."""

    client: Any = Field(exclude=True, description="an openai.OpenAI client")
    model: str = "gpt-4o"
    context_window: int = 2048

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=256,
                           is_chat_model=True, model_name=self.model)

    def _send(self, messages: list[dict[str, str]]) -> str:
        response = self.client.chat.completions.create(model=self.model, messages=messages)
        return response.choices[0].message.content or ""

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        plain = [{"role": MessageRole(m.role).value, "content": m.content or ""} for m in messages]
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self._send(plain)))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._send([{"role": "user", "content": prompt}]))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted=formatted)


def standin_llm(standin: StandInModel, model: str = "gpt-4o") -> OpenAIClientLLM:
    client: openai.OpenAI = standin.client()
    return OpenAIClientLLM(client=client, model=model, context_window=standin.context_limit)


MEMORIES = ("summary", "memory", "static")


class ChatEngineAgent(FrameworkAgent):
    """``SimpleChatEngine`` with a LlamaIndex memory.

    ``memory``: ``"summary"`` (the deprecated ``ChatSummaryMemoryBuffer``), ``"memory"`` (``Memory``
    with no blocks) or ``"static"`` (``Memory`` holding the mission in a ``StaticMemoryBlock``). The
    mission is the engine's ``system_prompt`` (prefixed to every call), the memory's static block,
    or, for contrast, the first message of the memory's chat history (``mission_in_history``)."""

    def __init__(
        self,
        standin: StandInModel,
        mission: str,
        *,
        memory: str,
        token_limit: int,
        mission_in_history: bool = False,
        token_flush_size: int | None = None,
    ) -> None:
        super().__init__(standin, mission)
        self.llm = standin_llm(standin, self.model)
        if memory not in MEMORIES:
            raise ValueError(f"memory must be one of {MEMORIES}, got {memory!r}")
        if memory == "static" and mission_in_history:
            raise ValueError("a static block already holds the mission; mission_in_history does not apply")
        history = [ChatMessage(role=MessageRole.SYSTEM, content=mission)] if mission_in_history else []
        # not ``self.memory``: run_night reads that name as a nightwatch ConversationMemory
        if memory == "summary":
            self.framework_memory = ChatSummaryMemoryBuffer.from_defaults(
                chat_history=history, llm=self.llm, token_limit=token_limit, tokenizer_fn=tokenize)
        else:
            blocks = [StaticMemoryBlock(name="mission", static_content=mission, priority=0)] if memory == "static" else []
            self.framework_memory = Memory.from_defaults(
                chat_history=history, token_limit=token_limit, tokenizer_fn=tokenize, memory_blocks=blocks,
                chat_history_token_ratio=0.7, token_flush_size=token_flush_size or token_limit // 10)
        prompt_holds_mission = not mission_in_history and memory != "static"
        self.engine = SimpleChatEngine.from_defaults(
            llm=self.llm, memory=self.framework_memory, system_prompt=mission if prompt_holds_mission else None)

    def answer(self, user_input: str) -> str:
        return self.engine.chat(user_input).response
