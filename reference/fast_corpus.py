"""The numpy trainer's corpus: one token array, the windows' pairs and counts, and a round's merge.

The corpus is one integer array, ``tokens`` (int32, or native integers for a small corpus: see
:func:`bpe_conformance.reference.fast_training_numpy.index_type_for`; every position array shares
its type): the distinct sequences end to end, each followed by a separator (``SEPARATOR``), so no
window ever spans two sequences. A token covers the bytes of its
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
index, and ``codes`` holds each pair as ``first << 32 | second``. Only windows holding the new id
are created by a merge, and they are all of pairs never seen before (the id is new), so an existing
pair's count only ever falls (:mod:`bpe_conformance.reference.fast_pair_queue` relies on it).

Two indexes find a round's windows without a scan: windows of two bytes, sorted by pair once (a
merged pair never occurs again, so each pair's slice is read at most once), and, for a rule id,
the positions where it was made, pruned to those still holding it.
:func:`bpe_conformance.reference.fast_training_numpy.build_corpus` builds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bpe_conformance.reference.alphabet import BYTE_COUNT
from bpe_conformance.reference.fast_pair_queue import descending

__all__ = ["GONE", "SEPARATOR", "Corpus"]

GONE = -1
SEPARATOR = -2
_BACK_LINK = -3  # the last byte of a token of length >= 2 holds _BACK_LINK - start
_HALF_BITS = 32
_HALF_MASK = (1 << _HALF_BITS) - 1


def _grown(array: np.ndarray, needed: int) -> np.ndarray:
    if needed <= len(array):
        return array
    # A quarter more each time: the pair tables are the part of memory that grows during training.
    bigger = np.zeros(max(needed, len(array) + len(array) // 4), dtype=array.dtype)
    bigger[: len(array)] = array
    return bigger


def _no_positions() -> list[np.ndarray]:
    return []


@dataclass
class Corpus:
    """The training state: tokens, windows' pairs, counts, indexes and piece lengths."""

    tokens: np.ndarray
    window_pair: np.ndarray
    # Window positions sorted by byte pair; each byte pair's slice by its code ``a << 8 | b``, and
    # where each pair's group starts, by pair index.
    pair_positions: np.ndarray
    pair_bounds: dict[int, tuple[int, int]]
    pair_starts: np.ndarray
    counts: np.ndarray
    codes: np.ndarray
    first_rule_id: int
    # Set only when some sequence occurs more than once: where each ends, and its count.
    weights: tuple[np.ndarray, np.ndarray] | None
    # The first windows of new pairs are found only for first-seen; every id's piece and its descending
    # sort key are kept only for largest-pieces.
    first_seen: bool = False
    track_pieces: bool = False
    pairs_made: int = field(init=False)
    lengths: np.ndarray = field(init=False)
    scratch: np.ndarray = field(init=False)  # pair slots below 2**31
    made_at: list[np.ndarray] = field(default_factory=_no_positions)
    pieces: list[bytes] = field(init=False)
    piece_keys: list[bytes] = field(init=False)

    def __post_init__(self) -> None:
        self.pairs_made = len(self.codes)
        self.lengths = np.ones(self.first_rule_id, dtype=np.int64)
        self.scratch = np.zeros(self.first_rule_id, dtype=self.tokens.dtype)
        self.pieces, self.piece_keys = [], []
        if self.track_pieces:
            self.pieces = [bytes([value]) for value in range(BYTE_COUNT)]
            self.pieces += [b""] * (self.first_rule_id - BYTE_COUNT)
            self.piece_keys = [descending(piece) for piece in self.pieces]

    def pair_of(self, index: int) -> tuple[int, int]:
        """The two tokens of pair ``index``."""
        code = int(self.codes[index])
        return code >> _HALF_BITS, code & _HALF_MASK

    def pair_halves(self, indexes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The first and second tokens of each pair of ``indexes``."""
        codes = self.codes[indexes]
        return codes >> _HALF_BITS, codes & _HALF_MASK

    def add_rule(self, first: int, second: int, new_id: int) -> None:
        """Record the length (and piece, when kept) of ``new_id``, made of ``first`` and ``second``."""
        self.lengths = _grown(self.lengths, new_id + 1)
        self.lengths[new_id] = self.lengths[first] + self.lengths[second]
        if self.track_pieces:
            self.pieces.append(self.pieces[first] + self.pieces[second])
            self.piece_keys.append(descending(self.pieces[-1]))

    def first_window(self, index: int) -> int:
        """Where the first current window of pair ``index`` starts."""
        return int(self.windows(*self.pair_of(index))[0])

    def holding(self, token: int) -> np.ndarray:
        """Positions still holding rule id ``token``, pruning the stored list as a side effect."""
        rank = token - self.first_rule_id
        positions = self.made_at[rank]
        positions = positions[self.tokens[positions] == token]
        self.made_at[rank] = positions
        held: np.ndarray = positions
        return held

    def before(self, positions: np.ndarray) -> np.ndarray:
        """The start of the token before each of ``positions``, or -1 after a separator.

        A byte ``v < 0`` before a start is a back link ``-3 - start`` or the separator ``-2``, for which
        the same formula gives -1.
        """
        previous = self.tokens[positions - 1]
        return np.where(previous >= 0, positions - 1, _BACK_LINK - previous)

    def windows(self, first: int, second: int) -> np.ndarray:
        """Start positions of every current window of ``(first, second)``, in order (overlapping ones too)."""
        tokens = self.tokens
        if first < BYTE_COUNT and second < BYTE_COUNT:
            start, end = self.pair_bounds[first << 8 | second]  # the pair was counted, so it has a group
            candidates = self.pair_positions[start:end]
            candidates = candidates[tokens[candidates] == first]
        elif first >= self.first_rule_id and (
            second < BYTE_COUNT
            or len(self.made_at[first - self.first_rule_id]) <= len(self.made_at[second - self.first_rule_id])
        ):
            candidates = self.holding(first)
        else:
            candidates = self.before(self.holding(second))  # -1 reads the final separator
            candidates = candidates[tokens[candidates] == first]
        # Python ints keep int32 arrays int32 (a numpy int64 scalar would widen every temporary).
        found: np.ndarray = candidates[tokens[candidates + int(self.lengths[first])] == second]
        return found

    def merged_windows(self, first: int, second: int) -> np.ndarray:
        """The windows the literal left-to-right scan merges: in a run of one token, every other one."""
        starts = self.windows(first, second)
        if first != second or len(starts) < 2:
            return starts
        chained = np.zeros(len(starts), dtype=bool)
        chained[1:] = starts[:-1] + int(self.lengths[first]) == starts[1:]
        if not chained.any():
            return starts
        index = np.arange(len(starts), dtype=starts.dtype)
        chain_start = np.maximum.accumulate(np.where(chained, 0, index))
        kept: np.ndarray = starts[(index - chain_start) % 2 == 0]
        return kept

    def _weights_at(self, positions: np.ndarray) -> np.ndarray | None:
        if self.weights is None:
            return None
        separators, weights = self.weights
        return weights[np.searchsorted(separators, positions)]

    def _new_pairs(
        self, others: np.ndarray, where: np.ndarray, weights: np.ndarray | None, new_id: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Make the distinct new pairs of the windows starting at ``where``: ``others`` holds the other token
        of each, ``t`` for ``(t, new_id)`` and ``new_id + 1 + t`` for ``(new_id, t)``.

        Returns each window's pair index, and the index and first window of each distinct pair.
        """
        # The distinct values by tallying them (they are below 2 * new_id + 2, so the tally is small next
        # to the corpus): the values in increasing order, numbered 0, 1, ... through the scratch table.
        # A pair's index orders nothing (heap keys are distinct before it), so any numbering would do.
        self.scratch = _grown(self.scratch, 2 * new_id + 2)
        scratch = self.scratch
        tally = np.bincount(others, weights=weights)
        distinct = np.flatnonzero(tally)
        base = self.pairs_made
        made = len(distinct)
        scratch[distinct] = np.arange(made, dtype=scratch.dtype)
        slot = scratch[others]
        totals = tally[distinct]
        if weights is not None:
            totals = totals.astype(np.int64)
        self.pairs_made += made
        self.counts = _grown(self.counts, self.pairs_made)
        self.codes = _grown(self.codes, self.pairs_made)
        self.counts[base : self.pairs_made] = totals
        # The values are in increasing order: first the pairs (t, new_id), then the pairs (new_id, t).
        codes = self.codes[base : self.pairs_made]
        on_left = int(np.searchsorted(distinct, new_id, side="right"))
        codes[:on_left] = distinct[:on_left] << _HALF_BITS
        codes[:on_left] |= new_id
        codes[on_left:] = distinct[on_left:] + ((new_id << _HALF_BITS) - new_id - 1)
        indexes = np.arange(base, self.pairs_made, dtype=np.int64)
        if not self.first_seen:
            return base + slot, indexes, indexes  # the first windows matter only to first-seen
        firsts = np.full(made, _HALF_MASK, dtype=np.int64)
        np.minimum.at(firsts, slot.astype(np.intp), where)
        return base + slot, indexes, firsts

    def _destroy(self, window_starts: np.ndarray, weights: np.ndarray | None, part: slice) -> None:
        """Take the windows starting at ``window_starts`` off their pairs' counts, each once or, when
        ``weights`` is given, by its weight in ``weights[part]``."""
        # ufunc.at is many times faster with native-width indexes than with int32 ones.
        taken = 1 if weights is None else weights[part]
        np.subtract.at(self.counts, self.window_pair[window_starts].astype(np.intp, copy=False), taken)

    def merge_round(self, first: int, second: int, new_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Merge every occurrence at once; update counts and window pairs; return the new pairs made
        (their indexes and first windows).

        With ``p`` an occurrence's start, ``q`` its second token, ``l`` and ``r`` the neighbours: the
        windows ``(l, p)``, ``(p, q)`` and ``(q, r)`` are destroyed and ``(l, new)`` and ``(new, r)``
        created. When occurrences touch (``r`` of one is ``p`` of the next) the window between them is
        the same one seen from both sides, so it is taken once, as the left window of the later
        occurrence, whose new left neighbour is the earlier occurrence, now holding the new id.
        """
        tokens, window_pair = self.tokens, self.window_pair
        starts = self.merged_windows(first, second)
        partners = starts + int(self.lengths[first])
        rights = partners + int(self.lengths[second])
        lefts = self.before(starts)
        touching_next = rights[:-1] == starts[1:]
        touching = bool(touching_next.any())
        has_left = lefts >= 0
        has_right = tokens[rights] != SEPARATOR
        if touching:
            has_right[:-1] &= ~touching_next
        weights = self._weights_at(starts)
        side_weights = None if weights is None else np.concatenate((weights[has_left], weights[has_right]))
        del weights
        # Destroyed: the left windows (a touching one is the previous occurrence's right window), the
        # right windows not shared with the next occurrence, and the merged windows themselves. One
        # side at a time: a big round holds millions of windows, so arrays go as soon as they are used
        # (this round is the engine's peak on a large corpus).
        left_starts = lefts[has_left]
        on_left = len(left_starts)
        self._destroy(left_starts, side_weights, slice(on_left))
        right_partners = partners[has_right]
        self._destroy(right_partners, side_weights, slice(on_left, None))
        del right_partners
        self.counts[window_pair[starts[0]]] = 0
        # The windows made, as (other token, where): (l, new) at l, or at the earlier occurrence when
        # the two touch; (new, r) at p.
        left_tokens = tokens[left_starts]
        if touching:
            touching_previous = np.zeros(len(starts), dtype=bool)
            touching_previous[1:] = touching_next
            # The occurrence before (np.roll's wrap-around value at 0 is never taken: nothing touches the first).
            left_starts = np.where(touching_previous, np.roll(starts, 1), lefts)[has_left]
            left_tokens[touching_previous[has_left]] = new_id
            del touching_previous
        del lefts, touching_next
        right_tokens = tokens[rights[has_right]]
        right_tokens += new_id + 1
        others = np.concatenate((left_tokens, right_tokens))
        del left_tokens, right_tokens
        where = np.concatenate((left_starts, starts[has_right]))
        del left_starts, has_left, has_right
        tokens[partners] = GONE
        del partners
        tokens[rights - 1] = _BACK_LINK - starts
        del rights
        tokens[starts] = new_id
        self.made_at.append(starts)
        slots, indexes, firsts = self._new_pairs(others, where, side_weights, new_id)
        window_pair[where] = slots
        return indexes, firsts
