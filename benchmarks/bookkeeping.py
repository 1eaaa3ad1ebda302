"""Bookkeeping per turn: nightwatch's memory beside LangChain's and LlamaIndex's summary buffers.

    python benchmarks/bookkeeping.py                  # 300 and 3,000 turns
    python benchmarks/bookkeeping.py --turns 300 --repeats 5

What is timed is everything a memory does around one call to the model: build the request, hand it
to the model, record the exchange, and fold old exchanges into a summary when it decides to. The
model and the summarizer are instant fakes (a reply looked up from a list, one fixed summary), so
what is left is the memory's own work: counting tokens, building messages, deciding what to evict.
All three get the same turns in the same process, and count with the same table (gpt-4o's
``o200k_base``, through tiktoken): nightwatch through its count cache, the peers through the
tokenizer hook each of them offers.

- nightwatch, with a budget: ``ConversationMemory`` whose policy has a context window and a reply
  reserve, so every request is measured before it is returned; also without one, for reference.
- LangChain: ``ConversationSummaryBufferMemory`` (``langchain-classic``) with ``max_token_limit``
  equal to nightwatch's compaction threshold and a ``FakeListLLM`` as its summarizer.
- LlamaIndex: ``ChatSummaryMemoryBuffer`` (``llama-index-core``) with ``token_limit`` equal to that
  threshold and an instant custom LLM as its summarizer.

The peers are optional; a missing one is named with the command that installs it, and nightwatch is
measured anyway:

    pip install -c constraints.txt -e ".[bench]"

Each configuration runs ``--repeats`` times, taking turns with the others, and the best run counts
(the least disturbed by whatever else the machine was doing); time is this process's CPU time.
nightwatch's count cache is emptied before each of its runs, so it too encodes every new text.
Per-turn time is given for the whole run and for its last tenth, so a cost that grows with the
length of the night shows as the second number pulling away from the first. For nightwatch the
count cache's own statistics add two numbers that no busy machine can blur: look-ups of a count
and texts actually encoded, per turn.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from math import gcd

from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, busy_night, celebration_eve, spring_night
from nightwatch.tokens import (
    clear_count_cache, count_cache_info, count_text_tokens, get_encoding, register_offline_encodings,
)

THRESHOLD = 400
WINDOW_SIZE = 4
CONTEXT_WINDOW = 2048
REPLY_RESERVE = 256
SUMMARY = "これまでの夜: 巡回は毎正時に続き、異変は朝の報告に残す。楽屋口は閉じたまま。"
REPLIES = [
    "承知しました。館内を回り、異常はありません。",
    "確かに承りました。朝の報告に残します。",
    "見回ります。戸締まりは確かです。",
]


@dataclass(frozen=True)
class Turn:
    question: str
    reply: str


def make_turns(count: int) -> list[Turn]:
    """The project's night texts, numbered so that every question is new.

    They are taken with a stride rather than night after night, so that any stretch of turns mixes
    short and long texts alike and 300 turns cost what 3,000 do per turn unless the memory slows."""
    texts = [t.text for night in (spring_night(), busy_night(), celebration_eve()) for t in night.turns]
    stride = next(s for s in range(len(texts) // 3, len(texts)) if gcd(s, len(texts)) == 1)
    return [
        Turn(f"（{number}）{texts[number * stride % len(texts)]}", f"{number}件目、{REPLIES[number % len(REPLIES)]}")
        for number in range(1, count + 1)
    ]


class Runner:
    """One memory design: ``turn`` does one call's bookkeeping and returns the request sent."""

    name = ""

    def __init__(self) -> None:
        self.summaries = 0

    def turn(self, turn: Turn) -> int:
        raise NotImplementedError

    def counter_use(self) -> tuple[int, int] | None:
        """(count look-ups, texts encoded) so far, where the memory counts through nightwatch.tokens."""
        return None


