"""The batched numpy engine behind :func:`reference.fast_training.fast_train`.

Same state as the plain engine (tokens and next/previous links over all distinct documents end
to end, a pair count table and a lazy heap) but one round is a handful of array operations over
that round's occurrences. Position ``size`` is a sentinel: "no neighbour" points at it and its
token is ``-1``, so it never matches a pair. Two indexes find a pair's occurrences without a scan:

* pairs of two bytes: the initial windows sorted by pair, each pair's slice read once, because a
  merged pair never occurs again;
* pairs involving a rule id: the positions where that id was made (a merge keeps its left
  position), filtered to those still holding it; a pair's occurrences start at those positions
  or just before them.

The occurrences found are in document order, so a run of a repeated token is resolved left to
right by keeping every other window of each chain of overlapping windows (BPE-MERGE-SCAN).

>>> train_arrays([b"abab", b"acac"], [1, 1], 32)
[(97, 98), (97, 99)]
>>> train_arrays([b"aaaaa"], [3], 32)  # one document counted three times
[(97, 97), (258, 97), (258, 259)]
"""

from __future__ import annotations

import numpy as np

from reference.alphabet import BYTE_COUNT, FIRST_RULE_ID, rule_id
from reference.fast_counts import PAIR_SHIFT, apply_changes, pair_code, pop_best, split_code, start_heap

__all__ = ["MAX_CORPUS_BYTES", "LinkedArrays", "link_arrays", "train_arrays"]

Rules = list[tuple[int, int]]
# Positions, links and ids are int32; the last position is the sentinel.
MAX_CORPUS_BYTES = 2**31 - 2


class LinkedArrays:
    """The corpus as arrays: tokens, links, document weights and the two occurrence indexes."""

    def __init__(self, tokens, following, preceding, byte_pair_positions, byte_pairs_sorted):
        self.tokens = tokens
        self.following = following
        self.preceding = preceding
        self.byte_pair_positions = byte_pair_positions
        self.byte_pairs_sorted = byte_pairs_sorted
        self.made_at: list[np.ndarray] = []
        self.sentinel = len(tokens) - 1
        # Set only when some document occurs more than once: where each document ends, and its count.
        self.repeated_documents: tuple[np.ndarray, np.ndarray] | None = None


def _pair_counts(codes: np.ndarray) -> tuple[list[int], list[int]]:
    """Each distinct 16-bit byte-pair code in ``codes`` and how often it occurs."""
    distinct, occurrences = np.unique(codes, return_counts=True)
    return distinct.tolist(), occurrences.tolist()


def _add_counts(counts: dict[int, int], codes: list[int], amounts: list[int], factor: int) -> None:
    for code, amount in zip(codes, amounts, strict=True):
        pair = pair_code(*divmod(code, BYTE_COUNT))
        total = counts.get(pair, 0) + factor * amount
        if total:
            counts[pair] = total
        else:
            del counts[pair]


