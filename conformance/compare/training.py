"""Training the implementation and the reference on the same documents at the same time.

The implementation's call runs in a thread (in its own process by default, so the thread only waits
for the answer) while the reference trains in the calling thread: on two cores both run at once. A
call that raises, answers with the wrong type, times out or crashes ends as a :class:`Failure`, a
named outcome, never as an exception.

>>> from bpe_conformance.adapters import load_implementation
>>> from bpe_conformance.reference.profiles import STRICT
>>> subject = load_implementation("reference", isolation="inprocess")
>>> both = train_both(subject, ["abab", "acac"], 32, STRICT)
>>> both.reference, both.implementation, both.failure
([(97, 98), (97, 99)], [(97, 98), (97, 99)], None)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.errors import CallAborted, ImplementationRaised, MalformedResult
from bpe_conformance.reference.chunk_training import train_chunks_fast
from bpe_conformance.reference.fast_profiles import fast_train_profile

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.pretokenization import SplitProfile
    from bpe_conformance.reference.profiles import Profile

__all__ = ["Failure", "Trained", "failure_of", "train_both"]

Rules = list[tuple[int, int]]


@dataclass(frozen=True)
class Failure:
    """An implementation call that did not answer as the contract says.

    Its outcome is ``error``, ``timeout``, ``crash`` or ``memory-limit``.
    """

    outcome: str
    operation: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"outcome": self.outcome, "operation": self.operation, "message": self.message}


def failure_of(error: BaseException) -> Failure:
    """The named outcome of an exception a subject raised (one of :mod:`bpe_conformance.errors`)."""
    if isinstance(error, CallAborted):
        return Failure(error.outcome, error.operation, error.detail)
    if isinstance(error, ImplementationRaised):
        return Failure("error", error.operation, f"raised {error.kind}: {error.message}")
    if isinstance(error, MalformedResult):
        return Failure("error", error.operation, f"returned {error.description}")
    raise error


@dataclass(frozen=True)
class Trained:
    """Both sides' rules (the implementation's None when it failed) and their wall-clock seconds."""

    reference: Rules
    implementation: Rules | None
    failure: Failure | None
    reference_seconds: float
    implementation_seconds: float


def train_both(
    subject: Subject,
    documents: list[str],
    max_merges: int,
    profile: Profile,
    *,
    reference_progress: Callable[[int], None] | None = None,
    implementation_done: Callable[[], None] | None = None,
    split: SplitProfile | None = None,
) -> Trained:
    """Train ``subject`` (in a thread) and the reference under ``profile`` (here) on ``documents``.

    Behind a ``split`` the reference is the word-count engine
    (:func:`~bpe_conformance.reference.chunk_training.train_chunks_fast`), which reads the documents one
    at a time and keeps only the table of distinct chunks.
    """
    outcome: dict[str, object] = {}

    def train_implementation() -> None:
        started = time.monotonic()
        try:
            # A copy: an implementation in this process must not be able to change what the reference reads.
            outcome["rules"] = subject.train(list(documents), max_merges)
        except (CallAborted, ImplementationRaised, MalformedResult) as error:
            outcome["failure"] = failure_of(error)
        except BaseException as error:  # noqa: BLE001 - the harness's own fault: re-raised in the calling thread
            outcome["error"] = error
        finally:
            outcome["seconds"] = time.monotonic() - started
            if implementation_done is not None:
                implementation_done()

    worker = threading.Thread(target=train_implementation, name="compare-implementation", daemon=True)
    worker.start()
    started = time.monotonic()
    if split is None:
        reference = fast_train_profile(documents, max_merges, profile, progress=reference_progress)
    else:
        reference = train_chunks_fast(iter(documents), max_merges, profile, split, progress=reference_progress)
    reference_seconds = time.monotonic() - started
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    rules = outcome.get("rules")
    failure = outcome.get("failure")
    return Trained(
        reference=reference,
        implementation=rules if isinstance(rules, list) else None,
        failure=failure if isinstance(failure, Failure) else None,
        reference_seconds=reference_seconds,
        implementation_seconds=float(outcome["seconds"]),  # type: ignore[arg-type]
    )
