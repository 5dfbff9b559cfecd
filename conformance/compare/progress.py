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

    def _stage(self, name: str, description: str, total: int | None, in_bytes: bool = False, note: str = "") -> None:
        """Start a stage's line; the lines of the stages before it stop where they are."""
        for progress in (self._bytes, self._progress):
            for task in progress.tasks:
                if not task.finished and task.total is not None:
                    progress.update(task.id, completed=task.total)
                progress.stop_task(task.id)
        if in_bytes:
            self._tasks[name] = self._bytes.add_task(description, total=total)
        else:
            self._tasks[name] = self._progress.add_task(description, total=total, note=note)

    def reading(self, total_bytes: int) -> None:
        self._stage("reading", "reading the corpus", total_bytes, in_bytes=True)

    def document_read(self, size: int) -> None:
        self._bytes.advance(self._tasks["reading"], size)

    def training(self, max_merges: int) -> None:
        self._stage("reference", "reference: rules made", max_merges)
        self._tasks["implementation"] = self._progress.add_task(
            "implementation: training", total=None, note="(asked once, answers once)"
        )

    def reference_rounds(self, done: int) -> None:
        self._progress.update(self._tasks["reference"], completed=done)

    def implementation_trained(self) -> None:
        task = self._tasks["implementation"]
        self._progress.update(task, total=1, completed=1, note="answered")
        self._progress.stop_task(task)

    def encoding(self, total_bytes: int | None) -> None:
        self._stage("encoding", "encoding with both", total_bytes, in_bytes=True)

    def text_encoded(self, size: int) -> None:
        self._bytes.advance(self._tasks["encoding"], size)

    def judging(self, round_: int) -> None:
        self._stage("judging", f"reference state at round {round_}", None, note="(counts, candidates, diagnosis)")

    def shrinking(self) -> None:
        self._stage("shrinking", "shrinking: attempts", None)

    def shrink_attempt(self, attempts: int, documents: int, size: int) -> None:
        self._progress.update(
            self._tasks["shrinking"], completed=attempts, note=f"smallest so far: {documents} documents, {size} bytes"
        )

    def close(self) -> None:
        self._live.stop()
