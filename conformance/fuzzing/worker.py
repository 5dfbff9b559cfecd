"""One worker of a campaign: ``python -m bpe_conformance.fuzzing.worker CONFIG_JSON``, started by the coordinator.

The worker opens its own implementation (its own process under ``--isolation process``, so a crash or
a hang costs a check and a restart, as in ``run``) and its own connection to the example database, then
runs :class:`~bpe_conformance.fuzzing.schedule.Schedule`'s rounds through :func:`run_check` until the
deadline. Each round is a hypothesis search with a seed of its own; a failure is shrunk and saved in the
database by hypothesis, and reported as a ``finding``. A round's first pass over a check replays what the
database holds for it; later passes only generate.

At the deadline a worker stops drawing new examples, but a failure being shrunk is shrunk to the end (the
coordinator bounds that with a grace period). SIGTERM, SIGINT and SIGHUP stop it at once; it stops its
implementation, reports what it ran and exits. On Linux it also stops when the coordinator dies.

The worker's stdout carries only events (:mod:`~bpe_conformance.fuzzing.messages`): what an in-process
implementation prints goes to stderr, which the coordinator keeps for the report of a worker that died.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from hypothesis import Phase, settings

from bpe_conformance.adapters.host import take_protocol_streams
from bpe_conformance.adapters.limits import DEFAULT_LIMITS, ProcessLimits
from bpe_conformance.adapters.signals import handled_signals
from bpe_conformance.errors import DatabaseUnavailable, HarnessError
from bpe_conformance.fuzzing.messages import EventKind, encode_event, result_record
from bpe_conformance.fuzzing.schedule import Schedule, examples_for_round, round_seed, start_offset
from bpe_conformance.running import OpenedRun, RunConfig, RunPlan
from bpe_conformance.settings import keep_storage_out_of_cwd

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check

__all__ = ["EXIT_FATAL", "WorkerConfig", "fuzz", "main"]

EXIT_FATAL = 3
PROGRESS_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class WorkerConfig:
    """Everything a worker needs, sent as JSON on its command line."""

    worker: int
    workers: int
    generation: int
    seconds: float
    campaign_seed: int
    checks: tuple[str, ...]
    impl: str | None = None
    isolation: str = "inprocess"
    timeout: float = 10.0
    profile: str | None = None
    effort: str = "dev"
    database: str | None = None
    parent: int = 0
    limits: ProcessLimits = DEFAULT_LIMITS

    def to_json(self) -> str:
        """The command-line argument that :meth:`from_json` reads back."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerConfig:
        """The configuration in ``text``."""
        fields = json.loads(text)
        limits = fields.get("limits", {})
        limits = ProcessLimits(**{**limits, "passed_env": tuple(limits.get("passed_env", ()))})
        return cls(**{**fields, "checks": tuple(fields["checks"]), "limits": limits})


class CampaignDeadline(BaseException):
    """Raised between examples once the deadline has passed; a BaseException so hypothesis lets it through."""


@dataclass
class RoundState:
    """The round in progress: its check, and whether it has failed yet (then it is shrinking)."""

    check: str
    failing: bool = False


class Worker:
    """The loop of :func:`fuzz`: schedules rounds, counts examples, and emits events."""

    def __init__(self, config: WorkerConfig, subject: Subject, emit: Callable[..., None]) -> None:
        self.config = config
        self.subject = subject
        self.emit = emit
        self.deadline = time.monotonic() + config.seconds
        self.examples: dict[str, int] = dict.fromkeys(config.checks, 0)
        self.last_progress = time.monotonic()
        self.round: RoundState | None = None

    def report_progress(self, force: bool = False) -> None:
        """Emit the cumulative examples per check, at most every :data:`PROGRESS_SECONDS` unless forced."""
        now = time.monotonic()
        if force or now - self.last_progress >= PROGRESS_SECONDS:
            self.last_progress = now
            self.emit(
                EventKind.PROGRESS, worker=self.config.worker, generation=self.config.generation, examples=self.examples
            )

    def counted(self, check: Check) -> Check:
        """``check`` with a ``verify`` that counts, reports progress and stops new examples at the deadline."""
        verify = check.verify

        def verify_counted(subject: Subject, example: Any) -> None:
            state = self.round
            assert state is not None
            # A failure already found is shrunk to the end; only fresh draws stop at the deadline.
            if not state.failing and time.monotonic() >= self.deadline:
                raise CampaignDeadline
            self.examples[check.name] += 1
            self.report_progress()
            try:
                verify(subject, example)
            except BaseException:
                state.failing = True
                raise

        return dataclasses.replace(check, verify=verify_counted)


def _round_settings(base: settings, round_of_check: int) -> settings:
    # The first round of a check replays the database; later ones only generate (and shrink what fails).
    phases = [phase for phase in base.phases if round_of_check == 0 or phase is not Phase.reuse]
    return settings(base, max_examples=examples_for_round(base.max_examples, round_of_check), phases=phases)


