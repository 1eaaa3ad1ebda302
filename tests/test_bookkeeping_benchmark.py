"""The bookkeeping benchmark still runs, and says which peers it could not measure."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark():
    """``benchmarks/bookkeeping.py`` as a module, run in this process (its ``main`` takes argv)."""
    spec = importlib.util.spec_from_file_location("bookkeeping_benchmark", ROOT / "benchmarks" / "bookkeeping.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_runs_and_names_missing_peers(capsys):
    assert load_benchmark().main(["--turns", "20", "--repeats", "1"]) == 0
    stdout = capsys.readouterr().out
    rows = [line for line in stdout.splitlines() if line.startswith("nightwatch ConversationMemory")]
    assert len(rows) == 2
    for module, peer in (("langchain_classic", "LangChain"), ("llama_index", "LlamaIndex")):
        if importlib.util.find_spec(module) is None:
            assert f"missing peer — {peer}: not installed" in stdout
        else:
            assert any(line.startswith(peer) for line in stdout.splitlines())
