"""Limits for an implementation in its own process: memory, environment, working directory.

A hog ends as ``memory-limit`` quickly (Python and Node.js), never as a deviation, and the harness goes
on; a correct implementation, Node.js's included, runs under a tight limit (RLIMIT_DATA, not
RLIMIT_AS); an ordinary crash under a limit stays a crash. ``--clean-env`` keeps a secret from the
implementation, ``--temp-cwd`` runs it in a directory that is gone afterwards, after a kill too, and a
bad ``--memory-limit`` is one line and exit 2. Fixtures: ``tests/fixtures/hostile/limits_impls.py`` and
``tests/fixtures/node/hog.mjs``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.child import MeasuredPopen
from bpe_conformance.adapters.limits import ProcessLimits, make_workdir, remove_workdir
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.cli.main import main
from bpe_conformance.errors import CallTimeout, ImplementationCrashed, ImplementationRaised, MemoryLimitExceeded
from tests import ROOT

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
NODE_FIXTURES = ROOT / "tests" / "fixtures" / "node"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the Node.js cases need it")
SECRET_VARIABLE = "BPE_LIMITS_TEST_SECRET"
# Tight enough that a hog reaches it in a second or two, ample for an interpreter and the reference.
TIGHT = 256 * 1024**2
TIGHT_OPTION = "256M"
# A hog must end well within this; without a limit it would run until its call timeout (or the machine's end).
QUICK_SECONDS = 20.0

pytest_plugins = ["pytester"]

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA counts allocations on Linux >= 4.7"),
]


@pytest.fixture
def limits_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """limits_impls importable by the host process (the harness itself never imports it)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE)]))


def _subject(spec: str, **limits: object) -> ProcessSubject:
    subject = load_implementation(spec, isolation="process", timeout=30.0, limits=ProcessLimits(**limits))  # type: ignore[arg-type]
    assert isinstance(subject, ProcessSubject)
    return subject


# -- memory ---------------------------------------------------------------------------------------------


def test_a_python_hog_ends_as_memory_limit_quickly_and_the_next_call_works(limits_on_path: None) -> None:
    with _subject("limits_impls:Hog", memory_bytes=TIGHT) as subject:
        started = time.monotonic()
        with pytest.raises(MemoryLimitExceeded) as caught:
            subject.train(["abab"], 3)
        assert time.monotonic() - started < QUICK_SECONDS
        assert caught.value.outcome == "memory-limit"
        assert "--memory-limit 256 MiB" in caught.value.detail
        assert subject.encode("ab") == [97, 98]  # a new process, the harness unharmed


def test_a_memory_error_is_what_it_says_without_a_limit(limits_on_path: None) -> None:
    with _subject("limits_impls:RaisesMemoryError", memory_bytes=None) as subject:
        with pytest.raises(ImplementationRaised) as caught:
            subject.train(["abab"], 3)
        assert caught.value.kind == "MemoryError"


def test_an_ordinary_crash_under_a_limit_stays_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE)]))
    with _subject("hostile_impls:SegfaultsInEncode", memory_bytes=TIGHT) as subject:
        with pytest.raises(ImplementationCrashed) as caught:
            subject.encode("ab")
        assert type(caught.value) is ImplementationCrashed
        assert "SIGSEGV" in caught.value.detail


def _above_the_harness(limit: int) -> int:
    """``limit`` plus this process's own peak: a child's reaped peak includes its parent's (Linux keeps the
    high-water mark across fork and exec), so only a peak above the parent's proves the child's own use."""
    import resource

    return limit + resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@needs_node
def test_a_node_hog_ends_as_memory_limit_quickly() -> None:
    assert NODE is not None
    limits = ProcessLimits(memory_bytes=_above_the_harness(TIGHT))
    with ProcessSubject([NODE, str(NODE_FIXTURES / "hog.mjs")], timeout=30.0, limits=limits) as subject:
        started = time.monotonic()
        with pytest.raises(MemoryLimitExceeded) as caught:
            subject.train(["abab"], 3)
        assert time.monotonic() - started < QUICK_SECONDS
        assert "out of memory" in caught.value.detail
        assert subject.encode("ab") == [97, 98]


