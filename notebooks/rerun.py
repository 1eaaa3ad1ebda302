"""Re-execute notebooks in place and save them as the suite expects: outputs, no run timestamps.

    python notebooks/rerun.py                 # every chapter, solution and exercise, two at a time
    python notebooks/rerun.py notebooks/03_three_tiers.ipynb
    python notebooks/rerun.py notebooks/03_three_tiers.ipynb notebooks/03b_rehearsal.ipynb   # several, two at a time

Run it after a library change, then ``pytest --nbval`` compares the fresh outputs on every test run.
Each notebook runs in its own folder, as JupyterLab runs it; nbclient's per-cell timing metadata
is dropped and a print the kernel split into chunks is joined, so a re-run that changes nothing
leaves the file byte-identical.
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
ALL = sorted(HERE.glob("[0-9][0-9]*.ipynb")) + sorted(HERE.glob("solutions/ex*.ipynb")) + sorted(HERE.glob("exercises/ex*.ipynb"))


def rerun(path: Path) -> str:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        cell_outputs = cell.get("outputs", [])
        merged: list = []
        for output in cell_outputs:  # the kernel splits a print into chunks as timing falls: join them
            if merged and output.output_type == "stream" and merged[-1].output_type == "stream" \
                    and merged[-1].name == output.name:
                merged[-1].text += output.text
            else:
                merged.append(output)
        if cell_outputs:
            cell.outputs = merged
    nbformat.write(notebook, path)
    return path.relative_to(HERE.parent).as_posix()


if __name__ == "__main__":
    paths = [Path(arg).resolve() for arg in sys.argv[1:]] or ALL
    with ProcessPoolExecutor(max_workers=2) as pool:
        for done in pool.map(rerun, paths):
            print("re-ran", done, flush=True)
