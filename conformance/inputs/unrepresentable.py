"""Values JSON cannot carry: the ``$unrepresentable`` marker that stands for one, and rebuilding it.

The protocol (``specs/protocol.md`` 3.3) and the invalid-call vectors write a Python value that JSON
cannot hold (bytes, a set, NaN, a text with a split surrogate pair, ...) as
``{"$unrepresentable": "<type name>", "repr": "<Python repr>"}``. A program in another language
receives that object and must reject it (no argument of the contract is ever an object). A Python
implementation must see what the check meant: :func:`restore` turns every marker it can rebuild back
into the real value, so ``encode(b"ab")`` asks a bytes-accepting encoder the same question in process,
in its own process, and from a vector file.

>>> marker(b"ab")
{'$unrepresentable': 'bytes', 'repr': "b'ab'"}
>>> restore([marker(b"ab"), marker(bytearray(b"c")), marker({(97, 98)}), marker(frozenset()), 5])
[b'ab', bytearray(b'c'), {(97, 98)}, frozenset(), 5]
>>> restore(marker(float("nan"))), restore({"$unrepresentable": "memoryview", "repr": "<memory at 0x1>"})
(nan, {'$unrepresentable': 'memoryview', 'repr': '<memory at 0x1>'})
>>> type(restore(marker(item for item in "ab"))).__name__
'generator'
"""

from __future__ import annotations

import ast
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["MARKER_KEY", "REBUILT_TYPES", "marker", "restore"]

MARKER_KEY = "$unrepresentable"
_WRAPPED = re.compile(r"(?P<kind>bytearray|frozenset)\((?P<inner>.*)\)", re.DOTALL)


def marker(value: object, shown: str | None = None) -> dict[str, str]:
    """The object that stands for ``value`` in JSON; ``shown`` replaces its repr (a shortened one, say)."""
    return {MARKER_KEY: type(value).__name__, "repr": repr(value) if shown is None else shown}


def _literal(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None  # a shortened repr ("... (300 characters in all)") or not a literal: not rebuilt


def _wrapped(kind: str, text: str) -> Any:
    """``bytearray(b'..')`` or ``frozenset({..})``, whose reprs are calls, not literals."""
    match = _WRAPPED.fullmatch(text)
    if match is None or match["kind"] != kind:
        return None
    inner = _literal(match["inner"]) if match["inner"] else ()
    if kind == "bytearray":
        return bytearray(inner) if isinstance(inner, bytes) else None
    return frozenset(inner) if isinstance(inner, (set, tuple)) else None


def _stand_in_generator() -> Iterator[Any]:
    # A generator's items are not in its repr (taking them would consume it): an empty one stands in,
    # still a generator, which is what the contract rejects.
    yield from ()


def _float(text: str) -> float | None:
    return float(text) if text in ("nan", "inf", "-inf") else None


_REBUILDERS: dict[str, Callable[[str], Any]] = {
    "bytes": _literal,
    "str": _literal,
    "set": lambda text: set() if text == "set()" else _literal(text),
    "bytearray": lambda text: _wrapped("bytearray", text),
    "frozenset": lambda text: _wrapped("frozenset", text),
    "float": _float,
}
REBUILT_TYPES = (*_REBUILDERS, "generator")


def _rebuilt(kind: str, text: str) -> Any:
    """The value a marker stands for, or None when it cannot be rebuilt exactly."""
    if kind == "generator":
        return _stand_in_generator()
    rebuild = _REBUILDERS.get(kind)
    value = None if rebuild is None else rebuild(text)
    if type(value).__name__ != kind or (isinstance(value, float) and math.isfinite(value)):
        return None
    return value


def _is_marker(value: dict[Any, Any]) -> bool:
    return set(value) == {MARKER_KEY, "repr"} and isinstance(value[MARKER_KEY], str) and isinstance(value["repr"], str)


def restore(value: Any) -> Any:
    """``value`` (plain JSON data) with every marker that can be rebuilt replaced by the real value.

    A marker that cannot be rebuilt (a memoryview, a shortened repr, an unknown type) stays the object
    it is, which every implementation rejects as it would the original. Lists stay lists.
    """
    if isinstance(value, list):
        return [restore(item) for item in value]
    if isinstance(value, dict):
        if _is_marker(value):
            rebuilt = _rebuilt(value[MARKER_KEY], value["repr"])
            return value if rebuilt is None else rebuilt
        return {key: restore(item) for key, item in value.items()}
    return value
