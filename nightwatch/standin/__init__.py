"""The stand-in model (代役): a wing of the collection, an offline model behind the real ``openai`` SDK.

* ``model``       ``StandInModel``: the endpoint in the process; refuses (or front-drops) what is over its limit
* ``protocol``    every request field honoured or refused (``FIELDS``); messages reduced to plain ones
* ``tools``       when a function is called, with what, and the reply after its result
* ``fill``        JSON-schema values from the request's own words (tool arguments, structured replies)
* ``server``      the same endpoint over HTTP (ASGI), for clients in other processes
* ``reader``      what the stand-in answers: a general, deterministic reader of chat requests
* ``summarizer``  ``ThreeLineSummarizer``: the reader's three-line summary as a plain function

Nothing in the lesson's core (agents, memory, tokens, nights, summarizers) imports this package:
the agents are handed a client, and the stand-in is one client among others.
"""

from nightwatch.standin.model import (
    DEFAULT_CONTEXT_LIMIT, STANDIN_BASE_URL, RecordedRequest, StandInModel, error_body,
)
from nightwatch.standin.summarizer import ThreeLineSummarizer

__all__ = [
    "DEFAULT_CONTEXT_LIMIT", "STANDIN_BASE_URL", "RecordedRequest", "StandInModel", "ThreeLineSummarizer",
    "error_body",
]
