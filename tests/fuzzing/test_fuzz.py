"""``bpe-conformance fuzz`` as a user runs it: finds a bug, saves it, ``run`` replays it, and stops cleanly.

Each campaign runs in a child process from a directory of its own (:class:`tests.fuzzing.helpers.Harness`),
a few seconds long, against a zoo member that fails fast; afterwards no process carrying the campaign's
marker may be alive.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from tests import FIXTURES
from tests.fuzzing.helpers import Harness, MakeHarness, validate_summary, wait_for

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the process checks read /proc"),
]

ZOO_MEMBER = "bpe_conformance.zoo:TiesToLargestPair"
HOSTILE = FIXTURES / "hostile"


def _reproduce_words(line: str) -> list[str]:
    """The words of a ``reproduce:`` command after ``bpe-conformance``, without its ``# hypothesis`` note."""
    words = shlex.split(line.split("  #")[0])
    assert words[:2] == ["bpe-conformance", "run"], line
    return words[1:]


def test_a_campaign_finds_a_zoo_member_saves_it_and_run_replays_it_in_seconds(
    make_harness: MakeHarness, tmp_path: Path
) -> None:
    harness = make_harness()
    fuzzed = harness.run(
        "fuzz",
        "--impl",
        ZOO_MEMBER,
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--duration",
        "4s",
        "--jobs",
        "2",
        "--seed",
        "5",
        "--database",
        "db",
        "--json",
        "fuzz.json",
    )
    assert fuzzed.returncode == 1, fuzzed.stderr
    summary = validate_summary(tmp_path / "fuzz.json")
    assert summary["summary"]["stop_reason"] == "deadline"
    assert summary["summary"]["examples"] > 0
    assert summary["config"]["jobs"] == 2
    assert summary["config"]["database"] == "db"
    finding = summary["failures"][0]
    assert (finding["check"], finding["clause"], finding["outcome"]) == ("tie-break", "BPE-TRAIN-TIE", "fail")
    saved = [failure["counterexample"]["inputs"] for failure in summary["failures"]]
    # Reported as found, with the same reproduce line the summary keeps.
    assert "FAIL tie-break [BPE-TRAIN-TIE] (after " in fuzzed.stdout
    assert "reproduce: bpe-conformance run --impl bpe_conformance.zoo:TiesToLargestPair --isolation inprocess" in (
        fuzzed.stdout
    )
    assert any(path.is_file() for path in (tmp_path / "db").rglob("*"))

    started = time.monotonic()
    replayed = harness.run(*_reproduce_words(finding["reproduce"]), "--json", "run.json")
    seconds = time.monotonic() - started
    assert replayed.returncode == 1, replayed.stderr
    (result,) = json.loads((tmp_path / "run.json").read_text())["results"]
    assert result["counterexample"]["inputs"] in saved  # hypothesis replays the smallest saved failure first
    assert seconds < 60  # seconds, not a campaign; generous for a loaded machine

    plugin = subprocess_pytest(
        harness,
        "--bpe-impl",
        ZOO_MEMBER,
        "--bpe-isolation",
        "inprocess",
        "--bpe-only",
        "--bpe-check",
        "tie-break",
        "--bpe-database",
        "db",
    )
    assert plugin.returncode == 1, plugin.stdout[-2000:]
    assert any(json.dumps(inputs, ensure_ascii=False) in plugin.stdout for inputs in saved)
    assert "--bpe-database db" in plugin.stdout
    assert "--database db" in plugin.stdout
    assert harness.leftovers() == []


