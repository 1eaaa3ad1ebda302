"""Chapter 7 keeps its Japanese table of the reader's rules, and one example per rule, in step with RULES.

The reader's rules change; the chapter writes its Japanese rows and its example requests keyed by rule
name (``RULES_JA`` and ``EXAMPLES`` in its cells). A rule added to ``RULES`` without a row or an
example would otherwise be silently missing from the chapter, and a row for a removed rule would
describe nothing.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from nightwatch.standin.reader import RULES

CHAPTER = Path(__file__).resolve().parents[1] / "notebooks" / "07_standin.ipynb"
COLUMNS = {"いつ働くか", "何を返すか", "根拠にするメッセージ"}


def assigned_dict(name: str) -> ast.Dict:
    """The dict literal assigned to ``name`` in one of the chapter's code cells."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for node in ast.parse("".join(cell["source"])).body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
                assert isinstance(node.value, ast.Dict), f"{name} is not a dict literal"
                return node.value
    raise AssertionError(f"no cell of {CHAPTER.name} assigns {name}")


def keys_of(literal: ast.Dict) -> list[str]:
    return [ast.literal_eval(key) for key in literal.keys]


@pytest.mark.parametrize("name", ["RULES_JA", "EXAMPLES"])
def test_every_rule_and_only_the_rules_have_a_row(name):
    keys = keys_of(assigned_dict(name))
    rule_names = [rule.__name__ for rule in RULES]
    assert sorted(keys) == sorted(rule_names), f"{name}: missing {set(rule_names) - set(keys)}, extra {set(keys) - set(rule_names)}"
    assert len(keys) == len(set(keys))


def test_every_japanese_row_fills_every_column_in_japanese():
    rows = ast.literal_eval(assigned_dict("RULES_JA"))
    for rule, row in rows.items():
        assert set(row) == COLUMNS, rule
        for column, text in row.items():
            assert text and any(ord(c) > 0x3000 for c in text), (rule, column)


def test_the_chapter_prints_the_reading_contract_from_the_module():
    from nightwatch.standin.reader import contract_text

    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    printed = ["".join(output.get("text", "")) for cell in cells if cell["cell_type"] == "code"
               and "contract_text()" in "".join(cell["source"]) for output in cell.get("outputs", [])]
    assert printed == [contract_text() + "\n"]
    for words in (("名詞", "動詞", "形容詞", "数"), ("同義語", "上位語", "言い換え")):
        assert all(word in contract_text() for word in words)
