"""Stress the budget: many generated nights, random policies and misbehaving summarizers.

    python benchmarks/budget_nights.py --nights 10000

Each night is played straight against the stand-in's answering function (no HTTP, so ten thousand
nights take minutes, not hours); the request is counted with the same tiktoken formula the stand-in
uses. Prints the largest request seen relative to its budget (request + reply reserve over the
context window): a value above 1.0 would be a broken guarantee. Every refusal is checked against the
promise: if the mission, a summary as large as its cap, the question and the reserve would have fit,
the refusal is counted as one that could have fit (the memory promises there are none).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from functools import lru_cache

from nightwatch.standin.reader import read
from nightwatch.memory.budget import ContextBudgetExceeded
from nightwatch.memory import SUMMARY_HEADER, ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, busy_night, celebration_eve, spring_night
from nightwatch.summarizers import concatenating_summarizer
from nightwatch.standin import ThreeLineSummarizer
from nightwatch.tokens import chat_request_tokens, count_text_tokens

# The same texts recur night after night: count each once (the counts are tiktoken's, unchanged).
count_tokens = lru_cache(maxsize=200_000)(count_text_tokens)


def count_request(messages: list[dict[str, str]]) -> int:
    return chat_request_tokens(messages, count_tokens)

TEXTS = sorted({t.text for night in (spring_night(), busy_night(), celebration_eve()) for t in night.turns})
LONG_TEXTS = ["目録: " + "贈り物の荷。" * n for n in (60, 150, 400)]


class Flaky:
    """Fails every ``every``-th call in the chosen way; otherwise keeps the three-line contract."""

    def __init__(self, mode: str, every: int) -> None:
        self.mode, self.every, self.calls = mode, every, 0
        self.inner = ThreeLineSummarizer()

    def __call__(self, summary, overflow):
        self.calls += 1
        if self.calls % self.every:
            return self.inner(summary, overflow)
        if self.mode == "raise":
            raise RuntimeError("flaky")
        return {"non_string": None, "empty": "", "huge": "束ね" * 2000}[self.mode]


def summarizer_kind(summarizer) -> str:
    if isinstance(summarizer, Flaky):
        return f"flaky ({summarizer.mode})"
    return getattr(summarizer, "__name__", type(summarizer).__name__)


def generated_night(rng: random.Random) -> tuple[dict, list[str], object]:
    """The policy's settings (made into a MemoryPolicy by the caller: it may be refused), turns, summarizer."""
    context_window = rng.randint(400, 4096)
    policy = dict(
        window_size=rng.randint(1, 8),
        token_threshold=rng.randint(20, 1200),
        context_window=context_window,
        reply_reserve=rng.randint(0, 200),
        summary_token_limit=rng.choice([None, rng.randint(40, 400)]),
    )
    turns = [rng.choice(TEXTS) if rng.random() > 0.03 else rng.choice(LONG_TEXTS) for _ in range(rng.randint(5, 80))]
    summarizer = rng.choice([
        ThreeLineSummarizer(), concatenating_summarizer,
        Flaky(rng.choice(["raise", "non_string", "empty", "huge"]), rng.randint(1, 5)),
    ])
    return policy, turns, summarizer


def could_have_fit(memory: ConversationMemory, question: str) -> bool:
    """Mission + a summary at its cap + question + reserve, counted independently of the memory."""
    policy = memory.policy
    assert policy.context_window is not None and memory.summary_cap is not None
    capped_summary = count_request([{"role": "system", "content": f"{SUMMARY_HEADER}\n"}]) - 3
    smallest = count_request([
        {"role": "system", "content": memory.mission}, {"role": "user", "content": question},
    ]) + capped_summary + memory.summary_cap
    return smallest + policy.reply_reserve <= policy.context_window


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    worst, calls, refusals, failures, fallbacks, wrongly_refused = 0.0, 0, 0, 0, 0, 0
    nights_by_kind: Counter[str] = Counter()
    stops_by_kind: Counter[str] = Counter()
    for number in range(1, args.nights + 1):
        policy, turns, summarizer = generated_night(rng)
        kind = summarizer_kind(summarizer)
        nights_by_kind[kind] += 1
        try:
            policy = MemoryPolicy(**policy)
            memory = ConversationMemory(MISSION, policy, count_tokens, summarizer)
        except ValueError:
            refusals += 1  # the mission, or a summary at its cap beside a question, cannot fit: refused at the door
            continue
        answered: list[str] = []
        for text in turns:
            try:
                messages = memory.build_messages(text)
            except ContextBudgetExceeded:
                stops_by_kind[kind] += 1
                wrongly_refused += could_have_fit(memory, text)
                continue  # a refused question is not recorded; the night goes on
            size = count_request(messages) + policy.reply_reserve
            worst = max(worst, size / policy.context_window)
            calls += 1
            memory.add_exchange(text, read(messages).content)
            answered.append(text)
        failures += len(memory.failures)
        fallbacks += sum(failure.fallback for failure in memory.failures)
        if [e.user_text for e in memory.archive + memory.window] != answered:
            raise SystemExit(f"night {number}: an exchange was lost or kept twice")
        if number % 500 == 0:
            print(f"\r{number}/{args.nights} nights, worst so far {worst:.4f}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"nights: {args.nights}  calls: {calls}  refused at construction: {refusals}  "
          f"summarizer failures logged: {failures} (the memory folded on its own: {fallbacks})")
    for kind, count in sorted(nights_by_kind.items()):
        print(f"  {kind:>24}: {count} nights, {stops_by_kind[kind]} questions refused (ContextBudgetExceeded)")
    print(f"largest (request + reserve) / context_window: {worst:.4f}")
    print(f"refusals that could have fit (mission + capped summary + question + reserve): {wrongly_refused}")
    if worst > 1.0:
        raise SystemExit("the budget was exceeded")
    if wrongly_refused:
        raise SystemExit("a request that could have fit was refused")


if __name__ == "__main__":
    main()
