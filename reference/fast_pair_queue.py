"""The numpy trainer's queue: which pair is merged next, by count and then a profile's tie-break.

Counts only fall in the numpy engine (a merge creates only pairs holding the new id, all new), so
the queue is lazy: the heap gets each pair once, when it is made, and an entry whose count (or, for
``first-seen``, first window) has changed since is pushed back with its current values when it
reaches the top; it can only have fallen or moved right, so it never comes out too late
(BPE-TRAIN-GREEDY).

The order among equal counts is a profile's tie-break (BPE-TRAIN-TIE): an integer key per pair
(``rank[a] << 32 | rank[b]`` with a rank per id, smaller first) for the fixed orders, the pieces
(largest first) for ``largest-pieces``, and the position of the pair's first window for
``first-seen``. An entry with an integer key is one Python int (count, key and pair index packed,
see :func:`pack_entry`), which the heap compares fastest; a pieces key makes it a tuple.

>>> entry = pack_entry(5, 97 << 32 | 98, 7)
>>> isinstance(entry, int), unpack_entry(entry)
(True, (5, 416611827810, 7))
>>> pack_entry(9, 1, 0) < pack_entry(5, 0, 0)  # the higher count first, whatever the key
True
>>> unpack_entry(pack_entry(3, (b"\\x01", b"\\x02", -1, -2), 4))
(3, (b'\\x01', b'\\x02', -1, -2), 4)
"""

from __future__ import annotations

import functools
import heapq
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from bpe_conformance.reference.fast_training_numpy import Corpus

__all__ = ["PAIR_ORDERS", "PairOrder", "PairQueue", "descending", "pack_entry", "pieces_key", "unpack_entry"]

PAIR_ORDERS = ("ids", "pieces", "first-seen")
_COUNT_CEILING = 1 << 62
_INDEX_BITS = 32
_INDEX_MASK = (1 << _INDEX_BITS) - 1
_KEY_BITS = 64
_KEY_MASK = (1 << _KEY_BITS) - 1

# A packed int, or (ceiling - count, key, index) when the key is not an int.
Entry = int | tuple[int, object, int]


@dataclass(frozen=True)
class PairOrder:
    """How ties are settled: ``"ids"`` (a rank per id), ``"pieces"`` (largest pieces) or ``"first-seen"``."""

    kind: str = "ids"
    # None: ids in their own order (strict's smallest (a, b)).
    rank: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.kind not in PAIR_ORDERS:
            raise ValueError(f"pair order must be one of {', '.join(PAIR_ORDERS)}, not {self.kind!r}")


def pack_entry(count: int, key: object, index: int) -> Entry:
    """A heap entry: smaller is better, so the count is stored as its distance below a ceiling."""
    if isinstance(key, int):
        return ((_COUNT_CEILING - count) << _KEY_BITS | key) << _INDEX_BITS | index
    return (_COUNT_CEILING - count, key, index)


def unpack_entry(entry: Entry) -> tuple[int, object, int]:
    """The count, key and pair index :func:`pack_entry` packed."""
    if isinstance(entry, int):
        return (
            _COUNT_CEILING - (entry >> (_KEY_BITS + _INDEX_BITS)),
            entry >> _INDEX_BITS & _KEY_MASK,
            entry & _INDEX_MASK,
        )
    return _COUNT_CEILING - entry[0], entry[1], entry[2]


def descending(piece: bytes) -> bytes:
    """A key that sorts byte strings in decreasing order (a longer string after its prefix)."""
    return b"".join(bytes((1, 255 - value)) for value in piece) + b"\x02"


def pieces_key(piece_keys: list[bytes], first: int, second: int) -> tuple[bytes, bytes, int, int]:
    """largest-pieces: the larger ``(piece a, piece b)`` first, then the larger ``(a, b)``."""
    return piece_keys[first], piece_keys[second], -first, -second


def _nothing() -> list[tuple[np.ndarray, np.ndarray]]:
    empty = np.zeros(0, dtype=np.int64)
    return [(empty, empty)]