def link_arrays(documents: list[bytes], multiplicities: list[int]) -> tuple[LinkedArrays, dict[int, int]]:
    """Build the arrays for ``documents`` and count the initial windows.

    Memory matters here (this is the engine's peak): no per-position weight array, one 16-bit
    pair array, and the 64-bit sort order is dropped as soon as it is narrowed to 32 bits.
    """
    size = sum(len(document) for document in documents)
    if size > MAX_CORPUS_BYTES:
        raise ValueError(f"the distinct documents hold {size} bytes; the numpy engine takes at most {MAX_CORPUS_BYTES}")
    lengths = np.fromiter((len(document) for document in documents), dtype=np.int64, count=len(documents))
    ends = np.cumsum(lengths)
    data = np.frombuffer(b"".join(documents), dtype=np.uint8)
    tokens = np.empty(size + 1, dtype=np.int32)
    tokens[:size] = data
    tokens[size] = -1
    following = np.arange(1, size + 2, dtype=np.int32)
    following[ends - 1] = size
    following[size] = size
    preceding = np.arange(-1, size, dtype=np.int32)
    preceding[ends - lengths] = size
    preceding[size] = size
    byte_pairs = data[:-1].astype(np.uint16)
    byte_pairs <<= 8
    byte_pairs |= data[1:]
    del data
    order = np.argsort(byte_pairs, kind="stable")
    positions = order.astype(np.int32)
    del order
    sorted_pairs = byte_pairs[positions]
    group_starts = np.flatnonzero(np.concatenate(([True], sorted_pairs[1:] != sorted_pairs[:-1])))
    counts: dict[int, int] = {}
    group_sizes = np.diff(np.append(group_starts, len(sorted_pairs)))
    _add_counts(counts, sorted_pairs[group_starts].tolist(), group_sizes.tolist(), 1)
    # The last position of each document but the final one starts a window that crosses into the
    # next document; it stays in the index (its partner check always fails) but leaves the counts.
    crossing = ends[:-1] - 1
    _add_counts(counts, *_pair_counts(byte_pairs[crossing]), -1)
    arrays = LinkedArrays(tokens, following, preceding, positions, sorted_pairs)
    if any(multiplicity > 1 for multiplicity in multiplicities):
        _add_repeated_documents(counts, arrays, byte_pairs, crossing, lengths, multiplicities)
    return arrays, counts


def _add_repeated_documents(counts, arrays, byte_pairs, crossing, lengths, multiplicities) -> None:
    """Count the windows of a document seen ``m`` times ``m - 1`` more times, one pass per distinct ``m``."""
    weights = np.asarray(multiplicities, dtype=np.int64)
    arrays.repeated_documents = (np.cumsum(lengths), weights)
    for multiplicity in sorted(set(multiplicities) - {1}):
        inside = np.repeat(weights == multiplicity, lengths)[:-1]
        inside[crossing] = False
        _add_counts(counts, *_pair_counts(byte_pairs[inside]), multiplicity - 1)


def _holding(arrays: LinkedArrays, token: int) -> np.ndarray:
    """Positions still holding rule id ``token``, pruning the stored list as a side effect."""
    rank = token - FIRST_RULE_ID
    positions = arrays.made_at[rank]
    positions = positions[arrays.tokens[positions] == token]
    arrays.made_at[rank] = positions
    return positions


def _candidates(arrays: LinkedArrays, first: int, second: int) -> np.ndarray:
    """Sorted positions where the pair might start; a superset of its occurrences."""
    if first < BYTE_COUNT and second < BYTE_COUNT:
        # A value of the array's own dtype, or numpy converts the whole array to compare.
        code = np.uint16(first * BYTE_COUNT + second)
        low = np.searchsorted(arrays.byte_pairs_sorted, code, side="left")
        high = np.searchsorted(arrays.byte_pairs_sorted, code, side="right")
        return arrays.byte_pair_positions[low:high]
    if first >= FIRST_RULE_ID and (
        second < BYTE_COUNT or len(arrays.made_at[first - FIRST_RULE_ID]) <= len(arrays.made_at[second - FIRST_RULE_ID])
    ):
        return _holding(arrays, first)
    return arrays.preceding[_holding(arrays, second)]


def _occurrences(arrays: LinkedArrays, first: int, second: int) -> np.ndarray:
    """Start positions of the windows the literal left-to-right scan would merge, in order."""
    candidates = _candidates(arrays, first, second)
    tokens, following = arrays.tokens, arrays.following
    starts = candidates[(tokens[candidates] == first) & (tokens[following[candidates]] == second)]
    if first != second or len(starts) < 2:
        return starts
    # In a run of one token the windows chain: each starts where the previous one ends.
    chained = np.zeros(len(starts), dtype=bool)
    chained[1:] = following[starts[:-1]] == starts[1:]
    if not chained.any():
        return starts
    index = np.arange(len(starts), dtype=np.int32)
    chain_start = np.maximum.accumulate(np.where(chained, 0, index))
    return starts[(index - chain_start) % 2 == 0]


