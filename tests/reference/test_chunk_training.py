"""Training behind a split pattern: the word-count engine equals the literal one, and merges never cross a chunk."""

from __future__ import annotations

import dataclasses
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.inputs.split_texts import split_texts
from bpe_conformance.reference import chunk_training
from bpe_conformance.reference.chunk_training import chunk_counts, train_chunks_fast, train_chunks_literal
from bpe_conformance.reference.dialects import encode_profile, profile_pieces, train_profile
from bpe_conformance.reference.fast_profiles import fast_train_profile
from bpe_conformance.reference.pretokenization import CL100K, GPT2, O200K, TRAINING_SPLITS, SplitProfile, split_text
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.reference.profiles import MINBPE, PROFILES, RUSTBPE, SUBWORD_NMT, Profile

# Every trainer profile, so every tie rule (first-seen, smallest/largest ids, HF ids, pieces, string key)
# and both document modes meet the word-count engine's heap keys.
TRAINERS = [profile for profile in PROFILES.values() if profile.tie_break is not None]
SPLITS = [GPT2, CL100K, O200K]
corpora = st.lists(split_texts(max_fragments=6, max_run=40), min_size=1, max_size=4)


@pytest.mark.parametrize("profile", TRAINERS, ids=[profile.name for profile in TRAINERS])
@pytest.mark.parametrize("split", SPLITS, ids=[split.name for split in SPLITS])
@given(documents=corpora, max_merges=st.integers(0, 40))
def test_the_word_count_engine_equals_the_literal_one(
    profile: Profile, split: SplitProfile, documents: list[str], max_merges: int
) -> None:
    assert train_chunks_fast(documents, max_merges, profile, split) == train_chunks_literal(
        documents, max_merges, profile, split
    )


@given(documents=corpora, max_merges=st.integers(1, 40))
def test_no_rule_makes_a_piece_that_spans_two_chunks(documents: list[str], max_merges: int) -> None:
    rules = train_chunks_literal(documents, max_merges, RUSTBPE, CL100K)
    chunks = {chunk.encode() for document in documents for chunk in split_text(document, CL100K)}
    for piece in profile_pieces(rules, RUSTBPE)[256:]:
        assert any(piece in chunk for chunk in chunks)


def test_chunks_are_counted_with_their_frequency_in_order_of_first_occurrence() -> None:
    assert chunk_counts(["the cat the", " the"], RUSTBPE, CL100K) == {b"the": 1, b" cat": 1, b" the": 2}
    assert train_chunks_literal(["a a a b"], 1, RUSTBPE, CL100K) == [(32, 97)]


@pytest.mark.parametrize("profile", [RUSTBPE, MINBPE, SUBWORD_NMT], ids=["rustbpe", "minbpe", "subword-nmt"])
@given(documents=corpora, max_merges=st.integers(0, 40))
def test_the_engine_is_unchanged_when_its_heap_is_rebuilt_every_round(
    profile: Profile, documents: list[str], max_merges: int
) -> None:
    with mock.patch.object(chunk_training, "_HEAP_SLACK", -(10**9)):  # rebuilt after every merge
        fast = train_chunks_fast(documents, max_merges, profile, CL100K)
    assert fast == train_chunks_literal(documents, max_merges, profile, CL100K)


def test_first_seen_looks_for_a_pair_only_in_the_words_that_still_hold_it() -> None:
    """After (98, 98) is merged, "cbbb" no longer holds (98, 98) but other words do: the first place of that pair,
    tied later, must be found in a word that still holds it, not in the first word that ever did."""
    documents = ["cbbb a bbb ba"]
    assert train_chunks_fast(documents, 10, MINBPE, GPT2) == train_chunks_literal(documents, 10, MINBPE, GPT2)


def test_every_tie_rule_is_among_the_trainers() -> None:
    from bpe_conformance.reference.profiles import TIE_BREAKS

    assert {profile.tie_break for profile in TRAINERS} == set(TIE_BREAKS)


@given(documents=corpora, max_merges=st.integers(0, 20))
def test_documents_may_be_a_stream_read_one_at_a_time(documents: list[str], max_merges: int) -> None:
    streamed = train_chunks_fast((document for document in documents), max_merges, RUSTBPE, CL100K)
    assert streamed == train_chunks_literal(documents, max_merges, RUSTBPE, CL100K)


def test_progress_is_told_every_rule_made() -> None:
    told: list[int] = []
    rules = train_chunks_fast(["abab abab cdcd"], 8, RUSTBPE, CL100K, progress=told.append)
    assert told == list(range(1, len(rules) + 1))
    assert rules


def test_a_single_unwrapped_document_or_a_bad_one_is_refused() -> None:
    with pytest.raises(TypeError, match="wrap a single document"):
        train_chunks_fast("abab", 2, RUSTBPE, CL100K)
    with pytest.raises(TypeError, match="document 1 must be a str"):
        train_chunks_fast(iter(["ab", b"ab"]), 2, RUSTBPE, CL100K)  # type: ignore[arg-type]


def test_an_encode_only_profile_cannot_train() -> None:
    from bpe_conformance.reference.profiles import TIKTOKEN

    for trainer in (train_chunks_fast, train_chunks_literal):
        with pytest.raises(ValueError, match="encode-only") as raised:
            trainer(["a"], 1, TIKTOKEN, CL100K)
        assert repr(TIKTOKEN.name) in str(raised.value)


# The profile parameter ``split``: the literal dialect reference, the fast profile engines and the chunk
# engines train the same rules behind a named pattern.
TRAINING_SPLIT_NAMES = list(TRAINING_SPLITS)


# Every tie rule behind cl100k, and every split under rustbpe: the tie rule and the pattern are independent.
_PROFILE_SPLITS = [(profile, "cl100k") for profile in TRAINERS] + [
    (RUSTBPE, split) for split in TRAINING_SPLIT_NAMES if split != "cl100k"
]


@pytest.mark.parametrize(
    ("profile", "split"), _PROFILE_SPLITS, ids=[f"{profile.name}+split={split}" for profile, split in _PROFILE_SPLITS]
)
@given(documents=corpora, max_merges=st.integers(0, 30))
def test_a_profile_with_split_trains_as_the_chunk_engines(
    profile: Profile, split: str, documents: list[str], max_merges: int
) -> None:
    behind = dataclasses.replace(profile, name=f"{profile.name}+split={split}", split=split)
    expected = train_profile(documents, max_merges, behind)
    assert expected == train_chunks_literal(documents, max_merges, profile, TRAINING_SPLITS[split])
    assert fast_train_profile(documents, max_merges, behind) == expected


def test_a_profile_with_split_never_merges_across_its_chunks() -> None:
    behind = parse_profile("rustbpe+split=cl100k")
    assert train_profile(["ab ab ab"], 4, behind) == [(97, 98), (32, 256)]
    # Without the split, "ab" and " ab" are joined across the chunk boundary.
    assert train_profile(["ab ab ab"], 4, RUSTBPE) == [(97, 98), (32, 256), (256, 257), (258, 257)]
    assert encode_profile("ab ab", [(97, 98), (256, 32)], behind) == [256, 32, 256]


def test_rustbpes_default_split_differs_from_cl100k_only_where_its_pattern_does() -> None:
    assert split_text("a\n b", TRAINING_SPLITS["rustbpe"]) == split_text("a\n b", CL100K) == ["a", "\n", " b"]
    assert split_text("a\n ", TRAINING_SPLITS["rustbpe"]) == ["a", "\n", " "]
    assert split_text("a\n ", CL100K) == ["a", "\n "]
