"""The coordinator of a campaign: starts the workers, gathers what they find, and stops them all.

It starts ``--jobs`` workers (``python -m bpe_conformance.fuzzing.worker``, each in its own session and
tagged, like an implementation process: :func:`bpe_conformance.adapters.child.spawn`), reads their events,
keeps each distinct failure once (:class:`~bpe_conformance.fuzzing.findings.FindingBook`) and tells an
observer (the live display) as soon as one is found.

It ends at the deadline (workers finish shrinking a failure already found, for at most
:data:`SHRINK_GRACE_SECONDS`), after ``--max-failures`` distinct failures, when every worker is done, or
on SIGINT/SIGTERM/SIGHUP (:class:`CampaignInterrupted`, which carries the result so far). Stopping asks
each worker to stop (SIGTERM: it stops its implementation and reports), waits
:data:`STOP_GRACE_SECONDS`, then kills whatever is left with its whole process tree, and any orphan a
dead worker left (they carry :data:`WORKER_VARIABLE`). A worker that dies is restarted with fresh seeds,
at most :data:`MAX_RESTARTS` times per slot.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import queue
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from bpe_conformance.adapters import host_environment
from bpe_conformance.adapters.child import (
    LineKind,
    RunningProcess,
    describe_exit,
    kill_process_group,
    spawn,
    stderr_tail,
)
from bpe_conformance.adapters.process_tree import kill_orphans, new_tag
from bpe_conformance.fuzzing.findings import Finding, FindingBook
from bpe_conformance.fuzzing.messages import EventKind, decode_event, result_from_record
from bpe_conformance.fuzzing.records import CampaignConfig, CampaignInterrupted, CampaignResult, CheckTally, StopReason
from bpe_conformance.fuzzing.worker import WorkerConfig
from bpe_conformance.settings import hypothesis_cache_directory, keep_storage_out_of_cwd

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.checks.base import Check
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.results.implementation import ImplementationRecord

__all__ = [
    "MAX_RESTARTS",
    "SHRINK_GRACE_SECONDS",
    "STOP_GRACE_SECONDS",
    "WORKER_VARIABLE",
    "Campaign",
    "Observer",
    "hypothesis_storage",
    "warm_hypothesis_storage",
]

SHRINK_GRACE_SECONDS = 30.0
STOP_GRACE_SECONDS = 5.0
MAX_RESTARTS = 3
WORKER_VARIABLE = "BPE_CONFORMANCE_FUZZ_WORKER"
STORAGE_VARIABLE = "HYPOTHESIS_STORAGE_DIRECTORY"
_POLL_SECONDS = 0.05
_TICK_SECONDS = 0.25
_EVENT_LINE_BYTES = 64 * 1024 * 1024
_STDERR_BYTES = 64 * 1024


def hypothesis_storage() -> Path:
    """Where workers keep hypothesis's own files: ``$HYPOTHESIS_STORAGE_DIRECTORY``, else the user's cache dir.

    Shared by every worker and campaign, so hypothesis's Unicode tables (seconds of CPU to compute) are
    computed once per machine, not once per worker process as in a fresh temporary directory.
    """
    chosen = os.environ.get(STORAGE_VARIABLE)
    return Path(chosen) if chosen else hypothesis_cache_directory()


def warm_hypothesis_storage(directory: Path) -> None:
    """Have hypothesis compute (or load) its UTF-8 character tables into ``directory`` now; best effort.

    Done once by the coordinator before the clock starts, so the workers only load them.
    """
    previous = keep_storage_out_of_cwd()  # this process's own storage, restored after
    set_hypothesis_home_dir(directory)
    try:
        find(st.characters(codec="utf-8"), lambda _character: True, settings=settings(database=None))
    except Exception:  # noqa: BLE001 - a read-only cache dir: each worker computes its own tables, as before
        pass
    finally:
        set_hypothesis_home_dir(previous)


@dataclass
class WorkerSlot:
    """One of the ``--jobs`` places a worker runs in, across its restarts."""

    index: int
    tag: str = ""
    generation: int = 0
    process: RunningProcess | None = None
    started: float = 0.0
    restarts: int = 0
    finished: bool = False
    stopped: bool = False
    gave_up: bool = False


class Observer:
    """What a campaign tells as it goes; the live display overrides these."""

    def on_finding(self, campaign: Campaign, finding: Finding) -> None:
        """A distinct failure was found."""

    def on_problem(self, campaign: Campaign, message: str) -> None:
        """Something went wrong with a worker (it died, was restarted, or gave up)."""

    def on_tick(self, campaign: Campaign) -> None:
        """Called a few times a second: time to refresh."""


class Campaign:
    """One campaign: :meth:`run` it once."""

    def __init__(
        self,
        config: CampaignConfig,
        checks: list[Check],
        implementation: ImplementationRecord,
        harness_version: str,
        observer: Observer | None = None,
    ) -> None:
        self.config = config
        self.implementation = implementation
        self.harness_version = harness_version
        self.observer = observer or Observer()
        self.tallies = {check.name: CheckTally(check.name, check.clause, check.level) for check in checks}
        self.book = FindingBook()
        self.problems: list[str] = []
        self.slots = [WorkerSlot(index) for index in range(config.jobs)]
        # (slot, generation) -> check -> examples: workers report cumulative counts.
        self.examples_seen: dict[tuple[int, int], dict[str, int]] = {}
        self.started = time.monotonic()
        self.deadline = self.started + config.seconds
        self.started_at = ""
        self.stop_reason: StopReason | None = None  # None: still running
        self.error: str | None = None
        self.lost_failures = 0  # failures found whose database write failed (each printed in full)
        self.storage = hypothesis_storage()
        self._cpu_before = 0.0

    # -- what the display reads

    def elapsed(self) -> float:
        """Seconds since the campaign started."""
        return time.monotonic() - self.started

    def remaining(self) -> float:
        """Seconds left until the deadline (0 once past it)."""
        return max(0.0, self.deadline - time.monotonic())

    def examples(self) -> int:
        """Examples run so far, all workers together."""
        return sum(tally.examples for tally in self.tallies.values())

    def running_workers(self) -> int:
        """Workers alive now."""
        return sum(1 for slot in self.slots if slot.process is not None and not slot.finished)

    # -- workers

    def _start(self, slot: WorkerSlot) -> None:
        config = WorkerConfig(
            worker=slot.index,
            workers=self.config.jobs,
            generation=slot.generation,
            seconds=max(0.1, self.deadline - time.monotonic()),
            campaign_seed=self.config.seed,
            checks=self.config.checks,
            impl=self.config.impl,
            isolation=self.config.isolation,
            timeout=self.config.timeout,
            profile=self.config.profile,
            effort=self.config.effort,
            database=self.config.database,
            parent=os.getpid(),
            limits=self.config.limits,
        )
        slot.tag = slot.tag or new_tag()
        environment = {**host_environment(), WORKER_VARIABLE: slot.tag, STORAGE_VARIABLE: str(self.storage)}
        argv = [sys.executable, "-m", "bpe_conformance.fuzzing.worker", config.to_json()]
        slot.process = spawn(argv, None, environment, _EVENT_LINE_BYTES, _STDERR_BYTES)
        slot.started, slot.finished, slot.stopped = time.monotonic(), False, False

    def _stop_slot(self, slot: WorkerSlot) -> None:
        """Kill what is left of the slot's worker (its tree, and orphans it left), then reap it; once."""
        running = slot.process
        if running is None or slot.stopped:
            return
        slot.stopped = slot.finished = True
        running.stop.set()
        kill_process_group(running.popen, running.tag)  # a worker that already exited is a zombie until here
        running.finalizer.detach()
        kill_orphans(slot.tag, WORKER_VARIABLE)

    def _died(self, slot: WorkerSlot, why: str) -> None:
        running = slot.process
        assert running is not None
        self._stop_slot(slot)
        tail = stderr_tail(running.stderr)
        message = f"worker {slot.index} {why} after {time.monotonic() - slot.started:.1f} s"
        if tail:
            message += f"; its stderr ends: {tail.splitlines()[-1][:300]}"
        can_restart = slot.restarts < MAX_RESTARTS and self.remaining() > 1.0 and self.stop_reason is None
        if can_restart:
            slot.restarts += 1
            slot.generation += 1
            self._problem(f"{message}; restarted with new seeds ({slot.restarts} of {MAX_RESTARTS})")
            self._start(slot)
        else:
            slot.gave_up = True
            self._problem(f"{message}; not restarted")

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        self.observer.on_problem(self, message)

    # -- events

    def _handle(self, slot: WorkerSlot, event: JSONObject) -> None:
        kind = EventKind(event["event"])  # decode_event let only known kinds through
        if kind is EventKind.PROGRESS:
            counts = event.get("examples") or {}
            previous = self.examples_seen.setdefault((slot.index, slot.generation), {})
            for check, count in counts.items():
                if check in self.tallies and isinstance(count, int) and count >= previous.get(check, 0):
                    self.tallies[check].examples += count - previous.get(check, 0)
                    previous[check] = count
        elif kind is EventKind.ROUND and event.get("check") in self.tallies:
            self.tallies[event["check"]].rounds += 1
        elif kind is EventKind.FINDING:
            self._found(event)
        elif kind is EventKind.FATAL:
            # The implementation cannot be loaded, or the database failed: a restart would fail the same way.
            self._problem(f"worker {slot.index} gave up: {event.get('message')}")
            slot.finished = slot.gave_up = True
            if event.get("database"):
                self.error = self.error or str(event.get("message"))
                self.stop_reason = StopReason.DATABASE_FAILED
                if event.get("lost") is True:  # a failure was found, and is printed in full in the message
                    self.lost_failures += 1
        elif kind is EventKind.DONE:
            slot.finished = True

    def _found(self, event: JSONObject) -> None:
        result = result_from_record(event["result"])
        finding = self.book.add(result, int(event.get("worker", -1)), int(event.get("seed", 0)), self.elapsed())
        if finding is None:
            return
        if result.check in self.tallies:
            self.tallies[result.check].failures += 1
        self.observer.on_finding(self, finding)
        limit = self.config.max_failures
        if limit is not None and len(self.book.findings) >= limit and self.stop_reason is None:
            self.stop_reason = StopReason.MAX_FAILURES

    def _drain(self, slot: WorkerSlot) -> bool:
        """Handle every event the slot's worker has sent; True when any arrived."""
        running = slot.process
        if running is None or slot.stopped:
            return False
        arrived = False
        while True:
            try:
                kind, line = running.lines.get_nowait()
            except queue.Empty:
                return arrived
            arrived = True
            if kind is LineKind.LINE:
                try:
                    self._handle(slot, decode_event(line))
                except (ValueError, KeyError, TypeError) as error:
                    self._died(slot, f"sent a line that is not an event ({error})")
                    return True
            elif kind in (LineKind.OVERFLOW, LineKind.PARTIAL):
                self._died(slot, "sent a broken event line")
                return True
            elif kind is LineKind.EOF:
                self._ended(slot)
                return True

    def _ended(self, slot: WorkerSlot) -> None:
        """The worker closed its events: it exited (or is about to). Expected after ``done`` or ``fatal``."""
        running = slot.process
        assert running is not None
        expected = slot.finished
        with contextlib.suppress(subprocess.TimeoutExpired):
            running.popen.wait(timeout=STOP_GRACE_SECONDS)
        self._stop_slot(slot)
        if not expected:
            self._died(slot, describe_exit(running.popen.returncode))

    # -- the campaign

    def _should_stop(self) -> bool:
        if self.stop_reason is not None:
            return True
        if all(slot.stopped for slot in self.slots):
            return True
        return time.monotonic() >= self.deadline + SHRINK_GRACE_SECONDS

    def _stop_all(self) -> None:
        """SIGTERM every worker still running, collect their last events, then kill what is left."""
        for slot in self.slots:
            if slot.process is not None and not slot.stopped:
                slot.finished = True  # from now on its end is expected, not a death to restart
                with contextlib.suppress(ProcessLookupError):
                    os.kill(slot.process.popen.pid, signal.SIGTERM)
        waited_until = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < waited_until and not all(slot.stopped for slot in self.slots):
            if not any([self._drain(slot) for slot in self.slots]):
                time.sleep(_POLL_SECONDS)
        for slot in self.slots:
            self._stop_slot(slot)

    def _loop(self, tick: Callable[[], None]) -> None:
        for slot in self.slots:
            self._start(slot)
        last_tick = 0.0
        while not self._should_stop():
            arrived = False
            for slot in self.slots:
                arrived = self._drain(slot) or arrived
            now = time.monotonic()
            if now - last_tick >= _TICK_SECONDS:
                last_tick = now
                tick()
            if not arrived:
                time.sleep(_POLL_SECONDS)

    def run(self) -> CampaignResult:
        """Run the campaign to its end; :class:`CampaignInterrupted` on a signal, with the result so far."""
        warm_hypothesis_storage(self.storage)
        self.started = time.monotonic()
        self.deadline = self.started + self.config.seconds
        self.started_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        self._cpu_before = _children_cpu()
        try:
            self._loop(lambda: self.observer.on_tick(self))
            if self.stop_reason is None and time.monotonic() < self.deadline - 1:
                self._ended_early()
            self.stop_reason = self.stop_reason or StopReason.DEADLINE
        except KeyboardInterrupt as interrupt:
            self.stop_reason = StopReason.INTERRUPTED
            self._stop_all()
            raise CampaignInterrupted(self.result(), interrupt) from interrupt
        finally:
            self._stop_all()
        return self.result()

    def _ended_early(self) -> None:
        """Every worker stopped before the deadline: they ran out of checks, or none could run."""
        if all(slot.gave_up for slot in self.slots):
            self.stop_reason = StopReason.WORKERS_FAILED
            self.error = self.error or f"no worker could go on: {self.problems[-1]}"
        else:
            self.stop_reason = StopReason.EXHAUSTED

    def result(self) -> CampaignResult:
        """The campaign as it stands."""
        return CampaignResult(
            config=self.config,
            implementation=self.implementation,
            started_at=self.started_at,
            seconds=round(self.elapsed(), 3),
            # Taken while running (the live display), the campaign is on its way to the deadline.
            stop_reason=self.stop_reason or StopReason.DEADLINE,
            tallies=list(self.tallies.values()),
            findings=list(self.book.findings),
            problems=list(self.problems),
            worker_restarts=sum(slot.restarts for slot in self.slots),
            error=self.error,
            lost_failures=self.lost_failures,
            cpu_seconds=round(_children_cpu() - self._cpu_before, 3),
            harness_version=self.harness_version,
        )


def _children_cpu() -> float:
    """CPU seconds of this process and of every child it has reaped (workers, and through them implementations)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
