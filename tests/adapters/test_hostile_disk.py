"""A full disk: a failure found is saved, or the run says loudly that it was not, with the example in full.

hypothesis's own directory database swallows write errors; on a full disk ``fuzz`` used to report its
failures with ``reproduce`` lines pointing at a database of empty files. Root only (a 64 KiB tmpfs):
``tox -e faults`` runs these, the default run leaves them out (``slow``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from tests import ROOT
from tests.support.full_disk import full_tmpfs

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(300),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a tmpfs is a Linux filesystem"),
]

ZOO_MEMBER = "bpe_conformance.zoo:TiesToLargestPair"


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    with full_tmpfs(tmp_path / "full") as mount_point:
        yield mount_point


def _harness(cwd: Path, *words: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("HYPOTHESIS")}
    environment["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bpe_conformance", *words],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_run_on_a_full_disk_names_the_database_failure_and_prints_the_unsaved_example(
    tmp_path: Path, full_disk: Path
) -> None:
    database = full_disk / "db"
    words = ["--impl", ZOO_MEMBER, "--isolation", "inprocess", "--check", "tie-break", "--database", str(database)]
    ran = _harness(tmp_path, "run", *words)
    assert ran.returncode == 2
    assert f"the example database {database} failed" in ran.stderr
    assert "No space left on device" in ran.stderr
    assert "check tie-break, example not saved: {" in ran.stderr
    assert "[BPE-TRAIN-TIE]" in ran.stderr
    assert not [path for path in database.rglob("*") if path.is_file() and path.stat().st_size == 0]


def test_fuzz_on_a_full_disk_stops_and_says_so_with_the_example(tmp_path: Path, full_disk: Path) -> None:
    database = full_disk / "db"
    fuzzed = _harness(
        tmp_path,
        "fuzz",
        "--impl",
        ZOO_MEMBER,
        "--isolation",
        "inprocess",
        "--check",
        "tie-break",
        "--duration",
        "30s",
        "--jobs",
        "1",
        "--seed",
        "3",
        "--database",
        str(database),
    )
    assert fuzzed.returncode != 0
    output = fuzzed.stdout + fuzzed.stderr
    assert "the example database failed" in output
    assert "example not saved: {" in output
    assert "the failure it found was NOT SAVED" in output
    assert "FAILED: 1 failure found but NOT SAVED" in output
    assert "no failure found" not in output
    assert not [path for path in database.rglob("*") if path.is_file() and path.stat().st_size == 0]


def test_reports_on_a_full_disk_keep_the_earlier_ones_whole_and_the_verdict_is_shown(tmp_path: Path) -> None:
    earlier = {"json": '{"earlier": "report"}\n', "junit": "<earlier/>\n", "markdown": "# earlier\n"}

    def write_earlier(directory: Path) -> None:
        for option, text in earlier.items():
            (directory / f"report.{option}").write_text(text, encoding="utf-8")

    with full_tmpfs(tmp_path / "full", prepare=write_earlier) as full_disk:
        paths = {option: full_disk / f"report.{option}" for option in earlier}
        _reports_on_a_full_disk(tmp_path, full_disk, paths, earlier)


def _reports_on_a_full_disk(tmp_path: Path, full_disk: Path, paths: dict[str, Path], earlier: dict[str, str]) -> None:
    words = ["--impl", "reference", "--isolation", "inprocess", "--check", "rule-ids"]
    ran = _harness(tmp_path, "run", *words, *(word for option in paths for word in (f"--{option}", str(paths[option]))))
    assert ran.returncode == 2
    assert "No space left on device" in ran.stderr
    assert "PASSED" in ran.stdout  # the verdict, although no report could be written
    assert {option: path.read_text(encoding="utf-8") for option, path in paths.items()} == earlier
    assert sorted(path.name for path in full_disk.iterdir()) == sorted(
        [".filler", *(path.name for path in paths.values())]
    )


def test_a_read_only_report_directory_is_refused_before_the_run(tmp_path: Path) -> None:
    read_only = tmp_path / "ro"
    with full_tmpfs(read_only, options="ro"):
        words = ["--impl", "reference", "--isolation", "inprocess", "--json", str(read_only / "r.json")]
        ran = _harness(tmp_path, "run", *words)
    assert ran.returncode == 2
    assert "Read-only file system" in ran.stderr
    assert "implementation:" not in ran.stdout  # refused before the implementation was even loaded
