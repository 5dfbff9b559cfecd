"""A small matrix made by hand: three implementations, every kind of cell, and texts that must be escaped.

The pages and the diff are tested on it without running any library: one strict implementation that
passes, one dialect (largest-pair) with a dialect cell, a fail with a training divergence and a
crash, and one encode-only implementation whose training checks are skipped.
"""

from __future__ import annotations

from typing import Any

from bpe_conformance.matrix.record import matrix_document
from bpe_conformance.matrix.run import Failure, MatrixRow, RowResult
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.suite import catalogue

HOSTILE = '</script><script>alert("x")</script> & <b>bold</b> \udc80'


def _result(name: str, outcome: Outcome, message: str = "", clause: str = "", example: Any = None) -> CheckResult:
    check = next(check for check in catalogue() if check.name == name)
    return CheckResult(
        check=name,
        clause=clause or check.clause,
        clauses=check.clauses,
        summary=check.summary,
        outcome=outcome,
        message=message or f"{outcome.value}: 12 examples",
        examples=12,
        seconds=0.1,
        counterexample=example,
        level=check.level,
    )


def _row(label: str, profile: str, version: str, outcomes: dict[str, tuple[CheckResult, CheckResult]]) -> RowResult:
    row = MatrixRow(label, f"pkg.{label.replace('-', '_')}:Tok")
    result = RowResult(row, label, version, profile, profile)
    declared: dict[str, CheckResult] = {}
    strict: dict[str, CheckResult] = {}
    for check in catalogue():
        own, under_strict = outcomes.get(check.name, (_result(check.name, Outcome.PASS),) * 2)
        declared[check.name], strict[check.name] = own, under_strict
        if own.outcome is Outcome.SKIP:
            result.cells[check.name] = "skip"
        elif own.outcome is not Outcome.PASS:
            result.cells[check.name] = "fail"
            result.failures.append(
                Failure(
                    label,
                    row.spec,
                    profile,
                    check.name,
                    own.clause,
                    own.outcome.value,
                    own.message,
                    own.counterexample,
                    check.level,
                )
            )
        else:
            result.cells[check.name] = "pass" if under_strict.outcome in (Outcome.PASS, Outcome.SKIP) else "dialect"
    result.results = {"declared": declared, "strict": strict}
    return result


TIE_DIVERGENCE = {
    "inputs": {"documents": ["abab", "acac"], "max_merges": 2},
    "expected": [[97, 98], [97, 99]],
    "actual": [[97, 99], [97, 98]],
    "divergence": {
        "round": 0,
        "diagnosis": "tie broken the other way",
        "cause": "ties go to the largest pair",
        "confirmed": True,
        "clause": "BPE-TRAIN-TIE",
    },
}


def fabricated_rows(dialect_version: str = "2.0.1", tie_cell: str = "dialect") -> list[RowResult]:
    """The three rows; ``tie_cell`` is the dialect's tie-break cell (``dialect`` or ``fail``)."""
    tie_fail = _result("tie-break", Outcome.FAIL, "ties broken the other way " + HOSTILE, example=TIE_DIVERGENCE)
    tie = (_result("tie-break", Outcome.PASS), tie_fail) if tie_cell == "dialect" else (tie_fail, tie_fail)
    crash = _result(
        "decode-strict",
        Outcome.CRASH,
        "decode: the process died; stderr tail:\n  boom\nSegfault",
        example={"inputs": {"ids": [97, -1]}},
    )
    skip = {
        name: (_result(name, Outcome.SKIP, "capability not declared: train"),) * 2
        for name in ("tie-break", "stop-rule", "vectors-training")
    }
    return [
        _row("strict-one", "strict", "1.0.0", {}),
        _row("dialect-two", "largest-pair", dialect_version, {"tie-break": tie, "decode-strict": (crash, crash)}),
        _row("encoder-three", "tiktoken", "0.9", skip),
    ]


def fabricated_document(**changes: Any) -> dict[str, Any]:
    """The matrix document of :func:`fabricated_rows`, with one library not installed."""
    return matrix_document(fabricated_rows(**changes), ["ghost: skipped, ghostlib is not installed"], 3, "dev")
