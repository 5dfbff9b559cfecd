"""The implementation under test, as every check sees it, whatever language it is written in.

A *subject* wraps one implementation of the plug-in contract. Its methods either return values of
exactly the contract's types, or raise one of :mod:`bpe_conformance.errors`: the check code never sees
a foreign exception or a wrongly typed result.

>>> as_rules("train", [[97, 98], (97, 99)])
[(97, 98), (97, 99)]
>>> as_ids("encode", [258, True])
Traceback (most recent call last):
...
bpe_conformance.errors.MalformedResult: encode returned a list whose item 1 is bool (True), not int
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from bpe_conformance.errors import MalformedResult

__all__ = [
    "CAPABILITIES",
    "ImplementationInfo",
    "Subject",
    "as_ids",
    "as_rules",
    "as_text",
    "declaration_problem",
]

CAPABILITIES = frozenset({"train", "load", "encode", "decode"})


@dataclass(frozen=True)
class ImplementationInfo:
    """What an implementation declares about itself (the protocol handshake, or class attributes)."""

    name: str
    version: str = "unknown"
    language: str = "python"
    capabilities: frozenset[str] = field(default_factory=lambda: frozenset({"train", "encode", "decode"}))
    profile: str = "strict"
    # The production split pattern it trains and encodes behind (``gpt2``, ``cl100k``, ``o200k``:
    # reference/pretokenization.py), or None when it splits nothing (every named dialect profile).
    split: str | None = None


def declaration_problem(field: str, value: object, max_chars: int) -> str | None:
    """Why ``value`` cannot be the declared ``field`` (name, version, ...), or None.

    A declaration is printed in every report, so it must be valid Unicode (no lone surrogate) and short.

    >>> declaration_problem("name", "lone" + chr(0xD800), 200)
    "name 'lone\\\\ud800' is not valid Unicode (a lone surrogate at position 4)"
    >>> declaration_problem("name", "x" * 300, 200)
    'name is 300 characters long, more than 200'
    """
    if not isinstance(value, str):
        return f"{field} must be a string, not {type(value).__name__}"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"{field} {value[:60]!r} is not valid Unicode (a lone surrogate at position {error.start})"
    if len(value) > max_chars:
        return f"{field} is {len(value)} characters long, more than {max_chars}"
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _describe(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} ({text[:60]}{'...' if len(text) > 60 else ''})"


def _plain_items(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    """The items of a list or tuple, read by the built-in type's own iterator.

    An in-process implementation may return a subclass whose ``__iter__``, ``__len__`` or ``__eq__``
    lies; the judging must see the values actually stored, as plain built-in values.
    """
    return list(list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value))


def as_ids(operation: str, value: Any) -> list[int]:
    """``value`` as a list of plain ints, or :class:`MalformedResult` saying what it was instead.

    >>> class Liar(int):
    ...     def __eq__(self, other): return True
    ...     __hash__ = int.__hash__
    >>> [type(item) for item in as_ids("encode", [Liar(5)])]
    [<class 'int'>]
    """
    if not isinstance(value, (list, tuple)):
        raise MalformedResult(operation, f"{_describe(value)}, not a list of int")
    items = _plain_items(value)
    for position, item in enumerate(items):
        if not _is_int(item):
            raise MalformedResult(operation, f"a list whose item {position} is {_describe(item)}, not int")
    return [int.__int__(item) for item in items]


def as_rules(operation: str, value: Any) -> list[tuple[int, int]]:
    """``value`` as a list of ``(int, int)`` pairs, or :class:`MalformedResult`."""
    if not isinstance(value, (list, tuple)):
        raise MalformedResult(operation, f"{_describe(value)}, not a list of (int, int) pairs")
    rules = []
    for rank, rule in enumerate(_plain_items(value)):
        parts = _plain_items(rule) if isinstance(rule, (list, tuple)) else None
        if parts is None or len(parts) != 2 or not all(_is_int(part) for part in parts):
            raise MalformedResult(operation, f"a list whose rule {rank} is {_describe(rule)}, not an (int, int) pair")
        rules.append((int.__int__(parts[0]), int.__int__(parts[1])))
    return rules


def as_text(operation: str, value: Any) -> str:
    """``value`` as a plain str (a subclass is copied: its ``__eq__`` cannot pass a check), or :class:`MalformedResult`.

    >>> class EqualsEverything(str):
    ...     def __eq__(self, other): return True
    ...     __hash__ = str.__hash__
    >>> as_text("decode", EqualsEverything("garbage")) == "abc"
    False
    """
    if not isinstance(value, str):
        raise MalformedResult(operation, f"{_describe(value)}, not a str")
    return str.__str__(value)


class Subject(ABC):
    """One implementation under test. ``reset`` gives a fresh model (new instance, or restarted process)."""

    info: ImplementationInfo

    @abstractmethod
    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        """Learn and adopt rules."""

    @abstractmethod
    def encode(self, text: str) -> list[int]:
        """Body ids of ``text`` under the adopted rules."""

    @abstractmethod
    def decode(self, ids: list[int]) -> str:
        """Text of ``ids`` under the adopted rules."""

    @abstractmethod
    def load(self, rules: list[tuple[int, int]]) -> None:
        """Adopt ``rules`` after validating them."""

    @abstractmethod
    def reset(self) -> None:
        """Discard all state: the next call sees a new, untrained implementation."""

    @property
    def declared_profile(self) -> str:
        """The profile the implementation declares (a subject judged under another one says so)."""
        return self.info.profile

    def close(self) -> None:  # noqa: B027 - in-process subjects hold nothing to release
        """Release the implementation (stop its process)."""

    def supports(self, capability: str) -> bool:
        """Whether the implementation declared ``capability``."""
        return capability in self.info.capabilities
