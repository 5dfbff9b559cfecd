"""Exceptions that carry a check's verdict, or an implementation's misbehaviour, to the runner.

``Violation`` is a failed check with its counterexample. ``ImplementationRaised`` and
``MalformedResult`` become the ``error`` outcome. ``CallTimeout``, ``ImplementationCrashed`` and
``MemoryLimitExceeded`` derive from ``BaseException`` on purpose: hypothesis shrinks every
``Exception``, and re-running a call that hangs or kills the process thousands of times would make
the harness unbounded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bpe_conformance.reference.json_values import JSONObject

__all__ = [
    "INPUT_ERROR_FAMILIES",
    "CallAborted",
    "CallTimeout",
    "DatabaseUnavailable",
    "HarnessError",
    "ImplementationCrashed",
    "ImplementationRaised",
    "MalformedResult",
    "MemoryLimitExceeded",
    "Violation",
    "error_families",
    "exception_ancestors",
]

# The plug-in contract's two answers to bad input; any subclass belongs to its family.
INPUT_ERROR_FAMILIES = ("ValueError", "TypeError")


def exception_ancestors(kind: type[BaseException]) -> tuple[str, ...]:
    """The classes ``kind`` derives from, nearest first: built-ins by name, others module-qualified.

    Qualifying non-built-ins keeps an unrelated class that happens to be called ``ValueError`` out
    of the family.

    >>> exception_ancestors(UnicodeDecodeError)
    ('UnicodeError', 'ValueError', 'Exception', 'BaseException')
    >>> class ValueError(Exception): ...
    >>> exception_ancestors(ValueError)
    ('Exception', 'BaseException')
    """
    names = []
    for ancestor in kind.__mro__[1:]:
        if ancestor is object:
            continue
        builtin = ancestor.__module__ == "builtins"
        names.append(ancestor.__qualname__ if builtin else f"{ancestor.__module__}.{ancestor.__qualname__}")
    return tuple(names)


def error_families(kind: str, ancestors: tuple[str, ...] = ()) -> frozenset[str]:
    """Which of ``ValueError``/``TypeError`` an error of type ``kind`` with ``ancestors`` belongs to.

    >>> sorted(error_families("UnicodeEncodeError", ("UnicodeError", "ValueError", "Exception")))
    ['ValueError']
    >>> sorted(error_families("TypeError")), sorted(error_families("KeyError", ("LookupError", "Exception")))
    (['TypeError'], [])
    """
    named = {kind, *ancestors}
    return frozenset(family for family in INPUT_ERROR_FAMILIES if family in named)


class HarnessError(Exception):
    """A usage or harness problem (bad ``--impl``, unreadable skip file); the CLI exits 2."""


class DatabaseUnavailable(HarnessError):
    """The example database failed while in use (the Redis server went away, the disk filled up).

    A harness error, never a verdict: the runner lets it through instead of blaming the implementation.
    ``lost_failure`` is True when the write that failed was saving a failure the check had found: the
    message then holds that failure in full, since it is in no database.
    """

    def __init__(self, message: str, *, lost_failure: bool = False) -> None:
        super().__init__(message)
        self.lost_failure = lost_failure


class Violation(AssertionError):
    """An implementation broke ``clause``: what it was given, what the spec says, what it did."""

    def __init__(
        self,
        clause: str,
        message: str,
        *,
        inputs: JSONObject,
        expected: Any,
        actual: Any,
        divergence: JSONObject | None = None,
        localisation: JSONObject | None = None,
    ) -> None:
        super().__init__(f"[{clause}] {message}")
        self.clause = clause
        self.message = message
        self.inputs = inputs
        self.expected = expected
        self.actual = actual
        self.divergence = divergence
        self.localisation = localisation

    def counterexample(self) -> JSONObject:
        """The JSON-ready counterexample of the report schema."""
        example: JSONObject = {"inputs": self.inputs, "expected": self.expected, "actual": self.actual}
        if self.divergence is not None:
            example["divergence"] = self.divergence
        if self.localisation is not None:
            example["localisation"] = self.localisation
        return example


class ImplementationRaised(Exception):
    """The implementation raised (or answered with an error) for ``operation``."""

    def __init__(self, operation: str, kind: str, message: str, ancestors: tuple[str, ...] = ()) -> None:
        super().__init__(f"{operation} raised {kind}: {message}")
        self.operation = operation
        self.kind = kind
        self.message = message
        self.ancestors = tuple(ancestors)

    @property
    def families(self) -> frozenset[str]:
        """The input-error families (``ValueError``, ``TypeError``) the error belongs to, subclasses included."""
        return error_families(self.kind, self.ancestors)

    @property
    def is_input_error(self) -> bool:
        """True for the two families the contract allows for bad input (any subclass)."""
        return bool(self.families)


class MalformedResult(Exception):
    """The implementation returned something that is not the contract's type for ``operation``."""

    def __init__(self, operation: str, description: str) -> None:
        super().__init__(f"{operation} returned {description}")
        self.operation = operation
        self.description = description


class CallAborted(BaseException):  # a BaseException so hypothesis does not shrink it
    """A call did not complete; the runner stops the check at once and reports the input."""

    outcome = "crash"

    def __init__(self, operation: str, detail: str, inputs: JSONObject | None = None) -> None:
        super().__init__(f"{operation}: {detail}")
        self.operation = operation
        self.detail = detail
        self.inputs = inputs or {}


class CallTimeout(CallAborted):
    """A call took longer than the per-call limit."""

    outcome = "timeout"


class ImplementationCrashed(CallAborted):
    """The implementation's process died or broke the protocol."""

    outcome = "crash"


class MemoryLimitExceeded(ImplementationCrashed):
    """The implementation's process ran out of the memory ``--memory-limit`` allows it.

    A crash whose cause is known: the limit, not the algorithm. Reports count it as ``memory-limit``,
    never as a deviation (``specs/protocol.md``, resource limits).
    """

    outcome = "memory-limit"
