"""``bpe-conformance badge``: shields.io endpoint documents per conformance level from a real run's report."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.cli.main import main

if TYPE_CHECKING:
    from pathlib import Path

CONCATENATES = "bpe_conformance.zoo.corpus:ConcatenatesDocuments"


def _report(tmp_path: Path, *argv: str) -> str:
    path = tmp_path / "report.json"
    main(["run", "--quiet", "--json", str(path), *argv])
    return str(path)


def test_a_conforming_run_gives_green_badges_that_say_what_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = _report(tmp_path, "--check", "tie-break", "--check", "ids-validation")
    capsys.readouterr()
    assert main(["badge", report]) == 0
    badges = json.loads(capsys.readouterr().out)
    assert badges["algorithm"] == {
        "schemaVersion": 1,
        "label": "BPE algorithm",
        "message": "conforms (1/1)",
        "color": "brightgreen",
    }
    assert badges["interface"]["message"] == "conforms (1/1)"


def test_a_failing_level_is_red_and_a_level_not_run_is_grey(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path, "--impl", CONCATENATES, "--isolation", "inprocess", "--check", "no-cross-document-pairs")
    capsys.readouterr()
    assert main(["badge", report, "--dir", str(tmp_path)]) == 0
    algorithm = json.loads((tmp_path / "bpe-algorithm.json").read_text(encoding="ascii"))
    interface = json.loads((tmp_path / "bpe-interface.json").read_text(encoding="ascii"))
    assert (algorithm["message"], algorithm["color"]) == ("1 deviation", "red")
    assert (interface["message"], interface["color"]) == ("not run", "lightgrey")
    assert "wrote" in capsys.readouterr().out


def test_declared_skips_are_on_the_badge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skips = tmp_path / "skips.txt"
    skips.write_text("tie-break  # ours differs\n", encoding="utf-8")
    report = _report(tmp_path, "--check", "tie-break", "--check", "stop-rule", "--skip-file", str(skips))
    capsys.readouterr()
    assert main(["badge", report]) == 0
    algorithm = json.loads(capsys.readouterr().out)["algorithm"]
    assert algorithm["message"] == "conforms (1/1), 1 declared skip"
    assert algorithm["color"] == "green"


@pytest.mark.parametrize(
    ("content", "said"),
    [(None, "cannot read report"), ("{not json", "is not JSON"), ('{"results": []}', "is not a run --json report")],
)
def test_what_is_not_a_report_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, said: str
) -> None:
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["badge", str(path)]) == 2
    err = capsys.readouterr().err
    assert said in err
    assert len(err.strip().splitlines()) == 1


def test_dir_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(tmp_path, "--check", "tie-break")
    assert main(["badge", report, "--dir", str(tmp_path / "missing")]) == 2
    assert "is not a directory" in capsys.readouterr().err
