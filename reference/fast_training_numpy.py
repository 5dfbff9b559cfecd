"""The batched numpy engine behind :func:`bpe_conformance.reference.fast_training.fast_train` and the fast profiles.

Each round merges every occurrence of the best pair with a few array operations. Two concepts do
the work, each in its own module: the corpus (:mod:`bpe_conformance.reference.fast_corpus`: one
token array, the windows' pairs and counts, a round's merge) and the queue that picks the pair
(:mod:`bpe_conformance.reference.fast_pair_queue`: counts, then the profile's tie-break). This
module builds the corpus before the first round and runs the rounds.

>>> train_arrays([b"abab", b"acac"], [1, 1], 32)
[(97, 98), (97, 99)]
>>> train_arrays([b"aaaaa"], [3], 32)  # one sequence counted three times
[(97, 97), (258, 97), (258, 259)]
>>> sequences = [b"abab"]
>>> train_arrays(sequences, [1], 32), sequences  # the engine took the bytes over
([(97, 98)], [])
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID, MIN_MERGE_COUNT
from bpe_conformance.reference.fast_corpus import GONE, SEPARATOR, Corpus
from bpe_conformance.reference.fast_pair_queue import PAIR_ORDERS, PairOrder, PairQueue

__all__ = [
    "GONE",
    "MAX_CORPUS_BYTES",
    "NATIVE_INDEX_MAX_POSITIONS",
    "PAIR_ORDERS",
    "SEPARATOR",
    "UNFOLD_MAX_SHARE",
    "Corpus",
    "PairOrder",
    "build_corpus",
    "index_type_for",
    "train_arrays",
    "unfold_copies",
]

Rules = list[tuple[int, int]]
Progress = Callable[[int], None] | None
# Positions are int32 and every sequence is followed by a separator.
MAX_CORPUS_BYTES = 2**31 - 2


def build_corpus(
    sequences: list[bytes],
    multiplicities: list[int],
    first_rule_id: int = FIRST_RULE_ID,
    order: PairOrder | None = None,
) -> Corpus:
    """The state before the first round: every window of two bytes counted (weighted) and indexed.

    Memory matters here (this is the engine's peak): the 64-bit sort order lives only until it is
    narrowed to 32 bits, before the window-pair array exists.
    """
    size = sum(len(sequence) for sequence in sequences) + len(sequences)
    if size > MAX_CORPUS_BYTES:
        raise ValueError(
            f"the distinct documents need {size} positions ({size - len(sequences)} bytes, {len(sequences)} "
            f"separator{'s' if len(sequences) != 1 else ''}); the numpy engine takes at most {MAX_CORPUS_BYTES}"
        )
    data = np.frombuffer(b"".join(sequence + b"\0" for sequence in sequences), dtype=np.uint8)
    lengths = np.fromiter((len(sequence) + 1 for sequence in sequences), dtype=np.int64, count=len(sequences))
    separators = np.cumsum(lengths) - 1
    pairs = data[:-1].astype(np.uint16)
    pairs <<= 8
    pairs |= data[1:]
    index_type = index_type_for(size)
    pair_positions = _positions_by_pair(pairs, index_type)
    # One group per distinct byte pair among the windows (separators' windows included), in pair
    # order: the groups of the sorted positions, sized by counting instead of comparing neighbours.
    window_counts = _pair_counts(pairs)
    distinct = np.flatnonzero(window_counts)
    group_sizes = window_counts[distinct]
    del window_counts
    group_starts = np.cumsum(group_sizes) - group_sizes
    # Windows touching a separator are indexed (they fail every check) but never counted.
    inside = np.ones(size - 1, dtype=bool)
    inside[separators - 1] = False
    inside[separators[:-1]] = False
    weights = np.asarray(multiplicities, dtype=np.int64)
    by_pair = _pair_counts(pairs, inside)
    for multiplicity in sorted(set(multiplicities) - {1}):
        # A sequence seen m times counts m - 1 more times; one pass per distinct multiplicity.
        copies = np.repeat(weights == multiplicity, lengths)[:-1]
        copies &= inside
        by_pair += (multiplicity - 1) * _pair_counts(pairs, copies)
        del copies
    del inside
    totals = by_pair[distinct].astype(np.int64)
    del by_pair
    # Each window's pair index, looked up by its byte pair a block at a time (an index array is
    # widened to 64 bits, which for the whole corpus at once would be the engine's peak).
    index_of_pair = np.zeros(BYTE_COUNT * BYTE_COUNT, dtype=index_type)
    index_of_pair[distinct] = np.arange(len(distinct), dtype=index_type)
    window_pair = np.zeros(size, dtype=index_type)
    for start in range(0, size - 1, _SORT_BLOCK):
        end = min(start + _SORT_BLOCK, size - 1)  # no view of pairs outlives the loop, so del frees them
        window_pair[start:end] = index_of_pair[pairs[start:end]]
    del pairs
    tokens = data.astype(index_type)
    tokens[separators] = SEPARATOR
    codes = (distinct >> 8) << 32 | (distinct & 0xFF)
    ends = np.append(group_starts[1:], size - 1)
    # One row per distinct byte pair: its code, where its windows start and end in the sorted positions.
    pair_bounds = {pair: (start, end) for pair, start, end in np.column_stack((distinct, group_starts, ends)).tolist()}
    kind = "ids" if order is None else order.kind
    return Corpus(
        tokens=tokens,
        window_pair=window_pair,
        pair_positions=pair_positions,
        pair_bounds=pair_bounds,
        pair_starts=group_starts,
        counts=totals,
        codes=codes,
        first_rule_id=first_rule_id,
        weights=(separators, weights) if (weights > 1).any() else None,
        first_seen=kind == "first-seen",
        track_pieces=kind == "pieces",
    )


# Up to this many positions (the corpus's bytes and separators) tokens and positions are native
# integers (int64 on 64-bit machines), from there on int32. numpy gathers and scatters through an
# int32 index array several times slower than through a native one (it converts the index first),
# and a small corpus's rounds are mostly such fixed costs; a large corpus's memory is mostly these
# arrays, and int32 halves it (the peak stays near 20 bytes per corpus byte from 1 MB up).
NATIVE_INDEX_MAX_POSITIONS = 1 << 19


def index_type_for(positions: int) -> type[np.signedinteger]:
    """The integer type of the token and position arrays of a corpus of ``positions`` positions.

    >>> index_type_for(1000) is np.intp, index_type_for(10**6) is np.int32
    (True, True)
    """
    return np.intp if positions <= NATIVE_INDEX_MAX_POSITIONS else np.int32


# Copies are written out when they add at most this share of the corpus's positions.
UNFOLD_MAX_SHARE = 1 / 64


def unfold_copies(sequences: list[bytes], multiplicities: list[int]) -> tuple[list[bytes], list[int]]:
    """The same counts with few or no weights: copies written out in full when they are few bytes.

    A weighted corpus costs every round a few more array operations (each occurrence's weight),
    which on a small corpus is a visible share of the round. Every copy counts its windows exactly
    as the weight did, and sits right after its original, so no pair is first seen any earlier.
    A sequence of fewer than two bytes has no window: its copies count nothing and are dropped.

    >>> unfolded, counts = unfold_copies([b"ab", b"c", b"x" * 200], [2, 5, 1])
    >>> [len(sequence) for sequence in unfolded], counts
    ([2, 2, 1, 200], [1, 1, 1, 1])
    >>> unfold_copies([b"ab", b"cd"], [9, 1])  # 8 copies would add 24 positions to 6
    ([b'ab', b'cd'], [9, 1])
    """
    weighted = [
        (sequence, 1 if len(sequence) < 2 else count) for sequence, count in zip(sequences, multiplicities, strict=True)
    ]
    positions = sum(len(sequence) + 1 for sequence in sequences)
    added = sum((count - 1) * (len(sequence) + 1) for sequence, count in weighted)
    if added > positions * UNFOLD_MAX_SHARE:
        return sequences, [count for _, count in weighted]
    unfolded = [copy for sequence, count in weighted for copy in [sequence] * count]
    return unfolded, [1] * len(unfolded)


# Windows sorted a block at a time: a sort's 64-bit order and work space cost 16 bytes per window,
# which for the whole corpus at once would be the engine's peak. Up to _SINGLE_SORT_WINDOWS (below
# 1 MB, where time matters more than a few MB) one sort does it all; beyond it, blocks of 128 Ki
# keep the temporaries near 4 MB, a few bytes per corpus byte from 1 MB up.
_SORT_BLOCK = 1 << 17
_SINGLE_SORT_WINDOWS = 1 << 19


def _pair_counts(pairs: np.ndarray, flags: np.ndarray | None = None) -> np.ndarray:
    """How many windows (of those flagged, when ``flags`` is given) hold each byte pair, by pair code.

    Counted a block at a time: ``bincount`` widens its input to 64 bits first.
    """
    counts = np.zeros(BYTE_COUNT * BYTE_COUNT, dtype=np.int64)
    for start in range(0, len(pairs), _SORT_BLOCK):
        block = pairs[start : start + _SORT_BLOCK]
        if flags is not None:
            block = block[flags[start : start + _SORT_BLOCK]]
        counts += np.bincount(block, minlength=BYTE_COUNT * BYTE_COUNT)
    return counts


def _positions_by_pair(pairs: np.ndarray, index_type: type[np.signedinteger]) -> np.ndarray:
    """Window positions (of ``index_type``) sorted by byte pair, in position order within a pair: a stable sort.

    Large inputs are sorted a block at a time and each block's runs placed after the previous
    blocks' runs of the same pair, which is the same stable order.
    """
    if len(pairs) <= _SINGLE_SORT_WINDOWS:
        return np.argsort(pairs, kind="stable").astype(index_type, copy=False)
    placed = np.zeros(BYTE_COUNT * BYTE_COUNT, dtype=np.int64)
    np.cumsum(np.bincount(pairs, minlength=BYTE_COUNT * BYTE_COUNT)[:-1], out=placed[1:])
    positions = np.empty(len(pairs), dtype=index_type)
    for block_start in range(0, len(pairs), _SORT_BLOCK):
        block = pairs[block_start : block_start + _SORT_BLOCK]
        order = np.argsort(block, kind="stable")
        sorted_block = block[order]
        block_counts = np.bincount(block, minlength=BYTE_COUNT * BYTE_COUNT)
        block_firsts = np.cumsum(block_counts) - block_counts
        rank_in_run = np.arange(len(block), dtype=np.int64) - block_firsts[sorted_block]
        positions[placed[sorted_block] + rank_in_run] = order + block_start
        placed += block_counts
    return positions


def train_arrays(
    sequences: list[bytes],
    multiplicities: list[int],
    max_merges: int,
    *,
    first_rule_id: int = FIRST_RULE_ID,
    min_count: int = MIN_MERGE_COUNT,
    order: PairOrder | None = None,
    progress: Progress = None,
) -> Rules:
    """The numpy engine over distinct byte sequences counted with their multiplicities.

    The engine takes ``sequences`` over: once the corpus is built the list is emptied, so that a
    caller holding no other reference to the bytes does not keep a second copy of the corpus
    through training (a byte per corpus byte, about a twentieth of the engine's peak).
    """
    if max_merges == 0 or all(len(sequence) < 2 for sequence in sequences):
        return []  # no window, so no pair to merge
    order = PairOrder() if order is None else order
    corpus = build_corpus(*unfold_copies(sequences, multiplicities), first_rule_id, order)
    sequences.clear()
    queue = PairQueue.start(corpus, order, min_count)
    rules: Rules = []
    for rank in range(max_merges):
        best = queue.pop_best(corpus)
        if best is None:
            break
        first, second = corpus.pair_of(best)
        new_id = first_rule_id + rank
        corpus.add_rule(first, second, new_id)
        queue.push(corpus, *corpus.merge_round(first, second, new_id))
        rules.append((first, second))
        if progress is not None:
            progress(len(rules))
    return rules
