"""Every plot in the notebooks carries Japanese alternative text in its cell's metadata ("alt").

nbconvert's classic HTML template reads the image's alt text from the output metadata or, failing
that, from the cell metadata key "alt"; the cell route survives re-execution (notebooks/rerun.py
keeps cell metadata). The default "lab" template ignores that key (it writes a stock placeholder) (JupyterLab itself has no
standard for it yet), so the project ships notebooks/html_with_alt.html.j2, the lab look plus alt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK_PATHS = sorted(
    [*NOTEBOOKS.glob("[0-9][0-9]*.ipynb"), *(NOTEBOOKS / "solutions").glob("*.ipynb"), *(NOTEBOOKS / "exercises").glob("*.ipynb")]
)
KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff]")


def plot_cells(path: Path) -> list[tuple[int, dict]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    return [
        (index, cell)
        for index, cell in enumerate(notebook["cells"])
        if cell["cell_type"] == "code" and any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))
    ]


def is_japanese(text: str) -> bool:
    """Kana in it, most of its characters outside ASCII, and it ends as a Japanese sentence."""
    letters = [c for c in text if not c.isspace()]
    non_ascii = sum(1 for c in letters if ord(c) > 127)
    return bool(KANA.search(text)) and non_ascii >= len(letters) / 2 and text.rstrip().endswith("。")


def test_the_notebooks_have_plots():
    assert NOTEBOOK_PATHS
    assert sum(len(plot_cells(path)) for path in NOTEBOOK_PATHS) > 0


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_every_plot_has_japanese_alt_text(path):
    for index, cell in plot_cells(path):
        alt = cell.get("metadata", {}).get("alt")
        assert isinstance(alt, str) and alt.strip(), f"{path.name} cell {index}: no metadata 'alt'"
        assert is_japanese(alt), f"{path.name} cell {index}: alt text is not Japanese: {alt!r}"


def test_nbconvert_classic_template_uses_the_cell_alt_key():
    """Guards the key name: the classic template takes the cell's metadata "alt" for the <img>."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    path, (index, cell) = next((p, c[0]) for p in NOTEBOOK_PATHS if (c := plot_cells(p)))
    notebook = nbformat.reads(json.dumps({**json.loads(path.read_text(encoding="utf-8")), "cells": [cell]}), as_version=4)
    html, _ = nbconvert.HTMLExporter(template_name="classic").from_notebook_node(notebook)
    assert f'alt="{cell["metadata"]["alt"]}"' in html


TEMPLATE = NOTEBOOKS / "html_with_alt.html.j2"


def test_the_project_template_gives_every_plot_its_alt_in_the_lab_look():
    """The README's export command: the lab look, and each <img> carries its cell's alt text."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    path = next(p for p in NOTEBOOK_PATHS if len(plot_cells(p)) >= 2)
    notebook = nbformat.read(path, as_version=4)
    html, _ = nbconvert.HTMLExporter(template_file=str(TEMPLATE)).from_notebook_node(notebook)
    images = re.findall(r"<img\b[^>]*>", html)
    expected = [cell["metadata"]["alt"] for _, cell in plot_cells(path)]
    assert len(images) == len(expected)
    assert [re.search(r'alt="([^"]*)"', tag).group(1) for tag in images] == expected
    assert "jp-RenderedImage" in html  # the lab look, not the classic one


def test_the_default_lab_template_still_gives_only_a_placeholder():
    """Why the project template exists: the lab template ignores "alt" and writes nbconvert's stock
    "No description has been provided" on every image. When it learns the key, drop ours."""
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    path = next(p for p in NOTEBOOK_PATHS if plot_cells(p))
    html, _ = nbconvert.HTMLExporter(template_name="lab").from_notebook_node(nbformat.read(path, as_version=4))
    alts = re.findall(r'<img\b[^>]*\balt="([^"]*)"', html)
    assert alts and all(alt.startswith("No description") for alt in alts)
