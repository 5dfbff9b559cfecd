"""Advisory notes: a SHOULD of the specification the implementation did not follow, never a failure.

A check calls :func:`advise` while it runs (the other error family for a bad input, say); the runner
collects the notes of each check into its result, once each, in the order first seen.

>>> with collecting() as notes:
...     advise("max_merges True (bool): raised ValueError; TypeError is preferred")
...     advise("max_merges True (bool): raised ValueError; TypeError is preferred")
>>> notes
['max_merges True (bool): raised ValueError; TypeError is preferred']
>>> advise("outside any collection: dropped")
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["MAX_NOTES", "advise", "collecting", "record_note"]

MAX_NOTES = 20  # a check with hundreds of examples must not flood the report with one note each

_NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("bpe_conformance_advisories", default=None)


def record_note(notes: list[str], note: str) -> None:
    """Add ``note`` to ``notes`` unless it is there already or ``notes`` is full.

    >>> notes = []
    >>> for note in ["a", "a", *map(str, range(30))]:
    ...     record_note(notes, note)
    >>> len(notes), notes[:2]
    (20, ['a', '0'])
    """
    if note not in notes and len(notes) < MAX_NOTES:
        notes.append(note)


def advise(note: str) -> None:
    """Record an advisory note for the check that is running (nothing happens outside one)."""
    notes = _NOTES.get()
    if notes is not None:
        record_note(notes, note)


@contextlib.contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the notes advised inside the block into the list it yields."""
    notes: list[str] = []
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)
