"""A test run that meets a notebook changed since the last commit says so first, with the way back."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def root_conftest():
    spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True)


def test_a_notebook_saved_after_a_run_is_named_with_the_command_that_restores_it(tmp_path):
    conftest = root_conftest()
    git(tmp_path, "init", "-q")
    (tmp_path / "notebooks").mkdir()
    chapter = tmp_path / "notebooks" / "01_crash.ipynb"
    chapter.write_text("{}")
    (tmp_path / "notes.txt").write_text("a")
    git(tmp_path, "add", ".")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    assert conftest.changed_notebooks(str(tmp_path)) == []
    chapter.write_text('{"cells": []}')
    (tmp_path / "notes.txt").write_text("b")  # not a notebook: not named
    changed = conftest.changed_notebooks(str(tmp_path))
    assert changed == ["notebooks/01_crash.ipynb"]
    [line] = conftest.notebook_warnings(changed)
    assert "notebooks/01_crash.ipynb" in line and "git checkout -- notebooks/01_crash.ipynb" in line


def test_outside_a_repository_nothing_is_said(tmp_path):
    assert root_conftest().changed_notebooks(str(tmp_path)) == []


def test_the_html_export_is_ignored_by_git():
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "notebooks/01_crash.html"], capture_output=True)
    if ignored.returncode == 128:
        pytest.skip("not a git checkout")
    assert ignored.returncode == 0
