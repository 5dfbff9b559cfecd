"""Incremental pair counts with a lazily updated max-heap, shared by the fast trainers.

A pair ``(a, b)`` is kept as one integer code ``a * PAIR_SHIFT + b``. Because every id is below
``PAIR_SHIFT``, ordering codes orders pairs as integer tuples. A heap entry is one integer,
``(COUNT_CEILING - count) << 64 | code``, so the smallest entry has the highest count and, among
equal counts, the smallest ``(a, b)`` (BPE-TRAIN-GREEDY, BPE-TRAIN-TIE); one int is about half the
memory of a ``(-count, code)`` tuple and compares faster. An entry is trusted only while the count
it carries still equals the current count; anything else is stale and dropped when reached, and
the heap is rebuilt from the counts whenever stale entries outnumber live pairs.

>>> pair_code(97, 98), split_code(pair_code(97, 98))
(416611827810, (97, 98))
>>> counts = {pair_code(97, 98): 2, pair_code(97, 99): 2, pair_code(98, 97): 1}
>>> heap = start_heap(counts)
>>> split_code(pop_best(heap, counts))
(97, 98)
>>> apply_changes(counts, heap, [(pair_code(98, 97), 4), (pair_code(97, 99), -2)], pair_code(97, 98))
>>> split_code(pop_best(heap, counts)), counts[pair_code(98, 97)]
((98, 97), 5)
>>> pop_best(heap, counts) is None  # (97, 99) fell to 0, nothing else reaches 2
True
>>> deduplicate([b"ab", b"x", b"ab", b"cd"])
([b'ab', b'cd'], [2, 1])
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING

from bpe_conformance.reference.alphabet import MIN_MERGE_COUNT

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "COUNT_CEILING",
    "PAIR_SHIFT",
    "apply_changes",
    "deduplicate",
    "heap_entry",
    "pair_code",
    "pop_best",
    "split_code",
    "start_heap",
]

# Ids stay below 2**32 for any vocabulary a machine can hold, and a code still fits a signed int64.
PAIR_SHIFT = 1 << 32
# Above any count a corpus can produce; entries sort by COUNT_CEILING - count, then by code.
COUNT_CEILING = 1 << 62
_CODE_BITS = 64
_CODE_MASK = (1 << _CODE_BITS) - 1
# Rebuild the heap when it holds more than this many entries per counted pair (plus a floor).
_STALE_FACTOR = 2
_STALE_FLOOR = 4096

Heap = list[int]


def pair_code(first: int, second: int) -> int:
    """The integer standing for the pair ``(first, second)``."""
    return first * PAIR_SHIFT + second


def split_code(code: int) -> tuple[int, int]:
    """The pair a code stands for; inverse of :func:`pair_code`."""
    first, second = divmod(code, PAIR_SHIFT)
    return first, second


def deduplicate(documents: list[bytes]) -> tuple[list[bytes], list[int]]:
    """Distinct documents with at least one pair, in first-seen order, and how often each occurs.

    Identical documents have identical pairs in every round, so counting one of them with its
    multiplicity gives exactly the sum over all copies (BPE-TRAIN-DOCS). Documents shorter than two
    bytes have no pair in any round and are dropped.
    """
    multiplicity: dict[bytes, int] = {}
    for document in documents:
        if len(document) >= MIN_MERGE_COUNT:
            multiplicity[document] = multiplicity.get(document, 0) + 1
    return list(multiplicity), list(multiplicity.values())


def heap_entry(count: int, code: int) -> int:
    """The heap entry for a pair counted ``count`` times: smaller means merge sooner."""
    return (COUNT_CEILING - count) << _CODE_BITS | code


def start_heap(counts: dict[int, int], min_count: int = MIN_MERGE_COUNT) -> Heap:
    """A heap holding every pair that could be merged now (counted at least ``min_count`` times)."""
    heap = [heap_entry(count, code) for code, count in counts.items() if count >= min_count]
    heapq.heapify(heap)
    return heap


def pop_best(heap: Heap, counts: dict[int, int]) -> int | None:
    """The code of the pair to merge next, or ``None`` when no pair is counted twice (BPE-TRAIN-STOP)."""
    while heap:
        entry = heapq.heappop(heap)
        code = entry & _CODE_MASK
        if counts.get(code) == COUNT_CEILING - (entry >> _CODE_BITS):
            return code
    return None


def apply_changes(
    counts: dict[int, int],
    heap: Heap,
    changes: Iterable[tuple[int, int]],
    merged: int,
    min_count: int = MIN_MERGE_COUNT,
) -> None:
    """Add each ``(code, change)`` to the counts, re-push what moved, and forget the merged pair.

    After its round the merged pair occurs nowhere (every occurrence, or every other window of a
    run, was replaced and every new window holds the new id), so its count is dropped outright.
    """
    push = heapq.heappush
    for code, change in changes:
        if not change:
            continue
        count = counts.get(code, 0) + change
        if count:
            counts[code] = count
            if count >= min_count:
                push(heap, (COUNT_CEILING - count) << _CODE_BITS | code)
        else:
            del counts[code]
    counts.pop(merged, None)
    if len(heap) > _STALE_FACTOR * len(counts) + _STALE_FLOOR:
        heap[:] = start_heap(counts, min_count)
