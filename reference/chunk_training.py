"""Training behind a split pattern: pairs are counted inside chunks only, never across one.

A pre-tokenizing trainer (rustbpe's default pattern, HF ``ByteLevel`` with its regex, minbpe's
``RegexTokenizer``) splits each document with the pattern of a production profile
(:mod:`bpe_conformance.reference.pretokenization`) and trains on the chunks as if each were a document
of its own; everything else (tie-break, stop rule, numbering, documents joined or not) is the dialect
profile's (:mod:`bpe_conformance.reference.profiles`).

:func:`train_chunks_literal` is that sentence as code: every chunk occurrence is a sequence, recounted
from scratch each round. :func:`train_chunks_fast` is the word-count engine real trainers use: each
distinct chunk once, with its frequency, so memory follows the table of distinct chunks, not the corpus.
``tests/reference/test_chunk_training.py`` proves the two equal, first-seen ties included.

>>> from bpe_conformance.reference.pretokenization import CL100K
>>> from bpe_conformance.reference.profiles import RUSTBPE
>>> train_chunks_literal(["ab ab ab"], 2, RUSTBPE, CL100K)  # chunks "ab", " ab", " ab": never "b" + " "
[(97, 98), (32, 256)]
>>> train_chunks_fast(["ab ab ab"], 2, RUSTBPE, CL100K)
[(97, 98), (32, 256)]
"""

from __future__ import annotations

import heapq
from itertools import pairwise
from typing import TYPE_CHECKING

from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.dialects import hf_order_key, profile_pieces, select_profile_pair
from bpe_conformance.reference.pretokenization import SplitProfile, split_text
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.validation import check_documents, check_max_merges, check_text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from bpe_conformance.reference.profiles import Profile

__all__ = ["chunk_counts", "train_chunks_fast", "train_chunks_literal"]

Pair = tuple[int, int]
# Stale heap entries tolerated beyond the live pairs before the word-count engine rebuilds its heap.
_HEAP_SLACK = 4096


def _texts(documents: list[str], profile: Profile) -> list[str]:
    check_documents(documents)
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    return [profile.document_separator.join(documents)] if profile.documents == "concatenated" else list(documents)


def train_chunks_literal(documents: list[str], max_merges: int, profile: Profile, split: SplitProfile) -> list[Pair]:
    """Every chunk occurrence is a sequence; each round counts them all, picks, and replaces in each."""
    rounds = check_max_merges(max_merges)
    sequences = [list(chunk.encode()) for text in _texts(documents, profile) for chunk in split_text(text, split)]
    pieces = profile_pieces([], profile)
    rules: list[Pair] = []
    for rank in range(rounds):
        pair = select_profile_pair(count_pairs(sequences), pieces, profile)
        if pair is None:
            break
        new_id = profile.first_rule_id + rank
        sequences = [replace_pair(sequence, pair, new_id) for sequence in sequences]
        rules.append(pair)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
    return rules


def chunk_counts(documents: Iterable[str], profile: Profile, split: SplitProfile) -> dict[bytes, int]:
    """Each distinct chunk and how often it occurs, in order of first occurrence.

    ``documents`` is consumed one at a time (a generator reading a corpus file by file is the intended
    argument), so memory follows the table of distinct chunks, not the corpus. Only a ``concatenated``
    profile must see the whole text at once: its chunks may run from one document into the next.
    """
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    if isinstance(documents, (str, bytes)):
        check_documents(documents)  # the one-line TypeError a single unwrapped document gets everywhere
    texts: Iterable[str] = _texts(list(documents), profile) if profile.documents == "concatenated" else documents
    counts: dict[bytes, int] = {}
    for index, text in enumerate(texts):
        check_text(text, f"document {index}")
        for chunk in split_text(text, split):
            data = chunk.encode()
            counts[data] = counts.get(data, 0) + 1
    return counts


class _Descending:
    """A heap key that orders ``value`` from the largest down (for the tie rules that pick a maximum)."""

    __slots__ = ("value",)

    def __init__(self, value: tuple[object, ...]) -> None:
        self.value = value

    def __lt__(self, other: _Descending) -> bool:
        return self.value > other.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and self.value == other.value

    __hash__ = None  # type: ignore[assignment]


def _tie_key(profile: Profile, pieces: list[bytes]) -> Callable[[Pair], object] | None:
    """The heap key under which the profile's tie rule picks the smallest; None for first-seen (no fixed key).

    Each key sorts exactly as the profile's function in :data:`TIE_BREAK_FUNCTIONS` chooses; the pieces
    a key reads never change once their id exists, so an entry's key stays right while it waits.
    """
    rule = profile.tie_break
    if rule == "smallest-ids":
        return lambda pair: pair
    if rule == "largest-ids":
        return lambda pair: (-pair[0], -pair[1])
    if rule == "smallest-hf-ids":
        return lambda pair: (hf_order_key(pair[0]), hf_order_key(pair[1]))
    if rule == "smallest-string-key":
        return lambda pair: f"{pair[0]},{pair[1]}"
    if rule == "largest-pieces":
        return lambda pair: _Descending((pieces[pair[0]], pieces[pair[1]], pair))
    if rule == "first-seen":
        return None
    raise ValueError(f"profile {profile.name!r}: no word-count tie key for tie_break {rule!r}")


