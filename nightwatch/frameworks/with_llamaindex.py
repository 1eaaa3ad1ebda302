"""LlamaIndex pointed at the stand-in: ``ChatSummaryMemoryBuffer`` and ``Memory`` in a chat engine.

``ChatSummaryMemoryBuffer`` is deprecated in LlamaIndex 0.14 (its docstring says to use ``Memory``);
it is kept here because many applications still run it. ``Memory`` pins a mission with a
``StaticMemoryBlock`` (priority 0: never truncated), which it renders into a system message.

``llama-index-llms-openai`` requires ``openai<3``, and this collection runs on openai 3.x (whose
transport, httpx2, is what the stand-in plugs into). So the LLM is a small ``CustomLLM`` that sends
LlamaIndex's chat messages, roles intact, through the stand-in's real ``openai`` client, and
``OpenAIClientToolLLM`` is its function-calling twin (what ``FunctionAgent`` needs): tools go out as
the API's ``tools``, calls come back as ``ToolSelection``s. The memories count with nightwatch's
packaged encoding, never with a table fetched at run time.
"""

from __future__ import annotations

import json
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
        ChatResponseAsyncGen,
        ChatResponseGen,
        CompletionResponse,
        CompletionResponseGen,
        LLMMetadata,
        MessageRole,
    )
    from llama_index.core.chat_engine import SimpleChatEngine
    from llama_index.core.llms import CustomLLM
    from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
    from llama_index.core.llms.function_calling import FunctionCallingLLM
    from llama_index.core.llms.llm import ToolSelection
    from llama_index.core.memory import ChatSummaryMemoryBuffer, Memory, StaticMemoryBlock
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"nightwatch.frameworks.with_llamaindex needs LlamaIndex; {EXTRA_HINT}") from exc


def tokenize(text: str) -> list[int]:
    """LlamaIndex's ``tokenizer_fn``: the packaged encoding the stand-in counts with."""
    return get_encoding().encode(text, disallowed_special=())


def to_openai_message(message: ChatMessage) -> dict[str, Any]:
    """A LlamaIndex message as the API's: tool calls and tool_call_id carried over from additional_kwargs."""
    plain: dict[str, Any] = {"role": MessageRole(message.role).value, "content": message.content or ""}
    calls = message.additional_kwargs.get("tool_calls")
    if calls:
        plain["tool_calls"] = calls
        plain["content"] = message.content or None
    if "tool_call_id" in message.additional_kwargs:
        plain["tool_call_id"] = message.additional_kwargs["tool_call_id"]
    return plain


class OpenAIClientLLM(CustomLLM):
    """A LlamaIndex LLM around any ``openai.OpenAI`` client (here the stand-in's)."""

    client: Any = Field(exclude=True, description="an openai.OpenAI client")
    model: str = "gpt-4o"
    context_window: int = 2048

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=256,
                           is_chat_model=True, model_name=self.model)

    def _send(self, messages: list[dict[str, Any]]) -> str:
        response = self.client.chat.completions.create(model=self.model, messages=messages)
        return response.choices[0].message.content or ""

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT,
                                                content=self._send([to_openai_message(m) for m in messages])))

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._send([{"role": "user", "content": prompt}]))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted=formatted)


class OpenAIClientToolLLM(FunctionCallingLLM):
    """A function-calling LlamaIndex LLM around any ``openai.OpenAI`` client (here the stand-in's)."""

    client: Any = Field(exclude=True, description="an openai.OpenAI client")
    model: str = "gpt-4o"
    context_window: int = 2048

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=256, is_chat_model=True,
                           is_function_calling_model=True, model_name=self.model)

    def _prepare_chat_with_tools(self, tools: Sequence[Any], user_msg: str | ChatMessage | None = None,
                                 chat_history: list[ChatMessage] | None = None, verbose: bool = False,
                                 allow_parallel_tool_calls: bool = False, tool_required: bool = False,
                                 **kwargs: Any) -> dict[str, Any]:
        messages = list(chat_history or [])
        if user_msg is not None:
            messages.append(ChatMessage(role=MessageRole.USER, content=user_msg) if isinstance(user_msg, str)
                            else user_msg)
        options: dict[str, Any] = {"tools": [tool.metadata.to_openai_tool() for tool in tools]} if tools else {}
        if tools and tool_required:
            options["tool_choice"] = "required"
        return {"messages": messages, **options, **kwargs}

    def get_tool_calls_from_response(self, response: ChatResponse, error_on_no_tool_call: bool = True,
                                     **kwargs: Any) -> list[ToolSelection]:
        calls = response.message.additional_kwargs.get("tool_calls") or []
        if not calls and error_on_no_tool_call:
            raise ValueError(f"Expected at least one tool call, but got {len(calls)} tool calls.")
        return [ToolSelection(tool_id=call["id"], tool_name=call["function"]["name"],
                              tool_kwargs=json.loads(call["function"]["arguments"] or "{}")) for call in calls]

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        options = {key: kwargs[key] for key in ("tools", "tool_choice") if key in kwargs}
        response = self.client.chat.completions.create(
            model=self.model, messages=[to_openai_message(m) for m in messages], **options)
        message = response.choices[0].message
        extra = {"tool_calls": [call.model_dump() for call in message.tool_calls]} if message.tool_calls else {}
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=message.content or "",
                                                additional_kwargs=extra), raw=response)

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return self.chat(messages, **kwargs)

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        yield self.chat(messages, **kwargs)

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        response = self.chat(messages, **kwargs)

        async def one() -> ChatResponseAsyncGen:
            yield response

        return one()

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self.chat([ChatMessage(role=MessageRole.USER, content=prompt)]).message.content)

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return self.complete(prompt, formatted, **kwargs)

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        yield self.complete(prompt, formatted)

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        response = self.complete(prompt, formatted)

        async def one() -> Any:
            yield response

        return one()


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
