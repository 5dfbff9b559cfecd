"""Fast-engine behaviour that no other test pinned down, found by mutation testing (docs/mutation.md).

The fast engines (incremental trainer, numpy rounds, heap encoder) must equal the literal reference
on every input; each test here is a small input on which a plausible slip in an engine would differ,
and names the clause the difference would break.
"""

from __future__ import annotations

import heapq

import pytest

from reference import fast_encoding, train
from reference.fast_counts import _STALE_FACTOR, _STALE_FLOOR, apply_changes, heap_entry, pair_code, start_heap
from reference.fast_encoding import MergeTable, fast_encode, fast_encode_bytes
from reference.fast_training import fast_train, numpy_available

NEEDS_NUMPY = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")
ENGINES = ["python", pytest.param("numpy", marks=NEEDS_NUMPY)]

# --- the numpy engine's arrays (reference.fast_training_numpy) ----------------------------------


@NEEDS_NUMPY
def test_numpy_arrays_are_int32_links_ending_in_a_sentinel() -> None:
    """The numpy engine's documented layout: "Positions, links and ids are int32; the last position is
    the sentinel": "no neighbour" points at position ``size``, whose token is -1 (so it matches no pair),
    and the byte-pair index holds every window's 16-bit pair, sorted by pair, in document order within a
    pair. The int32 layout is what ``MAX_CORPUS_BYTES`` is derived from. Only windows inside a document
    are counted (BPE-TRAIN-DOCS).
    """
    import numpy as np

    from reference.fast_training_numpy import link_arrays

    arrays, counts = link_arrays([b"bab", b"ab"], [1, 1])  # 5 bytes: b a b | a b
    for array in (arrays.tokens, arrays.following, arrays.preceding, arrays.byte_pair_positions):
        assert array.dtype == np.int32
    assert arrays.byte_pairs_sorted.dtype == np.uint16
    assert arrays.sentinel == 5
    assert arrays.tokens.tolist() == [98, 97, 98, 97, 98, -1]
    assert arrays.following.tolist() == [1, 2, 5, 4, 5, 5]
    assert arrays.preceding.tolist() == [5, 0, 1, 5, 3, 5]
    assert arrays.byte_pair_positions.tolist() == [1, 3, 0, 2]  # (a, b) at 1 and 3, then (b, a) at 0 and 2
    assert arrays.byte_pairs_sorted.tolist() == [0x6162, 0x6162, 0x6261, 0x6261]
    assert counts == {pair_code(97, 98): 2, pair_code(98, 97): 1}  # the (b, a) across the boundary is not counted


@NEEDS_NUMPY
def test_numpy_arrays_keep_document_weights_only_when_a_document_repeats() -> None:
    """Documented on ``LinkedArrays``: where each document ends and its count are "set only when some
    document occurs more than once"; otherwise every window weighs one. A repeated document's windows
    count once per copy (BPE-TRAIN-DOCS).
    """
    from reference.fast_training_numpy import link_arrays

    single, single_counts = link_arrays([b"ab", b"cd"], [1, 1])
    assert single.repeated_documents is None
    assert single_counts == {pair_code(97, 98): 1, pair_code(99, 100): 1}
    repeated, repeated_counts = link_arrays([b"ab", b"cd"], [1, 3])
    assert repeated.repeated_documents is not None
    ends, weights = repeated.repeated_documents
    assert ends.tolist() == [2, 4] and weights.tolist() == [1, 3]
    assert repeated_counts == {pair_code(97, 98): 1, pair_code(99, 100): 3}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_byte_absorbed_by_a_merge_never_starts_a_later_window(engine: str) -> None:
    """BPE-MERGE-SCAN / BPE-TRAIN-RECOUNT: once ``\\x01`` is the second half of a merged ``(0, 1)`` it
    is gone; when ``(1, 2)`` is merged next, only the free ``\\x01\\x02`` documents hold it. An engine
    that leaves the absorbed byte looking like ``\\x01`` merges it with the ``\\x02`` after it too.

    Counts: ``(0, 1)`` 5, ``(1, 2)`` 4 -> merge ``(0, 1)``; then ``(1, 2)`` and ``(258, 2)`` both 2, the
    tie goes to ``(1, 2)`` (BPE-TRAIN-TIE); then ``(258, 2)`` 2; then nothing is seen twice.
    """
    docs = ["\x00\x01"] * 3 + ["\x00\x01\x02"] * 2 + ["\x01\x02"] * 2
    expected = [(0, 1), (1, 2), (258, 2)]
    assert train(docs, 10) == expected
    assert fast_train(docs, 10, engine=engine) == expected


# --- the shared pair counts (reference.fast_counts) ---------------------------------------------


def test_the_heap_is_rebuilt_only_once_it_passes_the_documented_bound() -> None:
    """``apply_changes`` rebuilds the heap from the counts once it holds more than ``_STALE_FACTOR``
    entries per counted pair plus ``_STALE_FLOOR``, and not before: a rebuild is a pass over every
    pair, so rebuilding sooner would make a round cost the number of pairs instead of the number of
    occurrences it merges (the fast trainers' documented cost). Either way the heap answers the same
    (BPE-TRAIN-GREEDY, BPE-TRAIN-TIE).
    """
    counts = {pair_code(97, 98): 5, pair_code(97, 99): 3}
    bound = _STALE_FACTOR * len(counts) + _STALE_FLOOR
    heap = start_heap(counts)
    for stale in range(bound - len(heap)):
        heapq.heappush(heap, heap_entry(1000 + stale, pair_code(97, 98)))
    nothing_merged = pair_code(120, 120)
    apply_changes(counts, heap, [], nothing_merged)
    assert len(heap) == bound  # at the bound: kept, stale entries and all
    heapq.heappush(heap, heap_entry(999, pair_code(97, 99)))
    apply_changes(counts, heap, [], nothing_merged)
    assert sorted(heap) == sorted(start_heap(counts))  # past it: rebuilt to the live pairs


# --- the heap encoder (reference.fast_encoding) -------------------------------------------------


def test_a_prepared_merge_table_is_used_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    """``fast_encode``: "pass a MergeTable to reuse it". A table validates and indexes its rules once,
    when it is built; encoding with it neither validates nor rebuilds them again, and gives the
    literal ids (BPE-ENCODE-ORDER): ``abcab`` -> ``[258, 99, 258]`` -> ``[259, 258]``.
    """
    table = MergeTable([(97, 98), (258, 99)])

    def validated_again(rules: object) -> list[tuple[int, int]]:
        raise AssertionError(f"the rules of a prepared table were validated again: {rules!r}")

    monkeypatch.setattr(fast_encoding, "check_rules", validated_again)
    assert fast_encode("abcab", table) == [259, 258]
    assert fast_encode_bytes(b"abcab", table) == [259, 258]