@needs_node
def test_a_correct_node_implementation_runs_under_a_tight_limit() -> None:
    """RLIMIT_AS of the same size kills Node.js at start-up (it reserves address space); RLIMIT_DATA does not."""
    assert NODE is not None
    limits = ProcessLimits(memory_bytes=TIGHT)
    with ProcessSubject([NODE, str(NODE_FIXTURES / "bpe.mjs")], timeout=30.0, limits=limits) as subject:
        assert subject.train(["abab", "acac"], 32) == [(97, 98), (97, 99)]


def test_run_reports_a_hog_as_memory_limit_not_a_deviation(limits_on_path: None, tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    argv = ["run", "--impl", "limits_impls:Hog", "--memory-limit", TIGHT_OPTION, "--check", "tie-break"]
    assert main([*argv, "--json", str(report_path), "--quiet"]) == 1
    report = json.loads(report_path.read_text())
    (result,) = report["results"]
    assert result["outcome"] == "memory-limit"
    assert "--memory-limit 256 MiB" in result["message"]
    assert report["summary"]["counts"]["memory-limit"] == 1
    assert report["summary"]["counts"]["fail"] == 0
    assert "deviation" not in report["summary"]["levels"]
    assert "1 memory-limit" in report["summary"]["levels"]
    assert report["config"]["limits"]["memory_limit"] == TIGHT
    assert "--memory-limit 256M" in result["reproduce"]


def test_the_pytest_plugin_applies_the_memory_limit_and_reproduces_with_it(
    limits_on_path: None, pytester: pytest.Pytester
) -> None:
    argv = ["-p", "bpe_conformance.plugin", "-p", "no:cacheprovider", "--bpe-only", "--bpe-impl", "limits_impls:Hog"]
    result = pytester.runpytest_inprocess(*argv, "--bpe-memory-limit", TIGHT_OPTION, "--bpe-check", "tie-break")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*memory-limit*", f"*--bpe-memory-limit {TIGHT_OPTION}*", f"*conformance run*--memory-limit {TIGHT_OPTION}*"]
    )


def test_the_pytest_plugin_refuses_a_bad_memory_limit_or_variable_name(pytester: pytest.Pytester) -> None:
    for option, value in (("--bpe-memory-limit", "12apples"), ("--bpe-env", "NOT-A-NAME")):
        result = pytester.runpytest_inprocess("-p", "bpe_conformance.plugin", "--bpe-impl", "reference", option, value)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*{option}*"])


