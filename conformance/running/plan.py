"""The run plan: a :class:`RunConfig` checked once, then its implementation opened, judged and run.

Every front end (``run``, the pytest plugin, ``fuzz``'s coordinator and workers, ``matrix``) builds a
:class:`RunPlan` and calls nothing else of this package. :meth:`RunPlan.build` raises every
:class:`~bpe_conformance.errors.HarnessError` a configuration can cause (the selection, the level, the skip
file, the profile, the database location, the effort) before anything is loaded; :meth:`RunPlan.open`
loads the implementation and judges it under its profile exactly once; :meth:`OpenedRun.run` runs the
selected checks, telling a :class:`RunObserver` as each starts and ends.

>>> plan = RunPlan.build(RunConfig(patterns=("tie-break",), level="algorithm"))
>>> [check.name for check in plan.checks], plan.skips.checks
(['tie-break'], {})
>>> RunPlan.build(RunConfig(patterns=("tie-break",), level="interface"))
Traceback (most recent call last):
...
bpe_conformance.errors.HarnessError: no checks selected (--level interface leaves none of those chosen)
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.profile_spec import resolve_profile
from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
from bpe_conformance.running import suite
from bpe_conformance.running.database import default_directory, open_database, parse_location
from bpe_conformance.running.runner import run_check, run_checks
from bpe_conformance.running.skipfile import SkipPlan, skip_file_text
from bpe_conformance.running.suite import RunConfig, RunInterrupted
from bpe_conformance.settings import HYPOTHESIS_VERSION

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from hypothesis import settings
    from hypothesis.database import ExampleDatabase

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = ["CallbackObserver", "OpenedRun", "RunObserver", "RunPlan"]


class RunObserver(Protocol):
    """Told as each check of a run starts and ends (the CLI's live view, say)."""

    def on_start(self, check: Check, index: int, total: int) -> None:
        """``check``, the ``index``-th of ``total``, is about to run."""

    def on_result(self, result: CheckResult) -> None:
        """A check ended with ``result``."""


@dataclass(frozen=True)
class RunPlan:
    """A checked configuration: the checks it selects, what its skip file declares, its hypothesis settings."""

    config: RunConfig
    checks: tuple[Check, ...]
    skips: SkipPlan
    settings: settings
    harness_version: str
    fail_fast: bool = False
    # How errors name the options: ``--`` for the CLI, ``--bpe-`` for the pytest plugin.
    option_prefix: str = "--"

    @classmethod
    def build(cls, config: RunConfig, *, fail_fast: bool = False, option_prefix: str = "--") -> RunPlan:
        """Check everything ``config`` names; ``option_prefix`` is how errors name the options (``--bpe-``)."""
        if config.profile is not None:
            # A custom profile (base+field=value, or a .toml/.json file) is checked here, once, and carried on
            # by its canonical name, which every later step (workers, reports, reruns) resolves again.
            try:
                config = dataclasses.replace(config, profile=resolve_profile(config.profile).name)
            except (ValueError, TypeError) as error:
                raise HarnessError(f"{option_prefix}profile: {error}") from None
        if config.database is not None:
            parse_location(config.database, f"{option_prefix}database")  # unreachable: when it is opened
        try:
            selected = suite.select(config.patterns)
        except HarnessError as error:
            raise HarnessError(f"{option_prefix}check: {error}") from None
        checks = suite.at_level(selected, config.level)
        if not checks:
            raise HarnessError(f"no checks selected ({option_prefix}level {config.level} leaves none of those chosen)")
        hypothesis_settings = suite.effort_settings(config.effort)
        skips = suite.skips_for(config)
        return cls(config, tuple(checks), skips, hypothesis_settings, suite.harness_version(), fail_fast, option_prefix)

    @staticmethod
    def default_effort(thorough: bool = False) -> str:
        """``thorough`` when asked, else the effort of the environment: ``ci`` under ``$CI``, else ``dev``."""
        return "thorough" if thorough else suite.default_effort()

    @staticmethod
    def default_database(impl: str | None) -> str:
        """The directory ``fuzz`` keeps an implementation's failures in unless told otherwise."""
        return str(default_directory(impl))

    @property
    def harness(self) -> str:
        """The harness's name and version, as headers show it."""
        return f"{suite.HARNESS_NAME} {self.harness_version}"

    def open(self) -> OpenedRun:
        """Load the implementation and judge it under the plan's profile; the run closes it."""
        config = self.config
        subject = suite.open_subject(config.impl, config.isolation_used, config.timeout, config.limits)
        try:
            return OpenedRun(self, suite.judged_subject(subject, self.config.profile), subject.close)
        except BaseException:
            subject.close()
            raise

    def judge(self, subject: Subject) -> OpenedRun:
        """A run of ``subject``, which the caller opened and closes, judged under the plan's profile."""
        return OpenedRun(self, suite.judged_subject(subject, self.config.profile), None)

    def run(self, observer: RunObserver | None = None) -> SuiteResult:
        """Open, run every selected check and close: the whole run in one call."""
        with self.open() as opened:
            return opened.run(observer)

    def open_database(self) -> ExampleDatabase | None:
        """The example database the plan names, opened (a directory created, a Redis server asked for PING)."""
        return open_database(self.config.database, f"{self.option_prefix}database")

    def write_skip_file(self, result: SuiteResult, path: Path) -> int:
        """Write a skip file listing every check that did not succeed in ``result``; how many it lists."""
        text, count = skip_file_text(result.results, self.harness)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise HarnessError(f"cannot write skip file {str(path)!r}: {error.strerror or error}") from None
        return count


class OpenedRun:
    """A plan's implementation, loaded and judged: run it whole, or one check at a time (plugin, fuzz)."""

    def __init__(self, plan: RunPlan, subject: Subject, close: Callable[[], None] | None) -> None:
        self.plan = plan
        self.subject = subject
        self._close = close
        self._database: ExampleDatabase | None = None
        self._database_opened = False
        inapplicable = suite.inapplicable_checks(plan.checks, subject)
        # The skip file's entries win over "does not apply": the reader wrote them, and reports show them.
        self.skipped: dict[str, str] = {**inapplicable, **plan.skips.checks}
        self._inapplicable = inapplicable
        self._void = suite.void_clauses(subject)

    def __enter__(self) -> OpenedRun:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the implementation (its process, under process isolation) unless the caller owns it."""
        close, self._close = self._close, None
        if close is not None:
            close()

    @property
    def implementation(self) -> ImplementationRecord:
        """What the reports say of the implementation, as judged."""
        return suite.implementation_record(self.subject, self.plan.config.impl, self.plan.config.isolation_used)

    def open_database(self) -> ExampleDatabase | None:
        """The plan's example database, opened once (a Redis server is asked for PING then)."""
        if not self._database_opened:
            self._database = self.plan.open_database()
            self._database_opened = True
        return self._database

    def run_check(
        self, check: Check, hypothesis_settings: settings | None = None, seed: int | None = None
    ) -> CheckResult:
        """One check under the plan's skips and declared deviations; a stale skip gains an advisory."""
        base = self.plan.settings if hypothesis_settings is None else hypothesis_settings
        seed = self.plan.config.seed if seed is None else seed
        if check.name in self.skipped:
            result = self._skipped(check, base, seed)
        else:
            result = run_check(check, self.subject, base, seed, self.open_database())
            result = suite.apply_declared_deviations(result, self.plan.skips.clauses)
        return suite.without_void_clauses(result, self._void)

    def _skipped(self, check: Check, base: settings, seed: int) -> CheckResult:
        (skipped,) = run_checks([check], self.subject, base, seed, self.skipped)
        if check.name in self._inapplicable:
            return skipped  # its clause does not apply under this profile: passing there proves nothing
        # A skip-file entry is run anyway: one whose check now passes is stale, and the reader is told.
        if run_check(check, self.subject, base, seed, self.open_database()).outcome is not Outcome.PASS:
            return skipped
        stale = f"stale skip: {check.name} now passes; remove its skip-file entry: {self.plan.skips.checks[check.name]}"
        return dataclasses.replace(skipped, advisories=(*skipped.advisories, stale))

    def run(self, observer: RunObserver | None = None) -> SuiteResult:
        """Run the selected checks in order (stopping at the first failure under ``fail_fast``)."""
        observer = observer or CallbackObserver()
        checks = self.plan.checks
        started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        started = time.monotonic()
        results: list[CheckResult] = []
        try:
            self.open_database()
            for index, check in enumerate(checks):
                observer.on_start(check, index, len(checks))
                results.append(self.run_check(check))
                observer.on_result(results[-1])
                if self.plan.fail_fast and not results[-1].outcome.counts_as_success:
                    break
        except KeyboardInterrupt as interrupt:  # the user's signal: the results so far still make a report
            raise RunInterrupted(self._result(results, started_at, started), interrupt) from interrupt
        return self._result(results, started_at, started)

    def _result(self, results: list[CheckResult], started_at: str, started: float) -> SuiteResult:
        config = self.plan.config
        return SuiteResult(
            implementation=self.implementation,
            results=results,
            seed=config.seed,
            effort=config.effort,
            seconds=round(time.monotonic() - started, 3),
            harness_version=self.plan.harness_version,
            started_at=started_at,
            config=suite.config_record(config, list(self.plan.checks), self.plan.skips),
            hypothesis_version=HYPOTHESIS_VERSION,
            not_run=tuple(check.name for check in self.plan.checks[len(results) :]),
        )


@dataclass(frozen=True)
class CallbackObserver:
    """A :class:`RunObserver` made of two optional callbacks."""

    start: Callable[[Check, int, int], None] | None = None
    result: Callable[[CheckResult], None] | None = None

    def on_start(self, check: Check, index: int, total: int) -> None:
        """Call ``start``, if any."""
        if self.start is not None:
            self.start(check, index, total)

    def on_result(self, result: CheckResult) -> None:
        """Call ``result``, if any."""
        if self.result is not None:
            self.result(result)
