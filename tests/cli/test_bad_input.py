"""Bad input on the command line: one line naming what was wrong, a pointer to --help, exit 2, nothing made.

argparse's own errors print no usage block; a value starting with a minus reaches the option's validation
(``--duration -5s``, ``--seed -1``) instead of "expected one argument"; ``--database`` creates its own
directory but never a missing parent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli.main import main

if TYPE_CHECKING:
    from pathlib import Path


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "usage:" not in captured.err
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["run", "--isolation", "sideways"], "--isolation"),
        (["run", "--bogus"], "--bogus"),
        (["no-such-command"], "no-such-command"),
        (["vectors"], "generate,check"),
        (["zoo", "check", "--effort", "lots"], "--effort"),
    ],
)
def test_argparse_errors_are_one_line_and_point_to_help(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert named in line
    assert "--help" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--seed", "-1"],
        ["fuzz", "--seed", "-1"],
        ["matrix", "--seed", "-1"],
        ["zoo", "check", "--seed", "-1"],
    ],
)
def test_a_negative_seed_is_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    line = _one_line_error(capsys)
    assert "--seed" in line
    assert "non-negative" in line
    assert "-1" in line


def test_a_negative_duration_names_the_duration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--duration", "-5s"]) == 2
    line = _one_line_error(capsys)
    assert "--duration" in line
    assert "-5s" in line
    assert "expected one argument" not in line


def test_a_negative_timeout_names_the_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--timeout", "-1"]) == 2
    assert "timeout must be a positive" in _one_line_error(capsys)


@pytest.mark.parametrize("command", [["run", "--check", "tie-break"], ["fuzz", "--duration", "1s"]])
def test_database_under_a_missing_directory_is_refused_and_nothing_is_made(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "missing" / "deeper" / "db"
    assert main([*command, "--database", str(database)]) == 2
    line = _one_line_error(capsys)
    assert "--database" in line
    assert "does not exist" in line
    assert not (tmp_path / "missing").exists()


def test_database_directory_itself_is_created(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "db"
    assert main(["run", "--check", "tie-break", "--quiet", "--database", str(database)]) == 0
    assert database.is_dir()
