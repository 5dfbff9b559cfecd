"""Every check of the conformance suite, in a stable order, and selection by name or clause id.

>>> [check.name for check in select_checks(["tie-*", "decode-b*"])]
['tie-break', 'decode-bytes-level']
>>> "no-cross-document-pairs" in [check.name for check in select_checks(["BPE-TRAIN-DOCS"])]
True
>>> select_checks(["no-such-check"])
Traceback (most recent call last):
...
ValueError: no check name or clause id matches 'no-such-check' (list the checks with: bpe-conformance run --list-checks)
"""

from __future__ import annotations

import difflib
import fnmatch
from typing import TYPE_CHECKING

from bpe_conformance.checks.base import Check
from bpe_conformance.checks.decoding import DECODING_CHECKS
from bpe_conformance.checks.encoding import ENCODING_CHECKS
from bpe_conformance.checks.extremes import EXTREME_CHECKS
from bpe_conformance.checks.properties import PROPERTY_CHECKS
from bpe_conformance.checks.replacement import REPLACEMENT_CHECKS
from bpe_conformance.checks.training import TRAINING_CHECKS
from bpe_conformance.checks.validation import VALIDATION_CHECKS
from bpe_conformance.checks.vectors import VECTOR_CHECKS

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["ALL_CHECKS", "Check", "select_checks"]

ALL_CHECKS: tuple[Check, ...] = (
    *TRAINING_CHECKS,
    *REPLACEMENT_CHECKS,
    *ENCODING_CHECKS,
    *DECODING_CHECKS,
    *PROPERTY_CHECKS,
    *EXTREME_CHECKS,
    *VALIDATION_CHECKS,
    *VECTOR_CHECKS,
)


def _matches(pattern: str, check: Check) -> bool:
    return any(fnmatch.fnmatchcase(label, pattern) for label in (check.name, *check.clauses))


def _unknown(pattern: str) -> str:
    message = f"no check name or clause id matches {pattern!r}"
    known = [check.name for check in ALL_CHECKS] + sorted({clause for check in ALL_CHECKS for clause in check.clauses})
    close = difflib.get_close_matches(pattern, known, n=3)
    if close:
        message += f"; did you mean {', '.join(close)}?"
    return message + " (list the checks with: bpe-conformance run --list-checks)"


def select_checks(patterns: Iterable[str]) -> list[Check]:
    """The checks whose name or one of whose clause ids matches any pattern (fnmatch-style), in suite order.

    A pattern that matches nothing is a ValueError naming it, so a typo never silently runs nothing.
    """
    if isinstance(patterns, str):
        raise TypeError(f"patterns must be a list of str, not a str ({patterns!r}); wrap it in a list")
    chosen = list(patterns)
    for pattern in chosen:
        if not isinstance(pattern, str):
            raise TypeError(f"each pattern must be a str, not {type(pattern).__name__} ({pattern!r})")
        if not any(_matches(pattern, check) for check in ALL_CHECKS):
            raise ValueError(_unknown(pattern))
    return [check for check in ALL_CHECKS if any(_matches(pattern, check) for pattern in chosen)]
