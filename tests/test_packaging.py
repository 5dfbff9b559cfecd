"""What the build ships: every package, and the specification files found through importlib.resources.

The slow end-to-end proof (build, install into a fresh venv, use from elsewhere) is tests/test_wheel.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bpe_conformance.spec.resources import SPECS_PACKAGE, spec_file, spec_root
from tests import ROOT

_PRINT_ROOT = "from bpe_conformance.spec.resources import spec_root; print(spec_root())"


def test_the_package_list_names_every_package_directory() -> None:
    tomllib = pytest.importorskip("tomllib")
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    # rglob does not follow the checkout's links (conformance/reference, conformance/_specs): each folder once.
    found = {
        ".".join((package, *init.parent.relative_to(ROOT / top).parts))
        for top, package in (("conformance", "bpe_conformance"), ("reference", "bpe_conformance.reference"))
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found | {SPECS_PACKAGE} == set(listed)


def test_the_package_directories_map_the_repository_folders() -> None:
    tomllib = pytest.importorskip("tomllib")
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
    assert mapping == {
        "bpe_conformance": "conformance",
        "bpe_conformance.reference": "reference",
        SPECS_PACKAGE: "specs",
    }
    # The checkout's links give tools that read files (mypy, mutmut, doctests) the same tree as the wheel.
    for link, target in mapping.items():
        path = ROOT.joinpath(*link.split("."))
        assert path.resolve() == (ROOT / target).resolve(), link


def test_the_specification_is_the_one_in_the_repository() -> None:
    assert spec_root() == ROOT / "specs"
    assert spec_file("schema", "report.schema.json").is_file()


def test_the_package_data_globs_cover_every_specification_file() -> None:
    tomllib = pytest.importorskip("tomllib")
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    data = {path for path in (ROOT / "specs").rglob("*") if path.is_file() and path.suffix not in (".py", ".pyc")}
    covered = {path for pattern in globs[SPECS_PACKAGE] for path in (ROOT / "specs").glob(pattern)}
    assert data
    assert data == covered


@pytest.mark.parametrize("site", [True, False], ids=["with-site-packages", "bare-tree"])
def test_a_copied_tree_finds_its_specification(tmp_path: Path, site: bool) -> None:
    # mutmut copies the checkout (specs/ included, pyproject's also_copy) and imports from the copy.
    # mutmut's copy: bpe_conformance/ and bpe_conformance/reference/ as real folders, specs/ beside them.
    skipped = shutil.ignore_patterns("__pycache__", "reference", "_specs")
    shutil.copytree(ROOT / "conformance", tmp_path / "bpe_conformance", ignore=skipped)
    shutil.copytree(ROOT / "reference", tmp_path / "bpe_conformance" / "reference", ignore=skipped)
    shutil.copytree(ROOT / "specs", tmp_path / "specs", ignore=skipped)
    flags = [] if site else ["-S"]
    completed = subprocess.run(
        [sys.executable, *flags, "-c", _PRINT_ROOT], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    found = Path(completed.stdout.strip())
    assert (found / "bpe.md").is_file()
    if not site:
        assert found == tmp_path / "specs"


def test_the_license_is_an_spdx_expression_and_its_file_ships() -> None:
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["license"] == "MIT"
    assert pyproject["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    # An SPDX `license` needs setuptools 77 (PEP 639): the build and the test extra both ask for it.
    assert "setuptools>=77" in pyproject["build-system"]["requires"]
    assert "setuptools>=77" in pyproject["project"]["optional-dependencies"]["test"]
