"""A third party's project as the wheel tests see it: its own package, its own tests, a skip file.

``mypkg.Tok`` is the tokenizer the project ships (here the reference under another name, so every check
can pass); ``tests/test_own.py`` is the project's own test suite, which ``--bpe-only`` must leave out.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "BUILD_LOG",
    "SKIP_REASON",
    "USER_PACKAGE",
    "build_distributions",
    "fresh_venv",
    "pip_into",
    "run_in",
    "site_packages",
    "venv_with_our_dependencies",
    "write_user_project",
]

from typing import TYPE_CHECKING

from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Iterator

USER_PACKAGE = "mypkg"
BUILD_LOG = "build.log"

_TOKENIZER = '''\
"""The project's tokenizer."""

from bpe_conformance.reference import Tokenizer


class Tok(Tokenizer):
    name = "mypkg"
    version = "1.0"
'''
_PYPROJECT = """\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "mypkg"
version = "1.0"

[tool.setuptools]
packages = ["mypkg"]
"""
# A check name skips that check: the reports show it skipped, with the reason.
SKIP_REASON = "shown as skipped, with this reason, in every report"
_SKIPS = f"# checks mypkg knowingly fails\ntie-break    # {SKIP_REASON}\n"
_OWN_TEST = """\
def test_the_projects_own_test():
    raise AssertionError("the project's own test ran")
"""


def write_user_project(directory: Path) -> Path:
    """``mypkg/`` (with ``Tok``), its ``pyproject.toml``, ``tests/test_own.py`` and a skip file, in ``directory``."""
    (directory / USER_PACKAGE).mkdir(parents=True)
    (directory / USER_PACKAGE / "__init__.py").write_text(_TOKENIZER, encoding="utf-8")
    (directory / "tests").mkdir()
    (directory / "tests" / "test_own.py").write_text(_OWN_TEST, encoding="utf-8")
    (directory / "pyproject.toml").write_text(_PYPROJECT, encoding="utf-8")
    (directory / "conformance-skips.txt").write_text(_SKIPS, encoding="utf-8")
    return directory


@contextmanager
def _one_build_of_the_checkout_at_a_time() -> Iterator[None]:
    """Building the sdist writes ``bpe_conformance.egg-info`` into the checkout; two builds at once (pytest-xdist's
    workers, or two test runs of one checkout) would write it over each other. A lock file per checkout, in the
    temporary directory, lets one build run at a time; what the tests do with the builds still runs in parallel."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    key = hashlib.sha256(str(ROOT.resolve()).encode()).hexdigest()[:16]
    with (Path(tempfile.gettempdir()) / f"bpe-conformance-build-{key}.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build_distributions(outdir: Path) -> tuple[Path, Path]:
    """The sdist and the wheel built from the sdist, as ``python -m build`` does; (sdist, wheel)."""
    # --no-isolation: the build requirements are the test extra's, so no download is needed.
    with _one_build_of_the_checkout_at_a_time():
        completed = subprocess.run(
            [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(outdir), str(ROOT)],
            check=True,
            capture_output=True,
            text=True,
        )
    # Kept for the test that the build is quiet (tests/test_sdist.py).
    (outdir / BUILD_LOG).write_text(completed.stdout + completed.stderr, encoding="utf-8")
    (sdist,) = outdir.glob("*.tar.gz")
    (wheel,) = outdir.glob("*.whl")
    return sdist, wheel


def wheel_names(wheel: Path) -> set[str]:
    """Every file name inside ``wheel``."""
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def venv_with_our_dependencies(directory: Path) -> Path:
    """A new venv without pip or this package; this environment's dependencies are visible in it, read-only.

    The dependencies are made visible by a ``.pth`` line naming this environment's site-packages (plain
    path entries: its ``.pth`` files, the editable install of this checkout among them, are not run).
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(directory)], check=True)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site_packages(directory) / "_bpe_conformance_test_deps.pth").write_text(
        "\n".join(sorted(ours)) + "\n", encoding="utf-8"
    )
    return directory


def site_packages(venv: Path) -> Path:
    """The purelib directory of ``venv``."""
    purelib = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return Path(purelib)


def pip_into(venv: Path, *words: str, cwd: Path | None = None) -> None:
    """``pip install --quiet --no-index WORDS`` into ``venv``, with this environment's pip (offline)."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--quiet",
            "--no-index",
            *words,
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def fresh_venv(directory: Path, wheel: Path) -> Path:
    """A new venv with only ``wheel`` installed; its dependencies come from this environment, read-only."""
    venv_with_our_dependencies(directory)
    pip_into(directory, "--no-deps", str(wheel))
    return directory


def run_in(venv: Path, cwd: Path, *words: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``words`` run in ``cwd`` with ``venv`` first on PATH and nothing of this checkout importable."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "HYPOTHESIS"))}
    environment.pop("VIRTUAL_ENV", None)
    environment["PATH"] = f"{venv / 'bin'}{os.pathsep}{environment.get('PATH', '')}"
    environment["COLUMNS"] = "100"
    return subprocess.run(list(words), cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout)
