"""Assembling one conformance run: implementation, checks, hypothesis profile and skip file.

The CLI's ``run`` and the pytest plugin share these functions; reports are built from the
:class:`~bpe_conformance.results.outcomes.SuiteResult` that :func:`run_suite` returns.

>>> config = RunConfig(seed=3, patterns=("train-*",))
>>> config.isolation_used, exit_code_for([])
('inprocess', 0)
>>> RunConfig(impl="mypkg:Tok").isolation_used
'process'
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from bpe_conformance.adapters import ISOLATIONS, load_implementation
from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.adapters.subprocess import DEFAULT_TIMEOUT
from bpe_conformance.dialects.context import known_profile, with_profile
from bpe_conformance.errors import HarnessError
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, RunRecord, SuiteResult
from bpe_conformance.running.skipfile import SkipPlan, load_skip_file
from bpe_conformance.settings import EFFORTS, active_effort_name

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from hypothesis import settings

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check

__all__ = [
    "BUNDLED_REFERENCE",
    "DEFAULT_TIMEOUT",
    "HARNESS_NAME",
    "ISOLATIONS",
    "LEVEL_CHOICES",
    "RunConfig",
    "RunInterrupted",
    "apply_declared_deviations",
    "at_level",
    "catalogue",
    "default_effort",
    "effort_settings",
    "exit_code_for",
    "harness_version",
    "implementation_record",
    "inapplicable_checks",
    "judged_subject",
    "open_subject",
    "run_suite",
    "select",
    "skips_for",
    "void_clauses",
    "without_void_clauses",
]

HARNESS_NAME = "bpe-conformance"
BUNDLED_REFERENCE = "reference"
EXIT_SUCCESS, EXIT_FAILURE = 0, 1


@dataclass(frozen=True)
class RunConfig:
    """What a run was asked to do; ``impl=None`` means the bundled reference, in-process."""

    impl: str | None = None
    isolation: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    effort: str = "dev"
    seed: int = 0
    patterns: tuple[str, ...] = ()
    skip_file: str | None = None
    profile: str | None = None
    level: str = "all"
    database: str | None = None
    # Memory, environment and working directory of an implementation in its own process.
    limits: ProcessLimits = DEFAULT_LIMITS

    # The closed choices a front end offers, so it needs nothing else of this package to build its options.
    ISOLATIONS: ClassVar[tuple[str, ...]] = tuple(ISOLATIONS)
    LEVELS: ClassVar[tuple[str, ...]] = ("all", "algorithm", "interface")
    DEFAULT_TIMEOUT: ClassVar[float] = DEFAULT_TIMEOUT

    @property
    def isolation_used(self) -> str:
        """The chosen isolation, else ``process`` for ``--impl`` and ``inprocess`` for the bundled reference."""
        if self.isolation is not None:
            return self.isolation
        return "inprocess" if self.impl is None else "process"


def harness_version() -> str:
    """The installed version of this package, or ``unknown`` when run from an uninstalled tree."""
    try:
        return importlib.metadata.version(HARNESS_NAME)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def default_effort() -> str:
    """The hypothesis profile a run uses unless ``--thorough`` is given: ``ci`` under ``$CI``, else ``dev``."""
    try:
        return active_effort_name()
    except ValueError as error:
        raise HarnessError(str(error)) from None


def effort_settings(effort: str) -> settings:
    """The hypothesis settings of the effort named ``effort`` (dev, ci, thorough, mutation)."""
    if effort not in EFFORTS:
        raise HarnessError(f"unknown effort {effort!r}; choose one of {sorted(EFFORTS)}")
    return EFFORTS[effort]


def catalogue() -> list[Check]:
    """Every check of the suite, in its stable order."""
    # Imported here, not at the top: the CLI imports this module for every command, only `run` needs checks.
    from bpe_conformance.checks import ALL_CHECKS

    return list(ALL_CHECKS)


def select(patterns: Sequence[str]) -> list[Check]:
    """The checks matching any of ``patterns`` (names or clause ids, fnmatch-style); all when none."""
    if not patterns:
        return catalogue()
    from bpe_conformance.checks import select_checks

    try:
        return list(select_checks(list(patterns)))
    except ValueError as error:
        raise HarnessError(str(error)) from None


LEVEL_CHOICES = RunConfig.LEVELS


def at_level(checks: Sequence[Check], level: str) -> list[Check]:
    """The checks of conformance level ``level`` (``algorithm`` or ``interface``); every one for ``all``.

    >>> sorted({check.level for check in at_level(catalogue(), "interface")})
    ['interface']
    >>> len(at_level(catalogue(), "all")) == len(catalogue())
    True
    """
    if level not in LEVEL_CHOICES:
        raise HarnessError(f"unknown level {level!r}; choose one of {', '.join(LEVEL_CHOICES)}")
    return [check for check in checks if level == "all" or check.level == level]


def open_subject(impl: str | None, isolation: str, timeout: float, limits: ProcessLimits = DEFAULT_LIMITS) -> Subject:
    """The implementation under test: ``impl`` loaded, or the bundled reference when ``impl`` is None."""
    return load_implementation(impl or BUNDLED_REFERENCE, isolation=isolation, timeout=timeout, limits=limits)


def judged_subject(subject: Subject, profile: str | None) -> Subject:
    """``subject`` judged under ``profile`` (None: the profile it declares); unknown names are HarnessErrors."""
    try:
        judged = with_profile(subject, profile)
        known_profile(judged.info.profile)
    except (ValueError, TypeError) as error:
        origin = "--profile" if profile is not None else f"{subject.info.name} declares a profile, but"
        raise HarnessError(f"{origin} {error}") from None
    return judged


def inapplicable_checks(checks: Sequence[Check], subject: Subject) -> dict[str, str]:
    """Check name -> why its clause does not apply under the subject's profile."""
    profile = known_profile(subject.info.profile)
    reasons = {check.name: check.inapplicable(profile) for check in checks}
    return {name: reason for name, reason in reasons.items() if reason is not None}


