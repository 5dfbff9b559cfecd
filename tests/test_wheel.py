"""The wheel is the product: built, installed into a fresh venv, and used from an unrelated directory.

Slow (a build, a venv and every command, about a minute and a half): ``.ci/run`` runs it explicitly, as
``python -m pytest -m slow tests/test_wheel.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from tests import ROOT
from tests.support.user_project import (
    build_distributions,
    fresh_venv,
    run_in,
    site_packages,
    wheel_names,
    write_user_project,
)

# One pytest-xdist worker runs the module: its tests share the module's build (made once, not once per worker).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]

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
        # rglob does not follow the checkout's links (conformance/reference, conformance/_specs): each file once.
        sources = {f"{package}/{path.relative_to(ROOT / folder).as_posix()}" for path in (ROOT / folder).rglob("*.py")}
        assert sources <= names, sorted(sources - names)
    # One top-level name only: nothing another distribution could overwrite, nothing of the repository.
    assert {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")} == {
        "bpe_conformance"
    }


def test_the_commands_run_from_the_installed_wheel(installed: Installed) -> None:
    venv, project, _ = installed
    where = _ok(venv, project, "python", "-c", "import bpe_conformance; print(bpe_conformance.__file__)")
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
    assert "passed" in output
    assert "failed" not in output


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
    assert summary["summary"]["examples"] > 0
    assert summary["config"]["jobs"] == 2
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


def _listing(directory: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under ``directory``: its size, modification time and SHA-256."""
    return {
        path.relative_to(directory).as_posix(): (
            path.stat().st_size,
            path.stat().st_mtime_ns,
            hashlib.sha256(path.read_bytes()).hexdigest(),
        )
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


# Every subcommand as the README and --help document it, from an empty directory: (words, exit status, a fact
# of its output). Paths in {out} are the only ones given; nothing may be written anywhere else.
DOCUMENTED = [
    (["--help"], 0, "usage"),
    (["run", "--check", "tie-break"], 0, "PASSED"),
    (["run", "--impl", "reference-literal", "--check", "tie-break", "--json", "{out}/run.json"], 0, "PASSED"),
    (["identify", "--impl", "reference"], 0, "identified as: strict"),
    (["identify", "--impl", "reference-literal"], 0, "identified as: strict"),
    (["identify", "--impl", ""], 2, "--impl is empty"),
    (["explain", "BPE-TRAIN-TIE"], 0, "BPE-TRAIN-TIE"),
    (["explain", "--list"], 0, "BPE-ALPHA-BYTES"),
    (["trace", "abab", "acac", "--merges", "32"], 0, "(97, 98)"),
    (["compare", "--impl", "reference", "--corpus", "{out}/corpus.txt", "--merges", "20"], 0, "AGREED"),
    (["vectors", "check"], 0, "up to date"),
    (["vectors", "generate"], 2, "--dir"),
    (["vectors", "generate", "--dir", "{out}", "--profile", "tiktoken"], 0, "wrote"),
    (["zoo", "gallery"], 2, "--output"),
    (["zoo", "gallery", "--check", "--output", "{out}/bug-zoo.md"], 1, "missing"),
    (["zoo", "check", "--quick", "--only", "concatenates-documents"], 0, "rejected 1/1 members"),
    (["matrix"], 2, "--output, --html or --json"),
    (["matrix", "--from", str(ROOT / "docs" / "matrix.json"), "--html", "{out}/matrix.html"], 0, "implementations"),
    (["bench"], 2, "needs a checkout"),
    (
        ["handshake", "--impl", "cmd:python -m bpe_conformance.adapters.host bpe_conformance.reference:Tokenizer"],
        0,
        "every exchange followed the protocol",
    ),
    (["badge", "{out}/run.json"], 0, "BPE algorithm"),
    (["badge", "{out}/run.json", "--dir", "{out}"], 0, "bpe-interface.json"),
    (["run", "--seed", "-1"], 2, "non-negative"),
    (["fuzz", "--duration", "-5s"], 2, "-5s"),
]


def test_every_documented_command_runs_from_an_empty_directory_and_leaves_site_packages_unchanged(
    installed: Installed, tmp_path: Path
) -> None:
    venv = installed[0]
    empty, out = tmp_path / "empty", tmp_path / "out"
    empty.mkdir()
    out.mkdir()
    (out / "corpus.txt").write_text("abab acac\n" * 50, encoding="utf-8")
    packages = site_packages(venv)
    before = _listing(packages)
    for words, status, fact in DOCUMENTED:
        words = [word.replace("{out}", str(out)) for word in words]
        completed = run_in(venv, empty, "bpe-conformance", *words)
        shown = f"{words}: exit {completed.returncode}\n{completed.stdout[-2000:]}\n{completed.stderr[-2000:]}"
        assert completed.returncode == status, shown
        assert fact in completed.stdout + completed.stderr, shown
        assert "Traceback" not in completed.stderr, shown
        if status == 2:
            assert len(completed.stderr.strip().splitlines()) == 1, shown
    assert sorted(empty.iterdir()) == []
    assert _listing(packages) == before
    assert (out / "run.json").is_file()
    assert (out / "matrix.html").is_file()
