"""The same night through LangChain and LlamaIndex: adapters that point each framework at the stand-in.

Most readers will not write ``ConversationMemory`` themselves; they will turn a framework's knobs.
This package lets chapter 8 play a scripted night through those knobs and read the result with the
collection's own tools (``run_night``, ``night_outcome``). Each framework talks to the stand-in
through its own client; the stand-in records every request, so what a framework sent (and how many
summary calls it made) is measured at the stand-in's door, never taken from the framework's word.

Nothing here is imported by ``import nightwatch``. ``with_langchain`` and ``with_llamaindex`` need the
optional ``frameworks`` extra (``pip install -c constraints.txt -e ".[frameworks]"``).
"""

from __future__ import annotations

from nightwatch.standin import StandInModel
from nightwatch.memory.budget import request_tiers, tier_sizes
from nightwatch.tokens import count_text_tokens

BANDS = ("銘", "束ね", "窓", "今の問い")

EXTRA_HINT = 'install the optional extra: pip install -c constraints.txt -e ".[frameworks]"'


class FrameworkAgent:
    """An agent whose memory lives in a framework, seen from the stand-in's side.

    ``run_night`` needs ``run``, ``mission``, ``last_messages`` and ``last_prompt_tokens``. A framework
    may call the model more than once per turn (to summarize first); the last request of a turn is
    the answer, every earlier one is a summary call, counted in ``summary_calls``."""

    def __init__(self, standin: StandInModel, mission: str, model: str = "gpt-4o") -> None:
        if not isinstance(standin, StandInModel):
            raise TypeError(f"standin must be a StandInModel, got {type(standin).__name__}")
        if not isinstance(mission, str) or not mission.strip():
            raise ValueError("mission must be a non-empty string: the watchman needs a duty")
        self.standin = standin
        self.mission = mission
        self.model = model  # the model name the framework sends; run_night counts in its encoding
        self.last_messages: list[dict[str, str]] = []
        self.last_prompt_tokens: int | None = None
        self.summary_calls: list[int] = []  # per turn
        self.spoken: set[str] = set()  # what was said to the watchman and what he answered
        self.answer_requests: list[list[dict[str, str]]] = []  # the answering request of each turn

    def answer(self, user_input: str) -> str:
        """Hand one turn to the framework and return its reply."""
        raise NotImplementedError

    def run(self, user_input: str) -> str:
        seen = len(self.standin.requests)
        reply = self.answer(user_input)
        sent = self.standin.requests[seen:]
        if not sent:
            raise RuntimeError("the framework answered without calling the model")
        self.summary_calls.append(len(sent) - 1)
        self.last_messages = [dict(message) for message in sent[-1].messages]
        self.last_prompt_tokens = sent[-1].prompt_tokens
        self.answer_requests.append(self.last_messages)
        self.spoken.update({user_input, reply})
        return reply

    def request_stack(self, messages: list[dict[str, str]]) -> dict[str, int]:
        """Split one request into the collection's four bands, by where each message came from.

        銘 is the mission word for word; 今の問い is the last message (with the reply primer);
        窓 is a user or assistant message said during the night, verbatim; whatever else the framework
        put in the request (its summary, however it labels it) is 束ね (``budget.request_tiers``)."""
        tiers = request_tiers(messages, mission=self.mission, spoken=self.spoken)
        sizes = tier_sizes(messages, count_text_tokens, tiers)
        return dict(zip(BANDS, sizes.values()))
