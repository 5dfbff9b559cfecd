"""``run --fail-fast``, ``--write-skip-file`` and stale skips (issue 28, through the run plan of issue 24).

The demo checks of ``tests/cli/test_main.py`` stand in for the suite: the bundled reference passes all
three, ``broken_impls:LargestTie`` fails ``demo-worked-example`` (clause BPE-TRAIN-TIE), the first one run.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bpe_conformance.cli import main as cli
from tests.cli.test_main import broken_module, demo_suite  # noqa: F401 (fixtures)

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

LARGEST_TIE = ["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess"]


def test_fail_fast_stops_after_the_first_failing_check(
    demo_suite: None,  # noqa: F811
    broken_module: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main([*LARGEST_TIE, "--fail-fast", "--json", "report.json"]) == 1
    out = capsys.readouterr().out
    assert "FAIL demo-worked-example [BPE-TRAIN-TIE]" in out
    assert "demo-round-trip" not in out.split("FAIL demo-worked-example")[1].split("reproduce")[0]
    assert "--fail-fast: stopped at the first failure; 2 checks not run" in out
    report = json.loads((broken_module / "report.json").read_text(encoding="utf-8"))
    assert [result["check"] for result in report["results"]] == ["demo-worked-example"]


def test_fail_fast_runs_everything_when_nothing_fails(
    demo_suite: None,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["run", "--fail-fast"]) == 0
    out = capsys.readouterr().out
    assert "PASSED: 3 pass" in out
    assert "--fail-fast" not in out


def test_a_written_skip_file_turns_the_same_run_green(
    demo_suite: None,  # noqa: F811
    broken_module: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main([*LARGEST_TIE, "--write-skip-file", "skips.txt", "--quiet"]) == 1
    assert "wrote skips.txt (1 checks that did not pass)" in capsys.readouterr().out
    text = (broken_module / "skips.txt").read_text(encoding="utf-8")
    entries = [line.split("#")[0].strip() for line in text.splitlines() if line.split("#")[0].strip()]
    assert entries == ["demo-worked-example"]
    assert "fail on BPE-TRAIN-TIE" in text
    assert cli.main([*LARGEST_TIE, "--skip-file", "skips.txt", "--quiet"]) == 0


def test_write_skip_file_to_an_unwritable_place_fails_before_the_run(
    demo_suite: None,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["run", "--write-skip-file", str(tmp_path / "missing" / "skips.txt")]) == 2
    captured = capsys.readouterr()
    assert "--write-skip-file" in captured.err
    assert "Traceback" not in captured.err
    assert "[1/3]" not in captured.out


def test_a_skip_whose_check_now_passes_is_reported_as_stale(
    demo_suite: None,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    skips = tmp_path / "skips.txt"
    skips.write_text("demo-worked-example  # ties our own way\n", encoding="utf-8")
    assert cli.main(["run", "--skip-file", str(skips), "--json", str(tmp_path / "report.json")]) == 0
    out = capsys.readouterr().out
    assert "stale skip: demo-worked-example now passes" in out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    (skipped,) = [result for result in report["results"] if result["check"] == "demo-worked-example"]
    assert skipped["outcome"] == "skip"
    assert skipped["examples"] == 0
    assert any(note.startswith("stale skip: demo-worked-example now passes") for note in skipped["advisories"])


def test_a_skip_whose_check_still_fails_is_not_stale(
    demo_suite: None,  # noqa: F811
    broken_module: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    (broken_module / "skips.txt").write_text("demo-worked-example  # ties our own way\n", encoding="utf-8")
    assert cli.main([*LARGEST_TIE, "--skip-file", "skips.txt"]) == 0
    assert "stale skip" not in capsys.readouterr().out


def test_a_bad_custom_profile_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--profile", "strict+min_count=0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--profile: profile 'strict+min_count=0': min_count 0 is not an integer >= 1")
    assert "\n" not in err
    assert "Traceback" not in err