@pytest.mark.parametrize("command", ["run", "fuzz", "compare", "identify", "matrix", "handshake"])
@pytest.mark.parametrize("value", ["12apples", "1K", "-1G", "4X", ""])
def test_a_bad_memory_limit_is_one_line_and_exit_2(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--memory-limit", value]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "--memory-limit" in lines[0], captured.err
    assert "Traceback" not in captured.err
    assert "usage:" not in captured.err


# -- environment ----------------------------------------------------------------------------------------


def test_a_secret_reaches_the_implementation_only_without_clean_env(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, "hunter2")
    with _subject("limits_impls:TellsEnvironment") as subject:
        assert subject.info.version == "hunter2"
    with _subject("limits_impls:TellsEnvironment", clean_env=True) as subject:
        assert subject.info.version == "absent"  # and it still imports: PYTHONPATH is the harness's to pass
    with _subject("limits_impls:TellsEnvironment", clean_env=True, passed_env=(SECRET_VARIABLE,)) as subject:
        assert subject.info.version == "hunter2"


def test_a_cmd_implementation_gets_only_what_is_allowed_and_asked_for(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, "hunter2")
    spec = f"cmd:{sys.executable} -m bpe_conformance.adapters.host limits_impls:TellsEnvironment"
    with _subject(spec, clean_env=True, passed_env=("PYTHONPATH",)) as subject:
        assert subject.info.version == "absent"


def test_run_clean_env_keeps_the_secret_out_of_the_report(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, "hunter2")
    argv = ["run", "--impl", "limits_impls:TellsEnvironment", "--check", "tie-break", "--quiet"]
    assert main([*argv, "--clean-env", "--json", str(tmp_path / "clean.json")]) == 0
    assert main([*argv, "--json", str(tmp_path / "whole.json")]) == 0
    assert "hunter2" not in (tmp_path / "clean.json").read_text()
    assert json.loads((tmp_path / "whole.json").read_text())["implementation"]["version"] == "hunter2"


# -- working directory ----------------------------------------------------------------------------------


def _is_fresh_temporary(path: str) -> bool:
    return Path(path).parent == Path(tempfile.gettempdir()) and Path(path).name.startswith("bpe-conformance-impl-")


def test_temp_cwd_is_fresh_and_gone_afterwards_whatever_was_left_in_it(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    with _subject("limits_impls:TellsCwd", temp_cwd=True) as subject:
        workdir = subject.info.version
        assert _is_fresh_temporary(workdir)
        assert Path(workdir).is_dir()
        subject.train(["abab"], 3)  # leaves a file and a read-only folder with a file in it
        assert (Path(workdir) / "locked" / "inside.txt").exists()
    assert not Path(workdir).exists()
    assert list(tmp_path.iterdir()) == []  # nothing in the user's directory either


def test_without_temp_cwd_the_implementation_runs_where_the_harness_does(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    with _subject("limits_impls:TellsCwdThenHangs") as subject:
        assert Path(subject.info.version) == tmp_path


def test_temp_cwd_is_removed_after_a_kill(limits_on_path: None) -> None:
    subject = load_implementation("limits_impls:TellsCwdThenHangs", timeout=2.0, limits=ProcessLimits(temp_cwd=True))
    assert isinstance(subject, ProcessSubject)
    with subject:
        workdir = subject.info.version
        assert _is_fresh_temporary(workdir)
        with pytest.raises(CallTimeout):
            subject.train(["abab"], 3)
        assert not Path(workdir).exists()


def test_a_working_directory_left_by_a_killed_harness_is_removed_by_the_next(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SIGKILL leaves a harness no time to clean up: the next harness to make a directory removes it."""
    import signal
    import subprocess

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    harness = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from bpe_conformance.adapters.limits import make_workdir; import time; "
            "print(make_workdir(), flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert harness.stdout is not None
    orphan = Path(harness.stdout.readline().strip())
    harness.send_signal(signal.SIGKILL)
    harness.wait()
    (orphan / "left").write_text("by the implementation")
    unrelated = tmp_path / "bpe-conformance-impl-notapid"
    unrelated.mkdir()
    mine = Path(make_workdir())
    assert not orphan.exists()
    # Kept: a running harness's directory (this one's), and a name make_workdir never gives.
    assert mine.exists()
    assert unrelated.exists()
    remove_workdir(str(mine))


def test_a_relative_command_is_found_from_the_users_directory(
    limits_on_path: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    script = tmp_path / "tok"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -m bpe_conformance.adapters.host limits_impls:TellsCwd\n")
    script.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    with _subject("cmd:./tok", temp_cwd=True) as subject:
        assert _is_fresh_temporary(subject.info.version)


def test_a_reaped_peak_no_higher_than_the_harness_own_proves_nothing() -> None:
    """A segfault in a child of a big harness read as out of memory once: its reaped peak was the harness's."""
    popen = MeasuredPopen([sys.executable, "-c", "pass"])
    popen.wait()
    assert popen.peak_rss is not None
    assert popen.inherited_rss is not None
    popen.peak_rss = popen.inherited_rss
    assert popen.own_peak_rss is None
    popen.peak_rss = popen.inherited_rss + 1
    assert popen.own_peak_rss == popen.inherited_rss + 1
