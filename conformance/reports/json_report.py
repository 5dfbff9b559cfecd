"""The machine-readable report, described by ``specs/schema/report.schema.json`` (Draft 2020-12).

Written ASCII-only (``ensure_ascii=True``), so lone surrogates in counterexamples survive as
``\\ud800`` escapes and the file is valid UTF-8 whatever the implementation produced.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bpe_conformance.files import write_output
from bpe_conformance.reports.common import (
    JSON_MESSAGE_CHARS,
    capped_for_json,
    clause_examples,
    cut,
    level_verdicts,
    outcome_counts,
    reproduce_command,
    root_causes,
    to_json_safe,
    total_advisories,
)
from bpe_conformance.running.suite import HARNESS_NAME, exit_code_for
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.outcomes import CheckResult, SuiteResult

__all__ = ["REPORT_VERSION", "SCHEMA_PATH", "build_report", "dumps_report", "write_json_report"]

REPORT_VERSION = 1
SCHEMA_PATH = spec_file("schema", "report.schema.json")

_CONFIG_KEYS = (
    "impl",
    "seed",
    "effort",
    "timeout",
    "isolation",
    "patterns",
    "level",
    "checks",
    "skip_file",
    "skipped",
    "declared_clauses",
    "database",
    "profile",
)


def _result_record(suite: SuiteResult, result: CheckResult) -> JSONObject:
    failed = not result.outcome.counts_as_success
    return {
        "check": result.check,
        "clause": result.clause,
        "clauses": list(result.clauses),
        "level": result.level,
        "summary": result.summary,
        "outcome": result.outcome.value,
        "message": cut(result.message, JSON_MESSAGE_CHARS),
        "examples": result.examples,
        "seconds": result.seconds,
        "counterexample": capped_for_json(result.counterexample),
        "advisories": list(result.advisories),
        "reproduce": reproduce_command(suite, result.check) if failed else None,
        "root_cause": root_causes(suite.results).get(result.check),
    }


def _config_record(suite: SuiteResult) -> JSONObject:
    recorded = suite.config.to_json()
    record = {key: recorded[key] for key in _CONFIG_KEYS}
    record["seed"], record["effort"] = suite.seed, suite.effort
    record["patterns"] = record["patterns"] or []
    record["level"] = record["level"] or "all"
    record["checks"] = record["checks"] or [result.check for result in suite.results]
    record["skipped"] = record["skipped"] or {}
    record["declared_clauses"] = record["declared_clauses"] or {}
    if "vocabulary" in recorded:  # run --vocabulary: the file, its size and SHA-256
        record["vocabulary"] = recorded["vocabulary"]
    if "limits" in recorded:  # an implementation in its own process
        record["limits"] = recorded["limits"]
    return record


def build_report(suite: SuiteResult) -> JSONObject:
    """The report as JSON-safe Python data."""
    report = {
        "report_version": REPORT_VERSION,
        "harness": {
            "name": HARNESS_NAME,
            "version": suite.harness_version,
            "hypothesis_version": suite.hypothesis_version,
        },
        "implementation": suite.implementation.report_json(),
        "config": _config_record(suite),
        "summary": {
            "total": len(suite.results),
            "counts": outcome_counts(suite),
            "levels": level_verdicts(suite),
            "advisories": total_advisories(suite.results),
            "succeeded": suite.succeeded,
            "exit_code": exit_code_for(suite.results),
            "seconds": suite.seconds,
            "started_at": suite.started_at,
        },
        "clauses": clause_examples(suite),
        "results": [_result_record(suite, result) for result in suite.results],
    }
    record: JSONObject = to_json_safe(report)
    return record


def dumps_report(suite: SuiteResult) -> str:
    """The report as indented, ASCII-only JSON text with a trailing newline."""
    return json.dumps(build_report(suite), indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def write_json_report(suite: SuiteResult, path: str | Path) -> None:
    """Write :func:`dumps_report` to ``path``."""
    write_output(path, dumps_report(suite), encoding="ascii")
