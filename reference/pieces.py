"""Pieces: the bytes each id stands for (BPE-RULE-PIECE, BPE-ALPHA-BOUNDARY).

A rule's piece is its two parts' pieces joined; it may be an incomplete UTF-8 sequence, so
pieces are shown as hex when debugging, never decoded on their own.

>>> build_pieces([(228, 189), (258, 142)])[258:]
[b'\\xe4\\xbd', b'\\xe4\\xbd\\x8e']
>>> piece_hex(b'\\xe4\\xbd')
'e4 bd'
"""

from __future__ import annotations

from reference.alphabet import BOUNDARY_IDS, BYTE_COUNT

__all__ = ["build_pieces", "piece_hex"]


def build_pieces(rules: list[tuple[int, int]]) -> list[bytes]:
    """The piece of every id, indexed by id; boundary ids carry no bytes."""
    pieces = [bytes([value]) for value in range(BYTE_COUNT)]
    pieces.extend(b"" for _ in BOUNDARY_IDS)
    for first, second in rules:
        pieces.append(pieces[first] + pieces[second])
    return pieces


def piece_hex(piece: bytes) -> str:
    """A piece as space-separated hex bytes, the only faithful way to print a partial character."""
    return piece.hex(" ")
