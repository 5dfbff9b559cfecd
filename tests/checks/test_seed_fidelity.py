"""Seed fidelity: the seed chapter's own algorithm conforms at the algorithm level, and departs from the
plug-in contract only where it truly does, each departure named (tests/support/seed_chapter.py).

A verdict correct code cannot earn is no verdict: if the chapter that defines the algorithm failed an
algorithm-level check, the check (or the specification) would be wrong, not the chapter.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.cli import main as cli
from bpe_conformance.running.suite import RunConfig, run_suite
from bpe_conformance.zoo.controls import BuiltinErrorsValidator
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

SPEC = "tests.support.seed_chapter:SeedChapterTokenizer"

# Where the chapter's code leaves the contract, and the fact each failure must state.
SEED_DEPARTURES = {
    "documents-validation": "accepted",  # a bare str is iterated as characters and trained on silently
    "text-validation": "AttributeError",  # encode(None) calls None.encode
    "ids-validation": "KeyError",  # decode('abc') looks 'a' up in the piece table
    "decode-strict": "KeyError",  # an id past the vocabulary is a missing key, not a ValueError
    "vectors-invalid": "returned",  # the invalid-input vectors: the bare str again
}


@pytest.fixture
def seed_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT))


def _run(tmp_path: Path, level: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / f"{level}.json"
    code = cli.main(
        ["run", "--impl", SPEC, "--isolation", "inprocess", "--level", level, "--quiet", "--json", str(report)]
    )
    document: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return code, document


def test_the_seed_chapter_conforms_at_the_algorithm_level(
    seed_on_path: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, "algorithm")
    line = capsys.readouterr().out
    assert code == 0, line
    assert {result["level"] for result in report["results"]} == {"algorithm"}
    assert [result["check"] for result in report["results"]] == [
        check.name for check in ALL_CHECKS if check.level == "algorithm"
    ]
    assert {result["outcome"] for result in report["results"]} <= {"pass", "skip"}
    assert "algorithm: conforms" in line
    assert "interface: not run" in line


def test_the_seed_chapter_leaves_the_interface_only_where_it_truly_does(
    seed_on_path: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, "interface")
    assert code == 1
    failed = {result["check"]: result for result in report["results"] if result["outcome"] == "fail"}
    assert sorted(failed) == sorted(SEED_DEPARTURES)
    for check, fact in SEED_DEPARTURES.items():
        stated = failed[check]["message"] + json.dumps(failed[check]["counterexample"]["actual"])
        assert fact in stated, stated
    assert {result["level"] for result in report["results"]} == {"interface"}
    assert "interface: 5 deviations" in capsys.readouterr().out


def test_the_seeds_value_error_for_max_merges_is_an_advisory_not_a_failure(seed_on_path: None, tmp_path: Path) -> None:
    _, report = _run(tmp_path, "interface")
    (result,) = [result for result in report["results"] if result["check"] == "max-merges-validation"]
    assert result["outcome"] == "pass"
    assert result["advisories"]
    assert all("ValueError" in note for note in result["advisories"])
    assert report["summary"]["advisories"] >= len(result["advisories"])


def test_builtin_unicode_errors_and_seed_value_errors_pass_every_level() -> None:
    suite = run_suite(RunConfig(level="all"), InProcessSubject(BuiltinErrorsValidator), list(ALL_CHECKS))
    assert {result.check: result.message for result in suite.results if not result.outcome.counts_as_success} == {}
    assert {result.level for result in suite.results} == {"algorithm", "interface"}
    assert any(result.advisories for result in suite.results if result.check == "max-merges-validation")
