"""How long the README's test command takes, what in it is slowest, and each chapter on its own.

Run from the project root: ``python benchmarks/suite_time.py``. It times the whole suite as the README
runs it (``pytest --nbval -n auto --dist loadfile``, with pytest's own per-test durations), prints the
slowest tests and the slowest files with their share of all test time (under ``--dist loadfile`` one
file runs on one worker, so the slowest file is a floor for the whole run), then each chapter notebook
alone with nbval, one after another. Wall-clock seconds; on a shared machine the figures are
pessimistic: other processes compete for the same cores.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = [sys.executable, "-m", "pytest", "--nbval", "-n", "auto", "--dist", "loadfile", "-q", "-p", "no:cacheprovider"]
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(setup|call|teardown)\s+(\S.*)$")


def timed(command: list[str]) -> tuple[float, int, str]:
    """Wall-clock seconds, exit status and output of one command, run from the project root."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stdout


def durations(output: str) -> dict[str, float]:
    """Seconds per test id (setup, call and teardown together) from pytest's ``--durations=0`` table."""
    seconds: dict[str, float] = defaultdict(float)
    for line in output.splitlines():
        match = DURATION.match(line)
        if match:
            seconds[match.group(3).strip()] += float(match.group(1))
    return seconds


def print_slowest(seconds: dict[str, float], top: int) -> None:
    total = sum(seconds.values()) or 1.0
    print(f"\nslowest {top} tests (share of {total:.1f} s of test time, all workers):")
    for test, s in sorted(seconds.items(), key=lambda item: -item[1])[:top]:
        print(f"  {s:6.1f} s  {100 * s / total:4.1f} %  {test}")
    per_file: dict[str, float] = defaultdict(float)
    for test, s in seconds.items():
        per_file[test.split("::")[0]] += s
    print(f"\nslowest {top} files (one worker each under --dist loadfile):")
    for path, s in sorted(per_file.items(), key=lambda item: -item[1])[:top]:
        print(f"  {s:6.1f} s  {100 * s / total:4.1f} %  {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters-only", action="store_true", help="skip the whole-suite run")
    parser.add_argument("--top", type=int, default=15, help="how many of the slowest tests and files to list")
    args = parser.parse_args()
    if not args.chapters_only:
        seconds, status, output = timed(SUITE + ["--durations=0", "--durations-min=0"])
        counts = re.findall(r"(\d+) (passed|failed|error|skipped)", output)
        print(f"whole suite (README command): {seconds:6.1f} s  exit {status}  "
              + ", ".join(f"{n} {what}" for n, what in counts))
        print_slowest(durations(output), args.top)
        print()
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb")):
        seconds, status, _ = timed([sys.executable, "-m", "pytest", "--nbval", "-q", "-p", "no:xdist",
                                    "-p", "no:cacheprovider", str(notebook)])
        print(f"{notebook.name:28s} {seconds:6.1f} s  exit {status}")


if __name__ == "__main__":
    main()
