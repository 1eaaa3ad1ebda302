"""Stress the budget: many generated nights, random policies and misbehaving summarizers.

    python benchmarks/budget_nights.py --nights 10000

Each night is played straight against the stand-in's answering function (no HTTP, so ten thousand
nights take minutes, not hours); the request is counted with the same tiktoken formula the stand-in
uses. Prints the largest request seen relative to its budget (request + reply reserve over the
context window): a value above 1.0 would be a broken guarantee.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

from nightwatch import persona
from nightwatch.budget import ContextBudgetExceeded
from nightwatch.memory import ConversationMemory, MemoryPolicy
from nightwatch.nights import MISSION, busy_night, celebration_eve, spring_night
from nightwatch.summarizers import ThreeLineSummarizer, concatenating_summarizer
from nightwatch.tokens import count_message_tokens, count_text_tokens

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


def generated_night(rng: random.Random) -> tuple[MemoryPolicy, list[str], object]:
    context_window = rng.randint(400, 4096)
    policy = MemoryPolicy(
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nights", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    worst, calls, refusals, failures = 0.0, 0, 0, 0
    nights_by_kind: Counter[str] = Counter()
    stops_by_kind: Counter[str] = Counter()
    for number in range(1, args.nights + 1):
        policy, turns, summarizer = generated_night(rng)
        kind = summarizer_kind(summarizer)
        nights_by_kind[kind] += 1
        try:
            memory = ConversationMemory(MISSION, policy, count_text_tokens, summarizer)
        except ValueError:
            refusals += 1  # the mission alone does not fit this window: refused at construction
            continue
        for text in turns:
            try:
                messages = memory.build_messages(text)
            except ContextBudgetExceeded:
                stops_by_kind[kind] += 1
                break
            size = count_message_tokens(messages) + policy.reply_reserve
            worst = max(worst, size / policy.context_window)
            calls += 1
            memory.add_exchange(text, persona.answer(messages))
        failures += len(memory.failures)
        if number % 500 == 0:
            print(f"\r{number}/{args.nights} nights, worst so far {worst:.4f}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"nights: {args.nights}  calls: {calls}  refused at construction: {refusals}  "
          f"summarizer failures logged: {failures}")
    for kind, count in sorted(nights_by_kind.items()):
        print(f"  {kind:>24}: {count} nights, {stops_by_kind[kind]} ended by ContextBudgetExceeded")
    print(f"largest (request + reserve) / context_window: {worst:.4f}")
    if worst > 1.0:
        raise SystemExit("the budget was exceeded")


if __name__ == "__main__":
    main()
