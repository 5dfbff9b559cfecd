"""The user's signals, told apart from what an implementation raises.

While :func:`handled_signals` is active (the CLI runs every command inside it), SIGINT, SIGTERM and
SIGHUP raise :class:`HarnessSignal` once, in the main thread; later signals are ignored so that
cleanup (killing implementations, writing reports) is not itself interrupted. A ``KeyboardInterrupt``
raised with no signal behind it came from the implementation's own code, and the in-process adapter
reports it as the implementation's answer instead of ending the run.

>>> stops_the_run(KeyboardInterrupt()), stops_the_run(HarnessSignal(signal.SIGTERM))
(True, True)
>>> with handled_signals():
...     stops_the_run(KeyboardInterrupt()), stops_the_run(SystemExit(0))
(False, False)
>>> HarnessSignal(signal.SIGHUP).exit_code, HarnessSignal(signal.SIGTERM).name
(129, 'SIGTERM')
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import FrameType

__all__ = [
    "HANDLED_SIGNALS",
    "HarnessSignal",
    "deferred_signals",
    "handled_signals",
    "received_signal",
    "stops_the_run",
]

HANDLED_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class HarnessSignal(KeyboardInterrupt):
    """The harness was sent ``signum``: stop, clean up, write the reports so far, exit ``128 + signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def name(self) -> str:
        """The signal's name, e.g. ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """The conventional status of a process ended by this signal: 130, 143, 129."""
        return 128 + self.signum


_state: dict[str, int | None] = {"installed": 0, "received": None}


def received_signal() -> int | None:
    """The signal the harness received while :func:`handled_signals` was active, if any."""
    return _state["received"]


def _raise_once(signum: int, _frame: FrameType | None) -> None:
    if _state["received"] is not None:
        return  # already stopping: let the cleanup finish
    _state["received"] = signum
    raise HarnessSignal(signum)


@contextlib.contextmanager
def handled_signals() -> Iterator[None]:
    """Turn SIGINT, SIGTERM and SIGHUP into :class:`HarnessSignal` for the duration (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _raise_once) for signum in HANDLED_SIGNALS}
    _state["installed"] = (_state["installed"] or 0) + 1
    _state["received"] = None
    try:
        yield
    finally:
        _state["installed"] = (_state["installed"] or 1) - 1
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if not _state["installed"]:
            _state["received"] = None


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP while the block runs; the first one held is raised after it.

    For the end of a run: the reports and the verdict are written whole even when a signal arrives
    in the middle (one used to abandon the remaining reports and the verdict).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, _frame: held.append(signum)) for signum in HANDLED_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if held and _state["received"] is None:
        _state["received"] = held[0]
        raise HarnessSignal(held[0])


def stops_the_run(error: BaseException) -> bool:
    """True when ``error`` is the user's interruption, False when the implementation raised it.

    Without :func:`handled_signals` a ``KeyboardInterrupt`` cannot be told apart, so it stops the run.
    """
    if isinstance(error, HarnessSignal):
        return True
    if isinstance(error, KeyboardInterrupt):
        return not _state["installed"] or _state["received"] is not None
    return False
