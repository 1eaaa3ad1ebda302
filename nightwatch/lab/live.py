"""Choosing the model: the offline stand-in by default, a real endpoint only by explicit opt-in.

Live mode needs ``NIGHTWATCH_LIVE=1``. Then the usual ``OPENAI_API_KEY`` and (for a local or other
OpenAI-compatible server) ``OPENAI_BASE_URL`` are read by the ``openai`` client itself, and
``NIGHTWATCH_MODEL`` names the model. It has no default: the story's gpt-4o and the former default
gpt-4o-mini are announced to shut down on 2027-01-14, and a default that stops answering would fail
later, and less clearly, than a missing name fails now. A key in the environment alone never switches
anything to live mode, and the key is never printed: it is registered with ``nightwatch.memory.redaction``, and the
address shown is stripped of any credentials written into it. An answer that is not a chat
completion (an HTML page, JSON cut short) raises one clear ``openai`` error, never a traceback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

import openai

from nightwatch.lab.answers import checked_client
from nightwatch.memory.redaction import redact, remember_secret
from nightwatch.standin import StandInModel

LIVE_FLAG = "NIGHTWATCH_LIVE"
MODEL_VARIABLE = "NIGHTWATCH_MODEL"
RETIRING_MODELS = "gpt-4o, gpt-4o-mini and gpt-4.1"
"""Named by the openai SDK 3.57.0 (``types/shared/chat_model.py``) with the shutdown date 2027-01-14."""


class LiveModeError(RuntimeError):
    """Live mode was asked for but cannot start: what is missing, said in one line."""


@dataclass
class ModelChoice:
    client: openai.OpenAI
    model: str
    live: bool
    standin: StandInModel | None

    def describe(self) -> str:
        """Where requests go, without any secret."""
        if not self.live:
            return f"オフライン: 代役モデル（上限 {self.standin.context_limit} トークン）"
        return redact(f"ライブ: {self.client.base_url} のモデル {self.model}")


def live_mode_requested(environ: dict[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ
    return environ.get(LIVE_FLAG, "").strip() == "1"


def choose_model(environ: dict[str, str] | None = None, context_limit: int | None = None) -> ModelChoice:
    """The stand-in, unless ``NIGHTWATCH_LIVE=1`` asks for a real OpenAI-compatible endpoint."""
    environ = dict(os.environ if environ is None else environ)
    if not live_mode_requested(environ):
        standin = StandInModel() if context_limit is None else StandInModel(context_limit=context_limit)
        return ModelChoice(client=standin.client(), model="gpt-4o", live=False, standin=standin)
    if not environ.get("OPENAI_API_KEY") and not environ.get("OPENAI_BASE_URL"):
        raise LiveModeError(
            f"{LIVE_FLAG}=1 needs OPENAI_API_KEY (for OpenAI) or OPENAI_BASE_URL (for a local server)."
        )
    model = environ.get(MODEL_VARIABLE, "").strip()
    if not model:  # no default: the one there was (gpt-4o-mini) is announced to shut down on 2027-01-14
        raise LiveModeError(
            f"{LIVE_FLAG}=1 needs {MODEL_VARIABLE}: the model to call, e.g. gpt-5.4-mini on OpenAI "
            f"({RETIRING_MODELS} have an announced shutdown date of 2027-01-14), or the name your local server serves."
        )
    remember_secret(environ.get("OPENAI_API_KEY"))
    remember_secret(urlsplit(environ.get("OPENAI_BASE_URL") or "").password)  # a server may echo it alone
    client = checked_client(openai.OpenAI(  # a malformed answer raises one clear API error (lab.answers)
        api_key=environ.get("OPENAI_API_KEY") or "not-needed-for-a-local-server",
        base_url=environ.get("OPENAI_BASE_URL") or None,
    ))
    return ModelChoice(
        client=client, model=model, live=True, standin=None
    )
