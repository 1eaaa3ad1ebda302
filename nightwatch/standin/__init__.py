"""The stand-in model (代役): a wing of the collection, an offline model behind the real ``openai`` SDK.

* ``model``       ``StandInModel``: the endpoint in the process; refuses (or front-drops) what is over its limit
* ``protocol``    every request field honoured or refused (``FIELDS``); messages reduced to plain ones
* ``tools``       when a function is called, with what, and the reply after its result
* ``fill``        JSON-schema values from the request's own words (tool arguments, structured replies)
* ``responses``   the Responses API on the same core (``responses_protocol``: its fields and items)
* ``http``        error bodies and event streams, shared by both APIs
* ``server``      the same endpoint over HTTP (ASGI), for clients in other processes
* ``reader``      what the stand-in answers: a general, deterministic reader of chat requests
* ``summarizer``  ``ThreeLineSummarizer``: the reader's three-line summary as a plain function

Nothing in the lesson's core (agents, memory, tokens, nights, summarizers) imports this package:
the agents are handed a client, and the stand-in is one client among others.

Importing it installs ``sdk_fast_path``: the openai SDK's parameter transform returns plain JSON that
needs no transformation as it is (the request sent is unchanged; ``NIGHTWATCH_SDK_FAST_PATH=0``
turns it off), which makes an in-process night about four times faster.
"""

from nightwatch.standin import sdk_fast_path

sdk_fast_path.install()

from nightwatch.standin.model import (  # noqa: E402
    DEFAULT_CONTEXT_LIMIT, STANDIN_BASE_URL, RecordedRequest, StandInModel, error_body,
)
from nightwatch.standin.summarizer import ThreeLineSummarizer  # noqa: E402

__all__ = [
    "DEFAULT_CONTEXT_LIMIT", "STANDIN_BASE_URL", "RecordedRequest", "StandInModel", "ThreeLineSummarizer",
    "error_body",
]
