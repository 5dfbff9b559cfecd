"""tools/mutation_run.py runs a selection from one open collection with the verdicts of ``pytest.main``.

A small project of passing, failing and erroring tests is collected once; each selection then runs in a
process forked from the collecting one, as mutmut's fork server forks a process per mutant, and in a fresh
``python -m pytest`` with the same options. The exit statuses and what ran must be the same: a mutant's verdict
is that status (1 killed, 0 survived).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

import pytest

from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

OPTIONS = ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts="]

PROJECT = {
    "conftest.py": """
        import pathlib
        import pytest

        @pytest.fixture(scope="session")
        def session_resource():
            yield
            pathlib.Path("torn-down").write_text("yes")
    """,
    "test_sample.py": """
        import pathlib
        import pytest

        def test_passes():
            pass

        def test_fails():
            assert 1 + 1 == 3

        @pytest.fixture
        def broken():
            raise RuntimeError("set-up fails")

        def test_errors_in_set_up(broken):
            pass

        def test_records_that_it_ran():
            pathlib.Path("ran").write_text("yes")

        def test_uses_the_session_resource(session_resource):
            print("captured output")

        def test_exits():
            pytest.exit("stop", returncode=7)
    """,
}

# Collects once, then runs each selection in a forked process; writes one JSON line per selection to "results"
# (pytest writes its own report to stdout).
DRIVER = """
import json, os, pathlib, sys
sys.path.insert(0, sys.argv[1])
import mutation_run
selections = json.loads(sys.argv[2])
collected = mutation_run.collect_once(json.loads(sys.argv[3]), ".")
for selection in selections:
    for leftover in ("ran", "torn-down", "status"):
        pathlib.Path(leftover).unlink(missing_ok=True)
    pid = os.fork()
    if pid == 0:
        sys.stdout = open(os.devnull, "w")
        try:
            status = mutation_run.run_collected(collected, selection)
        except mutation_run.UnknownTests:
            status = "unknown"
        pathlib.Path("status").write_text(json.dumps(status))
        os._exit(0)
    os.waitpid(pid, 0)
    status = json.loads(pathlib.Path("status").read_text())
    effects = sorted(name for name in ("ran", "torn-down") if pathlib.Path(name).exists())
    with open("results", "a") as results:
        results.write(json.dumps([status, effects]) + "\\n")
"""

SELECTIONS = [
    ["test_passes"],
    ["test_passes", "test_fails", "test_records_that_it_ran"],
    ["test_errors_in_set_up", "test_records_that_it_ran"],
    ["test_records_that_it_ran", "test_uses_the_session_resource"],
    ["test_uses_the_session_resource", "test_fails"],
    ["test_exits"],
    ["test_passes"],
]


def _project(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def _node_ids(selection: list[str]) -> list[str]:
    return [f"test_sample.py::{name}" for name in selection]


def _with_pytest_main(project: Path, selection: list[str]) -> tuple[int, list[str]]:
    for leftover in ("ran", "torn-down"):
        (project / leftover).unlink(missing_ok=True)
    status = subprocess.run(
        [sys.executable, "-m", "pytest", *OPTIONS, *_node_ids(selection)], cwd=project, capture_output=True, check=False
    ).returncode
    return status, sorted(name for name in ("ran", "torn-down") if (project / name).exists())


def _from_one_collection(project: Path, selections: list[list[str]]) -> list[tuple[int | str, list[str]]]:
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            DRIVER,
            str(ROOT / "tools"),
            json.dumps([_node_ids(selection) for selection in selections]),
            json.dumps(OPTIONS),
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = (project / "results").read_text().splitlines()
    return [(status, effects) for status, effects in map(json.loads, lines)]


@pytest.mark.skipif(sys.platform == "win32", reason="mutmut's fork server forks")
def test_every_selection_ends_as_under_pytest_main(tmp_path: Path) -> None:
    project = _project(tmp_path)
    forked = _from_one_collection(project, SELECTIONS)
    for selection, (status, effects) in zip(SELECTIONS, forked, strict=True):
        assert (status, effects) == _with_pytest_main(project, selection), selection
    # The facts the comparison rests on, so that it cannot pass by both sides doing nothing.
    assert [status for status, _ in forked] == [0, 1, 1, 0, 1, 7, 0]
    assert forked[1][1] == [], "-x went on past the failure"
    assert forked[3][1] == ["ran", "torn-down"], "the session fixture was not torn down"


@pytest.mark.skipif(sys.platform == "win32", reason="mutmut's fork server forks")
def test_a_node_id_the_collection_does_not_hold_is_refused(tmp_path: Path) -> None:
    project = _project(tmp_path)
    ((status, effects),) = _from_one_collection(project, [["test_no_such_test"]])
    assert status == "unknown"
    assert effects == []