def train_chunks_fast(
    documents: Iterable[str],
    max_merges: int,
    profile: Profile,
    split: SplitProfile,
    progress: Callable[[int], None] | None = None,
) -> list[Pair]:
    """Word-count BPE: distinct chunks with frequencies, pair counts updated only where a merge happened.

    The design of rustbpe's and HF's trainers: each distinct chunk once (a *word*) with its frequency;
    ``counts`` holds every pair's count over the words times their frequencies, ``holders`` the words
    that hold each pair. A merge rewrites only the words holding its pair and changes the counts of the
    pairs around it. The best pair comes from a lazy max-heap of ``(count, tie key, pair)`` entries: an
    entry pushed whenever a pair's count changes, a popped entry whose count is no longer the pair's
    count skipped. Under ``first-seen`` no fixed key exists (the first place of a pair moves as words
    change), so every pair tied at the top count is popped and the one whose first occurrence comes
    first wins, from ``holders``: exact, but slower when many pairs tie. When stale entries outnumber
    the live pairs the heap is rebuilt from ``counts``, so it stays within a small multiple of them.
    ``progress`` is called with the number of rules made after each one.
    ``tests/reference/test_chunk_training.py`` proves the engine equal to :func:`train_chunks_literal`
    under every tie rule.
    """
    rounds = check_max_merges(max_merges)
    counted = chunk_counts(documents, profile, split)
    words = [list(chunk) for chunk in counted]
    frequencies = list(counted.values())
    del counted
    pieces = profile_pieces([], profile)
    key = _tie_key(profile, pieces)
    counts: dict[Pair, int] = {}
    holders: dict[Pair, set[int]] = {}
    for index, word in enumerate(words):
        frequency = frequencies[index]
        for pair in pairwise(word):
            counts[pair] = counts.get(pair, 0) + frequency
            holders.setdefault(pair, set()).add(index)

    def entries() -> list[tuple[int, object, Pair]]:
        live = [(-count, key(pair) if key is not None else 0, pair) for pair, count in counts.items()]
        heapq.heapify(live)
        return live

    def push(pair: Pair, count: int) -> None:
        heapq.heappush(heap, (-count, key(pair) if key is not None else 0, pair))

    heap = entries()
    rules: list[Pair] = []
    for rank in range(rounds):
        chosen = _pop_best(heap, counts, holders, words, profile, first_seen=key is None)
        if chosen is None:
            break
        new_id = profile.first_rule_id + rank
        pieces.append(pieces[chosen[0]] + pieces[chosen[1]])  # before any key of a pair holding new_id
        changed: dict[Pair, int] = {}
        for index in holders.pop(chosen, ()):
            old = words[index]
            new = replace_pair(old, chosen, new_id)
            words[index] = new
            frequency = frequencies[index]
            old_pairs = list(pairwise(old))
            new_pairs = list(pairwise(new))
            for pair in old_pairs:
                changed[pair] = changed.get(pair, 0) - frequency
            for pair in new_pairs:
                changed[pair] = changed.get(pair, 0) + frequency
            for pair in set(old_pairs).difference(new_pairs):
                if pair != chosen:
                    holders[pair].discard(index)
            for pair in set(new_pairs).difference(old_pairs):
                holders.setdefault(pair, set()).add(index)
        for pair, delta in changed.items():
            if delta:
                count = counts.get(pair, 0) + delta
                if count > 0:
                    counts[pair] = count
                    push(pair, count)
                else:
                    counts.pop(pair, None)
                    holders.pop(pair, None)
        counts.pop(chosen, None)
        if len(heap) > 2 * len(counts) + _HEAP_SLACK:
            heap[:] = entries()  # mostly stale entries: rebuilt from the counts, so memory follows the live pairs
        rules.append(chosen)
        if progress is not None:
            progress(rank + 1)
    return rules


def _pop_best(
    heap: list[tuple[int, object, Pair]],
    counts: dict[Pair, int],
    holders: dict[Pair, set[int]],
    words: list[list[int]],
    profile: Profile,
    *,
    first_seen: bool,
) -> Pair | None:
    """The pair the profile selects now (its entry taken off the heap), or None when none reaches min_count."""
    while heap:
        negative, _, pair = heap[0]
        if counts.get(pair) != -negative:
            heapq.heappop(heap)  # stale: the pair's count changed since this entry was pushed
            continue
        if -negative < profile.min_count:
            return None
        if not first_seen:
            heapq.heappop(heap)
            return pair
        tied: set[Pair] = set()
        while heap and heap[0][0] == negative:
            _, _, candidate = heapq.heappop(heap)
            if counts.get(candidate) == -negative:
                tied.add(candidate)
        best = min(tied, key=lambda candidate: _first_place(candidate, holders, words))
        for other in tied:
            if other != best:
                heapq.heappush(heap, (negative, 0, other))
        return best
    return None


def _first_place(pair: Pair, holders: dict[Pair, set[int]], words: list[list[int]]) -> tuple[int, int]:
    # The first occurrence of a pair: the first distinct chunk (in order of first occurrence) holding it,
    # at the first position there, which is where the literal count meets it first.
    index = min(holders[pair])
    word = words[index]
    return index, next(p for p in range(len(word) - 1) if (word[p], word[p + 1]) == pair)
