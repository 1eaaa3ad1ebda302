"""What the memory holds and what it logs: exchanges, compactions and the failures it survived.

Plain validated records, so a saved night (``saved``) and a notebook's plot read the same data.
An exchange may carry the tool steps between its question and its reply (``ToolStep``), in the
chat API's own shape, checked to be whole rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from nightwatch.memory.strict import SaveableStr, StrictModel


def _as_tuple(value: object) -> object:
    """A JSON array (a list, once parsed) for a tuple field: strict mode takes only a tuple."""
    return tuple(value) if isinstance(value, list) else value


class ToolCallRecord(StrictModel, frozen=True):
    """One function call an assistant message asked for, as the chat API carries it."""

    id: SaveableStr
    name: SaveableStr
    arguments: SaveableStr = "{}"  # the JSON text, exactly as the model wrote it

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


class ToolStep(StrictModel, frozen=True):
    """One message between a question and its reply: the assistant's calls, or one tool's result.

    ``tool_name`` is kept for summaries and the archive; the chat API's tool message does not carry it."""

    role: Literal["assistant", "tool"]
    content: SaveableStr = ""
    tool_calls: Annotated[tuple[ToolCallRecord, ...], BeforeValidator(_as_tuple)] = ()
    tool_call_id: SaveableStr | None = None
    tool_name: SaveableStr = ""

    @model_validator(mode="after")
    def _shape(self) -> ToolStep:
        if self.role == "assistant" and (not self.tool_calls or self.tool_call_id is not None):
            raise ValueError("an assistant step carries tool_calls and no tool_call_id")
        if self.role == "tool" and (self.tool_calls or not self.tool_call_id):
            raise ValueError("a tool step carries a tool_call_id and no tool_calls")
        return self

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> ToolStep:
        """A step from a chat message dict (``{"role": "assistant", "tool_calls": [...]}`` or a tool result)."""
        if message.get("role") == "assistant":
            calls = tuple(ToolCallRecord(id=call["id"], name=call["function"]["name"],
                                         arguments=call["function"].get("arguments") or "{}")
                          for call in message.get("tool_calls") or ())
            return cls(role="assistant", content=message.get("content") or "", tool_calls=calls)
        return cls(role="tool", content=message.get("content") or "", tool_call_id=message.get("tool_call_id"),
                   tool_name=message.get("name") or "")

    def as_message(self, content: str | None = None) -> dict[str, Any]:
        """The chat message, with ``content`` in place of the result's own (a cleared or clipped form)."""
        if self.role == "assistant":
            return {"role": "assistant", "content": self.content or None,
                    "tool_calls": [call.as_json() for call in self.tool_calls]}
        return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content if content is None else content}


def step_order_problem(steps: Sequence[ToolStep]) -> str | None:
    """Why ``steps`` is not a run of (calls, then one result per call) rounds, or None.

    The chat API refuses a tool message without its call and a call without its result; a memory
    that only ever holds whole rounds can never send either."""
    waiting: list[str] = []
    for number, step in enumerate(steps):
        if step.role == "assistant":
            if waiting:
                return f"step {number}: new calls before the results of {', '.join(waiting)}"
            waiting = [call.id for call in step.tool_calls]
        elif step.tool_call_id not in waiting:
            return f"step {number}: a result for {step.tool_call_id!r}, which no open call asked for"
        else:
            waiting.remove(step.tool_call_id)
    return f"the calls {', '.join(waiting)} have no result" if waiting else None


class Exchange(StrictModel, frozen=True):
    """One round trip, question and reply together: the window never splits a pair.

    ``steps`` are the tool calls and results in between, whole rounds only, so an exchange that
    leaves the window takes its calls and their results with it."""

    user_text: SaveableStr
    watchman_reply: SaveableStr
    steps: Annotated[tuple[ToolStep, ...], BeforeValidator(_as_tuple)] = ()

    @model_validator(mode="after")
    def _whole_rounds(self) -> Exchange:
        problem = step_order_problem(self.steps)
        if problem:
            raise ValueError(f"the tool steps of an exchange must be whole rounds: {problem}")
        return self

    def tool_results(self) -> tuple[ToolStep, ...]:
        return tuple(step for step in self.steps if step.role == "tool")


class Compaction(StrictModel, frozen=True):
    """A record of one compaction: a draft summary committed and the oldest exchanges moved out."""

    after_exchange: int = Field(ge=0, description="1-based number of the exchange that triggered it")
    evicted: int = Field(gt=0, description="exchanges that left the window into the summary")
    kept: int = Field(ge=0, description="exchanges left in the window")
    window_tokens_before: int = Field(ge=0)
    summary_tokens_before: int = Field(ge=0)
    summary_tokens_after: int = Field(ge=0)
    reason: Literal["threshold", "budget"] = Field(
        default="threshold", description="the window went over token_threshold, or a request had to fit"
    )


class CompactionFailure(StrictModel, frozen=True):
    """A summarizer answer that could not be used as it was.

    ``fallback`` False: the compaction was abandoned and memory left as it was. True: the memory
    went ahead with its own draft (see ``compaction``)."""

    after_exchange: int = Field(ge=0)
    error: str
    fallback: bool = False


class ToolResultsCleared(StrictModel, frozen=True):
    """A record of one clearing: old tool results replaced by the placeholder in every later request."""

    after_exchange: int = Field(ge=0)
    cleared: int = Field(gt=0, description="tool results cleared in this step")
    tokens_freed: int = Field(gt=0)