@dataclass
class PairQueue:
    """Pairs by count and tie key: a lazy heap for the pairs counted at least ``threshold`` times, and
    the rest *waiting* (indexes only). Counts only fall, so a waiting pair never has to be looked at
    before the best count in the heap drops below ``threshold``; then the threshold is lowered and
    the waiting pairs that reach it join the heap. Most pairs made never come near the top, so most
    never cost a heap entry."""

    order: PairOrder
    min_count: int
    threshold: int
    heap: list[Entry] = field(default_factory=list)
    # Waiting pairs' indexes and first windows, in parts (one per round and per lowering).
    waiting: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=_nothing)

    @classmethod
    def start(cls, corpus: Corpus, order: PairOrder, min_count: int) -> PairQueue:
        """The queue of the corpus's byte pairs before the first round."""
        queue = cls(order, min_count, min_count)
        live = np.flatnonzero(corpus.counts[: corpus.pairs_made] >= min_count)
        if len(live):
            # For first-seen, the first indexed window of each byte pair: at or before its first counted
            # one (an entry may be early, never late; it is checked when it reaches the top).
            where = corpus.pair_positions[corpus.pair_starts[live]]
            # Half the best count first: the pairs below it wait instead of costing a heap entry each.
            queue.threshold = max(min_count, int(corpus.counts[live].max()) // 2)
            queue.push(corpus, live, where)
        return queue

    @property
    def _first_seen(self) -> bool:
        return self.order.kind == "first-seen"

    def _keys(self, corpus: Corpus, indexes: np.ndarray, where: np.ndarray) -> list[Any]:
        """The tie keys of pairs (smaller wins): ints for ids and first-seen, tuples for pieces."""
        keys: list[Any]
        if self._first_seen:
            keys = where.tolist()
            return keys
        firsts, seconds = corpus.pair_halves(indexes)
        if self.order.kind == "pieces":
            # Both halves come from the same indexes: map, not zip(strict=True), which could never be short.
            return list(map(functools.partial(pieces_key, corpus.piece_keys), firsts.tolist(), seconds.tolist()))
        if self.order.rank is None:
            keys = (firsts << 32 | seconds).tolist()
        else:
            keys = (self.order.rank[firsts] << 32 | self.order.rank[seconds]).tolist()
        return keys

    def push(self, corpus: Corpus, indexes: np.ndarray, where: np.ndarray) -> None:
        """Put pairs into the heap (those counted ``threshold`` times or more) or the waiting list."""
        counts = corpus.counts[indexes]
        waiting = (counts < self.threshold) & (counts >= self.min_count)
        if waiting.any():
            waiting_indexes = indexes[waiting]
            # Only first-seen reads the first windows: the other orders keep one array for both.
            self.waiting.append((waiting_indexes, where[waiting] if self._first_seen else waiting_indexes))
        now = counts >= self.threshold
        if not now.any():
            return
        indexes, where, counts = indexes[now], where[now], counts[now]
        keys = self._keys(corpus, indexes, where)
        entries = list(map(pack_entry, counts.tolist(), keys, indexes.tolist()))  # one of each per pair
        if len(entries) > len(self.heap):
            # Entries are distinct (each holds its pair's index), so the heap's shape never changes the order.
            self.heap.extend(entries)
            heapq.heapify(self.heap)
        else:
            for entry in entries:
                heapq.heappush(self.heap, entry)

    def _lower_threshold(self, corpus: Corpus, best: int) -> bool:
        """Lower the threshold to three quarters of the best count anywhere; False when no pair is left.

        Any threshold from ``min_count`` up to the best count is correct (the heap then holds every pair
        that could win); three quarters only sets how often the waiting pairs are looked through.
        """
        waiting_indexes = np.concatenate([indexes for indexes, _ in self.waiting])
        waiting_where = np.concatenate([where for _, where in self.waiting]) if self._first_seen else waiting_indexes
        current = corpus.counts[waiting_indexes]
        top = max(best, int(current.max()) if len(current) else 0)
        if top < self.min_count:
            return False
        self.threshold = max(self.min_count, top * 3 // 4)
        keep = (current < self.threshold) & (current >= self.min_count)
        kept = waiting_indexes[keep]
        self.waiting = [(kept, waiting_where[keep] if self._first_seen else kept)]
        joining = current >= self.threshold
        if joining.any():
            self.push(corpus, waiting_indexes[joining], waiting_where[joining])
        return True

    def _pop_valid(self, corpus: Corpus) -> tuple[Entry, int, int] | None:
        """The heap's best entry whose count (and, for first-seen, first window) is current, with its
        index and count; out-of-date entries are dropped or pushed back with their current values."""
        counts, heap, first_seen = corpus.counts, self.heap, self._first_seen
        while heap:
            entry = heapq.heappop(heap)
            count, key, index = unpack_entry(entry)
            current = int(counts[index])
            if current < self.min_count:
                continue
            current_key = corpus.first_window(index) if first_seen else key
            if current == count and current_key == key:
                return entry, index, count
            heapq.heappush(heap, pack_entry(current, current_key, index))
        return None

    def pop_best(self, corpus: Corpus) -> int | None:
        """The index of the pair to merge next, or ``None`` when no pair reaches ``min_count``.

        The heap holds every pair counted ``threshold`` times or more, so a best entry at or above the
        threshold is the best of all; below it, a waiting pair might beat it, so the threshold comes
        down first.
        """
        while True:
            found = self._pop_valid(corpus)
            if found is not None and found[2] >= self.threshold:
                return found[1]
            if found is not None:
                heapq.heappush(self.heap, found[0])  # still current: back in place
            if not self._lower_threshold(corpus, 0 if found is None else found[2]):
                return None
