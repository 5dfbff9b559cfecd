"""Set-up judged before the check's own question: a departure in the set-up is not the check's finding.

Many checks first arrange a model (train on a few documents, load rules) and then ask their own question.
When the set-up itself departs from the profile, the violation names a clause of another level than the
check's (a trainer that makes a rule for ``max_merges`` 0 breaks BPE-TRAIN-STOP while decode-strict trains
its set-up model): that is the set-up's finding, reported at the set-up's level by the checks of that
level, and the check's own level is not charged.

>>> from bpe_conformance.checks import ALL_CHECKS
>>> strict = next(check for check in ALL_CHECKS if check.name == "decode-strict")
>>> set_up_level(strict, "BPE-TRAIN-STOP"), set_up_level(strict, strict.clause)
('algorithm', None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bpe_conformance.checks.base import Check

__all__ = ["set_up_level", "set_up_message"]


def set_up_level(check: Check, clause: str) -> str | None:
    """The level of the set-up whose departure ``clause`` names; None when it is the check's own finding.

    A clause the check reports itself, or one no check of another level enforces, is the check's own.
    """
    if clause in check.clauses:
        return None
    from bpe_conformance.checks import ALL_CHECKS  # the catalogue imports this module's package

    # The level of the checks whose own clause it is (a known-answer table may list every clause).
    levels = {known.level for known in ALL_CHECKS if known.clause == clause}
    if not levels or check.level in levels:
        return None
    return sorted(levels)[0]


def set_up_message(check: Check, clause: str, level: str, message: str) -> str:
    """The skip message: the set-up failed, under its own clause and level; the check's level is not charged."""
    return f"set-up failed: [{clause}] at the {level} level ({check.level} not charged): {message}"
