"""The terminal report reads well at 80 and 120 columns and when piped (100): nothing wider, said once."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import pytest
from rich.cells import cell_len

from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.reports.common import clause_examples
from bpe_conformance.reports.terminal import (
    PLAIN_WIDTH,
    RunHeader,
    header_lines,
    live_view,
    make_console,
    render_header,
    render_summary,
)
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, RunRecord, SuiteResult

if TYPE_CHECKING:
    from bpe_conformance.checks.base import Check

FAILURE_MESSAGE = (
    "train(documents, 2) round 1: expected (99, 100) (count 2), got (258, 67) (count 2): tie broken the other way"
)
SKIP_REASON = "skipped: fails BPE-DECODE-STRICT as declared: our decode replaces invalid UTF-8 with U+FFFD, by design"


def _result(check: Check, outcome: Outcome, message: str, counterexample: dict[str, Any] | None = None) -> CheckResult:
    return CheckResult(
        check.name, check.clause, check.clauses, check.summary, outcome, message, 60, 0.25, counterexample
    )


def every_check_suite() -> SuiteResult:
    """Every real check: one failing with a long counterexample, one timing out, one skipped, the rest passing."""
    counterexample = {
        "inputs": {"documents": ["ABCABC" * 30, "cdcd 低 " * 20], "max_merges": 2},
        "expected": [[65, 66], [99, 100]],
        "actual": [[65, 66], [258, 67]],
        "divergence": {"round": 1, "expected": {"pair": [99, 100], "count": 2}, "diagnosis": "tie broken"},
    }
    results = []
    for index, check in enumerate(ALL_CHECKS):
        if index == 3:
            results.append(_result(check, Outcome.FAIL, FAILURE_MESSAGE, counterexample))
        elif index == 5:
            results.append(_result(check, Outcome.TIMEOUT, "train: no answer within 0.5 s", {"inputs": {"x": 1}}))
        elif index == 7:
            results.append(_result(check, Outcome.SKIP, SKIP_REASON))
        else:
            results.append(_result(check, Outcome.PASS, "60 examples"))
    config: dict[str, Any] = {
        "impl": "cmd:node tests/fixtures/node/bpe_broken.mjs --with --a --rather --long --command --line",
        "isolation": "process",
        "timeout": 0.5,
    }
    implementation = ImplementationRecord(
        name="node-bpe-broken", version="1.0.0", language="javascript", spec=config["impl"], profile="strict"
    )
    return SuiteResult(
        implementation, results, 0, "dev", 12.5, "0.1.0", config=RunRecord(**config), hypothesis_version="6.1.0"
    )


def rendered(console_width: int | None) -> tuple[str, int]:
    """The whole run's output (header, per-check lines, summary) and the width it had to fit."""
    stream = io.StringIO()
    console = make_console(stream, width=console_width)
    suite = every_check_suite()
    shown = RunHeader(checks=len(suite.results), isolation="process", seed=0, effort="dev · profile strict")
    render_header(console, suite.implementation, shown, "bpe-conformance 0.1.0")
    with live_view(console, len(suite.results)) as view:
        for result in suite.results:
            view.on_result(result)
    render_summary(console, suite)
    return stream.getvalue(), console.width


@pytest.fixture(params=[80, 120, None], ids=["80-columns", "120-columns", "piped"])
def output(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> tuple[str, int]:
    monkeypatch.delenv("COLUMNS", raising=False)
    return rendered(request.param)


def test_no_line_is_wider_than_the_console(output: tuple[str, int]) -> None:
    text, width = output
    too_wide = [line for line in text.splitlines() if cell_len(line) > width]
    assert not too_wide, too_wide


def test_piped_output_is_100_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert rendered(None)[1] == PLAIN_WIDTH == 100


def test_the_header_fits_on_its_lines(output: tuple[str, int]) -> None:
    # The harness line and the settings line never wrap; only a long --impl spec may.
    text, _ = output
    suite = every_check_suite()
    shown = RunHeader(checks=len(suite.results), isolation="process", seed=0, effort="dev · profile strict")
    harness, implementation, settings = header_lines(suite.implementation, shown, "bpe-conformance 0.1.0")
    lines = text.splitlines()
    assert lines[0] == harness
    assert settings in lines[1:4]
    assert " ".join(" ".join(lines[1:4]).split()).startswith(" ".join(implementation.split()))


def test_the_failure_text_appears_once(output: tuple[str, int]) -> None:
    text, _ = output
    flat = " ".join(text.split())
    assert flat.count(" ".join(FAILURE_MESSAGE.split())) == 1
    assert flat.count("no answer within 0.5 s") == 1


def test_the_clause_list_breaks_between_clauses(output: tuple[str, int]) -> None:
    text, _ = output
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Clauses checked"))
    listed = []
    for line in lines[start:]:
        if line.startswith(("PASSED", "FAILED")):
            break
        listed += [entry.strip() for entry in line.removeprefix(lines[start].split(":")[0] + ":").split(",")]
    expected = [
        f"{clause} ({count} example{'s' * (count != 1)})"
        for clause, count in clause_examples(every_check_suite()).items()
    ]
    assert [entry for entry in listed if entry] == expected


def test_the_numbers_are_explained(output: tuple[str, int]) -> None:
    text, _ = output
    flat = " ".join(text.split())
    assert "examples: the inputs a check tried" in flat
    assert "a check with several clauses counts toward each" in flat
