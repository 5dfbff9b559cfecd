"""What a check is: a clause, a source of examples, and a plain verification function.

Verification lives in plain functions (mutmut cannot see into decorated ones); the runner wraps
them in hypothesis at run time so every failure is shrunk to a minimal counterexample.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from hypothesis.strategies import SearchStrategy

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["ALGORITHM", "INTERFACE", "LEVELS", "Check", "always_applicable"]

# The two conformance levels of specs/bpe.md ("Conformance levels"): what the seed's algorithm
# defines, and the plug-in contract's hygiene around it (argument validation, error families).
ALGORITHM, INTERFACE = "algorithm", "interface"
LEVELS = (ALGORITHM, INTERFACE)


def always_applicable(profile: Profile) -> str | None:  # noqa: ARG001 - every check's inapplicable() takes the profile
    """Most clauses hold under every profile: no reason to skip."""
    return None


@dataclass(frozen=True)
class Check:
    """One check of the suite.

    ``verify(subject, example)`` returns normally when the subject behaves as ``clause`` says and
    raises :class:`bpe_conformance.errors.Violation` otherwise. Examples come from ``strategy()`` (a
    function returning a hypothesis strategy; shrunk on failure) or, for fixed tables, from ``cases()``
    (each run once, in order, no shrinking needed), or from ``profile_cases(profile)`` for a fixed
    table that depends on the profile the subject is judged by (the known-answer vectors of that
    profile). ``requires`` are capabilities the subject must all declare, ``requires_any`` (when not
    empty) capabilities of which it must declare at least one. ``inapplicable(profile)`` is the reason
    the clause does not apply under a dialect profile (naming the parameter that makes it so), or
    None when it applies. ``level`` is the conformance level the clause belongs to: ``algorithm`` or
    ``interface``. ``unavailable(subject)`` is the reason a check cannot run on this subject at all (it
    needs to start the implementation again in another process, say), or None; ``finish(subject)``
    releases what the check's examples kept between them (such processes), once the check is over.
    """

    name: str
    clause: str
    summary: str
    verify: Callable[[Subject, Any], None]
    strategy: Callable[[], SearchStrategy[Any]] | None = None
    cases: Callable[[], Iterable[Any]] | None = None
    requires: frozenset[str] = field(default_factory=lambda: frozenset({"train"}))
    requires_any: frozenset[str] = frozenset()
    also: tuple[str, ...] = ()
    budget: float = 1.0
    inapplicable: Callable[[Profile], str | None] = always_applicable
    level: str = ALGORITHM
    profile_cases: Callable[[Profile], Iterable[Any]] | None = None
    unavailable: Callable[[Subject], str | None] | None = None
    finish: Callable[[Subject], None] | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"check {self.name!r} level must be one of {LEVELS}, got {self.level!r}")
        if [self.strategy, self.cases, self.profile_cases].count(None) != 2:
            raise ValueError(f"check {self.name!r} needs exactly one of strategy, cases or profile_cases")
        if self.budget <= 0:
            raise ValueError(f"check {self.name!r} budget must be positive, got {self.budget}")

    def fixed_cases(self, profile: Profile) -> Iterable[Any]:
        """The fixed examples of a check without a strategy, for a subject judged under ``profile``."""
        if self.profile_cases is not None:
            return self.profile_cases(profile)
        return self.cases() if self.cases is not None else ()

    def missing_capabilities(self, declared: frozenset[str]) -> list[str]:
        """What the subject would also have to declare to run this check: ``[]`` when it declares enough.

        >>> check = Check("x", "BPE-INPUT-IDS", "", print, cases=list, requires=frozenset({"encode"}),
        ...               requires_any=frozenset({"train", "load"}))
        >>> check.missing_capabilities(frozenset({"load"})), check.missing_capabilities(frozenset({"encode"}))
        (['encode'], ['load or train'])
        """
        missing = sorted(self.requires - declared)
        if self.requires_any and not self.requires_any & declared:
            missing.append(" or ".join(sorted(self.requires_any)))
        return missing

    @property
    def clauses(self) -> tuple[str, ...]:
        """The primary clause first, then the others this check may report."""
        return (self.clause, *self.also)
