"""Start-up for every pytest process (the README's test command), nothing else.

nbval reads notebooks with nbformat, which imports jsonschema, whose format checkers import
``rfc3987_syntax`` if it is installed (jupyter pulls it in). That module builds some thirty Earley
parsers for IRI formats at import time: about 2 s in every pytest process, before a single test
runs (python-jsonschema/jsonschema#1428). No notebook schema uses an IRI format, so the test process
marks the module as absent and jsonschema skips those two checkers. Nothing outside pytest changes.

pytest loads installed plugins before any conftest, and nbval imports nbformat at once; so
``pyproject.toml`` keeps pytest from loading nbval itself (``-p no:nbval``) and this file loads it,
after the mark.
"""

from __future__ import annotations

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]

pytest_plugins = ["nbval.plugin"]


def changed_notebooks(root: str) -> list[str]:
    """Notebooks that differ from the last commit (run and autosaved in JupyterLab, say); [] outside git."""
    import subprocess

    try:
        listed = subprocess.run(["git", "-C", root, "status", "--porcelain", "--", "*.ipynb"],
                                capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(line[3:].strip() for line in listed.splitlines() if line[:2].strip() in ("M", "MM", "AM"))


def notebook_warnings(paths: list[str]) -> list[str]:
    """One line per changed notebook: nbval compares against the saved outputs, so a run in JupyterLab
    that saved new outputs fails here for no fault of the code."""
    return [f"注意: {path} は最後のコミットから変わっています（JupyterLab で実行・保存した出力は nbval の比較に使われます）。"
            f"元に戻すには: git checkout -- {path}" for path in paths]


def pytest_report_header(config) -> list[str]:
    return notebook_warnings(changed_notebooks(str(config.rootpath)))
