"""The harness writes nothing into the working directory unless asked; ``--database`` is that asking.

Run as a user runs it, in a child process from a directory of its own, so hypothesis starts with
nothing configured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from hypothesis import settings
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.base import Check
from bpe_conformance.errors import Violation
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.database import open_database
from bpe_conformance.running.runner import run_check
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from bpe_conformance.adapters.subject import Subject

_IMPL = "tests.support.broken_for_checks:LargestTiedPair"


def _run(cwd: Path, *words: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("HYPOTHESIS")}
    environment["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "conformance",
            "run",
            "--impl",
            _IMPL,
            "--isolation",
            "inprocess",
            "--check",
            "tie-break",
            "--quiet",
            *words,
        ],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_run_leaves_the_working_directory_as_it_was(tmp_path: Path) -> None:
    completed = _run(tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_database_is_written_only_where_asked_and_replayed(tmp_path: Path) -> None:
    database = tmp_path / "db"
    first = _run(tmp_path, "--database", str(database), "--json", "first.json")
    assert first.returncode == 1, first.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["db", "first.json"]
    assert any(path.is_file() for path in database.rglob("*"))
    second = _run(tmp_path, "--database", str(database), "--json", "second.json")
    assert second.returncode == 1, second.stderr
    reports = [json.loads((tmp_path / name).read_text(encoding="utf-8")) for name in ("first.json", "second.json")]
    (found,), (replayed,) = (report["results"] for report in reports)
    assert replayed["counterexample"] == found["counterexample"]
    assert reports[1]["config"]["database"] == str(database)
    assert "--database" in replayed["reproduce"]


def test_every_report_names_the_hypothesis_version(tmp_path: Path) -> None:
    import hypothesis

    completed = _run(tmp_path, "--json", "report.json", "--junit", "report.xml", "--markdown", "report.md")
    assert completed.returncode == 1, completed.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["harness"]["hypothesis_version"] == hypothesis.__version__
    assert f'name="hypothesis_version" value="{hypothesis.__version__}"' in (tmp_path / "report.xml").read_text()
    assert f"hypothesis {hypothesis.__version__}" in (tmp_path / "report.md").read_text(encoding="utf-8")


def _threshold_check(fails: Callable[[int], bool]) -> Check:
    def verify(subject: Subject, number: int) -> None:
        if fails(number):
            raise Violation(
                "BPE-TRAIN-TIE", "the number is too big", inputs={"number": number}, expected="small", actual=number
            )

    return Check(
        "big-numbers",
        "BPE-TRAIN-TIE",
        "numbers stay small",
        verify,
        strategy=lambda: st.integers(0, 10**9),
        requires=frozenset(),
    )


def test_a_saved_failure_is_replayed_before_anything_new(tmp_path: Path) -> None:
    # The first run finds and shrinks a failure to exactly 10**8. A second check that fails on that one
    # number only is caught from the database; a run without it never draws that number.
    subject = InProcessSubject(reference.Tokenizer)
    database = open_database(str(tmp_path / "db"))
    found = run_check(_threshold_check(lambda number: number >= 10**8), subject, settings(max_examples=60), 0, database)
    assert found.outcome is Outcome.FAIL
    assert found.counterexample is not None
    assert found.counterexample["inputs"] == {"number": 10**8}
    only_that_number = _threshold_check(lambda number: number == 10**8)
    assert run_check(only_that_number, subject, settings(max_examples=60), 1, database).outcome is Outcome.FAIL
    assert run_check(only_that_number, subject, settings(max_examples=60), 1).outcome is Outcome.PASS
