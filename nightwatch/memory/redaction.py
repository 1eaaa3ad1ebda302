"""Keeping API keys out of everything the collection shows or stores.

In live mode a key can surface in three places nobody meant it to: a base URL with credentials
(``http://user:key@host/v1``), a server's error text that echoes the request's key, and any table,
JSON or log built from those. ``redact`` is applied where such text is produced: it masks
``sk-…``-shaped keys, ``Bearer`` tokens, URL credentials, and any secret registered with
``remember_secret`` (live mode registers the key it was given, whatever its shape).
"""

from __future__ import annotations

import re
import threading

MASK = "[REDACTED]"
KEY_SHAPES = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}|(?<=Bearer )[A-Za-z0-9_\-.=]{6,}")
URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<credentials>[^/@\s]+)@")
MIN_SECRET_LENGTH = 4  # shorter strings would mask ordinary words

_secrets: set[str] = set()
_lock = threading.Lock()


def remember_secret(secret: str | None) -> None:
    """Mask this exact string from now on, in this process (e.g. a local server's key of any shape)."""
    if secret and len(secret) >= MIN_SECRET_LENGTH:
        with _lock:
            _secrets.add(secret)


def redact(text: str) -> str:
    """``text`` with keys and URL credentials replaced by ``[REDACTED]``."""
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, MASK)
    text = URL_CREDENTIALS.sub(lambda match: f"{match['scheme']}{MASK}@", text)
    return KEY_SHAPES.sub(MASK, text)
