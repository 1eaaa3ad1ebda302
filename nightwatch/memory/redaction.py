"""Keeping API keys out of everything the collection shows or stores.

In live mode a key can surface where nobody meant it to: in the base URL (``http://user:key@host/v1``,
or ``…/v1?api-key=…`` as some gateways want it), in a server's error text that echoes the request's
credentials or headers back (``Bearer …``, ``Basic <base64 of user:password>``, ``api-key: …``), and
in any table, JSON or log built from those. ``redact`` is applied where such text is produced. It
masks:

* ``sk-…``-shaped keys in either case, and any secret registered with ``remember_secret`` (live mode registers the
  key it was given, whatever its shape);
* URL credentials (the userinfo before ``@``) and the values of query or fragment parameters named
  like a secret, however the name is percent-encoded (``key``, ``api%2Dkey``, ``token``, ``code``,
  ``password``, ``sig``, ``#access_token``, …), and of JSON fields named so (``"client_secret": …``);
* the value of a credential-carrying header however it is quoted back (``Authorization`` with any
  scheme, ``api-key``, ``x-api-key``, ``Cookie``, …);
* a credential after an authorization scheme even without its header name: ``Bearer`` and ``Token``,
  and ``Basic`` credentials (only when they decode to ``user:password``, so that
  "Basic usage" stays as it is).

Masking too much costs a reader one word; masking too little leaks a key into a committed notebook.
"""

from __future__ import annotations

import base64
import binascii
import re
import threading
from urllib.parse import unquote

MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 4  # shorter strings would mask ordinary words

SK_KEY = re.compile(r"(?i)\bsk-[A-Za-z0-9_\-]{6,}")
URL_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)(?P<credentials>[^/?#@\s]+)@")
SECRET_NAME = (r"(?:[\w.\-]*(?:key|token|secret|passw(?:or)?d|pwd|auth|sig|signature|credential|session)[\w.\-]*"
               r"|code)")  # ``code``: an OAuth authorization code, exchanged for a token
SECRET_NAMED = re.compile(rf"(?i){SECRET_NAME}")
QUERY_PARAMETER = re.compile(r"(?P<name>[?&;#](?P<key>[^=&#?\s\"'<>]{1,80})=)(?P<value>[^&#\s\"'<>]+)")
"""A parameter in a query or a fragment (``#access_token=…``); its name is read percent-decoded."""
JSON_SECRET = re.compile(rf"(?i)(?P<name>([\"'])(?:{SECRET_NAME})\2\s*:\s*)(?P<quote>[\"'])(?P<value>(?:\\.|(?!(?P=quote)).)*)(?P=quote)")
"""A JSON (or Python) field named like a secret: ``"token": "…"``, ``"client_secret": "…"``."""
SECRET_HEADER = re.compile(
    r"(?i)(?P<name>\b(?:proxy-)?authorization|\b[\w\-]*api[-_]?key|\bx-auth-token|\bx-goog-api-key"
    r"|\bocp-apim-subscription-key)(?P<separator>[\"']?\s*[:=]\s*[\"']?)"
    r"(?P<value>(?:(?:Bearer|Basic|Token|Digest|ApiKey|Key)\s+)?[^\s\"',;&}]+)"
)
COOKIE = re.compile(r"(?i)(?P<name>\b(?:set-)?cookie[\"']?\s*[:=]\s*[\"']?)[^\"'\r\n]+")
SCHEME_TOKEN = re.compile(r"(?P<scheme>\bBearer\s+)[A-Za-z0-9_\-.=~+/]{6,}"
                          r"|(?P<token>\bToken\s+)(?=[A-Za-z.=~+/]*[0-9_\-])[A-Za-z0-9_\-.=~+/]{8,}")
"""``Bearer …``, and ``Token …`` (Django REST framework's scheme) when what follows looks like a key:
eight or more characters with a digit, ``_`` or ``-`` ("a token budget" is an ordinary phrase)."""
BASIC = re.compile(r"(?P<scheme>\bBasic\s+)(?P<credentials>[A-Za-z0-9+/]{4,}={0,2})")

_secrets: set[str] = set()
_lock = threading.Lock()


def remember_secret(secret: str | None) -> None:
    """Mask this exact string from now on, in this process (e.g. a local server's key of any shape)."""
    if secret and len(secret) >= MIN_SECRET_LENGTH:
        with _lock:
            _secrets.add(secret)


def _is_user_password(credentials: str) -> bool:
    try:
        decoded = base64.b64decode(credentials + "=" * (-len(credentials) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return b":" in decoded


def _masked_parameter(match: re.Match[str]) -> str:
    """A query or fragment parameter with its value masked if its name, percent-decoded, is a secret's."""
    return f"{match['name']}{MASK}" if SECRET_NAMED.fullmatch(unquote(match["key"])) else match[0]


def redact(text: str) -> str:
    """``text`` with keys, URL credentials and credential headers replaced by ``[REDACTED]``."""
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        text = text.replace(secret, MASK)
    text = URL_CREDENTIALS.sub(lambda match: f"{match['scheme']}{MASK}@", text)
    text = QUERY_PARAMETER.sub(_masked_parameter, text)
    text = JSON_SECRET.sub(lambda match: f"{match['name']}{match['quote']}{MASK}{match['quote']}", text)
    text = SECRET_HEADER.sub(lambda match: f"{match['name']}{match['separator']}{MASK}", text)
    text = COOKIE.sub(lambda match: f"{match['name']}{MASK}", text)
    text = BASIC.sub(lambda m: f"{m['scheme']}{MASK}" if _is_user_password(m["credentials"]) else m[0], text)
    text = SCHEME_TOKEN.sub(lambda match: f"{match['scheme'] or match['token']}{MASK}", text)
    return SK_KEY.sub(MASK, text)
