"""What a comparison tells its observer as it goes, and the live display of it (rich).

:class:`Observer` does nothing; :class:`LiveDisplay` shows one progress line per stage on an
interactive terminal: documents read (bytes), the reference's rounds done out of ``max_merges`` (as
often as its engine reports them: every round, or once at the end), the implementation's time so far,
the texts encoded, and the shrinker's attempts and corpus size. Every message it receives is also
what a test can record.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

__all__ = ["LiveDisplay", "Observer"]


class Observer:
    """Receives the stages of a comparison; this one ignores them."""

    def reading(self, total_bytes: int) -> None:
        """The corpus (``total_bytes`` on disk) is being read."""

    def document_read(self, size: int) -> None:
        """One more document of ``size`` bytes was read."""

    def training(self, max_merges: int) -> None:
        """Both sides started training."""

    def reference_rounds(self, done: int) -> None:
        """The reference has made ``done`` rules so far."""

    def implementation_trained(self) -> None:
        """The implementation's train call returned (or failed)."""

    def judging(self, round_: int) -> None:
        """The reference's state at the first divergent round is being computed and judged."""

    def encoding(self, total_bytes: int | None) -> None:
        """Encoding started; ``total_bytes`` of text to encode, when known."""

    def text_encoded(self, size: int) -> None:
        """One more text of ``size`` bytes was encoded by both."""

    def shrinking(self) -> None:
        """The shrinker started."""

    def shrink_attempt(self, attempts: int, documents: int, size: int) -> None:
        """The shrinker made ``attempts`` attempts; the smallest corpus so far has ``documents`` and ``size`` bytes."""

    def close(self) -> None:
        """The comparison ended: remove the display."""


class LiveDisplay(Observer):
    """A transient rich progress display on ``console`` (an interactive terminal)."""

    def __init__(self, console: Console) -> None:
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[note]}", markup=False),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._bytes = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            DownloadColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._tasks: dict[str, TaskID] = {}
        # One live region for both kinds of line: sizes in bytes, and counts (rules, attempts).
        self._live = Live(Group(self._bytes, self._progress), console=console, transient=True)
        self._live.start()

    def _finish_task(self, name: str) -> None:
        task = self._tasks.get(name)
        if task is not None:
            progress = self._bytes if name in ("reading", "encoding") else self._progress
            progress.update(task, completed=progress.tasks[task].total or progress.tasks[task].completed)
            progress.stop_task(task)

    def reading(self, total_bytes: int) -> None:
        self._tasks["reading"] = self._bytes.add_task("reading the corpus", total=total_bytes)

    def document_read(self, size: int) -> None:
        self._bytes.advance(self._tasks["reading"], size)

    def training(self, max_merges: int) -> None:
        self._finish_task("reading")
        self._tasks["reference"] = self._progress.add_task("reference: rules made", total=max_merges, note="")
        self._tasks["implementation"] = self._progress.add_task(
            "implementation: training", total=None, note="(its own process)"
        )

    def reference_rounds(self, done: int) -> None:
        self._progress.update(self._tasks["reference"], completed=done)

    def implementation_trained(self) -> None:
        task = self._tasks["implementation"]
        self._progress.update(task, total=1, completed=1, note="answered")
        self._progress.stop_task(task)

    def judging(self, round_: int) -> None:
        self._finish_task("reference")
        self._tasks["judging"] = self._progress.add_task(
            f"reference state at round {round_}", total=None, note="(counts, candidates, diagnosis)"
        )

    def encoding(self, total_bytes: int | None) -> None:
        self._finish_task("reference")
        self._finish_task("judging")
        self._tasks["encoding"] = self._bytes.add_task("encoding with both", total=total_bytes)

    def text_encoded(self, size: int) -> None:
        self._bytes.advance(self._tasks["encoding"], size)

    def shrinking(self) -> None:
        self._finish_task("encoding")
        self._finish_task("judging")
        self._tasks["shrinking"] = self._progress.add_task("shrinking: attempts", total=None, note="")

    def shrink_attempt(self, attempts: int, documents: int, size: int) -> None:
        self._progress.update(
            self._tasks["shrinking"], completed=attempts, note=f"smallest so far: {documents} documents, {size} bytes"
        )

    def close(self) -> None:
        self._live.stop()
