"""Pieces: the bytes each id stands for (BPE-RULE-PIECE, BPE-ALPHA-BOUNDARY).

A rule's piece is its two parts' pieces joined; it may be an incomplete UTF-8 sequence, so
pieces are shown as hex when debugging, never decoded on their own.

>>> build_pieces([(228, 189), (258, 142)])[258:]
[b'\\xe4\\xbd', b'\\xe4\\xbd\\x8e']
>>> piece_hex(b'\\xe4\\xbd')
'e4 bd'
>>> piece_lengths([(97, 97), (258, 258), (259, 97)])
[2, 4, 5]

A rule list can name pieces far longer than itself (45 rules, each joining the last with itself,
make a piece of 2 ** 45 bytes), so :func:`check_piece_budget` bounds them from their lengths alone
before anything is built.
"""

from __future__ import annotations

from bpe_conformance.reference.alphabet import BOUNDARY_IDS, BYTE_COUNT

__all__ = [
    "PIECE_BYTES_FLOOR",
    "PIECE_BYTES_PER_RULE",
    "build_pieces",
    "check_piece_budget",
    "piece_budget",
    "piece_hex",
    "piece_lengths",
]

# The default bound on the total bytes of a rule list's pieces: a fixed floor (so a short list may
# hold long pieces, as training on a long run of one byte makes) plus a share per rule. Natural text
# averages well under 16 bytes per piece; 45 rules that double their piece each time need 2 ** 46.
PIECE_BYTES_FLOOR = 16 * 2**20
PIECE_BYTES_PER_RULE = 1024


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


def piece_lengths(rules: list[tuple[int, int]], cap: int | None = None) -> list[int]:
    """The byte length of every rule's piece, by rank, from lengths alone (no piece is built).

    Boundary ids, and ids no earlier rule has made (a malformed list), count as zero bytes. With
    ``cap``, a length above it is given as ``cap``: the lengths of a long doubling chain would
    otherwise be integers of thousands of digits.

    >>> piece_lengths([(97, 97)] + [(258 + rank, 258 + rank) for rank in range(59_999)], cap=10)[:5]
    [2, 4, 8, 10, 10]
    """
    lengths = [1] * BYTE_COUNT + [0] * len(BOUNDARY_IDS)
    for first, second in rules:
        length = sum(lengths[part] if 0 <= part < len(lengths) else 0 for part in (first, second))
        lengths.append(length if cap is None else min(length, cap))
    return lengths[BYTE_COUNT + len(BOUNDARY_IDS) :]


def piece_budget(rule_count: int) -> int:
    """The default bound on the total bytes of the pieces of ``rule_count`` rules.

    >>> piece_budget(0) == PIECE_BYTES_FLOOR, piece_budget(10) - piece_budget(9)
    (True, 1024)
    """
    return PIECE_BYTES_FLOOR + PIECE_BYTES_PER_RULE * rule_count


def check_piece_budget(rules: list[tuple[int, int]], max_piece_bytes: int | None = None) -> None:
    """ValueError when the pieces of ``rules`` would total more than ``max_piece_bytes`` bytes.

    ``None`` means :func:`piece_budget` of the rule count. Only lengths are computed, so the check
    costs one integer per rule however long the pieces would be.

    >>> check_piece_budget([(97, 97)] + [(258 + rank, 258 + rank) for rank in range(3)], max_piece_bytes=20)
    Traceback (most recent call last):
    ...
    ValueError: rule 3's piece would be 16 bytes: the pieces of rules 0-3 total 30, over max_piece_bytes=20
    """
    budget = piece_budget(len(rules)) if max_piece_bytes is None else max_piece_bytes
    total = 0
    for rank, length in enumerate(piece_lengths(rules, cap=budget + 1)):
        total += length
        if length > budget:
            raise ValueError(f"rule {rank}'s piece alone would be longer than max_piece_bytes={budget} allows")
        if total > budget:
            raise ValueError(
                f"rule {rank}'s piece would be {length} bytes: the pieces of rules 0-{rank} "
                f"total {total}, over max_piece_bytes={budget}"
            )
