"""Import names no other distribution uses (issue 24): the wheel beside PyPI's ``reference`` and ``conformance``.

PyPI has distributions that install top-level packages named ``reference`` and ``conformance``. Stand-ins
of the same names are built here (a tiny setuptools project each, offline) and installed with this
project's wheel into a fresh venv, in both orders, then each uninstalled in turn: ``bpe-conformance run``
keeps working and every package still installed still imports its own code.

Slow (two builds, a few venvs and runs): ``.ci/run`` runs the slow tests explicitly.
"""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests.support.user_project import build_distributions, fresh_venv, run_in

if TYPE_CHECKING:
    from pathlib import Path

# One pytest-xdist worker runs the module: its tests share the module's build (made once, not once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("import_names")]

STAND_INS = ("reference", "conformance")
_PYPROJECT = """\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.0.1"

[tool.setuptools]
packages = ["{name}"]
"""


def _stand_in_wheel(name: str, root: Path, outdir: Path) -> Path:
    project = root / name
    (project / name).mkdir(parents=True)
    (project / "pyproject.toml").write_text(_PYPROJECT.format(name=name), encoding="utf-8")
    (project / name / "__init__.py").write_text(f'STAND_IN = "{name} stand-in"\n', encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-build-isolation",
            "--no-deps",
            "-w",
            str(outdir),
            str(project),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = outdir.glob(f"{name}-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """This project's wheel and the two stand-ins', by distribution name."""
    _, ours = build_distributions(tmp_path_factory.mktemp("dist"))
    sources, outdir = tmp_path_factory.mktemp("stand-ins"), tmp_path_factory.mktemp("stand-in-wheels")
    return {"bpe-conformance": ours, **{name: _stand_in_wheel(name, sources, outdir) for name in STAND_INS}}


def _pip(venv: Path, *words: str) -> None:
    command = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), *words]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    assert completed.returncode == 0, f"{words}: {completed.stdout}\n{completed.stderr}"


def _install(venv: Path, wheel: Path) -> None:
    _pip(venv, "install", "--quiet", "--no-deps", "--no-index", str(wheel))


def _assert_working(venv: Path, cwd: Path, installed: set[str]) -> None:
    if "bpe-conformance" in installed:
        completed = run_in(venv, cwd, "bpe-conformance", "run", "--check", "tie-break", "--quiet")
        assert completed.returncode == 0, completed.stdout + completed.stderr
        assert completed.stdout.startswith("PASSED: 1 pass")
    for name in STAND_INS:
        probe = run_in(venv, cwd, "python", "-c", f"import {name}; print({name}.STAND_IN)")
        if name in installed:
            assert probe.stdout.strip() == f"{name} stand-in", probe.stdout + probe.stderr
        else:
            assert probe.returncode != 0, probe.stdout + probe.stderr
            assert "ModuleNotFoundError" in probe.stderr, probe.stdout + probe.stderr


@pytest.mark.parametrize("ours_first", [True, False], ids=["wheel-first", "stand-ins-first"])
@pytest.mark.parametrize("removed", ["reference", "conformance", "bpe-conformance"])
def test_the_wheel_and_the_stand_ins_break_neither_in_any_order(
    wheels: dict[str, Path], tmp_path: Path, ours_first: bool, removed: str
) -> None:
    order = ["bpe-conformance", *STAND_INS] if ours_first else [*STAND_INS, "bpe-conformance"]
    venv = fresh_venv(tmp_path / "venv", wheels[order[0]])
    for name in order[1:]:
        _install(venv, wheels[name])
    installed = {"bpe-conformance", *STAND_INS}
    _assert_working(venv, tmp_path, installed)
    _pip(venv, "uninstall", "--quiet", "-y", removed)
    _assert_working(venv, tmp_path, installed - {removed})
