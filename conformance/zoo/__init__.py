"""The bug zoo and the controls: implementations a conformance harness must reject, and must accept.

``ZOO`` lists the members, each :class:`~bpe_conformance.zoo.base.ZooBase` with exactly one step
broken; every member names the clause it breaks (``clause``, plus ``also``), a ``witness`` on
which it differs from the spec, and a ``why`` for the gallery. ``CONTROLS`` lists correct
implementations built differently. Every class is a zero-argument factory importable as
``bpe_conformance.zoo:<ClassName>``, and has a stable kebab-case ``name``.

Docstrings say where each kind of bug is seen in the wild: public projects' code and threads
(named as ``owner/repo`` issue or pull request numbers), or "source chapter NNN", one of the
project's shared source chapters (``shared/seeds/NNN_*.txt``) that describe these dialects.

>>> len(ZOO) >= 30 and len(CONTROLS) >= 3
True
>>> by_name("ties-by-string-key").clause
'BPE-TRAIN-TIE'
>>> from bpe_conformance.zoo import OverlappingReplacement
>>> OverlappingReplacement.name
'overlapping-replacement'
"""

from __future__ import annotations

from typing import Any

from bpe_conformance.zoo import (
    corpus,
    counting,
    decoding,
    encoding,
    extremes,
    replacement,
    state,
    training,
    validation,
)
from bpe_conformance.zoo.base import ZooBase, ZooMember
from bpe_conformance.zoo.controls import CONTROLS

__all__ = ["CONTROLS", "ZOO", "ZooBase", "ZooMember", "by_name"]

ZOO: list[type[ZooMember]] = [
    *corpus.MEMBERS,
    *counting.MEMBERS,
    *training.MEMBERS,
    *replacement.MEMBERS,
    *encoding.MEMBERS,
    *decoding.MEMBERS,
    *validation.MEMBERS,
    *state.MEMBERS,
    *extremes.MEMBERS,
]

_BY_NAME: dict[str, type[ZooBase]] = {implementation.name: implementation for implementation in [*ZOO, *CONTROLS]}
_BY_CLASS_NAME: dict[str, type[ZooBase]] = {
    implementation.__name__: implementation for implementation in [*ZOO, *CONTROLS]
}


def by_name(name: str) -> type[ZooBase]:
    """The member or control whose ``name`` is ``name``; a ValueError lists the known names."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"no zoo member or control is named {name!r}; known: {', '.join(sorted(_BY_NAME))}") from None


def __getattr__(attribute: str) -> Any:
    # Makes every class importable as bpe_conformance.zoo:<ClassName> without listing 60 imports here.
    try:
        return _BY_CLASS_NAME[attribute]
    except KeyError:
        raise AttributeError(f"module 'bpe_conformance.zoo' has no attribute {attribute!r}") from None


def __dir__() -> list[str]:
    return sorted([*globals(), *_BY_CLASS_NAME])
