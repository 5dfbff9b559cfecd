"""The sdist is a working copy: unpacked, installed editable offline, its own tests run from it.

Slow (a build, a venv, an editable install and a bounded subset of the tests, under a minute):
``.ci/run`` runs it with the wheel tests, as ``python -m pytest -m slow tests/test_sdist.py``.
"""

from __future__ import annotations

import tarfile
from typing import TYPE_CHECKING

import pytest

from tests.support.user_project import BUILD_LOG, build_distributions, pip_into, run_in, venv_with_our_dependencies

if TYPE_CHECKING:
    from pathlib import Path

# One pytest-xdist worker runs the module: its tests share the module's build (made once, not once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("sdist")]

# A bounded subset that still needs every part of the copy: the packaging facts (the links, pyproject.toml),
# the import layers (every source file), a command-line test, and doctests collected through the link.
SUBSET = (
    "tests/test_packaging.py",
    "tests/test_layering.py",
    "tests/cli/test_installed_defaults.py",
    "bpe_conformance/spec/resources.py",
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(the unpacked sdist's directory, the build's output)."""
    dist = tmp_path_factory.mktemp("dist")
    sdist, _ = build_distributions(dist)
    unpacked = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(unpacked, filter="data")
        else:  # Python < 3.10.12 has no extraction filters; the archive is the one just built
            archive.extractall(unpacked)
    (tree,) = unpacked.iterdir()
    return tree, (dist / BUILD_LOG).read_text(encoding="utf-8")


def test_the_build_is_quiet(built: tuple[Path, str]) -> None:
    _, log = built
    assert "Package would be ignored" not in log
    assert "deprecated" not in log.lower(), [line for line in log.splitlines() if "deprecated" in line.lower()]


def test_the_sdist_holds_what_its_tests_need(built: tuple[Path, str]) -> None:
    tree, _ = built
    for name in ("LICENSE", "conftest.py", "tox.ini", "constraints.txt", "docs/ci.md", "tests/cli/test_main.py"):
        assert (tree / name).is_file(), name
    assert "MIT License" in (tree / "LICENSE").read_text(encoding="utf-8")
    for link, target in (("bpe_conformance", "conformance"), ("conformance/reference", "reference")):
        assert (tree / link).is_symlink(), link
        assert (tree / link).resolve() == (tree / target).resolve(), link
    assert not list(tree.rglob("__pycache__"))
    assert not (tree / "conformance/adapters/thirdparty/npm/node_modules").exists()


def test_the_unpacked_sdist_installs_offline_and_its_tests_pass(built: tuple[Path, str], tmp_path: Path) -> None:
    tree, _ = built
    venv = venv_with_our_dependencies(tmp_path / "venv")
    pip_into(venv, "--no-build-isolation", "-e", ".[test]", cwd=tree)
    completed = run_in(
        venv, tree, "python", "-m", "pytest", "-x", "-q", "-m", "not slow", "-p", "no:cacheprovider", *SUBSET
    )
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    assert " passed" in completed.stdout
    assert "failed" not in completed.stdout
    assert not (tree / ".hypothesis").exists()
    assert not (tree / ".pytest_cache").exists()
