"""Pair counting (BPE-TRAIN-COUNT, BPE-TRAIN-DOCS).

Every adjacent window counts, overlapping ones included, and windows never span two documents.

>>> count_pairs([[97, 97, 97]])
{(97, 97): 2}
>>> count_pairs([[97, 98], [99, 100]])  # (98, 99) would cross the document boundary
{(97, 98): 1, (99, 100): 1}
"""

from __future__ import annotations

__all__ = ["count_pairs"]


def count_pairs(sequences: list[list[int]]) -> dict[tuple[int, int], int]:
    """Count every adjacent pair inside each sequence, summed over the sequences."""
    counts: dict[tuple[int, int], int] = {}
    for sequence in sequences:
        for position in range(len(sequence) - 1):
            pair = (sequence[position], sequence[position + 1])
            counts[pair] = counts.get(pair, 0) + 1
    return counts
