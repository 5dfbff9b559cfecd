"""The options of ``fuzz`` and ``--database``: every bad value is one line naming what was wrong, exit 2.

Also the pure parts of a campaign: durations, database locations, the schedule and deduplication.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.cli import main as cli
from bpe_conformance.errors import HarnessError
from bpe_conformance.fuzzing.durations import format_duration, parse_duration
from bpe_conformance.fuzzing.findings import FindingBook
from bpe_conformance.fuzzing.schedule import MAX_REST, Schedule, examples_for_round
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.database import cache_directory, default_directory, open_database, parse_location
from tests import ROOT
from tests.support.redis_server import free_port

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["--duration", "10"], "duration '10' has no unit: write 10s, 10m or 10h"),
        (["--duration", "10x"], "duration '10x' is not like 90s, 10m, 2h or 1h30m"),
        (["--duration", "0s"], "duration '0s' must be longer than 0s"),
        (["--duration", "1h30"], "is not like 90s"),
        (["--jobs", "0"], "argument --jobs: must be at least 1, got 0"),
        (["--jobs", "two"], "argument --jobs: expected a whole number, got 'two'"),
        (["--max-failures", "0"], "argument --max-failures: must be at least 1"),
    ],
)
def test_bad_option_values_exit_2_naming_the_value(
    capsys: pytest.CaptureFixture[str], words: list[str], message: str
) -> None:
    assert cli.main(["fuzz", *words]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("database", "message"),
    [
        ("ftp://host/x", "--database ftp://host/x: unknown scheme 'ftp'; give a directory or redis://HOST:PORT[/DB]"),
        ("redis://127.0.0.1:99999", "port must be a number from 1 to 65535, got '99999'"),
        ("redis://127.0.0.1:port", "port must be a number from 1 to 65535, got 'port'"),
        ("redis://127.0.0.1:6379/x", "the database number after '/' must be a non-negative integer, got 'x'"),
        ("redis://user:secret@127.0.0.1:6379", "credentials in the URL are not supported"),
        ("redis://:6379", "no host"),
    ],
)
def test_bad_database_values_exit_2_before_anything_starts(
    capsys: pytest.CaptureFixture[str], database: str, message: str
) -> None:
    for command in ("fuzz", "run"):
        assert cli.main([command, "--check", "tie-break", "--database", database]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith("bpe-conformance: error: ")
        assert message in err


def test_an_unreachable_redis_is_named_with_its_address(capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()  # nothing listens there
    assert cli.main(["fuzz", "--check", "tie-break", "--database", f"redis://127.0.0.1:{port}/2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"cannot use Redis at 127.0.0.1:{port} db 2" in err


def test_a_file_is_not_a_database_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    assert cli.main(["fuzz", "--database", str(tmp_path / "file")]) == 2
    assert "exists and is not a directory" in capsys.readouterr().err
    with pytest.raises(HarnessError, match="--bpe-database "):
        open_database(str(tmp_path / "file"), "--bpe-database")


def test_nothing_to_fuzz_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # The bundled reference declares every capability; no check selected by --level leaves nothing.
    assert cli.main(["fuzz", "--check", "tie-break", "--level", "interface"]) == 2
    assert "no checks selected" in capsys.readouterr().err


def test_the_cache_dir_follows_xdg_and_ignores_a_relative_value(tmp_path: Path) -> None:
    assert cache_directory({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "bpe-conformance"
    assert cache_directory({"XDG_CACHE_HOME": "relative"}).parent.name == ".cache"
    one, other = default_directory("pkg:Tok", {}), default_directory("pkg:Tok2", {})
    assert one != other
    assert one.parent == other.parent == cache_directory({}) / "examples"
    assert default_directory(None, {}).name.startswith("reference-")


def test_a_directory_and_a_redis_url_parse_to_what_they_name(tmp_path: Path) -> None:
    assert parse_location(str(tmp_path)).path == str(tmp_path)
    location = parse_location("redis://[::1]:7000/15")
    assert (location.kind, location.host, location.port, location.db) == ("redis", "::1", 7000, 15)


@given(st.integers(1, 8784), st.sampled_from(["s", "m", "h"]))
def test_a_duration_in_one_unit_is_that_many_seconds(number: int, unit: str) -> None:
    """Durations are numbers each followed by s, m or h (at most a year: more is surely a typo)."""
    assert parse_duration(f"{number}{unit}") == number * {"s": 1, "m": 60, "h": 3600}[unit]
    assert format_duration(parse_duration(f"{number}{unit}"))
    with pytest.raises(ValueError, match="longer than a year"):
        parse_duration(f"{number + 8784}h")


@given(
    st.lists(st.text("abcdef", min_size=1, max_size=3), min_size=1, max_size=6, unique=True),
    st.integers(0, 20),
    st.data(),
)
def test_every_check_keeps_running_and_a_failing_one_rests_at_most_max_rest_cycles(
    names: list[str], start: int, data: st.DataObject
) -> None:
    schedule = Schedule(names, start=start)
    failing = data.draw(st.sampled_from(names))
    seen: list[str] = []
    for _ in range(len(names) * (MAX_REST + 2)):
        name, _ = schedule.next()
        seen.append(name)
        schedule.record(name, failed=name == failing)
    assert set(seen) == set(names)
    gaps = [index for index, name in enumerate(seen) if name == failing]
    assert all(later - earlier <= len(names) * (MAX_REST + 1) for earlier, later in itertools.pairwise(gaps))


def test_budgets_grow_then_level_off() -> None:
    budgets = [examples_for_round(60, round_of_check) for round_of_check in range(10)]
    assert budgets[:3] == [60, 120, 240]
    assert budgets == sorted(budgets)
    assert budgets[-1] == budgets[-2]


def test_a_failure_is_distinct_by_check_outcome_clause_and_inputs() -> None:
    def result(
        check: str = "c",
        outcome: Outcome = Outcome.FAIL,
        clause: str = "BPE-TRAIN-TIE",
        inputs: dict[str, Any] | None = None,
    ) -> CheckResult:
        return CheckResult(
            check,
            clause,
            (clause,),
            "",
            outcome,
            "m",
            1,
            0.0,
            counterexample={"inputs": inputs or {"text": "ab"}, "actual": [1]},
        )

    book = FindingBook()
    variants = [
        result(),
        result(check="d"),
        result(outcome=Outcome.CRASH),
        result(clause="BPE-TRAIN-STOP"),
        result(inputs={"text": "ba"}),
    ]
    assert all(book.add(variant, 0, 0, 0.0) is not None for variant in variants)
    assert book.add(result(), 1, 5, 1.0) is None
    assert book.findings[0].times_found == 2


def test_workers_share_hypothesis_storage_under_the_cache_dir_unless_told_otherwise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bpe_conformance.fuzzing.campaign import hypothesis_storage

    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert hypothesis_storage() == tmp_path / "bpe-conformance" / "hypothesis"
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "mine"))
    assert hypothesis_storage() == tmp_path / "mine"


def test_the_plugin_names_a_bad_bpe_database_as_a_usage_error(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "bpe_conformance.plugin",
            "-p",
            "no:cacheprovider",
            "--bpe-impl",
            "reference",
            "--bpe-only",
            "--bpe-database",
            "ftp://host/x",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 4  # pytest's usage error
    assert "--bpe-database ftp://host/x: unknown scheme 'ftp'" in completed.stderr + completed.stdout


def test_the_status_line_and_the_verdict_state_the_campaign_in_numbers() -> None:
    from bpe_conformance.fuzzing.campaign import Campaign
    from bpe_conformance.fuzzing.display import status_line, verdict
    from bpe_conformance.fuzzing.records import CampaignConfig
    from bpe_conformance.results.implementation import ImplementationRecord
    from bpe_conformance.running import suite

    checks = suite.select(["tie-break", "round-trip"])
    config = CampaignConfig("m:T", "process", 10.0, None, "all", (), tuple(c.name for c in checks), 2, 600.0, "db", 7)
    campaign = Campaign(config, checks, ImplementationRecord("tok"), "0.1.0")
    campaign.tallies["tie-break"].examples = 1234
    line = status_line(campaign)
    assert "1 234 examples" in line
    assert "0 failures" in line
    assert "left" in line
    assert "0 workers" in line
    result = campaign.result()
    assert verdict(result).startswith("PASSED: no failure in ")
    assert "1 234 examples" in verdict(result)
    assert "2 checks, 2 workers" in verdict(result)
    assert "seed 7" in verdict(result)
    assert "stopped at the deadline" in verdict(result)


def test_a_failure_whose_database_write_failed_is_counted_as_found_and_not_saved() -> None:
    """The verdict must not say "no failure found" when a worker found one and could not save it."""
    from bpe_conformance.fuzzing.campaign import Campaign
    from bpe_conformance.fuzzing.display import verdict
    from bpe_conformance.fuzzing.records import CampaignConfig, StopReason
    from bpe_conformance.fuzzing.report import build_summary
    from bpe_conformance.results.implementation import ImplementationRecord
    from bpe_conformance.running import suite

    checks = suite.select(["tie-break"])
    config = CampaignConfig("m:T", "process", 10.0, None, "all", (), ("tie-break",), 1, 600.0, "db", 7)
    campaign = Campaign(config, checks, ImplementationRecord("tok"), "0.1.0")
    message = "the example database db failed: disk full; check tie-break, example not saved: {...}"
    fatal = {"event": "fatal", "worker": 0, "message": message, "database": True, "lost": True}
    campaign._handle(campaign.slots[0], fatal)
    result = campaign.result()
    assert result.stop_reason is StopReason.DATABASE_FAILED
    assert result.lost_failures == 1
    assert verdict(result).startswith("FAILED: 1 failure found but NOT SAVED, the example database failed")
    assert "no failure" not in verdict(result)
    assert build_summary(result)["summary"]["lost_failures"] == 1
    # A database that failed while nothing was being saved found nothing: that verdict stays.
    quiet = Campaign(config, checks, ImplementationRecord("tok"), "0.1.0")
    quiet._handle(quiet.slots[0], {**fatal, "lost": False})
    assert verdict(quiet.result()).startswith("ERROR: no failure found, but the campaign could not go on")
