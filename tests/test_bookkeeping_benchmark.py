"""The bookkeeping benchmark still runs, and says which peers it could not measure."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_benchmark_runs_and_names_missing_peers():
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bookkeeping.py"), "--turns", "20", "--repeats", "1"],
        capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""},
        check=False, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("nightwatch ConversationMemory")]
    assert len(rows) == 2
    for module, peer in (("langchain_classic", "LangChain"), ("llama_index", "LlamaIndex")):
        if importlib.util.find_spec(module) is None:
            assert f"missing peer — {peer}: not installed" in result.stdout
        else:
            assert any(line.startswith(peer) for line in result.stdout.splitlines())
