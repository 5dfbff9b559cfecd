"""Fast encoding: a heap of adjacent pairs by rank, equal to the literal rank-order passes (BPE-ENCODE-*).

The literal encoder (:func:`bpe_conformance.reference.encoding.encode_bytes`) makes one left-to-right pass per
rule, O(rules x length). This one keeps the text as a linked list of tokens and a heap of
``(rank, position)`` for every adjacent pair that some rule merges, and repeatedly merges the
entry with the lowest rank, and among those the leftmost: O(n log n) for n bytes, whatever the
number of rules. A :class:`MergeTable` holds the rank lookup so it is built once per rule list.
A heap entry is the single integer ``rank << 32 | position``: it orders exactly like the pair
``(rank, position)`` for texts under 4 GiB, and integers compare much faster than tuples.

Why popping ``(rank, position)`` in increasing order gives exactly the literal ids:

1. A rule may refer only to bytes and earlier rule ids, so the id ``258 + r`` made by rule ``r``
   occurs in no rule of rank ``<= r``. Every pair a merge creates contains the new id, so merging
   with rule ``r`` never creates a pair of rank ``<= r``: ranks are taken in increasing order and
   a rank, once passed, never becomes applicable again. That is why a skipped rule stays skipped,
   as in the literal passes, and why a later duplicate of an earlier rule never applies (both
   formulations leave it without an occurrence; the table keeps only the first rank of a pair).
2. While rank ``r`` is being merged, the state is the literal state after passes ``0..r-1``: by
   (1), nothing of a lower rank is left and nothing of rank ``r`` is added.
3. Within rank ``r``, heap order is position order (a token keeps the position of its first
   byte, and the list keeps document order), so the occurrences are taken left to right. Taking
   one invalidates only the overlapping window to its right (its first token was swallowed) and
   the stale entry is skipped when popped: this is the non-overlapping left-to-right scan of
   :func:`bpe_conformance.reference.replacement.replace_pair` (BPE-MERGE-SCAN, BPE-MERGE-NOREMATCH), for every
   valid rule list, including duplicate, inapplicable or repeating-piece rules.

>>> fast_encode("abac", [(97, 98), (97, 99)])
[258, 259]
>>> fast_encode_bytes(b"aaaaa", [(97, 97), (258, 258)])
[259, 97]
>>> table = MergeTable([(97, 98), (97, 98), (258, 99)])  # a duplicate rule never applies
>>> fast_encode("ababc", table), len(table), table[2], table
([258, 260], 3, (258, 99), MergeTable(3 rules))
>>> fast_encode_many(["abac", "ab", ""], [(97, 98), (97, 99)])
[[258, 259], [258], []]

:func:`fast_encode_many` encodes many texts at once; with numpy installed and enough bytes it runs
the batched engine of :mod:`bpe_conformance.reference.fast_encoding_numpy` (rules applied a layer of independent
rules at a time to every text), which gives the same ids.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from typing import overload

from bpe_conformance.reference.alphabet import FIRST_RULE_ID
from bpe_conformance.reference.validation import check_rules, check_text

__all__ = [
    "ENCODE_ENGINES",
    "MAX_BATCH_BYTES",
    "MAX_TEXT_BYTES",
    "NUMPY_ENCODE_MIN_BYTES",
    "MergeTable",
    "encode_many_with_table",
    "encode_with_table",
    "fast_encode",
    "fast_encode_bytes",
    "fast_encode_many",
]

Rules = list[tuple[int, int]]
_GONE = -1
_POSITION_BITS = 32
_POSITION_MASK = (1 << _POSITION_BITS) - 1
# Positions must fit the low bits of a heap entry.
MAX_TEXT_BYTES = _POSITION_MASK
ENCODE_ENGINES = ("auto", "numpy", "heap")
# Below this many bytes in all the heap encoder wins: the batched one costs microseconds per layer.
NUMPY_ENCODE_MIN_BYTES = 32_768
# The batched engine's positions are int32, one of them a sentinel.
MAX_BATCH_BYTES = 2**31 - 2


class MergeTable(Sequence[tuple[int, int]]):
    """Validated rules, read-only, with the rank of each pair's first rule, built once.

    It is a sequence of the rules itself, so any encoder that takes a rule list accepts it.
    """

    __slots__ = ("_layers", "_ranks", "_rules", "_shift")

    def __init__(self, rules: Sequence[tuple[int, int]]) -> None:
        self._rules = tuple(check_rules(rules))
        # Codes a * shift + b stay small ints (fast to hash) for any realistic vocabulary.
        self._shift = FIRST_RULE_ID + len(self._rules)
        ranks: dict[int, int] = {}
        for rank, (first, second) in enumerate(self._rules):
            ranks.setdefault(first * self._shift + second, rank)
        self._ranks = ranks
        self._layers: list[list[int]] | None = None

    def __len__(self) -> int:
        return len(self._rules)

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[tuple[int, int], ...]: ...
    def __getitem__(self, index: int | slice) -> tuple[int, int] | tuple[tuple[int, int], ...]:
        return self._rules[index]

    def __repr__(self) -> str:
        return f"MergeTable({len(self._rules)} rules)"


def _pairs_heap(tokens: list[int], ranks: dict[int, int], shift: int) -> list[int]:
    """``rank << 32 | position`` of every adjacent pair some rule merges."""
    heap = []
    for position in range(len(tokens) - 1):
        rank = ranks.get(tokens[position] * shift + tokens[position + 1])
        if rank is not None:
            heap.append(rank << _POSITION_BITS | position)
    heapq.heapify(heap)
    return heap


def encode_with_table(data: bytes, table: MergeTable) -> list[int]:
    """The canonical ids of ``data`` under the rules of ``table`` (no validation of ``data``; under 4 GiB)."""
    if len(data) > MAX_TEXT_BYTES:
        raise ValueError(f"text is {len(data)} bytes; the fast encoder takes at most {MAX_TEXT_BYTES} at once")
    tokens = list(data)
    if len(tokens) < 2 or not table:
        return tokens
    ranks, shift, rules = table._ranks, table._shift, table._rules
    following = list(range(1, len(tokens) + 1))
    following[-1] = _GONE
    preceding = list(range(-1, len(tokens) - 1))
    heap = _pairs_heap(tokens, ranks, shift)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        entry = pop(heap)
        rank, position = entry >> _POSITION_BITS, entry & _POSITION_MASK
        first, second = rules[rank]
        partner = following[position]
        if tokens[position] != first or partner == _GONE or tokens[partner] != second:
            continue  # stale: this window was changed by an earlier merge
        new_id = FIRST_RULE_ID + rank
        tokens[position] = new_id
        tokens[partner] = _GONE
        right = following[partner]
        following[position] = right
        if right != _GONE:
            preceding[right] = position
            next_rank = ranks.get(new_id * shift + tokens[right])
            if next_rank is not None:
                push(heap, next_rank << _POSITION_BITS | position)
        left = preceding[position]
        if left != _GONE:
            next_rank = ranks.get(tokens[left] * shift + new_id)
            if next_rank is not None:
                push(heap, next_rank << _POSITION_BITS | left)
    ids = []
    position = 0
    while position != _GONE:
        ids.append(tokens[position])
        position = following[position]
    return ids


def _table(rules: Sequence[tuple[int, int]] | MergeTable) -> MergeTable:
    return rules if isinstance(rules, MergeTable) else MergeTable(rules)


def _choose_encode_engine(engine: str, total_bytes: int) -> str:
    if engine not in ENCODE_ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENCODE_ENGINES)}, not {engine!r}")
    if engine == "auto":
        from bpe_conformance.reference.fast_training import numpy_available

        return "numpy" if total_bytes >= NUMPY_ENCODE_MIN_BYTES and numpy_available() else "heap"
    return engine


def encode_many_with_table(datas: list[bytes], table: MergeTable, engine: str) -> list[list[int]]:
    """The canonical ids of each of ``datas`` under ``table`` (no validation of the data)."""
    total = sum(len(data) for data in datas)
    encode = {"heap": _encode_one_by_one, "numpy": _encode_batched}[_choose_encode_engine(engine, total)]
    return encode(datas, table, total)


def _encode_one_by_one(datas: list[bytes], table: MergeTable, total: int) -> list[list[int]]:  # noqa: ARG001 - the batch encoders' signature
    return [encode_with_table(data, table) for data in datas]


def _encode_batched(datas: list[bytes], table: MergeTable, total: int) -> list[list[int]]:
    if total > MAX_BATCH_BYTES:
        raise ValueError(f"texts hold {total} bytes; the batched encoder takes at most {MAX_BATCH_BYTES} at once")
    from bpe_conformance.reference.fast_encoding_numpy import encode_arrays, layered_rules

    if table._layers is None:
        table._layers = layered_rules(table._rules)
    return encode_arrays(datas, table._rules, table._layers)


def fast_encode_many(
    texts: Sequence[str], rules: Sequence[tuple[int, int]] | MergeTable, engine: str = "auto"
) -> list[list[int]]:
    """Same ids as :func:`~bpe_conformance.reference.encoding.encode` for each text.

    ``engine`` is ``"auto"``, ``"numpy"`` or ``"heap"``.

    Every engine gives the same ids; ``"auto"`` batches with numpy from :data:`NUMPY_ENCODE_MIN_BYTES` on.
    """
    if isinstance(texts, str) or not isinstance(texts, Sequence):
        raise TypeError(f"texts must be a sequence of str, not {type(texts).__name__}")
    return encode_many_with_table([check_text(text) for text in texts], _table(rules), engine)


def fast_encode_bytes(data: bytes, rules: Sequence[tuple[int, int]] | MergeTable) -> list[int]:
    """Same ids as :func:`bpe_conformance.reference.encoding.encode_bytes` for bytes ``data`` (rules are validated)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"data must be bytes, not {type(data).__name__}")
    return encode_with_table(bytes(data), _table(rules))


def fast_encode(text: str, rules: Sequence[tuple[int, int]] | MergeTable) -> list[int]:
    """Same ids as :func:`~bpe_conformance.reference.encoding.encode` (BPE-ENCODE-ORDER); pass a :class:`MergeTable`
    to reuse it."""
    return encode_with_table(check_text(text), _table(rules))
