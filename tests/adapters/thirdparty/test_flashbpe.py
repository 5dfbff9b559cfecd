"""flashbpe through its adapter: rustbpe's trainer with GPT-2-ordered byte ids, and a right-first encoder."""

from __future__ import annotations

import pytest

pytest.importorskip("flashbpe")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.flashbpe_trainer import FlashbpeAdapter
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import HF_TOKENIZERS, RUSTBPE

texts = st.text(alphabet="ab a\u00e9\n", max_size=16)


def test_byte_ids_are_mapped_to_byte_values() -> None:
    adapter = FlashbpeAdapter()
    assert adapter.train(["abab", "acac"], 2) == [(97, 98), (97, 99)]
    assert adapter.encode("a\u00e9") == [97, 195, 169]
    assert adapter.decode([97, 195, 169]) == "a\u00e9"


@given(st.lists(texts, min_size=1, max_size=3), st.integers(min_value=0, max_value=6))
def test_trains_like_rustbpe_with_ties_in_its_own_id_order(documents: list[str], max_merges: int) -> None:
    """BPE-TRAIN-TIE: "ties go to the smallest (a, b)" — flashbpe compares pairs of its own ids, which
    rank bytes in GPT-2's byte-level order (as HF does), and merges pairs seen once (as rustbpe does)."""
    rules = FlashbpeAdapter().train(documents, max_merges)
    assert len(rules) == len(train_profile(documents, max_merges, RUSTBPE))
    if not any(" " in document or "\n" in document for document in documents):
        assert rules == train_profile(documents, max_merges, RUSTBPE)  # letters sort alike in both orders


def test_space_ties_follow_the_byte_level_alphabet() -> None:
    """docs/findings.md F25: in flashbpe's ids the space (like every non-printable byte) ranks after letters."""
    documents = [" a a", "bcbc"]
    assert FlashbpeAdapter().train(documents, 1) == [(98, 99)] == train_profile(documents, 1, HF_TOKENIZERS)


def test_encode_merges_the_rightmost_occurrence_first() -> None:
    """BPE-MERGE-SCAN: its training merges left to right, its encoder does not (docs/findings.md F14)."""
    adapter = FlashbpeAdapter()
    assert adapter.train(["aaa"], 1) == [(97, 97)]
    assert adapter.encode("aaa") == [97, 256]  # the specification (and its own training) gives [256, 97]
