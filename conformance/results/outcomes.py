"""Outcomes of a check and the result records reports are built from.

>>> Outcome.PASS.counts_as_success, Outcome.SKIP.counts_as_success, Outcome.CRASH.counts_as_success
(True, True, False)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = ["CheckResult", "LimitsRecord", "Outcome", "RunRecord", "SuiteResult"]


class Outcome(str, enum.Enum):
    """pass; fail (a violation); error (raised where it must not); timeout; crash; memory-limit; skip.

    ``memory-limit`` is a crash whose cause is known: the implementation's process ran out of the memory
    ``--memory-limit`` allows it (``specs/protocol.md``, resource limits).
    """

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    TIMEOUT = "timeout"
    CRASH = "crash"
    MEMORY_LIMIT = "memory-limit"
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
    counterexample: JSONObject | None = None
    level: str = "algorithm"
    advisories: tuple[str, ...] = ()


@dataclass(frozen=True)
class VocabularyRecord:
    """The released vocabulary a production run (``run --vocabulary``) judged by: what every report names.

    >>> VocabularyRecord("cl100k", "c.tiktoken", 3, (("<|endoftext|>", 3),), "ab12").to_json()["special_tokens"]
    {'<|endoftext|>': 3}
    """

    profile: str
    source: str
    size: int
    special_tokens: tuple[tuple[str, int], ...]
    sha256: str

    def to_json(self) -> JSONObject:
        """The ``config.vocabulary`` object of the JSON report."""
        return {
            "profile": self.profile,
            "source": self.source,
            "size": self.size,
            "special_tokens": dict(self.special_tokens),
            "sha256": self.sha256,
        }


@dataclass(frozen=True)
class LimitsRecord:
    """The limits an implementation process ran under (``--memory-limit``, ``--clean-env``, ``--env``, ``--temp-cwd``).

    >>> LimitsRecord(536870912, True, ("HF_HOME",), False).options()
    ['--memory-limit', '512M', '--clean-env', '--env', 'HF_HOME']
    >>> LimitsRecord(None, False, (), True).options(default_memory=4 * 1024**3)
    ['--memory-limit', 'none', '--temp-cwd']
    """

    memory_limit: int | None
    clean_env: bool = False
    env: tuple[str, ...] = ()
    temp_cwd: bool = False

    def to_json(self) -> JSONObject:
        """The ``config.limits`` object of the JSON report."""
        return {
            "memory_limit": self.memory_limit,
            "clean_env": self.clean_env,
            "env": list(self.env),
            "temp_cwd": self.temp_cwd,
        }

    def options(self, default_memory: int | None = None) -> list[str]:
        """The command-line options that set these limits again (the memory limit when not ``default_memory``)."""
        words = []
        if self.memory_limit != default_memory:
            words += ["--memory-limit", "none" if self.memory_limit is None else _size_option(self.memory_limit)]
        if self.clean_env:
            words.append("--clean-env")
            for name in self.env:
                words += ["--env", name]
        if self.temp_cwd:
            words.append("--temp-cwd")
        return words


def _size_option(size: int) -> str:
    """``size`` as ``--memory-limit`` reads it back exactly: the largest binary unit that divides it."""
    for unit, factor in (("T", 1024**4), ("G", 1024**3), ("M", 1024**2), ("K", 1024)):
        if size % factor == 0:
            return f"{size // factor}{unit}"
    return str(size)


@dataclass(frozen=True)
class RunRecord:
    """How a run was configured: what it was asked, and what the selection and the skip file made of it.

    ``skipped`` maps the checks the skip file skips to its reason, ``declared_clauses`` the clauses it declares
    deviations from. None means not recorded (a result built by hand); a run records every field.

    >>> record = RunRecord(impl="m:T", seed=3, isolation="process", checks=("tie-break",))
    >>> record.to_json()["checks"], sorted(record.given())
    (['tie-break'], ['checks', 'declared_clauses', 'impl', 'isolation', 'patterns', 'seed', 'skipped'])
    """

    impl: str | None = None
    seed: int | None = None
    effort: str | None = None
    timeout: float | None = None
    isolation: str | None = None
    patterns: tuple[str, ...] = ()
    level: str | None = None
    checks: tuple[str, ...] = ()
    skip_file: str | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    declared_clauses: dict[str, str] = field(default_factory=dict)
    database: str | None = None
    profile: str | None = None
    # A production run only (run --vocabulary); absent from every other report.
    vocabulary: VocabularyRecord | None = None
    # The limits of an implementation in its own process; None in process (nothing to limit) or not recorded.
    limits: LimitsRecord | None = None

    def to_json(self) -> JSONObject:
        """The ``config`` object of the JSON report, every field (lists and dicts, in the report's order)."""
        return (
            {
                "impl": self.impl,
                "seed": self.seed,
                "effort": self.effort,
                "timeout": self.timeout,
                "isolation": self.isolation,
                "patterns": list(self.patterns),
                "level": self.level,
                "checks": list(self.checks),
                "skip_file": self.skip_file,
                "skipped": dict(self.skipped),
                "declared_clauses": dict(self.declared_clauses),
                "database": self.database,
                "profile": self.profile,
            }
            | ({} if self.vocabulary is None else {"vocabulary": self.vocabulary.to_json()})
            | ({} if self.limits is None else {"limits": self.limits.to_json()})
        )

    def given(self) -> JSONObject:
        """The fields recorded (not None), as the reproduce line reads them."""
        return {key: value for key, value in self.to_json().items() if value is not None}


@dataclass(frozen=True)
class SuiteResult:
    """Every check's verdict for one implementation, and how the run was configured."""

    implementation: ImplementationRecord
    results: list[CheckResult]
    seed: int
    effort: str
    seconds: float
    harness_version: str
    started_at: str = ""
    config: RunRecord = field(default_factory=RunRecord)
    hypothesis_version: str = ""
    # The selected checks a fail-fast run stopped before.
    not_run: tuple[str, ...] = ()

    @property
    def succeeded(self) -> bool:
        """True when every check passed or was skipped."""
        return all(result.outcome.counts_as_success for result in self.results)

    def declared(self, result: CheckResult) -> bool:
        """True when the skip file skipped ``result`` (before it ran, or by a declared deviation)."""
        return result.check in self.config.skipped or result.clause in self.config.declared_clauses

    @property
    def nothing_checked(self) -> bool:
        """True when checks ran but every one was skipped without a declaration (a capability, a profile)."""
        return bool(self.results) and all(
            result.outcome is Outcome.SKIP and not self.declared(result) for result in self.results
        )

    @property
    def exit_code(self) -> int:
        """0 when every check passed or was skipped by declaration; 1 otherwise, or when nothing was checked.

        >>> from bpe_conformance.results.implementation import ImplementationRecord
        >>> tok = ImplementationRecord("tok")
        >>> skipped = CheckResult("c", "X", ("X",), "", Outcome.SKIP, "capability not declared: encode", 0, 0.0)
        >>> SuiteResult(tok, [skipped], 0, "dev", 0.1, "1").exit_code
        1
        >>> SuiteResult(tok, [], 0, "dev", 0.1, "1").exit_code
        0
        """
        return 1 if self.nothing_checked or not self.succeeded else 0

    def count(self, outcome: Outcome) -> int:
        """How many checks ended with ``outcome``."""
        return sum(1 for result in self.results if result.outcome is outcome)