def subprocess_pytest(harness: Harness, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "bpe_conformance.plugin", "-p", "no:cacheprovider", "-q", *words],
        cwd=harness.directory,
        env=harness.environment,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_the_default_database_is_a_directory_per_implementation_under_the_cache_dir(
    make_harness: MakeHarness, tmp_path: Path
) -> None:
    harness = make_harness()
    completed = harness.run("fuzz", "--check", "tie-break", "--duration", "2s", "--jobs", "1", "--json", "s.json")
    assert completed.returncode == 0, completed.stderr
    database = validate_summary(tmp_path / "s.json")["config"]["database"]
    assert database.startswith(str(harness.cache / "bpe-conformance" / "examples" / "reference-"))
    assert f"database: {database} (failures saved there are replayed first)" in completed.stdout
    assert "PASSED: no failure in " in completed.stdout
    assert harness.leftovers() == []


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_every_process_keeps_the_database_and_prints_the_summary(
    make_harness: MakeHarness, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    harness = make_harness()
    campaign = harness.start(
        "fuzz",
        "--impl",
        ZOO_MEMBER,
        "--check",
        "tie-break",
        "--check",
        "round-trip",
        "--duration",
        "2m",
        "--jobs",
        "2",
        "--seed",
        "3",
        "--database",
        "db",
        "--json",
        "s.json",
    )
    # The coordinator, two workers and their two implementation processes.
    assert wait_for(lambda: len(harness.leftovers()) >= 5, 60), harness.leftovers()
    assert wait_for(lambda: any((tmp_path / "db").rglob("*")), 60)  # a failure has been saved
    campaign.send_signal(signum)
    stdout, stderr = campaign.communicate(timeout=60)
    assert campaign.returncode == code, stderr
    assert "INTERRUPTED: " in stdout
    assert "Fuzz campaign" in stdout
    summary = validate_summary(tmp_path / "s.json")
    assert summary["summary"]["stop_reason"] == "interrupted"
    assert wait_for(lambda: harness.leftovers() == [], 10), harness.leftovers()
    # The database is whole: run replays from it.
    replayed = harness.run("run", "--impl", ZOO_MEMBER, "--check", "tie-break", "--database", "db", "--quiet")
    assert replayed.returncode == 1, replayed.stderr


def test_a_worker_killed_by_its_implementation_is_restarted_then_given_up(
    make_harness: MakeHarness, tmp_path: Path
) -> None:
    harness = make_harness()
    completed = harness.run(
        "fuzz",
        "--impl",
        "tests.support.fuzz_subjects:KillsItsProcessOnTrain",
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--duration",
        "60s",
        "--jobs",
        "1",
        "--json",
        "s.json",
    )
    summary = validate_summary(tmp_path / "s.json")
    assert completed.returncode == 2, completed.stderr
    assert summary["summary"]["stop_reason"] == "workers-failed"
    assert summary["summary"]["worker_restarts"] == 3
    assert sum("was killed by SIGKILL" in problem for problem in summary["problems"]) == 4
    assert "restarted with new seeds (1 of 3)" in completed.stdout
    assert summary["summary"]["seconds"] < 50  # given up, not waited out
    assert harness.leftovers() == []


def test_a_hung_implementation_is_a_timeout_and_max_failures_ends_the_campaign(
    make_harness: MakeHarness, tmp_path: Path
) -> None:
    harness = make_harness()
    impl = f"cmd:{sys.executable} {HOSTILE / 'hang_in_train.py'}"
    completed = harness.run(
        "fuzz",
        "--impl",
        impl,
        "--timeout",
        "0.5",
        "--check",
        "tie-break",
        "--duration",
        "2m",
        "--jobs",
        "1",
        "--max-failures",
        "1",
        "--json",
        "s.json",
        "--quiet",
        timeout=120,
    )
    assert completed.returncode == 1, completed.stderr
    # --quiet: no header, no table, no failure as found; the summary's failures and verdict only.
    assert "database:" not in completed.stdout
    assert "Fuzz campaign" not in completed.stdout
    assert completed.stdout.startswith("Failures (")
    assert "TIMEOUT tie-break [BPE-TRAIN-TIE]" in completed.stdout
    assert "reproduce: bpe-conformance run --impl" in completed.stdout
    assert "FAILED: " in completed.stdout
    summary = validate_summary(tmp_path / "s.json")
    assert summary["summary"]["stop_reason"] == "max-failures"
    assert summary["failures"][0]["outcome"] == "timeout"
    assert summary["summary"]["seconds"] < 60
    assert harness.leftovers() == []


def test_a_worker_killed_from_outside_takes_its_implementation_with_it_and_is_restarted(
    make_harness: MakeHarness,
) -> None:
    harness = make_harness()
    impl = f"cmd:{sys.executable} {HOSTILE / 'hang_in_train.py'}"  # blocked in train: never reads its stdin again
    campaign = harness.start(
        "fuzz",
        "--impl",
        impl,
        "--timeout",
        "60",
        "--check",
        "tie-break",
        "--duration",
        "2m",
        "--jobs",
        "1",
        "--json",
        "s.json",
    )

    def processes(word: str) -> list[int]:  # the coordinator's own command line names the implementation too
        return [int(line.split()[0]) for line in harness.leftovers() if word in line and " fuzz " not in line]

    assert wait_for(lambda: processes("bpe_conformance.fuzzing.worker") and processes("hang_in_train.py"), 60)
    (worker,), (implementation,) = processes("bpe_conformance.fuzzing.worker"), processes("hang_in_train.py")
    os.kill(worker, signal.SIGKILL)
    # The orphaned implementation is killed at once; a new worker starts a new one.
    assert wait_for(lambda: implementation not in processes("hang_in_train.py"), 20), harness.leftovers()
    assert wait_for(lambda: bool(set(processes("bpe_conformance.fuzzing.worker")) - {worker}), 30)
    campaign.send_signal(signal.SIGTERM)
    _, stderr = campaign.communicate(timeout=60)
    assert campaign.returncode == 143, stderr
    problems = validate_summary(harness.directory / "s.json")["problems"]
    assert any("worker 0 was killed by SIGKILL" in problem and "restarted" in problem for problem in problems)
    assert wait_for(lambda: harness.leftovers() == [], 10), harness.leftovers()
