"""Conformance levels: every check, result and report carries ``algorithm`` or ``interface``, and the
verdict states the two apart."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.checks.base import INTERFACE, LEVELS, Check
from bpe_conformance.cli import main as cli
from bpe_conformance.errors import HarnessError
from bpe_conformance.reports.common import level_verdict, level_verdicts, total_advisories, verdict_line
from bpe_conformance.reports.json_report import build_report
from bpe_conformance.reports.junit import write_junit
from bpe_conformance.reports.markdown import render_markdown
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, RunRecord, SuiteResult
from bpe_conformance.running.runner import run_checks
from bpe_conformance.running.suite import at_level, catalogue, exit_code_for
from bpe_conformance.settings import EFFORTS
from tests.checks.helpers import CHECKS
from tests.support.localisation_bugs import OneRuleForZeroBudget

if TYPE_CHECKING:
    from pathlib import Path

INTERFACE_CHECKS = {
    "max-merges-validation",
    "documents-validation",
    "text-validation",
    "ids-validation",
    "rules-validation",
    "failed-call-keeps-model",
    "decode-strict",
    "vectors-invalid",
}


def _result(check: str, outcome: Outcome, level: str, advisories: tuple[str, ...] = ()) -> CheckResult:
    return CheckResult(check, "BPE-TRAIN-TIE", ("BPE-TRAIN-TIE",), "", outcome, "m", 3, 0.1, None, level, advisories)


def _suite(results: list[CheckResult]) -> SuiteResult:
    return SuiteResult(ImplementationRecord("tok", "1"), results, 0, "dev", 1.0, "0.1", config=RunRecord(level="all"))


def test_the_interface_level_is_argument_validation_error_families_and_invalid_input() -> None:
    assert {check.name for check in ALL_CHECKS if check.level == INTERFACE} == INTERFACE_CHECKS
    assert {check.level for check in ALL_CHECKS} == set(LEVELS)


def test_a_check_must_name_a_known_level() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        Check("x", "BPE-TRAIN-TIE", "", print, cases=list, level="hygiene")


def test_at_level_selects_and_rejects_unknown_levels() -> None:
    assert {check.name for check in at_level(ALL_CHECKS, "interface")} == INTERFACE_CHECKS
    assert len(at_level(ALL_CHECKS, "algorithm")) + len(INTERFACE_CHECKS) == len(ALL_CHECKS)
    with pytest.raises(HarnessError, match="unknown level"):
        at_level(ALL_CHECKS, "both")


def test_level_verdicts_state_both_levels_apart() -> None:
    suite = _suite(
        [
            _result("a", Outcome.PASS, "algorithm"),
            _result("b", Outcome.PASS, "algorithm"),
            _result("c", Outcome.FAIL, "interface"),
            _result("d", Outcome.PASS, "interface", ("n1", "n2")),
        ]
    )
    assert level_verdicts(suite) == "algorithm: conforms (2/2) · interface: 1 deviation, 2 advisories"
    assert verdict_line(suite).startswith("FAILED: ")
    assert verdict_line(suite).endswith(level_verdicts(suite))
    assert total_advisories(suite.results) == 2


def test_a_level_whose_checks_were_all_skipped_does_not_conform_by_default() -> None:
    assert level_verdict("algorithm", [_result("a", Outcome.SKIP, "algorithm")]) == "algorithm: all skipped"
    assert level_verdict("algorithm", [_result("a", Outcome.TIMEOUT, "algorithm")]) == "algorithm: 1 timeout"


def test_a_timeout_or_a_crash_is_counted_as_what_it_is_not_as_a_deviation() -> None:
    results = [_result("a", Outcome.TIMEOUT, "algorithm"), _result("b", Outcome.CRASH, "algorithm")]
    assert level_verdict("algorithm", results) == "algorithm: 1 timeout, 1 crash"
    results.append(_result("c", Outcome.FAIL, "algorithm"))
    assert level_verdict("algorithm", results) == "algorithm: 1 deviation, 1 timeout, 1 crash"


def test_every_report_carries_each_results_level_and_advisories(tmp_path: Path) -> None:
    suite = _suite([_result("a", Outcome.PASS, "algorithm"), _result("c", Outcome.PASS, "interface", ("note",))])
    report = build_report(suite)
    assert [result["level"] for result in report["results"]] == ["algorithm", "interface"]
    assert report["results"][1]["advisories"] == ["note"]
    assert report["summary"]["advisories"] == 1
    assert report["summary"]["levels"] == level_verdicts(suite)
    write_junit(suite, tmp_path / "r.xml")
    cases = ET.parse(tmp_path / "r.xml").getroot().iter("testcase")
    properties = [{item.get("name"): item.get("value") for item in case.iter("property")} for case in cases]
    assert [item["level"] for item in properties] == ["algorithm", "interface"]
    assert properties[1]["advisory"] == "note"
    markdown = render_markdown(suite)
    assert "| `c` | interface |" in markdown
    assert "## Advisories" in markdown
    assert "note" in markdown


def test_run_level_selects_the_checks_and_records_the_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    code = cli.main(
        [
            "run",
            "--level",
            "interface",
            "--check",
            "*-validation",
            "--isolation",
            "inprocess",
            "--quiet",
            "--json",
            str(report),
        ]
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    assert code == 0
    assert data["config"]["level"] == "interface"
    assert {result["level"] for result in data["results"]} == {"interface"}
    out = capsys.readouterr().out
    assert "algorithm: not run" in out
    assert "interface: conforms" in out


def test_a_level_that_leaves_no_check_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--level", "interface", "--check", "tie-break"]) == 2
    assert "--level interface" in capsys.readouterr().err


def test_an_interface_run_is_not_failed_by_a_training_bug() -> None:
    """BPE-TRAIN-STOP: one rule made for max_merges 0 departs in the interface checks' set-up training only.

    Those checks report ``set-up failed`` with the set-up's clause and level and are skipped: the interface
    level is not charged, and a run of the interface level exits 0.
    """
    results = run_checks(at_level(catalogue(), "interface"), InProcessSubject(OneRuleForZeroBudget), EFFORTS["dev"])
    set_up = [result for result in results if result.message.startswith("set-up failed: [BPE-TRAIN-STOP]")]
    assert set_up
    assert all(result.outcome is Outcome.SKIP for result in set_up)
    assert all("at the algorithm level (interface not charged)" in result.message for result in set_up)
    assert exit_code_for(results) == 0, [
        (result.check, result.message) for result in results if result.outcome.value != "pass"
    ]
    everything = run_checks([CHECKS["stop-rule"]], InProcessSubject(OneRuleForZeroBudget), EFFORTS["dev"])
    assert (everything[0].outcome, everything[0].clause) == (Outcome.FAIL, "BPE-TRAIN-STOP")
