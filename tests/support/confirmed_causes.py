"""Reading a confirmed cause back: which bug model of the diagnosis a cause line names."""

from __future__ import annotations

from bpe_conformance import diagnosis
from bpe_conformance.reference.profiles import STRICT

__all__ = ["model_named"]


def model_named(cause: str) -> int:
    """The index of the bug model ``cause`` names (confirmed causes start with its story, under strict)."""
    named = [
        index
        for index in range(len(diagnosis.MODELS))
        if cause.startswith(f"the rules are exactly what a trainer with {diagnosis.model_cause(index, STRICT)} makes")
    ]
    assert len(named) == 1, cause
    return named[0]
