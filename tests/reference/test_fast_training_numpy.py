"""reference/fast_training_numpy.py: the batched trainer's layout, queue and rounds, against the literal.

The differential and exhaustive tests of ``test_fast_engines.py`` run this engine on every corpus
they draw; these tests pin what its documentation promises (the layout, the back links, the
waiting list) and the corners that small corpora rarely reach.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import train
from bpe_conformance.reference.fast_counts import deduplicate
from bpe_conformance.reference.fast_training import fast_train, numpy_available
from bpe_conformance.reference.profiles import PROFILES, TIE_BREAKS, Profile

pytestmark = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed")


def _trained(documents: list[str], max_merges: int, **options: Any) -> list[tuple[int, int]]:
    from bpe_conformance.reference.fast_training_numpy import train_arrays

    distinct, multiplicities = deduplicate([document.encode() for document in documents])
    return train_arrays(distinct, multiplicities, max_merges, **options)


@pytest.mark.parametrize("native", [True, False])
def test_the_layout_is_one_token_array_with_a_separator_after_every_sequence(
    native: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documented: tokens end to end, each sequence followed by ``SEPARATOR``; the windows' pairs are
    indexed by pair index, byte pairs sorted by pair (document order within a pair), and only the
    windows inside a sequence are counted (BPE-TRAIN-DOCS). Every position array has the tokens'
    type: native integers up to ``NATIVE_INDEX_MAX_POSITIONS`` positions, int32 beyond."""
    import numpy as np

    from bpe_conformance.reference import fast_training_numpy
    from bpe_conformance.reference.fast_training_numpy import SEPARATOR, build_corpus

    monkeypatch.setattr(fast_training_numpy, "NATIVE_INDEX_MAX_POSITIONS", 7 if native else 6)
    corpus = build_corpus([b"bab", b"ab"], [1, 1])  # b a b | a b | (7 positions)
    expected = np.intp if native else np.int32
    for array in (corpus.tokens, corpus.window_pair, corpus.pair_positions, corpus.scratch):
        assert array.dtype == expected
    assert corpus.tokens.tolist() == [98, 97, 98, SEPARATOR, 97, 98, SEPARATOR]
    codes = corpus.codes[: corpus.pairs_made].tolist()
    counted = dict(zip(codes, corpus.counts[: corpus.pairs_made].tolist(), strict=True))
    # (b, 0) and (0, a) are the windows into and out of the separator (byte 0 in the index): never counted.
    assert counted == {97 << 32 | 98: 2, 98 << 32 | 97: 1, 98 << 32 | 0: 0, 0 << 32 | 97: 0}
    ab = codes.index(97 << 32 | 98)
    ba = codes.index(98 << 32 | 97)
    assert [corpus.window_pair[position] for position in (0, 1, 4)] == [ba, ab, ab]
    # (a, b) at 1 and 4; the separator's windows are indexed under their junk pairs but never counted.
    start, end = corpus.pair_bounds[0x6162]
    assert corpus.pair_positions[start:end].tolist() == [1, 4]
    assert corpus.pair_positions[corpus.pair_starts].tolist() == [3, 1, 2, 0]  # first window of each pair
    assert corpus.weights is None


def test_a_repeated_sequence_counts_once_per_copy() -> None:
    """Where each sequence ends and its count are kept only when some sequence repeats (BPE-TRAIN-DOCS)."""
    from bpe_conformance.reference.fast_training_numpy import build_corpus

    corpus = build_corpus([b"ab", b"cd", b"ef"], [1, 3, 2])
    counted = {code: count for code, count in zip(corpus.codes.tolist(), corpus.counts.tolist(), strict=True) if count}
    assert counted == {97 << 32 | 98: 1, 99 << 32 | 100: 3, 101 << 32 | 102: 2}
    assert corpus.weights is not None
    separators, weights = corpus.weights
    assert separators.tolist() == [2, 5, 8]
    assert weights.tolist() == [1, 3, 2]


