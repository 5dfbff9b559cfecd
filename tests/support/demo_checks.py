"""Small demo checks that stand in for the real suite in the CLI and plug-in tests.

Each test module builds its own list of demo ``Check`` objects from these verifications and selects
among them with :func:`demo_selection`, which behaves like the suite's ``select_checks``.
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING

from bpe_conformance import reference
from bpe_conformance.errors import ImplementationRaised, Violation

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check

__all__ = ["demo_selection", "verify_round_trip", "verify_unknown_id_rejected", "verify_worked_example"]


def verify_worked_example(subject: Subject, case: tuple[list[str], int]) -> None:
    """BPE-TRAIN-TIE: the subject's rules for ``case`` are the reference's; the first differing round is named."""
    documents, max_merges = case
    expected, actual = reference.train(documents, max_merges), subject.train(documents, max_merges)
    if actual != expected:
        diverged = next(rank for rank, pair in enumerate(actual) if rank >= len(expected) or pair != expected[rank])
        raise Violation(
            "BPE-TRAIN-TIE",
            "ties go to the smallest pair",
            inputs={"documents": documents, "max_merges": max_merges},
            expected=expected,
            actual=actual,
            divergence={
                "round": diverged,
                "expected": {"pair": expected[diverged]},
                "actual": {"pair": actual[diverged]},
            },
        )


def verify_round_trip(subject: Subject, text: str) -> None:
    """BPE-ROUNDTRIP: decoding what the subject encoded gives the text back."""
    subject.train([text], 4)
    back = subject.decode(subject.encode(text))
    if back != text:
        raise Violation("BPE-ROUNDTRIP", "decode(encode(t)) == t", inputs={"text": text}, expected=text, actual=back)


def verify_unknown_id_rejected(subject: Subject, token_id: int) -> None:
    """BPE-DECODE-STRICT: decoding an id outside the vocabulary is an input error."""
    subject.train(["ab"], 0)
    try:
        answer = subject.decode([token_id])
    except ImplementationRaised as error:
        if error.is_input_error:
            return
        raise
    raise Violation(
        "BPE-DECODE-STRICT",
        "unknown ids are a ValueError",
        inputs={"ids": [token_id]},
        expected="ValueError",
        actual=answer,
    )


def demo_selection(checks: Sequence[Check]) -> Callable[[list[str]], list[Check]]:
    """A ``select_checks`` over ``checks``: by name or clause pattern, ValueError for a pattern matching none.

    >>> from bpe_conformance.checks.base import Check
    >>> select = demo_selection([Check("demo", "BPE-ROUNDTRIP", "round trip", verify_round_trip, cases=list)])
    >>> [check.name for check in select(["BPE-ROUNDTRIP"])]
    ['demo']
    """

    def matches(check: Check, pattern: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for name in (check.name, *check.clauses))

    def select(patterns: list[str]) -> list[Check]:
        for pattern in patterns:
            if not any(matches(check, pattern) for check in checks):
                raise ValueError(f"no check or clause matches {pattern!r}")
        return [check for check in checks if any(matches(check, pattern) for pattern in patterns)]

    return select