class NightwatchRunner(Runner):
    def __init__(self, budget: bool) -> None:
        super().__init__()
        self.name = "nightwatch ConversationMemory, " + ("budget" if budget else "no budget")
        policy = MemoryPolicy(
            window_size=WINDOW_SIZE, token_threshold=THRESHOLD,
            context_window=CONTEXT_WINDOW if budget else None, reply_reserve=REPLY_RESERVE if budget else 0,
        )
        clear_count_cache()  # start cold, like the peers: every text is encoded once in this run
        self.memory = ConversationMemory(MISSION, policy, count_text_tokens, self.summarize)

    def summarize(self, summary: str, exchanges: list) -> str:
        self.summaries += 1
        return SUMMARY

    def counter_use(self) -> tuple[int, int]:
        info = count_cache_info()
        return info.hits + info.misses, info.misses

    def turn(self, turn: Turn) -> int:
        messages = self.memory.build_messages(turn.question)
        reply = instant_model(messages, turn)
        self.memory.add_exchange(turn.question, reply)
        return len(messages)


def instant_model(messages: list, turn: Turn) -> str:
    """The fake model: answers at once, with the turn's scripted reply."""
    return turn.reply


def langchain_runner() -> Callable[[], Runner]:
    from langchain_classic.memory import ConversationSummaryBufferMemory
    from langchain_core.language_models import FakeListLLM
    from langchain_core.messages import HumanMessage, SystemMessage

    class CountingFakeLLM(FakeListLLM):
        calls: int = 0

        def _call(self, *args, **kwargs) -> str:
            self.calls += 1
            return super()._call(*args, **kwargs)

    encode = get_encoding().encode

    class LangChainRunner(Runner):
        name = "LangChain ConversationSummaryBufferMemory"

        def __init__(self) -> None:
            super().__init__()
            self.llm = CountingFakeLLM(responses=[SUMMARY], custom_get_token_ids=encode)
            with warnings.catch_warnings():  # deprecated in favour of agent checkpoints, still shipped
                warnings.simplefilter("ignore")
                self.memory = ConversationSummaryBufferMemory(
                    llm=self.llm, max_token_limit=THRESHOLD, return_messages=True
                )

        def turn(self, turn: Turn) -> int:
            history = self.memory.load_memory_variables({})["history"]
            messages = [SystemMessage(MISSION), *history, HumanMessage(turn.question)]
            reply = instant_model(messages, turn)
            self.memory.save_context({"input": turn.question}, {"output": reply})
            self.summaries = self.llm.calls
            return len(messages)

    return LangChainRunner


def llamaindex_runner() -> Callable[[], Runner]:
    from llama_index.core.llms import ChatMessage, CompletionResponse, CustomLLM, LLMMetadata, MessageRole
    from llama_index.core.llms.callbacks import llm_completion_callback
    from llama_index.core.memory import ChatSummaryMemoryBuffer

    class InstantSummarizer(CustomLLM):
        calls: int = 0

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(context_window=CONTEXT_WINDOW, num_output=REPLY_RESERVE, model_name="instant")

        @llm_completion_callback()
        def complete(self, prompt: str, formatted: bool = False, **kwargs) -> CompletionResponse:
            self.calls += 1
            return CompletionResponse(text=SUMMARY)

        @llm_completion_callback()
        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs):
            yield self.complete(prompt, formatted, **kwargs)

    encode = get_encoding().encode

    class LlamaIndexRunner(Runner):
        name = "LlamaIndex ChatSummaryMemoryBuffer"

        def __init__(self) -> None:
            super().__init__()
            self.llm = InstantSummarizer()
            self.memory = ChatSummaryMemoryBuffer.from_defaults(
                llm=self.llm, token_limit=THRESHOLD, tokenizer_fn=encode
            )

        def turn(self, turn: Turn) -> int:
            history = self.memory.get()
            messages = [
                ChatMessage(role=MessageRole.SYSTEM, content=MISSION), *history,
                ChatMessage(role=MessageRole.USER, content=turn.question),
            ]
            reply = instant_model(messages, turn)
            self.memory.put(ChatMessage(role=MessageRole.USER, content=turn.question))
            self.memory.put(ChatMessage(role=MessageRole.ASSISTANT, content=reply))
            self.summaries = self.llm.calls
            return len(messages)

    return LlamaIndexRunner


