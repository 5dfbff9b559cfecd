"""A :class:`~bpe_conformance.adapters.subject.Subject` back in the plug-in contract, for code written against it.

The identification probes (:mod:`bpe_conformance.dialects.identify`) call implementations as the plug-in
contract says; this turns any subject (in-process, hosted or ``cmd:``) back into such an object, its
errors re-raised as exceptions of their named type.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any

from bpe_conformance.errors import ImplementationRaised

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject

__all__ = ["SubjectContract", "contract_factory"]


def _takes_a_message(found: object) -> bool:
    if not (isinstance(found, type) and issubclass(found, Exception)):
        return False
    try:
        found("message")
    except TypeError:  # UnicodeEncodeError and its kin need five arguments
        return False
    return True


def _exception_type(kind: str, ancestors: tuple[str, ...] = ()) -> type[Exception]:
    """An exception class named ``kind`` that can be raised with one message, in ``kind``'s families.

    The built-in of that name where it takes a message; otherwise a subclass of the nearest built-in
    ancestor that does (``UnicodeEncodeError`` under ``UnicodeError``, so still a ``ValueError``), or of
    ``Exception`` (``PanicException``).

    >>> _exception_type("KeyError") is KeyError
    True
    >>> encode_error = _exception_type("UnicodeEncodeError", ("UnicodeError", "ValueError", "Exception"))
    >>> encode_error.__name__, issubclass(encode_error, ValueError), str(encode_error("surrogates not allowed"))
    ('UnicodeEncodeError', True, 'surrogates not allowed')
    """
    found = getattr(builtins, kind, None)
    if _takes_a_message(found):
        return found  # type: ignore[return-value]
    for ancestor in ancestors:
        base = getattr(builtins, ancestor, None)
        if isinstance(base, type) and _takes_a_message(base):
            return type(kind, (base,), {})
    return type(kind, (Exception,), {})


class SubjectContract:
    """A :class:`Subject` back in the plug-in contract: errors are re-raised as exceptions of their named type.

    >>> from bpe_conformance.adapters import load_implementation
    >>> contract = SubjectContract(load_implementation("reference", isolation="inprocess"))
    >>> contract.train(["abab", "acac"], 32), contract.profile
    ([(97, 98), (97, 99)], 'strict')
    >>> contract.decode([228])
    Traceback (most recent call last):
    ...
    ValueError: ids decode to invalid UTF-8 at byte offset 0 (unexpected end of data): e4
    """

    def __init__(self, subject: Subject) -> None:
        self._subject = subject
        self.name = subject.info.name
        self.version = subject.info.version
        self.profile = subject.info.profile
        self.split = subject.info.split
        self.capabilities = frozenset(subject.info.capabilities)

    def _call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except ImplementationRaised as raised:
            raise _exception_type(raised.kind, raised.ancestors)(raised.message) from None

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules: list[tuple[int, int]] = self._call(self._subject.train, documents, max_merges)
        return rules

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self._call(self._subject.load, rules)
        return [(int(first), int(second)) for first, second in rules]

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._call(self._subject.encode, text)
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._call(self._subject.decode, ids)
        return text


def contract_factory(subject: Subject) -> Callable[[], SubjectContract]:
    """A factory of fresh plug-in-contract objects: each call resets ``subject`` (a new instance or process)."""

    def fresh() -> SubjectContract:
        subject.reset()
        return SubjectContract(subject)

    return fresh
