"""Token counting: offline, and by OpenAI's chat formula."""

from __future__ import annotations

import socket
import subprocess
import sys

from nightwatch.tokens import (
    REPLY_PRIMER_TOKENS,
    TOKENS_PER_MESSAGE,
    count_message_tokens,
    count_text_tokens,
    estimate_tokens_by_chars,
    get_encoding,
)


def test_token_counting_works_with_sockets_disabled(tmp_path):
    # A fresh interpreter, an empty tiktoken cache and no sockets: the encoding must come from a package.
    script = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network disabled in this test')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "socket.getaddrinfo = refuse\n"
        "from nightwatch.tokens import count_text_tokens\n"
        "print(count_text_tokens('一時、異常なし。'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True,
        env={"TIKTOKEN_CACHE_DIR": str(tmp_path), "PATH": ""}, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 0


def test_socket_guard_in_this_process_too(monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    get_encoding.cache_clear()
    assert count_text_tokens("The night is quiet.") == 5


def test_chat_overhead_follows_the_published_formula():
    messages = [
        {"role": "system", "content": "務め"},
        {"role": "user", "content": "一時です。", "name": "colette"},
    ]
    text_tokens = sum(count_text_tokens(value) for m in messages for value in m.values())
    expected = text_tokens + TOKENS_PER_MESSAGE * 2 + 1 + REPLY_PRIMER_TOKENS
    assert count_message_tokens(messages) == expected
    assert count_message_tokens([]) == REPLY_PRIMER_TOKENS


def test_japanese_costs_more_tokens_per_character_than_english():
    japanese = "一時、異常なし。"
    english = "One o'clock, all is well."
    assert count_text_tokens(japanese) / len(japanese) > count_text_tokens(english) / len(english)


def test_character_estimator_counts_characters():
    assert estimate_tokens_by_chars("") == 0
    assert estimate_tokens_by_chars("西の鎧戸") == 4
