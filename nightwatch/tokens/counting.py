"""Token counting: what the context window is measured in.

The encoding follows the model, as ``tiktoken.encoding_for_model`` does: gpt-4o, gpt-4o-mini and
the o-series count in ``o200k_base``, gpt-4 and gpt-3.5 in ``cl100k_base``. The default is gpt-4o's,
since that is the model the agents name. Both tables come from a package and are hash-checked
(``nightwatch.tokens.encodings``), so counting never needs the network.

Each text is counted once: counts are kept in an LRU cache keyed by (encoding, text), because a
night asks again and again about the same mission, summary and window. The cache is bounded in
bytes as well as entries (``bounded_cache``): a served stand-in sees many distinct large texts.

Chat requests cost more than their text: OpenAI's published formula adds 3 tokens per message,
1 more per ``name`` field, and 3 for the primer of the reply (``<|start|>assistant<|message|>``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import tiktoken
import tiktoken.model

from nightwatch.tokens.bounded_cache import CacheInfo, bounded_cache
from nightwatch.tokens.encodings import PACKAGED_ENCODINGS, load_encoding, register_offline_encodings
from nightwatch.tokens.tool_tokens import calls_tokens, definition_tokens

DEFAULT_MODEL = "gpt-4o"
DEFAULT_ENCODING = tiktoken.model.encoding_name_for_model(DEFAULT_MODEL)  # "o200k_base"
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMER_TOKENS = 3
COUNT_CACHE_SIZE = 8192
COUNT_CACHE_BYTES = 8 * 2**20
"""Entries and bytes the count cache may hold; a text over a sixteenth of the bytes is counted, not kept."""


def encoding_for_model(model: str) -> str:
    """The encoding name tiktoken assigns to ``model`` (exact names, then known prefixes)."""
    if not isinstance(model, str):
        raise TypeError(f"model must be str, got {type(model).__name__}")
    try:
        return tiktoken.model.encoding_name_for_model(model)
    except KeyError:
        raise ValueError(
            f"tiktoken knows no encoding for model {model!r}; pass encoding_name= "
            f"(one of {', '.join(PACKAGED_ENCODINGS)})"
        ) from None


def get_encoding(encoding_name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The encoding, built once per process from its verified packaged table (never downloaded)."""
    return load_encoding(encoding_name)


@bounded_cache(COUNT_CACHE_SIZE, COUNT_CACHE_BYTES)
def _cached_count(encoding_name: str, text: str) -> int:
    return len(get_encoding(encoding_name).encode(text, disallowed_special=()))


def count_text_tokens(text: str, encoding_name: str = DEFAULT_ENCODING) -> int:
    """Tokens in a plain string (no chat overhead); a text seen recently is not encoded again."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return _cached_count(encoding_name, text)


def count_cache_info() -> CacheInfo:
    """Hits, misses, entries and bytes of the count cache."""
    return _cached_count.info()


def clear_count_cache() -> None:
    """Forget every count (a benchmark starting cold, a test that counts misses)."""
    _cached_count.clear()


UNCOUNTED_FIELDS = frozenset({"tool_call_id"})
"""Fields of a message that are bookkeeping, not text the model reads (``tool_tokens``)."""


def message_tokens(message: Mapping[str, Any], count_text: Callable[[str], int]) -> int:
    """One message's share of a request: 3 tokens of framing, every field's text, 1 more per name.

    An assistant message's ``tool_calls`` (a list) is counted by ``tool_tokens.calls_tokens``; a
    ``None`` content (an assistant turn that only calls tools) costs nothing."""
    total = TOKENS_PER_MESSAGE
    for key, value in message.items():
        if key in UNCOUNTED_FIELDS or value is None:
            continue
        if key == "tool_calls":
            total += calls_tokens(value, count_text)
            continue
        total += count_text(value)
        if key == "name":
            total += TOKENS_PER_NAME
    return total


def chat_request_tokens(
    messages: Iterable[Mapping[str, Any]], count_text: Callable[[str], int],
    tools: Sequence[Mapping[str, Any]] = (),
) -> int:
    """OpenAI's per-message formula with any text counter (a tokenizer, or an estimator), plus the
    estimate for the ``tools`` offered (``tool_tokens.definition_tokens``)."""
    return (sum(message_tokens(message, count_text) for message in messages) + REPLY_PRIMER_TOKENS
            + definition_tokens(tools, count_text))


def count_message_tokens(
    messages: Iterable[Mapping[str, Any]], encoding_name: str = DEFAULT_ENCODING,
    tools: Sequence[Mapping[str, Any]] = (),
) -> int:
    """Prompt tokens of a chat request, by OpenAI's per-message formula (and the tools' estimate)."""
    return chat_request_tokens(messages, lambda text: count_text_tokens(text, encoding_name), tools)


def estimate_tokens_by_chars(text: str) -> int:
    """The story's fake estimator: one character counts as one token.

    Deterministic and independent of any tokenizer, so a test can put a threshold exactly on
    a boundary ("40 tokens" means 40 characters)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return len(text)


ELLIPSIS = "…"


def clip_to_tokens(text: str, limit: int, estimate_tokens: Callable[[str], int]) -> str:
    """``text`` if it fits ``limit`` tokens, else its head and tail around "…" (or "" if nothing fits).

    The head keeps the oldest handovers of a summary and the tail its newest events.

    Binary search on the number of characters kept, so a long text costs a few dozen counts."""
    if estimate_tokens(text) <= limit:
        return text

    def kept(chars: int) -> str:
        head = (chars + 1) // 2
        return text[:head] + ELLIPSIS + text[len(text) - (chars - head):]

    low, high = 0, len(text) - 1  # kept(low) is the shortest candidate, kept(high) the longest
    if estimate_tokens(kept(low)) > limit:
        return ""
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(kept(middle)) <= limit:
            low = middle
        else:
            high = middle - 1
    return kept(low)