def test_tokens_hold_back_links_and_gone_markers_after_merges() -> None:
    """After merging ``(a, b)`` then ``(258, c)``: the token sits at its first byte, the last byte of
    a longer token links back to its start, a byte merged away is ``GONE``, and a former last byte
    keeps its outdated (negative, never read) link."""
    from bpe_conformance.reference.fast_training_numpy import GONE, SEPARATOR, build_corpus

    corpus = build_corpus([b"abcabc"], [2])
    corpus.lengths = corpus.lengths.copy()
    corpus.lengths.resize(260, refcheck=False)
    corpus.lengths[258] = 2
    corpus.merge_round(97, 98, 258)
    assert corpus.tokens.tolist() == [258, -3, 99, 258, -6, 99, SEPARATOR]
    corpus.lengths[259] = 3
    corpus.merge_round(258, 99, 259)
    assert corpus.tokens.tolist() == [259, -3, -3, 259, -6, -6, SEPARATOR]
    corpus = build_corpus([b"abab"], [2])
    corpus.lengths = corpus.lengths.copy()
    corpus.lengths.resize(260, refcheck=False)
    corpus.lengths[258:260] = [2, 4]
    corpus.merge_round(97, 98, 258)
    corpus.merge_round(258, 258, 259)
    assert corpus.tokens.tolist() == [259, -3, GONE, -3, SEPARATOR]


@given(
    st.lists(st.sampled_from(["aaaa", "ab", "abab", "ba", "aaab", "ca", "c"]), min_size=1, max_size=6),
    st.integers(1, 4),
)
def test_the_waiting_list_never_hides_the_best_pair(pieces: list[str], copies: int) -> None:
    """Pairs below the heap's threshold wait outside it; whatever the threshold, each round merges the
    literal's pair. Documents of very different counts make the threshold move. (BPE-TRAIN-GREEDY)"""
    documents = ["".join(pieces) * copies, *pieces]
    assert _trained(documents, 10_000) == train(documents, 10_000)


def test_the_threshold_comes_down_when_the_heap_runs_dry() -> None:
    """One pair counted 200 times, a few counted 2-5 times: the small ones wait until the big one is
    merged, then the threshold falls to them. (BPE-TRAIN-GREEDY, BPE-TRAIN-STOP)"""
    documents = ["xy" * 200, "abab", "cdcdcd", "efefefef", "ghghghghgh"]
    expected = train(documents, 10_000)
    assert _trained(documents, 10_000) == expected
    assert expected[:2] == [(120, 121), (258, 258)]


def test_a_pair_that_fell_below_the_threshold_with_nothing_waiting_is_still_merged() -> None:
    """ "ab" (6) and "bc" (3) start in the heap at threshold 3; merging "ab" takes one "bc" and makes only a pair
    seen once, so nothing waits and the best pair left, "bc" at 2, sits in the heap below the threshold. The
    threshold must come down to it, not training stop. (BPE-TRAIN-GREEDY, BPE-TRAIN-STOP)"""
    documents = ["ab"] * 5 + ["abc"] + ["bc"] * 2
    assert train(documents, 8) == [(97, 98), (98, 99)]
    assert _trained(documents, 8) == [(97, 98), (98, 99)]


def test_counts_beyond_sixteen_bits() -> None:
    """A pair seen 70 000 times, and 65 536 times across copies of a document. (BPE-TRAIN-COUNT)"""
    documents = ["a" * 70_001, "bc" * 16_384, "bc" * 16_384, "bc" * 16_384, "bc" * 16_384, "é" * 3]
    expected = train(documents, 4)
    assert expected[:2] == [(97, 97), (98, 99)]
    assert _trained(documents, 4) == expected


def test_progress_is_called_after_every_round() -> None:
    seen: list[int] = []
    rules = _trained(["abcabcabd", "xyxy"], 10, progress=seen.append)
    assert seen == list(range(1, len(rules) + 1))
    assert len(rules) >= 3
    seen.clear()
    assert fast_train(["abab", "abab"], 5, engine="numpy", progress=seen.append) == [(97, 98), (258, 258)]
    assert seen == [1, 2]


def test_an_unknown_pair_order_is_refused() -> None:
    from bpe_conformance.reference.fast_training_numpy import PAIR_ORDERS, PairOrder

    assert [PairOrder(kind).kind for kind in PAIR_ORDERS] == ["ids", "pieces", "first-seen"]
    with pytest.raises(ValueError, match="pair order must be one of ids, pieces, first-seen, not 'largest'"):
        PairOrder("largest")