PEERS = {
    "LangChain": (langchain_runner, 'pip install -c constraints.txt -e ".[bench]"'),
    "LlamaIndex": (llamaindex_runner, 'pip install -c constraints.txt -e ".[bench]"'),
}


@dataclass
class Result:
    name: str
    turns: int
    per_turn_us: float
    last_tenth_us: float
    summaries: int
    longest_request: int
    counter_use: tuple[int, int] | None

    def per_turn_counts(self) -> str:
        """Look-ups and encodes per turn: the same work at 300 and 3,000 turns if nothing grows."""
        if self.counter_use is None:
            return ""
        lookups, encodes = self.counter_use
        return f"{lookups / self.turns:8.1f} {encodes / self.turns:8.2f}"


def run_once(factory: Callable[[], Runner], turns: list[Turn]) -> Result:
    """One fresh memory over ``turns``, timed in CPU time of this process (the machine may be busy)."""
    tenth = max(1, len(turns) // 10)
    runner = factory()
    gc.collect()
    longest = 0
    start = time.process_time()
    for turn in turns[:-tenth]:
        longest = max(longest, runner.turn(turn))
    middle = time.process_time()
    for turn in turns[-tenth:]:
        longest = max(longest, runner.turn(turn))
    end = time.process_time()
    return Result(
        runner.name, len(turns), (end - start) / len(turns) * 1e6, (end - middle) / tenth * 1e6,
        runner.summaries, longest, runner.counter_use(),
    )


def measure(factories: dict[str, Callable[[], Runner]], turns: list[Turn], repeats: int) -> dict[str, Result]:
    """Best of ``repeats`` runs each; the memories take turns, so a busy moment hits them alike."""
    best: dict[str, Result] = {}
    for _ in range(repeats):
        for label, factory in factories.items():
            result = run_once(factory, turns)
            if label not in best or result.per_turn_us < best[label].per_turn_us:
                best[label] = result
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[300, 3000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if any(n < 10 for n in args.turns) or args.repeats < 1:
        parser.error("--turns must be at least 10 and --repeats at least 1")

    register_offline_encodings()  # a peer that asks tiktoken itself gets the packaged table, not a download
    factories: dict[str, Callable[[], Runner]] = {
        "budget": lambda: NightwatchRunner(budget=True),
        "no budget": lambda: NightwatchRunner(budget=False),
    }
    missing = []
    for label, (load, install) in PEERS.items():
        try:
            factories[label] = load()
        except ImportError as exc:
            missing.append(f"{label}: not installed ({exc.name}); {install}")
    print(f"Python {sys.version.split()[0]}; best of {args.repeats}; instant model and summarizer")
    for line in missing:
        print("missing peer —", line)

    for count in args.turns:
        turns = make_turns(count)
        results = measure(factories, turns, args.repeats)
        ours = results["budget"].per_turn_us
        print(f"\n{count} turns")
        header = (f"{'µs/turn':>9} {'last 10%':>9} {'vs budget':>10} {'summaries':>10} {'max msgs':>9}"
                  f" {'lookups':>8} {'encodes':>8}")
        print(f"{'memory':44} {header}")
        for result in results.values():
            ratio = result.per_turn_us / ours
            print(f"{result.name:44} {result.per_turn_us:9.1f} {result.last_tenth_us:9.1f} {ratio:9.1f}× "
                  f"{result.summaries:10d} {result.longest_request:9d} {result.per_turn_counts()}")
        peers = [results[label].per_turn_us for label in PEERS if label in results]
        if peers:
            print(f"nightwatch with a budget is {min(peers) / ours:.1f}× faster than the faster peer")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
