"""Choosing the pair to merge (BPE-TRAIN-GREEDY, BPE-TRAIN-TIE).

The highest count wins; among equal counts the smallest ``(a, b)``, compared as integers.

>>> select_pair({(97, 98): 2, (97, 99): 2, (98, 97): 1})
(97, 98)
>>> select_pair({(100, 101): 3, (99, 102): 3})  # integers, not the strings "100,101" < "99,102"
(99, 102)
>>> select_pair({}) is None
True
"""

from __future__ import annotations

__all__ = ["select_pair", "tied_pairs"]


def select_pair(counts: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    """The pair with the highest count, ties to the smallest pair; ``None`` when nothing is counted."""
    if not counts:
        return None
    return min(counts, key=lambda pair: (-counts[pair], pair))


def tied_pairs(counts: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """Every pair sharing the highest count, smallest first: the candidates the tie rule decides between."""
    if not counts:
        return []
    best = max(counts.values())
    return sorted(pair for pair, count in counts.items() if count == best)