@given(
    st.lists(st.binary(min_size=1, max_size=3), min_size=3, max_size=3),
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=8, unique=True),
)
def test_the_pieces_key_picks_what_largest_pieces_picks(pieces: list[bytes], tied: list[tuple[int, int]]) -> None:
    """The smallest key is the literal ``largest_pieces`` choice: the largest ``(piece a, piece b)``,
    and among pairs with the same pieces (two ids can stand for one piece) the largest ``(a, b)``."""
    from bpe_conformance.reference.dialects import largest_pieces
    from bpe_conformance.reference.fast_pair_queue import descending, pieces_key

    pieces = (pieces * 2)[:6]  # every piece twice over the six ids: same pieces, different ids
    piece_keys = [descending(piece) for piece in pieces]
    chosen = min(tied, key=lambda pair: pieces_key(piece_keys, *pair))
    assert chosen == largest_pieces(tied, pieces)


def test_the_pieces_key_breaks_a_tie_of_equal_pieces_and_first_ids_by_the_larger_second_id() -> None:
    """Ids 1 and 3 stand for the same piece: (0, 1) and (0, 3) tie on pieces and on the first id."""
    from bpe_conformance.reference.dialects import largest_pieces
    from bpe_conformance.reference.fast_pair_queue import descending, pieces_key

    pieces = [b"a", b"b", b"a", b"b"]
    piece_keys = [descending(piece) for piece in pieces]
    tied = [(0, 1), (0, 3)]
    assert min(tied, key=lambda pair: pieces_key(piece_keys, *pair)) == largest_pieces(tied, pieces) == (0, 3)


def test_a_nul_byte_before_a_merge_is_a_token_not_a_link() -> None:
    """Byte 0 is a token like any other: before a merged pair it is the left neighbour, not a back link.
    (BPE-TRAIN-COUNT, BPE-MERGE-SCAN)"""
    documents = ["x\x00ab", "y\x00ab", "z\x00ab", "ab", "ab", "abc"]
    assert _trained(documents, 10_000) == train(documents, 10_000) == [(97, 98), (0, 258)]


