"""How much of an in-process night the openai SDK's parameter transform takes, with and without
``nightwatch.standin.sdk_fast_path``: the celebration eve under the three designs, run alternately
both ways in one process, so the ratio is measured on the same machine at the same time.

    python benchmarks/sdk_fast_path.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

from nightwatch.lab.compare import compare_designs
from nightwatch.standin import sdk_fast_path


def timed() -> float:
    start = time.perf_counter()
    compare_designs()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args(argv).rounds
    compare_designs()  # the dictionary, the token table and every cache warm before timing
    slow, fast = [], []
    for _ in range(rounds):
        sdk_fast_path.uninstall()
        slow.append(timed())
        sdk_fast_path.install()
        fast.append(timed())
    print(f"the eve, three designs, {rounds} rounds each, alternating")
    print(f"  SDK's own transform: median {statistics.median(slow):.3f} s")
    print(f"  with the fast path:  median {statistics.median(fast):.3f} s")
    print(f"  ratio (fast / own):  {statistics.median(fast) / statistics.median(slow):.2f}")


if __name__ == "__main__":
    main()
