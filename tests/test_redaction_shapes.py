"""Every credential shape a live server or gateway has been seen to echo is masked, one test each,
and the ordinary words that only look like them are left alone."""

from __future__ import annotations

import pytest

from nightwatch.memory.redaction import MASK, redact

KEY = "gw-passphrase-9f8e7d"  # registered nowhere: only the patterns can mask it


@pytest.mark.parametrize("text", [
    pytest.param(f"https://gateway.invalid/callback?code={KEY}&state=night", id="?code="),
    pytest.param(f"https://gateway.invalid/callback#access_token={KEY}&expires_in=3600", id="after #"),
    pytest.param(f"https://gateway.invalid/v1?api%2Dkey={KEY}", id="?api%2Dkey="),
    pytest.param(f"https://gateway.invalid/v1?x=1&API%2dKEY={KEY}", id="percent-encoded, upper case"),
    pytest.param(f'{{"error": "expired", "token": "{KEY}"}}', id='JSON "token"'),
    pytest.param(f'{{"access_token":"{KEY}","token_type":"bearer"}}', id='JSON "access_token"'),
    pytest.param(f'{{"client_id": "vesper", "client_secret": "{KEY}"}}', id='JSON "client_secret"'),
    pytest.param(f"{{'client_secret': '{KEY}'}}", id="a Python dict's repr"),
    pytest.param(f"rejected credentials: Token {KEY}", id="Token X"),
    pytest.param(f"Incorrect API key provided: SK-{KEY}", id="upper-case SK-"),
])
def test_each_credential_shape_is_masked(text):
    masked = redact(text)
    assert KEY not in masked and MASK in masked


@pytest.mark.parametrize("text", [
    "a token budget of 2048", "Token budget: 2048.", "the code is on the wall", "http://127.0.0.1:8000/v1?x=code",
    '{"prompt_tokens": 12}', "https://gateway.invalid/v1#top", "ask-me-later", "desk-lamp-12345",
])
def test_words_that_only_look_like_those_shapes_stay(text):
    assert redact(text) == text
