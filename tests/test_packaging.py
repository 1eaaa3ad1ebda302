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


def readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.*?)\n```", readme, flags=re.DOTALL)[1]


def project_requirements() -> list[str]:
    """What the README's test command installs: the dependencies and the extras it names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = re.search(r'-e "\.\[([^\]]*)\]"', readme_test_command()).group(1).split(",")
    return project["dependencies"] + [r for extra in extras for r in project["optional-dependencies"][extra]]


def environment_pip_section() -> tuple[list[str], list[str]]:
    """environment.yml's conda packages and its pip lines (as conda hands them to pip)."""
    environment = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda = [d for d in environment["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    return conda, pip


def pinned_versions() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    return {requirement_name(line): line.split("==", 1)[1].strip() for line in lines if "==" in line}


def test_environment_yml_names_the_same_packages_as_pyproject():
    conda, pip = environment_pip_section()
    listed = {requirement_name(p) for p in pip if not p.startswith("-")}
    assert listed == {requirement_name(r) for r in project_requirements()}


def test_environment_yml_installs_the_pinned_versions_with_the_readme_extras():
    conda, pip = environment_pip_section()
    # conda gives only the interpreter and pip: a conda-built pandas or matplotlib would not be the
    # version the saved outputs were made with, and nbval compares them character by character.
    assert {requirement_name(c).split("=")[0] for c in conda} == {"python", "pip"}
    assert "-c constraints.txt" in pip and pip.index("-c constraints.txt") == 0
    # no version written here that could disagree with constraints.txt
    assert all(requirement_name(p) == p.strip() for p in pip if not p.startswith("-"))
    installs = [p for p in pip if p.startswith("-e ")]
    extras = re.search(r'-e "(\.\[[^\]]*\])"', readme_test_command()).group(1)
    assert installs == [f"-e {extras}"]
    python = next(c for c in conda if c.startswith("python"))
    assert re.fullmatch(r"python=3\.(1[1-9])", python), python  # requires-python >= 3.11


def test_environment_yml_python_matches_the_saved_outputs():
    import json

    conda, _ = environment_pip_section()
    series = next(c for c in conda if c.startswith("python")).split("=")[1]
    made_with = json.loads((ROOT / "notebooks" / "01_crash.ipynb").read_text(encoding="utf-8"))
    assert made_with["metadata"]["language_info"]["version"].startswith(series + ".")


def test_every_dependency_is_pinned_in_the_constraints_file():
    from packaging.requirements import Requirement

    pinned = pinned_versions()
    for requirement in project_requirements():
        name = requirement_name(requirement)
        assert name in pinned, requirement
        # the pin is one pyproject allows, or pip would refuse the pair
        assert Requirement(requirement).specifier.contains(pinned[name], prereleases=True), (requirement, pinned[name])


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
    for chapter in sorted((ROOT / "notebooks").glob("[0-9][0-9]*.ipynb")):
        assert re.search(rf"^- {chapter.name[:2]}\b", english, flags=re.MULTILINE), f"no line for {chapter.name}"


def test_the_workshop_guide_opens_with_an_english_summary():
    guide = (ROOT / "notebooks" / "exercises" / "README.md").read_text(encoding="utf-8")
    assert guide.splitlines()[2].startswith("> **In English.**")
