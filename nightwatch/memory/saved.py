"""A memory as data: what a night interrupted at 03:00 resumes from.

The JSON carries ``format_version``. Reading it back checks the version first (a newer one is
refused with a message that says so, rather than half-read), then every field strictly, then that
the parts agree with each other: the counters are non-negative and match the window and archive,
every compaction's evictions add up to the archive, and the summary is within its cap. A state that
could not have been produced by a memory is refused, not repaired.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import Field, model_validator

from nightwatch.memory.policy import MemoryPolicy
from nightwatch.memory.records import Compaction, CompactionFailure, Exchange, ToolResultsCleared
from nightwatch.memory.strict import SaveableStr, StrictModel

FORMAT_VERSION = 2
"""Version 2 added tool steps to exchanges and the clearing of old tool results; a version-1 file
(no steps, nothing cleared) still loads."""


class MemoryState(StrictModel):
    """Everything a memory holds, as one validated record."""

    format_version: int = FORMAT_VERSION
    mission: SaveableStr
    policy: MemoryPolicy
    summary: SaveableStr = ""
    window: list[Exchange] = []
    archive: list[Exchange] = []
    compactions: list[Compaction] = []
    failures: list[CompactionFailure] = []
    exchanges_added: int = Field(default=0, ge=0)
    cleared_results: list[SaveableStr] = []
    clearings: list[ToolResultsCleared] = []

    @model_validator(mode="after")
    def _parts_agree(self) -> MemoryState:
        held = {step.tool_call_id for pair in self.window for step in pair.tool_results()}
        strays = sorted(set(self.cleared_results) - held)
        if strays:
            raise ValueError(f"cleared tool results {strays} are not in the window")
        held = len(self.archive) + len(self.window)
        if self.exchanges_added != held:
            raise ValueError(
                f"exchanges_added is {self.exchanges_added} but the archive and window hold {held}"
            )
        evicted = sum(record.evicted for record in self.compactions)
        if evicted != len(self.archive):
            raise ValueError(f"the compactions evicted {evicted} exchanges but the archive holds {len(self.archive)}")
        if self.summary and not self.archive:
            raise ValueError("a summary with an empty archive: nothing has been summarized yet")
        numbers = [record.after_exchange for record in self.compactions]
        if numbers != sorted(numbers) or any(n > self.exchanges_added for n in numbers):
            raise ValueError("compactions must be in order and not after the last exchange added")
        if any(record.after_exchange > self.exchanges_added for record in self.failures):
            raise ValueError("a failure is recorded after the last exchange added")
        return self


def state_of(memory: Any) -> MemoryState:
    """The state of a ``ConversationMemory`` (typed loosely: the memory imports this module)."""
    return MemoryState(
        mission=memory.mission, policy=memory.policy, summary=memory.summary, window=list(memory.window),
        archive=list(memory.archive), compactions=list(memory.compactions),
        failures=list(memory.failures), exchanges_added=memory.exchanges_added,
        cleared_results=sorted(memory.cleared_results), clearings=list(memory.clearings),
    )


def dump(memory: Any) -> str:
    return state_of(memory).model_dump_json()


MAX_NESTING = 64
"""The deepest a saved memory's JSON may nest (a real one nests about five levels): deeper is refused
before any parser recurses into it, since both json and pydantic stop somewhere below a few thousand."""


def nesting_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest, read in one pass without recursion
    (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def check_version(text: str) -> None:
    """Refuse, with the reason, anything that is not a saved memory of a version this code reads."""
    if isinstance(text, (str, bytes, bytearray)):
        depth = nesting_depth(text if isinstance(text, str) else text.decode("utf-8", "replace"))
        if depth > MAX_NESTING:
            raise ValueError(f"not a saved memory: its JSON nests {depth} levels deep, and a saved memory nests "
                             f"at most {MAX_NESTING}")
    try:
        data = json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a saved memory: the text is not JSON ({exc})") from None
    if not isinstance(data, dict) or "format_version" not in data:
        raise ValueError("not a saved memory of a known format: it has no format_version")
    version = data["format_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"unknown format_version {version!r}; this nightwatch reads version {FORMAT_VERSION}")
    if version > FORMAT_VERSION:
        raise ValueError(
            f"the memory was saved in format version {version}, newer than version {FORMAT_VERSION} "
            "that this nightwatch reads; upgrade nightwatch to load it"
        )


def load(cls: type, text: str, estimate_tokens: Callable[[str], int], summarize: Callable) -> Any:
    """A new ``cls`` (a ``ConversationMemory``) holding the saved state, once every check passed."""
    check_version(text)
    state = MemoryState.model_validate_json(text)
    memory = cls(state.mission, state.policy, estimate_tokens, summarize)
    if memory.summary_cap is not None and estimate_tokens(state.summary) > memory.summary_cap:
        raise ValueError(
            f"the saved summary is {estimate_tokens(state.summary)} tokens, over its cap of {memory.summary_cap}"
        )
    memory.summary = state.summary
    memory.window = list(state.window)
    memory.archive = list(state.archive)
    memory.compactions = list(state.compactions)
    memory.failures = list(state.failures)
    memory.exchanges_added = state.exchanges_added
    memory.cleared_results = set(state.cleared_results)
    memory.clearings = list(state.clearings)
    return memory
