"""The floor plan: the lesson at the top, the stand-in and the lab in wings, no import cycles.

The import graph is read from the source (every ``import`` anywhere in a module, lazy ones too), so
a new arrow from the core into a wing, or a cycle, fails here before a reader trips on it.
"""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nightwatch"
CORE = ("nightwatch", "nightwatch.agent", "nightwatch.before", "nightwatch.after", "nightwatch.nights",
        "nightwatch.summarizers", "nightwatch.memory", "nightwatch.tokens")
WINGS = ("nightwatch.standin", "nightwatch.lab", "nightwatch.workshop", "nightwatch.frameworks")
TOP_LEVEL = {"__init__.py", "__main__.py", "agent.py", "before.py", "after.py", "nights.py", "summarizers.py",
             "tools.py", "tool_night.py", "retrieval.py", "memory", "tokens", "standin", "lab", "workshop", "frameworks"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The project modules ``name`` imports; ``from package import submodule`` names the submodule."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nightwatch"):
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else node.module)
    return found - {name}


GRAPH = {name: imports_of(name) for name in MODULES}


def in_any(name: str, groups: tuple[str, ...]) -> bool:
    return any(name == group or name.startswith(group + ".") for group in groups)


def is_core(name: str) -> bool:
    return name == "nightwatch" or (in_any(name, CORE[1:]))


def test_the_top_level_reads_as_a_table_of_contents():
    shown = {path.name for path in PACKAGE.iterdir() if path.name != "__pycache__"}
    assert shown == TOP_LEVEL


def test_nothing_in_the_core_imports_a_wing():
    arrows = sorted((name, target) for name in GRAPH if is_core(name)
                    for target in GRAPH[name] if in_any(target, WINGS))
    assert arrows == []


def test_there_is_no_import_cycle():
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(GRAPH[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_the_graph_is_read_from_real_imports():
    # The checks above would pass on an empty graph: make sure the reading sees known arrows.
    assert "nightwatch.memory.tiers" in GRAPH["nightwatch.after"] | GRAPH["nightwatch.memory"]
    assert "nightwatch.standin.reader.rules" in GRAPH["nightwatch.standin.reader"]
    assert is_core("nightwatch.memory.budget") and not is_core("nightwatch.standin.model")


DOCTESTED = ["nightwatch.memory.budget", "nightwatch.memory.tiers", "nightwatch.summarizers", "nightwatch.nights",
             "nightwatch.tokens", "nightwatch.tokens.calibration"]


@pytest.mark.parametrize("name", DOCTESTED)
def test_the_examples_in_the_core_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
