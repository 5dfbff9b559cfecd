"""What a campaign was asked to do, and what it found: the records the display and the JSON summary read.

>>> config = CampaignConfig("m:T", "process", 10.0, None, "all", (), ("tie-break",), 2, 60.0, "db", 1)
>>> tally = CheckTally("tie-break", "BPE-TRAIN-TIE", "algorithm", examples=500)
>>> from bpe_conformance.results.implementation import ImplementationRecord
>>> deadline, tok = StopReason.DEADLINE, ImplementationRecord("t")
>>> result = CampaignResult(config, tok, "", 10.0, deadline, [tally], [], [], 0, 12.5, "0.1.0")
>>> result.examples, result.examples_per_second, result.exit_code
(500, 50.0, 0)
>>> StopReason("max-failures").description
'stopped after --max-failures distinct failures'
"""

from __future__ import annotations

import enum
import signal
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.settings import HYPOTHESIS_VERSION

if TYPE_CHECKING:
    from bpe_conformance.fuzzing.findings import Finding
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = ["CampaignConfig", "CampaignInterrupted", "CampaignResult", "CheckTally", "StopReason"]


class StopReason(str, enum.Enum):
    """Why a campaign stopped; the value is the slug the JSON summary records, the description what people read.

    A campaign still running has no stop reason (None), so "deadline" never stands for "running".
    """

    DEADLINE = "deadline"
    MAX_FAILURES = "max-failures"
    INTERRUPTED = "interrupted"
    EXHAUSTED = "exhausted"
    DATABASE_FAILED = "database-failed"
    WORKERS_FAILED = "workers-failed"

    @property
    def description(self) -> str:
        """The reason as the verdict line says it."""
        return _STOP_DESCRIPTIONS[self]


_STOP_DESCRIPTIONS = {
    StopReason.DEADLINE: "stopped at the deadline",
    StopReason.MAX_FAILURES: "stopped after --max-failures distinct failures",
    StopReason.INTERRUPTED: "interrupted",
    StopReason.EXHAUSTED: "every selected check had run (fixed cases run once)",
    StopReason.DATABASE_FAILED: "stopped: the example database failed",
    StopReason.WORKERS_FAILED: "stopped: no worker could go on",
}


@dataclass(frozen=True)
class CampaignConfig:
    """What ``fuzz`` was asked to do; ``checks`` are those to fuzz, ``skipped`` those left out and why."""

    impl: str | None
    isolation: str
    timeout: float
    profile: str | None
    level: str
    patterns: tuple[str, ...]
    checks: tuple[str, ...]
    jobs: int
    seconds: float
    database: str
    seed: int
    max_failures: int | None = None
    effort: str = "dev"
    skipped: dict[str, str] = field(default_factory=dict)
    limits: ProcessLimits = DEFAULT_LIMITS


@dataclass
class CheckTally:
    """One check over the whole campaign: examples run, rounds ended, distinct failures."""

    check: str
    clause: str
    level: str
    examples: int = 0
    rounds: int = 0
    failures: int = 0


@dataclass
class CampaignResult:
    """A finished (or interrupted) campaign."""

    config: CampaignConfig
    implementation: ImplementationRecord
    started_at: str
    seconds: float
    stop_reason: StopReason
    tallies: list[CheckTally]
    findings: list[Finding]
    problems: list[str]
    worker_restarts: int
    cpu_seconds: float
    harness_version: str
    error: str | None = None
    hypothesis_version: str = HYPOTHESIS_VERSION
    # Failures found whose database write failed: not saved, printed in full in ``error`` and ``problems``.
    lost_failures: int = 0

    @property
    def examples(self) -> int:
        """Examples run by every worker, shrink steps and replays included."""
        return sum(tally.examples for tally in self.tallies)

    @property
    def examples_per_second(self) -> float:
        """Examples per second of wall-clock time, over the whole campaign."""
        return self.examples / self.seconds if self.seconds > 0 else 0.0

    @property
    def exit_code(self) -> int:
        """1 when any distinct failure was found; else 2 when the campaign could not go on; else 0."""
        if self.findings:
            return 1
        return 2 if self.error else 0


class CampaignInterrupted(KeyboardInterrupt):
    """The campaign was stopped by a signal; ``result`` is everything up to then."""

    def __init__(self, result: CampaignResult, cause: KeyboardInterrupt) -> None:
        super().__init__(str(cause))
        self.result = result
        self.signum = getattr(cause, "signum", signal.SIGINT)