def fuzz(config: WorkerConfig, opened: OpenedRun, emit: Callable[..., None]) -> str:
    """Run rounds until the deadline; returns why the worker stopped (``deadline`` or ``exhausted``)."""
    base = opened.plan.settings
    checks = opened.plan.checks
    by_name = {check.name: check for check in checks}
    searched = [check.name for check in checks if check.strategy is not None]
    fixed = [check.name for check in checks if check.strategy is None] if config.worker == 0 else []
    schedule = Schedule(searched, fixed, start_offset(config.worker, config.workers, len(searched)))
    worker = Worker(config, opened.subject, emit)
    round_index = 0
    while not schedule.exhausted and time.monotonic() < worker.deadline:
        name, round_of_check = schedule.next()
        seed = round_seed(config.campaign_seed, config.worker, config.generation, round_index)
        round_settings = _round_settings(base, round_of_check)
        worker.round = RoundState(name)
        try:
            result = opened.run_check(worker.counted(by_name[name]), round_settings, seed)
        except CampaignDeadline:
            break
        failed = not result.outcome.counts_as_success
        schedule.record(name, failed)
        emit(
            EventKind.ROUND,
            worker=config.worker,
            check=name,
            seed=seed,
            round=round_of_check,
            max_examples=round_settings.max_examples,
            examples=result.examples,
            outcome=result.outcome.value,
            seconds=result.seconds,
        )
        if failed:
            emit(EventKind.FINDING, worker=config.worker, seed=seed, round=round_of_check, result=result_record(result))
        worker.report_progress(force=True)
        round_index += 1
    worker.report_progress(force=True)
    return "exhausted" if schedule.exhausted else "deadline"


def _stop_with_the_parent(parent: int) -> None:
    """On Linux, SIGTERM this process when the coordinator dies; exit now if it already has."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if parent and os.getppid() != parent:
        sys.exit(EXIT_FATAL)


def _emitter(stream: IO[bytes]) -> Callable[..., None]:
    def emit(kind: EventKind, **fields: Any) -> None:
        stream.write(encode_event(kind, **fields))
        stream.flush()

    return emit


def _plan(config: WorkerConfig) -> RunPlan:
    run_config = RunConfig(
        impl=config.impl,
        isolation=config.isolation,
        timeout=config.timeout,
        effort=config.effort,
        patterns=config.checks,
        profile=config.profile,
        database=config.database,
        limits=config.limits,
    )
    return RunPlan.build(run_config)


def run_worker(config: WorkerConfig, events: IO[bytes]) -> int:
    """Open the implementation, fuzz, and report; the exit status of the worker process."""
    emit = _emitter(events)
    try:
        opened = _plan(config).open()
    except HarnessError as error:
        emit(EventKind.FATAL, worker=config.worker, message=str(error))
        return EXIT_FATAL
    try:
        opened.open_database()
    except HarnessError as error:  # the server went away since the coordinator reached it
        opened.close()
        emit(EventKind.FATAL, worker=config.worker, message=str(error), database=True)
        return EXIT_FATAL
    try:
        emit(EventKind.READY, worker=config.worker, generation=config.generation, pid=os.getpid())
        reason = fuzz(config, opened, emit)
        emit(EventKind.DONE, worker=config.worker, reason=reason)
    except KeyboardInterrupt:  # SIGTERM/SIGINT/SIGHUP from the coordinator, or the coordinator died
        emit(EventKind.DONE, worker=config.worker, reason="signal")
    except DatabaseUnavailable as error:
        emit(EventKind.FATAL, worker=config.worker, message=str(error), database=True, lost=error.lost_failure)
        return EXIT_FATAL
    except Exception as error:  # noqa: BLE001 - a bug of the harness: say where, and let the coordinator decide
        summary = "".join(traceback.format_exception(type(error), error, error.__traceback__)[-3:]).strip()
        emit(EventKind.FATAL, worker=config.worker, message=f"worker error: {summary}")
        return EXIT_FATAL
    finally:
        opened.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m bpe_conformance.fuzzing.worker CONFIG_JSON``."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 1:
        print(
            "usage: python -m bpe_conformance.fuzzing.worker CONFIG_JSON (started by bpe-conformance fuzz)",
            file=sys.stderr,
        )
        return 2
    config = WorkerConfig.from_json(arguments[0])
    _, events = take_protocol_streams()
    with handled_signals():
        try:
            _stop_with_the_parent(config.parent)
            keep_storage_out_of_cwd()
            return run_worker(config, events)
        except KeyboardInterrupt:  # stopped before it started
            return 0
        except BrokenPipeError:  # the coordinator is gone: nobody to report to
            return EXIT_FATAL


if __name__ == "__main__":
    sys.exit(main())
