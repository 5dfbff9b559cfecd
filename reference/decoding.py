"""Decoding: concatenate pieces (BPE-DECODE-*).

>>> rules = [(97, 98), (97, 99)]
>>> decode([256, 258, 259, 257], rules)
'abac'
>>> decode_bytes([228, 189], [])
b'\\xe4\\xbd'
>>> decode([228, 189], [])
Traceback (most recent call last):
...
ValueError: ids decode to invalid UTF-8 at byte offset 0 (unexpected end of data): e4 bd
"""

from __future__ import annotations

from bpe_conformance.reference.pieces import build_pieces
from bpe_conformance.reference.validation import check_ids, check_rules

__all__ = ["decode", "decode_bytes", "decode_bytes_with_pieces", "strict_utf8"]


def decode_bytes_with_pieces(ids: list[int], pieces: list[bytes]) -> bytes:
    """Join the pieces of ``ids`` after checking each id is in the vocabulary."""
    return b"".join(pieces[token_id] for token_id in check_ids(ids, len(pieces)))


def decode_bytes(ids: list[int], rules: list[tuple[int, int]]) -> bytes:
    """The bytes ``ids`` stand for; any id sequence, even one that splits a character."""
    return decode_bytes_with_pieces(ids, build_pieces(check_rules(rules)))


def strict_utf8(data: bytes) -> str:
    """``data`` as text; invalid UTF-8 is a ValueError with its byte offset, never a U+FFFD."""
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        context = data[max(0, error.start - 4) : error.end + 4].hex(" ")
        raise ValueError(
            f"ids decode to invalid UTF-8 at byte offset {error.start} ({error.reason}): {context}"
        ) from None


def decode(ids: list[int], rules: list[tuple[int, int]]) -> str:
    """The text ``ids`` stand for; unknown ids and invalid UTF-8 are errors (BPE-DECODE-STRICT)."""
    return strict_utf8(decode_bytes(ids, rules))
