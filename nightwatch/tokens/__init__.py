"""Tokens: what the context window is measured in.

* ``counting``   counts of texts and chat requests (the per-message framing included), cached
* ``encodings``  the BPE tables, read from a package and hash-checked, never downloaded
* ``calibration`` counting as a live server counts: a ratio learned from its reported usage
* ``bounded_cache``  the LRU cache both use, bounded in bytes as well as entries

>>> count_message_tokens([{"role": "user", "content": "hi"}])  # 3 framing + role + content + 3 primer
8
"""

from nightwatch.tokens.counting import (
    COUNT_CACHE_BYTES, COUNT_CACHE_SIZE, DEFAULT_ENCODING, DEFAULT_MODEL, REPLY_PRIMER_TOKENS, TOKENS_PER_MESSAGE,
    TOKENS_PER_NAME, chat_request_tokens, clear_count_cache, clip_to_tokens, count_cache_info, count_message_tokens,
    count_text_tokens, encoding_for_model, estimate_tokens_by_chars, get_encoding, message_tokens,
)
from nightwatch.tokens.calibration import CalibratedCounter
from nightwatch.tokens.encodings import PACKAGED_ENCODINGS, TableIntegrityError, register_offline_encodings

__all__ = [
    "COUNT_CACHE_BYTES", "COUNT_CACHE_SIZE", "DEFAULT_ENCODING", "DEFAULT_MODEL", "PACKAGED_ENCODINGS",
    "REPLY_PRIMER_TOKENS", "TOKENS_PER_MESSAGE", "TOKENS_PER_NAME", "TableIntegrityError", "chat_request_tokens",
    "clear_count_cache", "clip_to_tokens", "count_cache_info", "count_message_tokens", "count_text_tokens",
    "encoding_for_model", "estimate_tokens_by_chars", "get_encoding", "message_tokens", "register_offline_encodings",
]
