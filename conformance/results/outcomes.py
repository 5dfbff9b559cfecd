"""Outcomes of a check and the result records reports are built from.

>>> Outcome.PASS.counts_as_success, Outcome.SKIP.counts_as_success, Outcome.CRASH.counts_as_success
(True, True, False)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CheckResult", "Outcome", "SuiteResult"]


class Outcome(str, enum.Enum):
    """pass; fail (a violation); error (raised where it must not); timeout; crash; skip."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    SKIP = "skip"

    @property
    def counts_as_success(self) -> bool:
        """Only passes and declared skips leave the exit code at 0."""
        return self in (Outcome.PASS, Outcome.SKIP)


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict; ``counterexample`` holds inputs, expected and actual for failures.

    ``level`` is the check's conformance level (``algorithm`` or ``interface``); ``advisories`` are
    notes on a SHOULD the implementation did not follow (the other error family, say): never a failure.
    """

    check: str
    clause: str
    clauses: tuple[str, ...]
    summary: str
    outcome: Outcome
    message: str
    examples: int
    seconds: float
    counterexample: dict[str, Any] | None = None
    level: str = "algorithm"
    advisories: tuple[str, ...] = ()


@dataclass(frozen=True)
class SuiteResult:
    """Every check's verdict for one implementation, and how the run was configured."""

    implementation: dict[str, Any]
    results: list[CheckResult]
    seed: int
    effort: str
    seconds: float
    harness_version: str
    started_at: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    hypothesis_version: str = ""

    @property
    def succeeded(self) -> bool:
        """True when every check passed or was skipped."""
        return all(result.outcome.counts_as_success for result in self.results)

    def count(self, outcome: Outcome) -> int:
        """How many checks ended with ``outcome``."""
        return sum(1 for result in self.results if result.outcome is outcome)
