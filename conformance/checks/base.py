"""What a check is: a clause, a source of examples, and a plain verification function.

Verification lives in plain functions (mutmut cannot see into decorated ones); the runner wraps
them in hypothesis at run time so every failure is shrunk to a minimal counterexample.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis.strategies import SearchStrategy

from conformance.adapters.subject import Subject
from reference.profiles import Profile

__all__ = ["ALGORITHM", "INTERFACE", "LEVELS", "Check", "always_applicable"]

# The two conformance levels of specs/bpe.md ("Conformance levels"): what the seed's algorithm
# defines, and the plug-in contract's hygiene around it (argument validation, error families).
ALGORITHM, INTERFACE = "algorithm", "interface"
LEVELS = (ALGORITHM, INTERFACE)


def always_applicable(profile: Profile) -> str | None:
    """Most clauses hold under every profile: no reason to skip."""
    return None


@dataclass(frozen=True)
class Check:
    """One check of the suite.

    ``verify(subject, example)`` returns normally when the subject behaves as ``clause`` says and
    raises :class:`conformance.errors.Violation` otherwise. Examples come from ``strategy()`` (a
    function returning a hypothesis strategy; shrunk on failure) or, for fixed tables such as the
    known-answer vectors, from ``cases()`` (each run once, in order, no shrinking needed).
    ``inapplicable(profile)`` is the reason the clause does not apply under a dialect profile
    (naming the parameter that makes it so), or None when it applies. ``level`` is the conformance
    level the clause belongs to: ``algorithm`` or ``interface``.
    """

    name: str
    clause: str
    summary: str
    verify: Callable[[Subject, Any], None]
    strategy: Callable[[], SearchStrategy[Any]] | None = None
    cases: Callable[[], Iterable[Any]] | None = None
    requires: frozenset[str] = field(default_factory=lambda: frozenset({"train"}))
    also: tuple[str, ...] = ()
    budget: float = 1.0
    inapplicable: Callable[[Profile], str | None] = always_applicable
    level: str = ALGORITHM

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"check {self.name!r} level must be one of {LEVELS}, got {self.level!r}")
        if (self.strategy is None) == (self.cases is None):
            raise ValueError(f"check {self.name!r} needs exactly one of strategy or cases")
        if self.budget <= 0:
            raise ValueError(f"check {self.name!r} budget must be positive, got {self.budget}")

    @property
    def clauses(self) -> tuple[str, ...]:
        """The primary clause first, then the others this check may report."""
        return (self.clause, *self.also)