def test_windows_sorted_a_block_at_a_time_are_the_stable_sort(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large corpora sort their windows in blocks; the result is the stable sort by pair, and the rules
    are the literal ones. Small blocks here stand in for blocks of 128 Ki. (BPE-TRAIN-COUNT)"""
    import numpy as np

    from bpe_conformance.reference import fast_training_numpy

    # Blocks of 7 and of 100: a sort that is not stable keeps equal pairs in order only in short blocks.
    for block, values in ((7, 600), (100, 4)):
        monkeypatch.setattr(fast_training_numpy, "_SORT_BLOCK", block)
        monkeypatch.setattr(fast_training_numpy, "_SINGLE_SORT_WINDOWS", block)
        pairs = np.random.default_rng(3).integers(0, values, 5000).astype(np.uint16)
        expected = np.argsort(pairs, kind="stable").tolist()
        for index_type in (np.int32, np.intp):
            positions = fast_training_numpy._positions_by_pair(pairs, index_type)
            assert positions.dtype == index_type
            assert positions.tolist() == expected
    # More windows than a block of 100, so training itself goes through the block-wise sort.
    documents = ["abcabcab", "aabbaabb", "cabcab", "abab" * 5, "the cat sat on the mat, " * 6]
    assert sum(len(document) for document in documents) > 100
    assert _trained(documents, 10_000) == train(documents, 10_000)


def test_a_corpus_too_large_is_refused_naming_its_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    """(BPE-INPUT-DOCS)"""
    from bpe_conformance.reference import fast_training_numpy

    monkeypatch.setattr(fast_training_numpy, "MAX_CORPUS_BYTES", 5)
    with pytest.raises(
        ValueError, match=r"need 6 positions \(4 bytes, 2 separators\); the numpy engine takes at most 5"
    ):
        _trained(["ab", "cd"], 3)


@given(
    st.lists(st.sampled_from(["aaaa", "ab", "abab", "ba", "aaab", "ca", "c", ""]), min_size=1, max_size=6),
    st.lists(st.integers(1, 4), min_size=6, max_size=6),
    st.sampled_from(TIE_BREAKS),
    st.sampled_from([1, 2]),
)
def test_copies_written_out_or_weighted_learn_the_same_rules(
    pieces: list[str], copies: list[int], tie_break: str, min_count: int
) -> None:
    """The engine writes a repeated sequence out in full when its copies are few bytes, and weights it
    otherwise; either way every copy counts, under every tie-break, with native or int32 arrays.
    (BPE-TRAIN-DOCS, BPE-TRAIN-TIE)"""
    from bpe_conformance.reference import fast_training_numpy
    from bpe_conformance.reference.dialects import train_profile
    from bpe_conformance.reference.fast_profiles import fast_train_profile

    profile = Profile(
        name=f"{tie_break}/{min_count}", description="separate documents", tie_break=tie_break, min_count=min_count
    )
    documents = [piece for piece, count in zip(pieces, copies, strict=False) for _ in range(count)]
    expected = train_profile(documents, 10_000, profile)
    with pytest.MonkeyPatch.context() as patch:
        for share, limit in ((0.0, 0), (0.0, 1 << 40), (float("inf"), 0), (float("inf"), 1 << 40)):
            patch.setattr(fast_training_numpy, "UNFOLD_MAX_SHARE", share)  # never or always written out
            patch.setattr(fast_training_numpy, "NATIVE_INDEX_MAX_POSITIONS", limit)  # int32 or native arrays
            assert fast_train_profile(documents, 10_000, profile, engine="numpy") == expected


def test_an_empty_first_document_takes_no_count_from_a_real_pair() -> None:
    """The windows touching a separator are counted, then taken off; an empty first document has no
    window before its separator, so nothing is taken off for it. Here the smallest pair, (0, 0), is a
    real pair whose count decides a tie with (a, b). (BPE-TRAIN-DOCS, BPE-TRAIN-TIE)"""
    from bpe_conformance.reference.fast_training_numpy import train_arrays

    documents = ["", "z" + "\0" * 5, "\0\0", "ab" * 5]
    expected = train(documents, 3)
    assert expected[0] == (0, 0)
    # Straight to the engine: deduplication would drop the empty document.
    assert train_arrays([document.encode() for document in documents], [1, 1, 1, 1], 3) == expected


def test_the_engine_takes_the_sequences_over_and_leaves_the_documents() -> None:
    """Documented: once the corpus is built the sequence list is emptied (the corpus holds the bytes),
    and nothing the caller of ``fast_train`` passed is changed. (BPE-TRAIN-DOCS)"""
    from bpe_conformance.reference.fast_training_numpy import train_arrays

    sequences = [b"abab", b"cdcd"]
    assert train_arrays(sequences, [1, 2], 10) == train(["abab", "cdcd", "cdcd"], 10)
    assert sequences == []
    documents = ["abab", "cdcd", "cdcd"]
    assert fast_train(documents, 10, engine="numpy") == train(["abab", "cdcd", "cdcd"], 10)
    assert documents == ["abab", "cdcd", "cdcd"]


@pytest.mark.parametrize("kind", ["ids", "pieces", "first-seen"])
def test_waiting_pairs_keep_their_first_windows_only_for_first_seen(kind: str) -> None:
    """Only first-seen reads a waiting pair's first window: the other orders keep one array for both
    (a waiting pair costs one index, not two); first-seen keeps the windows themselves."""
    from bpe_conformance.reference.fast_pair_queue import PairOrder, PairQueue
    from bpe_conformance.reference.fast_training_numpy import build_corpus

    documents = [b"xy" * 40 + b"ab" * 8, b"cd" * 3 + b"xy" * 30 + b"ef" * 2]
    order = PairOrder(kind)
    corpus = build_corpus(documents, [1, 1], order=order)
    queue = PairQueue.start(corpus, order, 2)
    best = queue.pop_best(corpus)
    assert best is not None
    first, second = corpus.pair_of(best)
    assert (first, second) == (ord("x"), ord("y"))
    corpus.add_rule(first, second, 258)
    queue.push(corpus, *corpus.merge_round(first, second, 258))
    for lowered in (False, True):  # parts pushed by the rounds, then the part a lowering keeps
        if lowered:
            assert queue._lower_threshold(corpus, 0)
        parts = [part for part in queue.waiting if len(part[0])]
        assert parts
        for indexes, where in parts:
            if kind == "first-seen":
                assert where is not indexes
                assert where.tolist() == [corpus.first_window(index) for index in indexes.tolist()]
            else:
                assert where is indexes


def test_the_index_type_switches_exactly_at_the_documented_size() -> None:
    import numpy as np

    from bpe_conformance.reference.fast_training_numpy import NATIVE_INDEX_MAX_POSITIONS, index_type_for

    assert index_type_for(NATIVE_INDEX_MAX_POSITIONS) is np.intp
    assert index_type_for(NATIVE_INDEX_MAX_POSITIONS + 1) is np.int32


_TRAINING_PROFILES = [profile for profile in PROFILES.values() if profile.tie_break is not None]


@pytest.mark.parametrize("profile", _TRAINING_PROFILES, ids=[profile.name for profile in _TRAINING_PROFILES])
def test_both_index_types_learn_the_literal_rules_under_every_profile(
    profile: Profile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size switch changes only the arrays' integer type: on either side of it the numpy engine
    learns what the literal dialect learns, under every profile that trains (BPE-TRAIN-*)."""
    from bpe_conformance.reference import fast_training_numpy
    from bpe_conformance.reference.dialects import train_profile
    from bpe_conformance.reference.fast_profiles import fast_train_profile

    documents = ["aaaa bbb  aaab", "ab ab ab\n\tab", "  aaaa  ", "\u00e9\u00e9 ab", "aaaa bbb  aaab", "xyxyx"]
    expected = train_profile(documents, 40, profile)
    for limit in (0, 1 << 40):  # every corpus int32, every corpus native
        monkeypatch.setattr(fast_training_numpy, "NATIVE_INDEX_MAX_POSITIONS", limit)
        assert fast_train_profile(documents, 40, profile, engine="numpy") == expected


@pytest.mark.parametrize("weighted", [False, True])
def test_windows_touching_separators_are_taken_off_once_each(weighted: bool) -> None:
    """Empty sequences first, in the middle and last make separator windows that coincide (an empty
    sequence's two are one window; an empty first sequence's "window before" is none), and NUL bytes
    make real pairs equal to the separators' junk pairs: every real pair keeps its literal count.
    (BPE-TRAIN-DOCS, BPE-TRAIN-COUNT)"""
    from collections import Counter

    from bpe_conformance.reference.fast_training_numpy import build_corpus

    sequences = [b"", b"a\0", b"", b"", b"\0a\0\0", b"a\0a", b""]
    multiplicities = [1, 2, 1, 3, 1, 2, 1] if weighted else [1] * len(sequences)
    literal: Counter[int] = Counter()
    for sequence, multiplicity in zip(sequences, multiplicities, strict=True):
        for first, second in itertools.pairwise(sequence):
            literal[first << 32 | second] += multiplicity
    corpus = build_corpus(sequences, multiplicities)
    codes = corpus.codes[: corpus.pairs_made].tolist()
    counted = dict(zip(codes, corpus.counts[: corpus.pairs_made].tolist(), strict=True))
    assert {code: count for code, count in counted.items() if count} == dict(literal)


def test_copies_are_written_out_while_they_add_at_most_a_64th_of_the_positions() -> None:
    """``unfold_copies`` (performance only: the counts stay the same) writes a weighted sequence out as that many
    copies of weight 1 while the copies add at most ``UNFOLD_MAX_SHARE`` of the positions (each sequence's bytes
    plus its separator); past that every weight is kept. A sequence under two bytes has no window, so its weight is
    dropped first and costs nothing."""
    from bpe_conformance.reference.fast_training_numpy import UNFOLD_MAX_SHARE, unfold_copies

    assert UNFOLD_MAX_SHARE == 1 / 64
    # One extra "ab" adds 3 positions: within a 64th of 3 + 189 = 192 positions, past a 64th of 3 + 188 = 191.
    assert unfold_copies([b"ab", b"y" * 188], [2, 1]) == ([b"ab", b"ab", b"y" * 188], [1, 1, 1])
    assert unfold_copies([b"ab", b"y" * 187], [2, 1]) == ([b"ab", b"y" * 187], [2, 1])
    # Five copies of one byte would add 8 positions to 5; dropped, they add none.
    assert unfold_copies([b"c", b"ab"], [5, 1]) == ([b"c", b"ab"], [1, 1])
    # A weight for each sequence, no more and no fewer: anything else is the caller's bug, not a corpus.
    for sequences, weights in (([b"ab"], [1, 2]), ([b"ab", b"cd"], [1])):
        with pytest.raises(ValueError, match="zip"):
            unfold_copies(sequences, weights)