def _codes(first: np.ndarray | int, second: np.ndarray | int) -> np.ndarray:
    # int64 from the left operand on: an int32 array or a Python int added to it stays int64.
    return np.asarray(first, dtype=np.int64) * PAIR_SHIFT + second


def _merge_round(arrays: LinkedArrays, first: int, second: int, new_id: int) -> list[tuple[int, int]]:
    """Merge every occurrence at once; return the count change of every window destroyed or created.

    With ``p`` an occurrence's first position, ``q`` its second, ``l`` and ``r`` the neighbours:
    the windows ``(l, p)`` and ``(q, r)`` are destroyed and ``(l, new)`` and ``(new, r)`` created.
    When occurrences touch (``r`` of one is ``p`` of the next) the window between them is the same
    one seen from both sides, so it is taken once, as the left window of the later occurrence,
    whose new left neighbour is the earlier occurrence, now holding the new id.
    """
    tokens, following, preceding, sentinel = arrays.tokens, arrays.following, arrays.preceding, arrays.sentinel
    starts = _occurrences(arrays, first, second)
    partners = following[starts]
    lefts = preceding[starts]
    rights = following[partners]
    touching_next = np.zeros(len(starts), dtype=bool)
    touching_next[:-1] = rights[:-1] == starts[1:]
    touching_previous = np.zeros_like(touching_next)
    touching_previous[1:] = touching_next[:-1]
    has_left = lefts != sentinel
    has_right = (rights != sentinel) & ~touching_next
    left_tokens = tokens[lefts[has_left]]
    right_tokens = tokens[rights[has_right]]
    new_left_tokens = np.where(touching_previous[has_left], new_id, left_tokens)
    weights = None
    if arrays.repeated_documents is not None:
        document_ends, document_weights = arrays.repeated_documents
        weights = document_weights[np.searchsorted(document_ends, starts, side="right")]
    changes: list[tuple[int, int]] = []
    # One group at a time: a big round (a run of spaces in code) has millions of windows.
    for codes, sign, present in (
        (_codes(left_tokens, first), -1, has_left),
        (_codes(second, right_tokens), -1, has_right),
        (_codes(new_left_tokens, new_id), 1, has_left),
        (_codes(new_id, right_tokens), 1, has_right),
    ):
        changes.extend(_summed(codes, sign, None if weights is None else weights[present]))
    tokens[starts] = new_id
    tokens[partners] = -1
    following[starts] = rights
    preceding[rights] = starts
    preceding[sentinel] = sentinel
    arrays.made_at.append(starts)
    return changes


def _summed(codes: np.ndarray, sign: int, weights: np.ndarray | None) -> list[tuple[int, int]]:
    """``(code, sign * total weight)`` for each distinct code."""
    if weights is None:
        distinct, totals = np.unique(codes, return_counts=True)
    else:
        distinct, inverse = np.unique(codes, return_inverse=True)
        # Every index below len(distinct) occurs in ``inverse``, so the bins are exactly the codes.
        totals = np.bincount(inverse, weights=weights).astype(np.int64)
    return list(zip(distinct.tolist(), (sign * totals).tolist(), strict=True))


def train_arrays(documents: list[bytes], multiplicities: list[int], max_merges: int) -> Rules:
    """The numpy engine over distinct byte documents counted with their multiplicities."""
    if not documents or max_merges == 0:
        return []
    arrays, counts = link_arrays(documents, multiplicities)
    heap = start_heap(counts)
    rules: Rules = []
    for rank in range(max_merges):
        merged = pop_best(heap, counts)
        if merged is None:
            break
        first, second = split_code(merged)
        changes = _merge_round(arrays, first, second, rule_id(rank))
        apply_changes(counts, heap, changes, merged)
        rules.append((first, second))
    return rules
