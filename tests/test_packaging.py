"""The project's own files agree with each other, and ``import nightwatch`` stays light."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_pyproject_and_environment_yml_list_the_same_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {requirement_name(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    environment = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda = {requirement_name(d) for d in environment["dependencies"] if isinstance(d, str)}
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    listed = (conda | {requirement_name(p) for p in pip if not p.startswith("-e")}) - {"python", "pip"}
    assert listed == wanted
    assert "-e .[frameworks]" in pip  # chapter 8 needs the extra, as the README command installs it


def test_every_dependency_is_pinned_in_the_constraints_file():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pinned = {
        requirement_name(line)
        for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
        if "==" in line
    }
    for requirement in project["dependencies"] + project["optional-dependencies"]["test"]:
        assert requirement_name(requirement) in pinned, requirement


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.DOTALL)
    assert len(blocks) == 2, "the README gives exactly two set-up commands"
    assert "pytest --nbval" in blocks[1]
    assert blocks[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_import_nightwatch_does_not_import_matplotlib_or_pandas():
    code = "import sys, nightwatch; print(sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def readme_section(heading: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rest = readme.split(f"\n## {heading}\n", 1)[1]
    return rest.split("\n## ", 1)[0]


def test_every_path_in_the_readme_contents_table_exists():
    table = readme_section("中身")
    paths = re.findall(r"^\| `([^`]+)`", table, flags=re.MULTILINE)
    assert len(paths) >= 10
    missing = [path for path in paths if not (ROOT / path).exists()]
    assert not missing, f"the README's 中身 table names paths that are not in the project: {missing}"
    # every top-level part of the package is in the table (a re-layout cannot leave it stale again)
    package = ROOT / "nightwatch"
    parts = {f"nightwatch/{p.name}" + ("/" if p.is_dir() else "") for p in package.iterdir()
             if not p.name.startswith(("_", ".")) or p.name == "__main__.py"}
    assert parts - set(paths) == set()


def test_the_english_section_gets_a_reader_to_chapter_one():
    english = readme_section("In English")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in re.findall(r"```bash\n(.*?)\n```", readme, flags=re.DOTALL):
        assert command in english  # the same two commands, word for word
    assert "Python 3.11" in english and "python3 -m venv .venv" in english
    assert "notebooks/01_crash.ipynb" in english and "(notebooks/README.md)" in english
    for chapter in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        assert re.search(rf"^- {chapter.name[:2]}\b", english, flags=re.MULTILINE), f"no line for {chapter.name}"


def test_the_workshop_guide_opens_with_an_english_summary():
    guide = (ROOT / "notebooks" / "exercises" / "README.md").read_text(encoding="utf-8")
    assert guide.splitlines()[2].startswith("> **In English.**")
