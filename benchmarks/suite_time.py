"""How long the README's test command takes, and each chapter on its own.

Run from the project root: ``python benchmarks/suite_time.py``. It times the whole suite as the README
runs it (``pytest --nbval -n auto --dist loadfile``) and then each chapter notebook alone with nbval,
one after another, printing wall-clock seconds. On a shared machine the figures are pessimistic:
other processes compete for the same cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = [sys.executable, "-m", "pytest", "--nbval", "-n", "auto", "--dist", "loadfile", "-q"]


def timed(command: list[str]) -> tuple[float, int]:
    """Wall-clock seconds and exit status of one command, run from the project root."""
    start = time.perf_counter()
    status = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    return time.perf_counter() - start, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters-only", action="store_true", help="skip the whole-suite run")
    args = parser.parse_args()
    if not args.chapters_only:
        seconds, status = timed(SUITE)
        print(f"whole suite (README command): {seconds:6.1f} s  exit {status}")
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb")):
        seconds, status = timed([sys.executable, "-m", "pytest", "--nbval", "-q", "-p", "no:xdist", str(notebook)])
        print(f"{notebook.name:28s} {seconds:6.1f} s  exit {status}")


if __name__ == "__main__":
    main()
