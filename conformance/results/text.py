"""How a text an implementation wrote is shown to a person: every invisible character as an escape.

One place for the reports (:mod:`bpe_conformance.reports`) and the matrix pages
(:mod:`bpe_conformance.matrix`), which sit in one layer and so cannot import each other.
"""

from __future__ import annotations

__all__ = ["printable"]


def _escape(character: str) -> str:
    code = ord(character)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with control characters, lone surrogates and other invisible characters escaped.

    >>> printable("ab\\tc\\ud800 低")
    'ab\\\\x09c\\\\ud800 低'
    """
    return "".join(character if character.isprintable() else _escape(character) for character in text)
