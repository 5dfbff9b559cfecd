"""bpeasy through its adapter: rustbpe-like training, tiktoken encoding."""

from __future__ import annotations

import pytest

pytest.importorskip("bpeasy")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.bpeasy_trainer import BpeasyAdapter
from bpe_conformance.dialects.identify import identify
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import BPEASY

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


def test_identified_as_its_declared_profile() -> None:
    assert identify(BpeasyAdapter).matches == ["bpeasy"]


@given(st.lists(texts, min_size=1, max_size=4), st.integers(min_value=0, max_value=8), texts)
def test_trains_and_encodes_like_its_profile(documents: list[str], max_merges: int, text: str) -> None:
    """BPE-TRAIN-GREEDY: "The highest count wins" — bpeasy trains like the bpeasy profile (strict
    ties, pairs seen once merged) and encodes by piece rank through tiktoken."""
    adapter = BpeasyAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, BPEASY)
    assert adapter.encode(text) == encode_profile(text, rules, BPEASY)


def test_worked_example_continues_past_count_two() -> None:
    assert BpeasyAdapter().train(["abab", "acac"], 32) == [(97, 98), (97, 99), (256, 256), (257, 257)]


def test_loaded_rules_encode_by_piece_rank_and_decode_lossily() -> None:
    adapter = BpeasyAdapter()
    adapter.load([(98, 99), (97, 98), (257, 99)])
    assert adapter.encode("abc") == [258]  # BPE-ENCODE-ORDER relaxed: piece rank
    assert adapter.decode([228, 189]) == "\ufffd"