def void_clauses(subject: Subject) -> frozenset[str]:
    """Clauses no check can judge under the subject's profile: every check that owns one (has it as its own
    clause) does not apply there. Other checks do not report them either (under a profile with no split,
    BPE-PRETOK-SPLIT is not among the clauses checked)."""
    profile = known_profile(subject.info.profile)
    checks = catalogue()
    judged = {check.clause for check in checks if check.inapplicable(profile) is None}
    return frozenset(check.clause for check in checks) - judged


def without_void_clauses(result: CheckResult, void: frozenset[str]) -> CheckResult:
    """``result`` listing only the clauses its check can judge: its own, the one it reports, and no void one."""
    kept = tuple(clause for clause in result.clauses if clause not in void or clause == result.clause)
    return result if kept == result.clauses else dataclasses.replace(result, clauses=kept)


def implementation_record(subject: Subject, impl: str | None, isolation: str | None = None) -> ImplementationRecord:
    """What the reports say of ``subject``; ``spec`` is None for the bundled reference.

    ``profile`` is the profile the checks judged by: the declared one, or ``run --profile``'s.
    """
    return ImplementationRecord.of(subject, impl, isolation)


def exit_code_for(results: Sequence[CheckResult]) -> int:
    """0 when every check passed or was skipped by declaration, else 1."""
    return EXIT_SUCCESS if all(result.outcome.counts_as_success for result in results) else EXIT_FAILURE


def config_record(config: RunConfig, checks: list[Check], skips: SkipPlan) -> RunRecord:
    """What a run records of its configuration: what was asked, and what the selection and skip file made of it."""
    return RunRecord(
        impl=config.impl,
        seed=config.seed,
        effort=config.effort,
        timeout=config.timeout,
        isolation=config.isolation_used,
        patterns=tuple(config.patterns),
        level=config.level,
        checks=tuple(check.name for check in checks),
        skip_file=config.skip_file,
        skipped=dict(skips.checks),
        declared_clauses=dict(skips.clauses),
        database=config.database,
        profile=config.profile,
        limits=None if config.isolation_used != "process" else config.limits.record(),
    )


def skips_for(config: RunConfig) -> SkipPlan:
    """What the run's skip file declares (nothing without one)."""
    if config.skip_file is None:
        return SkipPlan()
    return load_skip_file(config.skip_file, catalogue())


def apply_declared_deviations(result: CheckResult, clauses: dict[str, str]) -> CheckResult:
    """A failure on a clause the skip file declares a deviation from becomes a skip; others are unchanged."""
    if result.outcome is not Outcome.FAIL or result.clause not in clauses:
        return result
    return dataclasses.replace(
        result,
        outcome=Outcome.SKIP,
        message=f"skipped: fails {result.clause} as declared: {clauses[result.clause]}; {result.message}",
        counterexample=None,
    )


def run_suite(
    config: RunConfig,
    subject: Subject,
    checks: list[Check],
    skips: SkipPlan | None = None,
    on_start: Callable[[Check, int, int], None] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> SuiteResult:
    """Run ``checks`` against ``subject`` (which the caller closes) through a :class:`RunPlan` of them."""
    from bpe_conformance.running.plan import CallbackObserver, RunPlan  # the plan is built on this module

    plan = RunPlan(config, tuple(checks), skips or SkipPlan(), effort_settings(config.effort), harness_version())
    return plan.judge(subject).run(CallbackObserver(on_start, on_result))


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by a signal; ``suite`` holds the checks that finished before it."""

    def __init__(self, suite: SuiteResult, cause: KeyboardInterrupt) -> None:
        super().__init__(str(cause))
        self.suite = suite
        self.signum = getattr(cause, "signum", signal.SIGINT)
