"""Replacing one pair by its new id (BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH).

The scan runs left to right over the old sequence; a match emits the new id and skips both
parts, so matches never overlap and a token made in this pass is never matched again in it.

>>> replace_pair([97, 97, 97], (97, 97), 258)
[258, 97]
>>> replace_pair([97, 97, 97, 97], (97, 97), 258)
[258, 258]
>>> replace_pair([258, 97], (258, 97), 259)
[259]
"""

from __future__ import annotations

__all__ = ["replace_pair"]


def replace_pair(sequence: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """``sequence`` with every non-overlapping occurrence of ``pair``, leftmost first, replaced by ``new_id``."""
    first, second = pair
    replaced: list[int] = []
    position = 0
    while position < len(sequence):
        if position + 1 < len(sequence) and sequence[position] == first and sequence[position + 1] == second:
            replaced.append(new_id)
            position += 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced
