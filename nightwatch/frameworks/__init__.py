"""The same night through LangChain and LlamaIndex: adapters that point each framework at the stand-in.

Most readers will not write ``ConversationMemory`` themselves; they will turn a framework's knobs.
This package lets chapter 8 play a scripted night through those knobs and read the result with the
collection's own tools (``run_night``, ``night_outcome``). Each framework talks to the stand-in
through its own client; the stand-in records every request, so what a framework sent (and how many
summary calls it made) is measured at the stand-in's door, never taken from the framework's word.

Nothing here is imported by ``import nightwatch``. ``with_langchain`` and ``with_llamaindex`` need the
optional ``frameworks`` extra (``pip install -c constraints.txt -e ".[frameworks]"``); chapter 8 calls
``require_frameworks()`` first, so a reader without it gets that command instead of a traceback.
"""

from __future__ import annotations

from nightwatch.standin import StandInModel
from nightwatch.memory.budget import request_tiers, tier_sizes
from nightwatch.tokens import count_text_tokens

BANDS = ("銘", "束ね", "窓", "今の問い")

INSTALL_COMMAND = 'pip install -c constraints.txt -e ".[frameworks]"'
EXTRA_HINT = f"install the optional extra: {INSTALL_COMMAND}"
# What chapter 8 imports, by the name a reader would look for: module -> distribution.
FRAMEWORK_MODULES = {
    "langchain": "langchain",
    "langchain_core": "langchain-core",
    "langchain_openai": "langchain-openai",
    "llama_index.core": "llama-index-core",
}


class FrameworksNotInstalled(ModuleNotFoundError):
    """The ``frameworks`` extra is missing: says, in Japanese, which parts and the exact command.

    A ``ModuleNotFoundError``, so code that catches one still does. In Jupyter it shows as its message
    alone (``_render_traceback_``): a reader who only ran the README's first command sees what to
    type, not a traceback into the library."""

    def __init__(self, missing: list[str], module: str | None = None) -> None:
        self.missing = missing  # distributions, as pip names them
        super().__init__(
            "この章は追加分 frameworks（LangChain と LlamaIndex）を使いますが、まだ入っていません"
            f"（見つからないパッケージ: {', '.join(missing)}）。\n"
            "リポジトリ直下（README.md のあるフォルダ）で、ノートブックと同じ環境に次のコマンドで入れてから、"
            "カーネルを再起動して上から実行し直してください:\n\n"
            f"    {INSTALL_COMMAND}\n",
            name=module,
        )

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self.args[0]}"]


def require_frameworks() -> None:
    """Check that LangChain and LlamaIndex can be imported, before a chapter imports them.

    Nothing is imported (finding each module is enough), so this costs no start-up time; when a
    part is missing, ``FrameworksNotInstalled`` names it and gives the install command."""
    from importlib.util import find_spec

    missing, first_module = [], None
    for module, distribution in FRAMEWORK_MODULES.items():
        try:
            found = find_spec(module) is not None
        except (ImportError, ValueError):  # a parent package missing, or a module set to None
            found = False
        if not found:
            missing.append(distribution)
            first_module = first_module or module
    if missing:
        raise FrameworksNotInstalled(missing, first_module)


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

    def carries_mission(self, message: dict[str, str]) -> bool:
        """A system message holding the mission word for word (alone, or inside a framework's
        wrapper such as LlamaIndex's ``<memory>`` block): the instruction reaches the model as one."""
        return message.get("role") == "system" and self.mission in (message.get("content") or "")

    def tiers(self, messages: list[dict[str, str]]) -> list[str]:
        """The tier of each message of one request, by where it came from.

        銘 is a system message carrying the mission; 今の問い is the last message; 窓 is a user or
        assistant message said during the night, verbatim; whatever else the framework put in the
        request (its summary, however it labels it) is 束ね (``budget.request_tiers``)."""
        tiers = request_tiers(messages, mission=self.mission, spoken=self.spoken)
        return ["mission" if tier != "question" and self.carries_mission(message) else tier
                for message, tier in zip(messages, tiers)]

    def request_stack(self, messages: list[dict[str, str]]) -> dict[str, int]:
        """Tokens per band of one request (they add up to what the stand-in counted)."""
        sizes = tier_sizes(messages, count_text_tokens, self.tiers(messages))
        return dict(zip(BANDS, sizes.values()))

    def mission_sent(self) -> list[bool]:
        """For each answering request of the night, whether it carried the mission."""
        return [any(self.carries_mission(m) for m in request) for request in self.answer_requests]
