"""The batched numpy engine behind :func:`bpe_conformance.reference.fast_training.fast_train` and the fast profiles.

The corpus is one int32 array, ``tokens``: the distinct sequences end to end, each followed by a
separator (``SEPARATOR``), so no window ever spans two sequences. A token covers the bytes of its
piece, and sits at the position of its first byte; no link arrays are kept, because the links
follow from the pieces' lengths:

* the token after the one at ``p`` starts at ``p + length[tokens[p]]``;
* the position before ``p`` belongs to the token before it: either a one-byte token (a value
  ``>= 0``), a separator, or the last byte of a longer token, which holds ``-3 - start`` (a back
  link to that token's start). Every other covered position holds ``GONE`` or an outdated back
  link: negative either way, so it matches no id, and it is never read as a link (only the byte
  before a token's start is).

Beside it, ``window_pair[p]`` is the index of the pair of the window starting at token ``p``, so a
merge finds the count of every window it destroys without hashing; counts are a numpy array by pair
index. Only windows holding the new id are created by a merge, and they are all of pairs never seen
before (the id is new), so an existing pair's count only ever falls. The heap therefore gets each
pair once, when it is made; an entry whose count has fallen since is pushed back with its current
count when it reaches the top (it can only have fallen, so it never comes out too late).

Two indexes find a round's windows without a scan: windows of two bytes, sorted by pair once (a
merged pair never occurs again, so each pair's slice is read at most once), and, for a rule id,
the positions where it was made, pruned to those still holding it.

The order among equal counts is a profile's tie-break: an integer key per pair (``rank[a] << 32 |
rank[b]`` with a rank per id, smaller first) for the fixed orders, the pieces (largest first) for
``largest-pieces``, and the position of the pair's first window for ``first-seen`` (it can only
move right, so such entries are re-checked when they reach the top, like counts).

>>> train_arrays([b"abab", b"acac"], [1, 1], 32)
[(97, 98), (97, 99)]
>>> train_arrays([b"aaaaa"], [3], 32)  # one sequence counted three times
[(97, 97), (258, 97), (258, 259)]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import numpy as np

from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID, MIN_MERGE_COUNT

__all__ = [
    "GONE",
    "MAX_CORPUS_BYTES",
    "PAIR_ORDERS",
    "SEPARATOR",
    "Corpus",
    "PairOrder",
    "build_corpus",
    "train_arrays",
]

Rules = list[tuple[int, int]]
Progress = Callable[[int], None] | None
# Positions are int32 and every sequence is followed by a separator.
MAX_CORPUS_BYTES = 2**31 - 2
GONE = -1
SEPARATOR = -2
_BACK_LINK = -3  # the last byte of a token of length >= 2 holds _BACK_LINK - start
_COUNT_CEILING = 1 << 62
_INDEX_BITS = 32
_INDEX_MASK = (1 << _INDEX_BITS) - 1
_KEY_BITS = 64


PAIR_ORDERS = ("ids", "pieces", "first-seen")


class PairOrder:
    """How ties are settled: ``"ids"`` (a rank per id), ``"pieces"`` (largest pieces) or ``"first-seen"``."""

    def __init__(self, kind: str = "ids", rank: np.ndarray | None = None) -> None:
        if kind not in PAIR_ORDERS:
            raise ValueError(f"pair order must be one of {', '.join(PAIR_ORDERS)}, not {kind!r}")
        # ``rank`` None: ids in their own order (strict's smallest (a, b)).
        self.kind = kind
        self.rank = rank


class Corpus:
    """The training state: tokens, windows' pairs, counts, indexes and piece lengths."""

    def __init__(self, tokens, window_pair, pair_positions, pair_bounds, counts, codes, first_rule_id):
        self.tokens = tokens
        self.window_pair = window_pair
        self.pair_positions = pair_positions
        self.pair_bounds = pair_bounds
        self.pair_starts = np.zeros(0, dtype=np.int64)  # where each byte pair's group starts in pair_positions
        self.counts = counts
        self.codes = codes
        self.pairs_made = len(codes)
        self.first_rule_id = first_rule_id
        self.lengths = np.ones(first_rule_id, dtype=np.int64)
        self.made_at: list[np.ndarray] = []
        self.scratch = np.zeros(first_rule_id, dtype=np.int32)  # pair slots below 2**31
        self.first_seen = False
        # For largest-pieces only: every id's piece, and its descending sort key.
        self.pieces: list[bytes] = []
        self.piece_keys: list[bytes] = []
        # Set only when some sequence occurs more than once: where each ends, and its count.
        self.weights: tuple[np.ndarray, np.ndarray] | None = None


