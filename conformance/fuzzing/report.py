"""The JSON summary of a campaign, described by ``specs/schema/fuzz.schema.json`` (Draft 2020-12).

Written ASCII-only, like the run report, so whatever an implementation answered survives as escapes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bpe_conformance.files import write_output
from bpe_conformance.fuzzing.display import reproduce_line
from bpe_conformance.reports.common import JSON_MESSAGE_CHARS, capped_for_json, cut, to_json_safe
from bpe_conformance.running.suite import HARNESS_NAME
from bpe_conformance.spec.resources import spec_file

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.fuzzing.records import CampaignResult
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["SCHEMA_PATH", "SUMMARY_VERSION", "build_summary", "dumps_summary", "write_summary"]

SUMMARY_VERSION = 1
SCHEMA_PATH = spec_file("schema", "fuzz.schema.json")


def _config(result: CampaignResult) -> JSONObject:
    config = result.config
    return {
        "impl": config.impl,
        "isolation": config.isolation,
        "timeout": config.timeout,
        "profile": config.profile,
        "level": config.level,
        "patterns": list(config.patterns),
        "checks": list(config.checks),
        "skipped": dict(config.skipped),
        "jobs": config.jobs,
        "duration_seconds": config.seconds,
        "database": config.database,
        "seed": config.seed,
        "max_failures": config.max_failures,
        "effort": config.effort,
    } | ({"limits": config.limits.record().to_json()} if config.isolation == "process" else {})


def build_summary(result: CampaignResult) -> JSONObject:
    """The summary as JSON-safe Python data."""
    failures = [
        {
            "check": finding.result.check,
            "clause": finding.result.clause,
            "clauses": list(finding.result.clauses),
            "level": finding.result.level,
            "outcome": finding.result.outcome.value,
            "message": cut(finding.result.message, JSON_MESSAGE_CHARS),
            "counterexample": capped_for_json(finding.result.counterexample or {"inputs": {}}),
            "examples": finding.result.examples,
            "found_after_seconds": finding.found_after,
            "worker": finding.worker,
            "seed": finding.seed,
            "times_found": finding.times_found,
            "reproduce": reproduce_line(result.config, finding.result.check),
        }
        for finding in result.findings
    ]
    summary = {
        "report_version": SUMMARY_VERSION,
        "kind": "fuzz",
        "harness": {
            "name": HARNESS_NAME,
            "version": result.harness_version,
            "hypothesis_version": result.hypothesis_version,
        },
        "implementation": result.implementation.report_json(),
        "config": _config(result),
        "summary": {
            "started_at": result.started_at,
            "seconds": result.seconds,
            "stop_reason": result.stop_reason.value,
            "examples": result.examples,
            "examples_per_second": round(result.examples_per_second, 3),
            "failures": len(result.findings),
            "exit_code": result.exit_code,
            "worker_restarts": result.worker_restarts,
            "cpu_seconds": result.cpu_seconds,
            "error": result.error,
            "lost_failures": result.lost_failures,
        },
        "checks": [
            {
                "check": tally.check,
                "clause": tally.clause,
                "level": tally.level,
                "examples": tally.examples,
                "rounds": tally.rounds,
                "failures": tally.failures,
            }
            for tally in result.tallies
        ],
        "failures": failures,
        "problems": list(result.problems),
    }
    record: JSONObject = to_json_safe(summary)
    return record


def dumps_summary(result: CampaignResult) -> str:
    """The summary as indented, ASCII-only JSON text with a trailing newline."""
    return json.dumps(build_summary(result), indent=2, ensure_ascii=True, allow_nan=False) + "\n"


def write_summary(result: CampaignResult, path: str | Path) -> None:
    """Write :func:`dumps_summary` to ``path``."""
    write_output(path, dumps_summary(result), encoding="ascii")
