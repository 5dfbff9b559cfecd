"""The wheel is the product: built, installed into a fresh venv, and used from an unrelated directory.

Slow (a build, a venv and every command, about a minute and a half): ``.ci/run`` runs it explicitly, as
``python -m pytest -m slow tests/test_wheel.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests import ROOT
from tests.support.user_project import build_distributions, fresh_venv, run_in, wheel_names, write_user_project

pytestmark = pytest.mark.slow

# (venv, user project directory, wheel)
Installed = tuple[Path, Path, Path]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """(venv, user project directory, wheel) with the wheel installed and the project written."""
    dist = tmp_path_factory.mktemp("dist")
    _, wheel = build_distributions(dist)
    venv = fresh_venv(tmp_path_factory.mktemp("venv") / "venv", wheel)
    project = write_user_project(tmp_path_factory.mktemp("user-project"))
    return venv, project, wheel


def _ok(venv: Path, project: Path, *words: str) -> str:
    completed = run_in(venv, project, *words)
    assert completed.returncode == 0, f"{words}: exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    return completed.stdout


def test_the_wheel_ships_the_specification_and_no_repository_files(installed: Installed) -> None:
    names = wheel_names(installed[2])
    shipped = {
        path.relative_to(ROOT / "specs").as_posix()
        for path in (ROOT / "specs").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert {f"bpe_conformance/_specs/{name}" for name in shipped} <= names
    for folder, package in (("conformance", "bpe_conformance"), ("reference", "bpe_conformance/reference")):
        sources = {f"{package}/{path.relative_to(ROOT / folder).as_posix()}" for path in (ROOT / folder).rglob("*.py")}
        assert sources <= names, sorted(sources - names)
    # One top-level name only: nothing another distribution could overwrite, nothing of the repository.
    assert {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")} == {
        "bpe_conformance"
    }


def test_the_commands_run_from_the_installed_wheel(installed: Installed) -> None:
    venv, project, _ = installed
    where = _ok(venv, project, "python", "-c", "import bpe_conformance, sys; print(bpe_conformance.__file__)")
    assert where.startswith(str(venv)), where
    assert "usage" in _ok(venv, project, "bpe-conformance", "--help")
    _ok(venv, project, "bpe-conformance", "run", "--json", "report.json")
    report = json.loads((project / "report.json").read_text(encoding="utf-8"))
    schema = json.loads((ROOT / "specs" / "schema" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(report, schema)
    assert report["summary"]["exit_code"] == 0
    (project / "report.json").unlink()
    assert "PASSED" in _ok(
        venv, project, "bpe-conformance", "run", "--impl", "mypkg:Tok", "--skip-file", "conformance-skips.txt"
    )
    _ok(venv, project, "bpe-conformance", "vectors", "check")
    assert "BPE-TRAIN-TIE" in _ok(venv, project, "bpe-conformance", "explain", "BPE-TRAIN-TIE")
    assert "strict" in _ok(venv, project, "bpe-conformance", "identify", "--impl", "mypkg:Tok")
    assert "(97, 98)" in _ok(venv, project, "bpe-conformance", "trace", "abab", "acac", "--merges", "32")
    assert "AGREED" in _ok(
        venv,
        project,
        "bpe-conformance",
        "compare",
        "--impl",
        "mypkg:Tok",
        "--corpus",
        "pyproject.toml",
        "--corpus",
        "conformance-skips.txt",
        "--merges",
        "20",
        "--json",
        "compare.json",
    )
    compared = json.loads((project / "compare.json").read_text(encoding="utf-8"))
    jsonschema.validate(compared, json.loads((ROOT / "specs" / "schema" / "compare.schema.json").read_text()))
    (project / "compare.json").unlink()


def test_the_plugin_runs_only_the_conformance_items_from_the_installed_wheel(installed: Installed) -> None:
    venv, project, _ = installed
    output = _ok(
        venv,
        project,
        "python",
        "-m",
        "pytest",
        "-p",
        "bpe_conformance.plugin",
        "--bpe-impl",
        "mypkg:Tok",
        "--bpe-only",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    assert "passed" in output and "failed" not in output


def test_a_fuzz_campaign_runs_from_the_installed_wheel(installed: Installed, tmp_path: Path) -> None:
    # Its workers are `python -m bpe_conformance.fuzzing.worker` of the venv; its files go where it is told
    # (XDG_CACHE_HOME: hypothesis's storage; --database, --json), none into the working directory.
    venv, project, _ = installed
    words = [
        "env",
        f"XDG_CACHE_HOME={tmp_path / 'cache'}",
        "bpe-conformance",
        "fuzz",
        "--impl",
        "mypkg:Tok",
        "--check",
        "tie-break",
        "--duration",
        "3s",
        "--jobs",
        "2",
        "--database",
        str(tmp_path / "db"),
        "--json",
        str(tmp_path / "fuzz.json"),
    ]
    assert "PASSED: no failure" in _ok(venv, project, *words)
    summary = json.loads((tmp_path / "fuzz.json").read_text(encoding="ascii"))
    jsonschema.validate(summary, json.loads((ROOT / "specs" / "schema" / "fuzz.schema.json").read_text()))
    assert summary["summary"]["examples"] > 0 and summary["config"]["jobs"] == 2
    assert (tmp_path / "cache" / "bpe-conformance" / "hypothesis").is_dir()


def test_nothing_is_left_in_the_working_directory(installed: Installed) -> None:
    venv, project, _ = installed
    _ok(venv, project, "bpe-conformance", "run", "--check", "tie-break")
    left = sorted(
        path.relative_to(project).as_posix() for path in project.rglob("*") if "__pycache__" not in path.parts
    )
    assert left == [
        "conformance-skips.txt",
        "mypkg",
        "mypkg/__init__.py",
        "pyproject.toml",
        "tests",
        "tests/test_own.py",
    ], left
