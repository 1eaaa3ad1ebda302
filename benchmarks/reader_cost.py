"""What one ``read()`` costs, as a ratio against another version of the reader, measured in one run.

    git archive <commit> nightwatch | tar -x -C /tmp/baseline          # any earlier reader
    python benchmarks/reader_cost.py --baseline /tmp/baseline            # the tuning nights
    python benchmarks/reader_cost.py --baseline /tmp/baseline --nights 20

Milliseconds on a shared machine move with whatever else runs, so two readers timed minutes apart
cannot be compared. Here both read the same requests in the same process, call by call, in
alternating order: the requests of the generality benchmark's probe pass (each tuning night played
with the full history, the replies of the reader under test). The baseline package is copied under
another name (``nightwatch_baseline``), and so is the reader under test (``nightwatch_under_test``),
so that both are imported side by side in the same way, each with its own caches, filled alike (each
reads each request twice). Printed: each reader's mean per call and the ratio of the means, of the
medians, and the median of the per-request ratios (the two calls on one request are moments apart, so
the last is the least moved by the load of the machine).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_reader(directory: Path, name: str):
    """The ``read`` of the ``nightwatch`` package under ``directory``, imported as package ``name``."""
    copy = Path(tempfile.mkdtemp(prefix="reader_cost_")) / name
    shutil.copytree(directory / "nightwatch", copy)
    for path in copy.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"\bnightwatch(?=[.\s])", name, text), encoding="utf-8")
    sys.path.insert(0, str(copy.parent))
    return importlib.import_module(f"{name}.standin.reader").read


def _benchmark():
    spec = importlib.util.spec_from_file_location("reader_generality", Path(__file__).with_name("reader_generality.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def timed(reader, request) -> float:
    started = time.perf_counter()
    reader(request)
    return (time.perf_counter() - started) * 1000


def interleaved(read, baseline, nights: int | None) -> tuple[list[float], list[float]]:
    """Each request of the probe pass over the first ``nights`` tuning nights (all by default), read
    by both readers as it is built, the first to read it alternating; the history grows with the
    replies of the reader under test. Returns (under test, baseline) milliseconds per call."""
    bench = _benchmark()
    mine, theirs = [], []
    for spec in bench.load_set("tuning")[:nights]:
        gc.collect()  # between nights, so that no collection falls inside one reader's call
        history = [bench.mission_message(spec)]
        for turn in spec.turns:
            request = [*history, {"role": "user", "content": turn.text}]
            if len(mine) % 2:
                mine.append(timed(read, request))
                theirs.append(timed(baseline, request))
            else:
                theirs.append(timed(baseline, request))
                mine.append(timed(read, request))
            baseline(request)  # each reader reads each request twice, so their caches stay alike
            history = [*request, {"role": "assistant", "content": read(request).content}]
    return mine, theirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a directory holding an older nightwatch package")
    parser.add_argument("--nights", type=int, default=None, help="only the first N tuning nights")
    args = parser.parse_args(argv)
    read = load_reader(ROOT, "nightwatch_under_test")  # both readers as copies, imported alike
    baseline = load_reader(args.baseline, "nightwatch_baseline")
    warm_up = [{"role": "system", "content": "Say hello. 挨拶してください。"}, {"role": "user", "content": "Hello. こんにちは。"}]
    baseline(warm_up), read(warm_up)  # loading the analyzers is not reading
    gc.disable()
    try:
        mine, theirs = interleaved(read, baseline, args.nights)
    finally:
        gc.enable()
    print(f"{len(mine)} requests, each read once by each reader, alternating which goes first")
    print(f"baseline   {statistics.fmean(theirs):.3f} ms mean, {statistics.median(theirs):.3f} ms median per read()")
    print(f"under test {statistics.fmean(mine):.3f} ms mean, {statistics.median(mine):.3f} ms median per read()")
    print(f"ratio (under test / baseline): mean {statistics.fmean(mine) / statistics.fmean(theirs):.3f}, "
          f"median {statistics.median(mine) / statistics.median(theirs):.3f}, "
          f"median of the per-request ratios {statistics.median(a / b for a, b in zip(mine, theirs)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
