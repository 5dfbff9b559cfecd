"""tools/mutation_run.py runs a selection from one open collection with the verdicts of ``pytest.main``.

A small project of passing, failing, erroring, exiting and deselected tests is collected once; each selection
then runs in a process forked from the collecting one, as mutmut's fork server forks a process per mutant, and,
for comparison, with ``pytest.main`` and the same options in a forked process, as mutmut runs it by itself. The
exit statuses and what ran must be the same: a mutant's verdict is that status (1 killed, 0 survived).
"""

from __future__ import annotations

import doctest
import fnmatch
import functools
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from typing import TYPE_CHECKING

import pytest

from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

OPTIONS = ["-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts="]

PROJECT = {
    "conftest.py": """
        import pathlib
        import pytest

        @pytest.fixture(scope="session")
        def session_resource():
            yield
            pathlib.Path("torn-down").write_text("yes")

        def pytest_collection_modifyitems(config, items):
            # A hook that deselects at run time what it kept at collection (a file says when).
            if pathlib.Path("deselect").exists():
                dropped = [item for item in items if "deselectable" in item.name]
                config.hook.pytest_deselected(items=dropped)
                items[:] = [item for item in items if item not in dropped]
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

        def test_deselectable():
            pass
    """,
}

# Runs each selection in a process of its own, forked as mutmut's fork server forks one per mutant: either from one
# collection kept open ("collected") or with a fresh pytest.main after a collection let go ("main", what mutmut
# runs by itself). Writes one
# JSON line per selection to "results" (pytest writes its own report to stdout).
DRIVER = """
import json, os, pathlib, sys
import hypothesis  # imported by the project's conftest.py in the fork server; a fork would import it at the end
import pytest
sys.path.insert(0, sys.argv[1])
import mutation_run
mode, selections, options = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
collected = mutation_run.collect_once(options, ".") if mode == "collected" else None
if collected is None:  # mutmut's own warm-up: collect once and let the session go, so the forks import nothing
    pytest.main(["--collect-only", "-qqq", *options])
for selection in selections:
    for leftover in ("ran", "torn-down", "status", "deselect"):
        pathlib.Path(leftover).unlink(missing_ok=True)
    if any("deselectable" in node for node in selection):
        pathlib.Path("deselect").write_text("yes")
    pid = os.fork()
    if pid == 0:
        sys.stdout = open(os.devnull, "w")
        try:
            if collected is None:
                status = int(pytest.main(options + selection))
            else:
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
    ["test_deselectable"],  # deselected by a hook when run: no test ran
    ["test_passes"],
]


def _project(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    return tmp_path


def _run(project: Path, mode: str, selections: list[list[str]]) -> list[tuple[int | str, list[str]]]:
    """Each selection's exit status (or "unknown") and the files its tests left, run the ``mode`` way."""
    (project / "results").unlink(missing_ok=True)
    node_ids = [[f"test_sample.py::{name}" for name in selection] for selection in selections]
    completed = subprocess.run(
        [sys.executable, "-c", DRIVER, str(ROOT / "tools"), mode, json.dumps(node_ids), json.dumps(OPTIONS)],
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
    forked = _run(project, "collected", SELECTIONS)
    assert forked == _run(project, "main", SELECTIONS)
    # The facts the comparison rests on, so that it cannot pass by both sides doing nothing.
    assert [status for status, _ in forked] == [0, 1, 1, 0, 1, 7, 5, 0]
    assert forked[1][1] == [], "-x went on past the failure"
    assert forked[3][1] == ["ran", "torn-down"], "the session fixture was not torn down"


@pytest.mark.skipif(sys.platform == "win32", reason="mutmut's fork server forks")
def test_a_node_id_the_collection_does_not_hold_is_refused(tmp_path: Path) -> None:
    ((status, effects),) = _run(_project(tmp_path), "collected", [["test_no_such_test"]])
    assert status == "unknown"
    assert effects == []


def test_a_collection_with_errors_is_not_kept_and_pytest_main_reports_it(tmp_path: Path) -> None:
    (tmp_path / "test_broken.py").write_text("import no_such_module_here\n")
    (tmp_path / "conftest.py").write_text(
        "import pathlib\ndef pytest_unconfigure(config):\n    pathlib.Path('unconfigured').touch()\n"
    )
    script = (
        "import os, sys, pytest\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import mutation_run\n"
        f"options = {OPTIONS!r}\n"
        "kept = mutation_run.collect_once(options, '.')\n"
        "print(kept is None, os.path.exists('unconfigured'), int(pytest.main(['-qqq', *options])))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "tools")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    # None kept, and that session ended before pytest.main ran, which stops at the error (interrupted).
    assert completed.stdout.splitlines()[-1] == "True True 2"


@functools.cache
def _tool() -> ModuleType:
    """tools/mutation_run.py, imported from its file (it imports mutmut only when installed into mutmut)."""
    spec = importlib.util.spec_from_file_location("mutation_run_under_test", ROOT / "tools" / "mutation_run.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses resolve their annotations there
    spec.loader.exec_module(module)
    return module


def test_the_scope_functions_hold_to_their_examples() -> None:
    tool = _tool()
    failures, tried = doctest.testmod(tool, verbose=False)
    assert tried >= 4
    assert failures == 0


def test_a_scoped_test_leaves_only_the_functions_outside_its_scope() -> None:
    tool = _tool()
    reached = {
        "bpe_conformance.checks.vectors.x_verify_vector": {"near", "vectors"},
        "bpe_conformance.diagnosis.models.x_piece_of": {"near"},
        "bpe_conformance.reference.fast_corpus.xǁCorpusǁadd_rule": {"near", "engines"},
        "bpe_conformance.reference.training.x_train": {"near"},
    }
    scopes = {"near": ["bpe_conformance.checks", "bpe_conformance.diagnosis"]}
    narrowed = tool.narrowed(reached, scopes)
    assert narrowed["bpe_conformance.checks.vectors.x_verify_vector"] == {"near", "vectors"}
    assert narrowed["bpe_conformance.diagnosis.models.x_piece_of"] == {"near"}
    assert narrowed["bpe_conformance.reference.fast_corpus.xǁCorpusǁadd_rule"] == {"engines"}
    # A function only the scoped test reached is left with none: mutmut reports its mutants as untested.
    assert narrowed["bpe_conformance.reference.training.x_train"] == set()
    assert reached["bpe_conformance.reference.training.x_train"] == {"near"}, "the input was changed"
    assert tool.unknown_scopes(reached, scopes) == {}
    assert tool.unknown_scopes(reached, {"near": ["bpe_conformance.check"]}) == {"near": ["bpe_conformance.check"]}


def test_the_statistics_run_records_each_tests_scope_by_node_id(tmp_path: Path) -> None:
    tool = _tool()
    (tmp_path / "test_marked.py").write_text(
        textwrap.dedent(
            """
            import pytest

            @pytest.mark.mutation_scope("pkg.checks", "pkg.diagnosis")
            @pytest.mark.parametrize("case", [1, 2])
            def test_scoped(case):
                pass

            def test_unscoped():
                pass
            """
        )
    )
    recorder = tool._ScopeRecorder()
    options = [
        *OPTIONS,
        "--rootdir",
        str(tmp_path),
        str(tmp_path),
        "-W",
        "ignore::pytest.PytestUnknownMarkWarning",
    ]
    assert pytest.main(options, plugins=[recorder]) == pytest.ExitCode.OK
    assert recorder.scopes == {
        "test_marked.py::test_scoped[1]": ["pkg.checks", "pkg.diagnosis"],
        "test_marked.py::test_scoped[2]": ["pkg.checks", "pkg.diagnosis"],
    }


def test_every_scope_a_test_declares_names_code_the_mutation_run_mutates() -> None:
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    tool = _tool()
    marked = sorted(str(path) for path in (ROOT / "tests").rglob("test_*.py") if tool.SCOPE_MARKER in path.read_text())
    assert marked, "no test declares a mutation scope"
    recorder = tool._ScopeRecorder()
    options = ["--collect-only", "-qq", "-p", "no:cacheprovider", "-n", "0", "-o", "addopts=", "--rootdir", str(ROOT)]
    assert pytest.main([*options, *marked], plugins=[recorder]) == pytest.ExitCode.OK
    assert recorder.scopes
    mutated = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]["only_mutate"]
    modules = [
        str(path.relative_to(ROOT).with_suffix("")).replace("/", ".")
        for path in (ROOT / "bpe_conformance").rglob("*.py")
        if any(fnmatch.fnmatch(str(path.relative_to(ROOT)), pattern) for pattern in mutated)
    ]
    assert tool.unknown_scopes([module + ".x_function" for module in modules], recorder.scopes) == {}


def _raises() -> int:
    raise ValueError("a job that fails")


@pytest.mark.skipif(sys.platform == "win32", reason="forks")
def test_forked_jobs_give_their_results_in_order_and_a_failure_by_name() -> None:
    tool = _tool()
    jobs = [functools.partial(pow, 2, exponent) for exponent in range(5)]
    assert tool.run_forked(jobs, 2) == [1, 2, 4, 8, 16]
    with pytest.raises(ChildProcessError, match="job 1: ValueError: a job that fails"):
        tool.run_forked([jobs[0], _raises, jobs[2]], 2)
    with pytest.raises(ChildProcessError, match="job 0: its process ended with status 3"):
        tool.run_forked([functools.partial(os._exit, 3)], 1)


@pytest.mark.skipif(sys.platform == "win32", reason="forks")
def test_forked_jobs_wait_for_their_own_processes_only() -> None:
    """Another child of the process (a test's subprocess) is neither reaped nor waited for."""
    tool = _tool()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.5)"])
    try:
        assert tool.run_forked([functools.partial(pow, 3, 2)], 1) == [9]
        assert other.poll() is None
    finally:
        assert other.wait(timeout=30) == 0