def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    if needed <= len(array):
        return array
    # A quarter more each time: the pair tables are the part of memory that grows during training.
    bigger = np.zeros(max(needed, len(array) + len(array) // 4), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


def build_corpus(sequences: list[bytes], multiplicities: list[int], first_rule_id: int = FIRST_RULE_ID) -> Corpus:
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
    pair_positions = _positions_by_pair(pairs)
    # One group per distinct byte pair among the windows (separators' windows included), in pair
    # order: the groups of the sorted positions, sized by counting instead of comparing neighbours.
    window_counts = np.bincount(pairs, minlength=BYTE_COUNT * BYTE_COUNT)
    distinct = np.flatnonzero(window_counts)
    group_sizes = window_counts[distinct]
    del window_counts
    group_starts = np.cumsum(group_sizes) - group_sizes
    # Windows touching a separator are indexed (they fail every check) but never counted.
    inside = np.ones(size - 1, dtype=bool)
    inside[separators - 1] = False
    inside[separators[:-1]] = False
    weights = np.asarray(multiplicities, dtype=np.int64)
    by_pair = np.bincount(pairs[inside], minlength=BYTE_COUNT * BYTE_COUNT)
    for multiplicity in sorted(set(multiplicities) - {1}):
        # A sequence seen m times counts m - 1 more times; one pass per distinct multiplicity.
        copies = np.repeat(weights == multiplicity, lengths)[:-1]
        copies &= inside
        by_pair += (multiplicity - 1) * np.bincount(pairs[copies], minlength=BYTE_COUNT * BYTE_COUNT)
        del copies
    del inside
    totals = by_pair[distinct].astype(np.int64)
    del by_pair
    # Each window's pair index, looked up by its byte pair (a gather, written in place).
    index_of_pair = np.zeros(BYTE_COUNT * BYTE_COUNT, dtype=np.int32)
    index_of_pair[distinct] = np.arange(len(distinct), dtype=np.int32)
    window_pair = np.zeros(size, dtype=np.int32)
    np.take(index_of_pair, pairs, out=window_pair[: size - 1])
    del pairs
    tokens = data.astype(np.int32)
    tokens[separators] = SEPARATOR
    codes = (distinct >> 8) << 32 | (distinct & 0xFF)
    corpus = Corpus(tokens, window_pair, pair_positions, {}, totals, codes, first_rule_id)
    ends = np.append(group_starts[1:], size - 1)
    corpus.pair_bounds = dict(
        zip(distinct.tolist(), zip(group_starts.tolist(), ends.tolist(), strict=True), strict=True)
    )
    corpus.pair_starts = group_starts  # the first indexed window of each pair, by pair index
    if (weights > 1).any():
        corpus.weights = (separators, weights)
    return corpus


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
    multiplicities = [
        1 if len(sequence) < 2 else count for sequence, count in zip(sequences, multiplicities, strict=True)
    ]
    positions = sum(len(sequence) + 1 for sequence in sequences)
    added = sum((count - 1) * (len(sequence) + 1) for sequence, count in zip(sequences, multiplicities, strict=True))
    if added > positions * UNFOLD_MAX_SHARE:
        return sequences, multiplicities
    unfolded = [copy for sequence, count in zip(sequences, multiplicities, strict=True) for copy in [sequence] * count]
    return unfolded, [1] * len(unfolded)


# Windows sorted a block at a time: a sort's 64-bit order and work space cost 16 bytes per window,
# which for the whole corpus at once would be the engine's peak.
_SORT_BLOCK = 1 << 19


def _positions_by_pair(pairs: np.ndarray) -> np.ndarray:
    """Window positions (int32) sorted by byte pair, in position order within a pair: a stable sort.

    Large inputs are sorted a block at a time and each block's runs placed after the previous
    blocks' runs of the same pair, which is the same stable order.
    """
    if len(pairs) <= _SORT_BLOCK:
        return np.argsort(pairs, kind="stable").astype(np.int32)
    placed = np.zeros(BYTE_COUNT * BYTE_COUNT, dtype=np.int64)
    np.cumsum(np.bincount(pairs, minlength=BYTE_COUNT * BYTE_COUNT)[:-1], out=placed[1:])
    positions = np.empty(len(pairs), dtype=np.int32)
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


def _key_of(order: PairOrder, corpus: Corpus, firsts: np.ndarray, seconds: np.ndarray, where: np.ndarray) -> list:
    """The tie keys of new pairs (smaller wins): ints for ids and first-seen, tuples for pieces."""
    if order.kind == "first-seen":
        return where.tolist()
    if order.kind == "pieces":
        return [
            _pieces_key(corpus, first, second) for first, second in zip(firsts.tolist(), seconds.tolist(), strict=True)
        ]
    if order.rank is None:
        return (firsts << 32 | seconds).tolist()
    return (order.rank[firsts] << 32 | order.rank[seconds]).tolist()


def _descending(piece: bytes) -> bytes:
    """A key that sorts byte strings in decreasing order (a longer string after its prefix)."""
    return b"".join(bytes((1, 255 - value)) for value in piece) + b"\x02"


def _pieces_key(corpus: Corpus, first: int, second: int) -> tuple[bytes, bytes, int, int]:
    """largest-pieces: the larger ``(piece a, piece b)`` first, then the larger ``(a, b)``."""
    return corpus.piece_keys[first], corpus.piece_keys[second], -first, -second


class Queue:
    """Pairs by count and tie key: a lazy heap for the pairs counted at least ``threshold`` times, and
    the rest *waiting* (indexes only). Counts only fall, so a waiting pair never has to be looked at
    before the best count in the heap drops below ``threshold``; then the threshold is lowered and
    the waiting pairs that reach it join the heap. Most pairs made never come near the top, so most
    never cost a heap entry."""

    def __init__(self, order: PairOrder, min_count: int) -> None:
        self.order = order
        self.min_count = min_count
        self.heap: list = []
        self.threshold = min_count
        # Waiting pairs' indexes and first windows, in parts (one per round and per lowering).
        nothing = np.zeros(0, dtype=np.int64)
        self.waiting: list[tuple[np.ndarray, np.ndarray]] = [(nothing, nothing)]


def _push_pairs(queue: Queue, corpus: Corpus, indexes: np.ndarray, where: np.ndarray) -> None:
    """Put pairs into the heap (those counted ``threshold`` times or more) or the waiting list."""
    counts = corpus.counts[indexes]
    waiting = (counts < queue.threshold) & (counts >= queue.min_count)
    if waiting.any():
        queue.waiting.append((indexes[waiting], where[waiting]))
    now = counts >= queue.threshold
    if not now.any():
        return
    indexes, where, counts = indexes[now], where[now], counts[now]
    codes = corpus.codes[indexes]
    keys = _key_of(queue.order, corpus, codes >> 32, codes & _INDEX_MASK, where)
    if isinstance(keys[0], int):
        entries: list = [
            ((_COUNT_CEILING - count) << _KEY_BITS | key) << _INDEX_BITS | index
            for count, key, index in zip(counts.tolist(), keys, indexes.tolist(), strict=True)
        ]
    else:
        entries = [
            (_COUNT_CEILING - count, key, index)
            for count, key, index in zip(counts.tolist(), keys, indexes.tolist(), strict=True)
        ]
    heap = queue.heap
    if len(entries) > len(heap):
        # Entries are distinct (each holds its pair's index), so the heap's shape never changes the order.
        heap.extend(entries)
        heapq.heapify(heap)
    else:
        for entry in entries:
            heapq.heappush(heap, entry)


def _start_queue(corpus: Corpus, order: PairOrder, min_count: int) -> Queue:
    queue = Queue(order, min_count)
    live = np.flatnonzero(corpus.counts[: corpus.pairs_made] >= min_count)
    if len(live):
        # For first-seen, the first indexed window of each byte pair: at or before its first counted
        # one (an entry may be early, never late; it is checked when it reaches the top).
        where = corpus.pair_positions[corpus.pair_starts[live]]
        # Half the best count first: the pairs below it wait instead of costing a heap entry each.
        queue.threshold = max(min_count, int(corpus.counts[live].max()) // 2)
        _push_pairs(queue, corpus, live, where)
    return queue


def _lower_threshold(queue: Queue, corpus: Corpus, best: int) -> bool:
    """Lower the threshold to three quarters of the best count anywhere; False when no pair is left.

    Any threshold from ``min_count`` up to the best count is correct (the heap then holds every pair
    that could win); three quarters only sets how often the waiting pairs are looked through.
    """
    waiting_indexes = np.concatenate([indexes for indexes, _ in queue.waiting])
    waiting_where = np.concatenate([where for _, where in queue.waiting])
    current = corpus.counts[waiting_indexes]
    top = max(best, int(current.max()) if len(current) else 0)
    if top < queue.min_count:
        return False
    queue.threshold = max(queue.min_count, top * 3 // 4)
    keep = (current < queue.threshold) & (current >= queue.min_count)
    queue.waiting = [(waiting_indexes[keep], waiting_where[keep])]
    joining = current >= queue.threshold
    if joining.any():
        _push_pairs(queue, corpus, waiting_indexes[joining], waiting_where[joining])
    return True


def _split(code: int) -> tuple[int, int]:
    return code >> 32, code & _INDEX_MASK


def _holding(corpus: Corpus, token: int) -> np.ndarray:
    """Positions still holding rule id ``token``, pruning the stored list as a side effect."""
    rank = token - corpus.first_rule_id
    positions = corpus.made_at[rank]
    positions = positions[corpus.tokens[positions] == token]
    corpus.made_at[rank] = positions
    return positions


def _before(corpus: Corpus, positions: np.ndarray) -> np.ndarray:
    """The start of the token before each of ``positions``, or -1 after a separator.

    A byte ``v < 0`` before a start is a back link ``-3 - start`` or the separator ``-2``, for which
    the same formula gives -1.
    """
    previous = corpus.tokens[positions - 1]
    return np.where(previous >= 0, positions - 1, _BACK_LINK - previous)


def _windows(corpus: Corpus, first: int, second: int) -> np.ndarray:
    """Start positions of every current window of ``(first, second)``, in order (overlapping ones too)."""
    tokens = corpus.tokens
    if first < BYTE_COUNT and second < BYTE_COUNT:
        start, end = corpus.pair_bounds[first << 8 | second]  # the pair was counted, so it has a group
        candidates = corpus.pair_positions[start:end]
        candidates = candidates[tokens[candidates] == first]
    elif first >= corpus.first_rule_id and (
        second < BYTE_COUNT
        or len(corpus.made_at[first - corpus.first_rule_id]) <= len(corpus.made_at[second - corpus.first_rule_id])
    ):
        candidates = _holding(corpus, first)
    else:
        candidates = _before(corpus, _holding(corpus, second))  # -1 reads the final separator
        candidates = candidates[tokens[candidates] == first]
    # Python ints keep int32 arrays int32 (a numpy int64 scalar would widen every temporary).
    return candidates[tokens[candidates + int(corpus.lengths[first])] == second]


def _merged_windows(corpus: Corpus, first: int, second: int) -> np.ndarray:
    """The windows the literal left-to-right scan merges: in a run of one token, every other one."""
    starts = _windows(corpus, first, second)
    if first != second or len(starts) < 2:
        return starts
    chained = np.zeros(len(starts), dtype=bool)
    chained[1:] = starts[:-1] + int(corpus.lengths[first]) == starts[1:]
    if not chained.any():
        return starts
    index = np.arange(len(starts), dtype=np.int32)
    chain_start = np.maximum.accumulate(np.where(chained, 0, index))
    return starts[(index - chain_start) % 2 == 0]


def _weights_at(corpus: Corpus, positions: np.ndarray) -> np.ndarray | None:
    if corpus.weights is None:
        return None
    separators, weights = corpus.weights
    return weights[np.searchsorted(separators, positions)]


def _new_pairs(corpus: Corpus, others: np.ndarray, where: np.ndarray, weights, new_id: int) -> tuple:
    """Make the distinct new pairs of the windows starting at ``where``: ``others`` holds the other token
    of each, ``t`` for ``(t, new_id)`` and ``new_id + 1 + t`` for ``(new_id, t)``.

    Returns each window's pair index, and the index and first window of each distinct pair.
    """
    # The distinct values without sorting: after the scatter, each value's slot names exactly one of
    # the windows holding it (whichever write won), so that window stands for the value. A pair's
    # index orders nothing (heap keys are distinct before it), so the values need no order.
    corpus.scratch = _grown(corpus.scratch, 2 * new_id + 2)
    scratch = corpus.scratch
    window_numbers = np.arange(len(others), dtype=np.int32)
    scratch[others] = window_numbers
    distinct = others[scratch[others] == window_numbers]
    del window_numbers
    base = corpus.pairs_made
    made = len(distinct)
    scratch[distinct] = np.arange(made, dtype=np.int32)
    slot = scratch[others]
    totals = np.bincount(slot, weights=weights, minlength=made)
    if weights is not None:
        totals = totals.astype(np.int64)
    corpus.pairs_made += made
    corpus.counts = _grown(corpus.counts, corpus.pairs_made)
    corpus.codes = _grown(corpus.codes, corpus.pairs_made)
    corpus.counts[base : corpus.pairs_made] = totals
    distinct = distinct.astype(np.int64)
    on_right = distinct > new_id
    corpus.codes[base : corpus.pairs_made] = np.where(
        on_right, new_id << 32 | (distinct - new_id - 1), distinct << 32 | new_id
    )
    indexes = base + np.arange(made, dtype=np.int64)
    if not corpus.first_seen:
        return base + slot, indexes, indexes  # the first windows matter only to first-seen
    firsts = np.full(made, _INDEX_MASK, dtype=np.int64)
    np.minimum.at(firsts, slot.astype(np.intp), where)
    return base + slot, indexes, firsts


def _merge_round(corpus: Corpus, first: int, second: int, new_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Merge every occurrence at once; update counts and window pairs; return the new pairs made
    (their indexes and first windows).

    With ``p`` an occurrence's start, ``q`` its second token, ``l`` and ``r`` the neighbours: the
    windows ``(l, p)``, ``(p, q)`` and ``(q, r)`` are destroyed and ``(l, new)`` and ``(new, r)``
    created. When occurrences touch (``r`` of one is ``p`` of the next) the window between them is
    the same one seen from both sides, so it is taken once, as the left window of the later
    occurrence, whose new left neighbour is the earlier occurrence, now holding the new id.
    """
    tokens, window_pair = corpus.tokens, corpus.window_pair
    starts = _merged_windows(corpus, first, second)
    partners = starts + int(corpus.lengths[first])
    rights = partners + int(corpus.lengths[second])
    lefts = _before(corpus, starts)
    touching_next = np.zeros(len(starts), dtype=bool)
    touching_next[:-1] = rights[:-1] == starts[1:]
    has_left = lefts >= 0
    has_right = tokens[rights] != SEPARATOR
    has_right &= ~touching_next
    weights = _weights_at(corpus, starts)
    side_weights = None if weights is None else np.concatenate((weights[has_left], weights[has_right]))
    del weights
    # Destroyed: the left windows (a touching one is the previous occurrence's right window), the
    # right windows not shared with the next occurrence, and the merged windows themselves.
    # ufunc.at is many times faster with native-width indexes than with int32 ones.
    if side_weights is None:
        np.subtract.at(corpus.counts, window_pair[lefts[has_left]].astype(np.intp), 1)
        np.subtract.at(corpus.counts, window_pair[partners[has_right]].astype(np.intp), 1)
    else:
        destroyed = np.concatenate((window_pair[lefts[has_left]], window_pair[partners[has_right]]))
        np.subtract.at(corpus.counts, destroyed.astype(np.intp), side_weights)
        del destroyed
    corpus.counts[window_pair[starts[0]]] = 0
    # The windows made, as (other token, where): (l, new) at l, or at the earlier occurrence when
    # the two touch; (new, r) at p. Big rounds hold millions of windows, so arrays go as soon as
    # they are used (this round is the engine's peak on a large corpus).
    left_tokens = tokens[lefts]
    if touching_next.any():
        touching_previous = np.zeros_like(touching_next)
        touching_previous[1:] = touching_next[:-1]
        # The occurrence before (np.roll's wrap-around value at 0 is never taken: nothing touches the first).
        lefts = np.where(touching_previous, np.roll(starts, 1), lefts)
        left_tokens[touching_previous] = new_id
        del touching_previous
    right_tokens = tokens[rights[has_right]]
    right_tokens += new_id + 1
    others = np.concatenate((left_tokens[has_left], right_tokens))
    del left_tokens, right_tokens
    where = np.concatenate((lefts[has_left], starts[has_right]))
    del lefts, has_left, has_right, touching_next
    tokens[partners] = GONE
    tokens[rights - 1] = _BACK_LINK - starts
    tokens[starts] = new_id
    del partners, rights
    corpus.made_at.append(starts)
    slots, indexes, firsts = _new_pairs(corpus, others, where, side_weights, new_id)
    window_pair[where] = slots
    return indexes, firsts


def _first_window(corpus: Corpus, index: int) -> int:
    return int(_windows(corpus, *_split(int(corpus.codes[index])))[0])


def _pop_valid(queue: Queue, corpus: Corpus) -> tuple[object, int, int] | None:
    """The heap's best entry whose count (and, for first-seen, first window) is current, with its
    index and count; out-of-date entries are dropped or pushed back with their current values."""
    counts, heap, first_seen = corpus.counts, queue.heap, queue.order.kind == "first-seen"
    while heap:
        entry = heapq.heappop(heap)
        if isinstance(entry, int):
            count = _COUNT_CEILING - (entry >> (_KEY_BITS + _INDEX_BITS))
            key: object = entry >> _INDEX_BITS & ((1 << _KEY_BITS) - 1)
            index = entry & _INDEX_MASK
        else:
            count, key, index = _COUNT_CEILING - entry[0], entry[1], entry[2]
        current = int(counts[index])
        if current < queue.min_count:
            continue
        current_key = _first_window(corpus, index) if first_seen else key
        if current == count and current_key == key:
            return entry, index, count
        _push_pairs_now(queue, current, current_key, index)
    return None


def _push_pairs_now(queue: Queue, count: int, key, index: int) -> None:
    if isinstance(key, int):
        heapq.heappush(queue.heap, ((_COUNT_CEILING - count) << _KEY_BITS | key) << _INDEX_BITS | index)
    else:
        heapq.heappush(queue.heap, (_COUNT_CEILING - count, key, index))


def _pop_best(queue: Queue, corpus: Corpus) -> int | None:
    """The index of the pair to merge next, or ``None`` when no pair reaches ``min_count``.

    The heap holds every pair counted ``threshold`` times or more, so a best entry at or above the
    threshold is the best of all; below it, a waiting pair might beat it, so the threshold comes
    down first.
    """
    while True:
        found = _pop_valid(queue, corpus)
        if found is not None and found[2] >= queue.threshold:
            return found[1]
        if found is not None:
            heapq.heappush(queue.heap, found[0])  # still current: back in place
        if not _lower_threshold(queue, corpus, 0 if found is None else found[2]):
            return None


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
    """The numpy engine over distinct byte sequences counted with their multiplicities."""
    if not sequences or max_merges == 0:
        return []
    order = PairOrder() if order is None else order
    corpus = build_corpus(*unfold_copies(sequences, multiplicities), first_rule_id)
    corpus.first_seen = order.kind == "first-seen"
    if order.kind == "pieces":
        corpus.pieces = [bytes([value]) for value in range(BYTE_COUNT)] + [b""] * (first_rule_id - BYTE_COUNT)
        corpus.piece_keys = [_descending(piece) for piece in corpus.pieces]
    queue = _start_queue(corpus, order, min_count)
    rules: Rules = []
    for rank in range(max_merges):
        best = _pop_best(queue, corpus)
        if best is None:
            break
        first, second = _split(int(corpus.codes[best]))
        new_id = first_rule_id + rank
        corpus.lengths = _grown(corpus.lengths, new_id + 1)
        corpus.lengths[new_id] = corpus.lengths[first] + corpus.lengths[second]
        if order.kind == "pieces":
            corpus.pieces.append(corpus.pieces[first] + corpus.pieces[second])
            corpus.piece_keys.append(_descending(corpus.pieces[-1]))
        _push_pairs(queue, corpus, *_merge_round(corpus, first, second, new_id))
        rules.append((first, second))
        if progress is not None:
            progress(len(rules))
    return rules
