"""Shields.io endpoint badges from a JSON report: one per conformance level, the way Bowtie publishes its own.

Each badge is a document ``https://img.shields.io/endpoint?url=...`` renders: ``schemaVersion``, ``label``,
``message``, ``color``. The message is the level's verdict as the report's verdict line states it
(``conforms (26/26)``, ``3 deviations``, ``not run``), plus the checks a skip file skipped at that level,
so a badge never claims more than the run checked.

>>> result = {"check": "tie-break", "clause": "BPE-TRAIN-TIE", "level": "algorithm", "outcome": "pass"}
>>> report = {"implementation": {"profile": "strict"}, "config": {}, "results": [result]}
>>> badges = badge_documents(report)
>>> badges["algorithm"]
{'schemaVersion': 1, 'label': 'BPE algorithm', 'message': 'conforms (1/1)', 'color': 'brightgreen'}
>>> badges["interface"]["message"], badges["interface"]["color"]
('not run', 'lightgrey')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.checks.base import LEVELS
from bpe_conformance.reports.common import level_verdict, plural
from bpe_conformance.results.outcomes import CheckResult, Outcome

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["badge_documents"]


def _result(record: JSONObject) -> CheckResult:
    return CheckResult(
        check=record["check"],
        clause=record["clause"],
        clauses=tuple(record.get("clauses", (record["clause"],))),
        summary=record.get("summary", ""),
        outcome=Outcome(record["outcome"]),
        message="",
        examples=record.get("examples", 0),
        seconds=record.get("seconds", 0.0),
        level=record["level"],
        advisories=tuple(record.get("advisories", ())),
    )


def _declared_skips(report: JSONObject, results: list[CheckResult]) -> int:
    skipped = report["config"].get("skipped") or {}
    clauses = report["config"].get("declared_clauses") or {}
    return sum(
        1
        for result in results
        if result.outcome is Outcome.SKIP and (result.check in skipped or result.clause in clauses)
    )


def badge_documents(report: JSONObject) -> dict[str, JSONObject]:
    """Level -> the shields.io endpoint document for it, from a report of ``specs/schema/report.schema.json``."""
    profile = report["implementation"].get("profile") or "strict"
    badges = {}
    for level in LEVELS:
        results = [_result(record) for record in report["results"] if record["level"] == level]
        verdict = level_verdict(level, results).removeprefix(f"{level}: ")
        declared = _declared_skips(report, results)
        if verdict.startswith("conforms"):
            color = "green" if declared else "brightgreen"
        else:
            color = "lightgrey" if verdict in ("not run", "all skipped") else "red"
        message = verdict + (f", {plural(declared, 'declared skip')}" if declared else "")
        label = f"BPE {level}" if profile == "strict" else f"BPE {level} ({profile})"
        badges[level] = {"schemaVersion": 1, "label": label, "message": message, "color": color}
    return badges
