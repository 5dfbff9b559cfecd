"""tinybpe through its adapter: minbpe's trainer in C, a tokenizer that refuses an empty merge list."""

from __future__ import annotations

import pytest

pytest.importorskip("tinybpe")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.tinybpe_trainer import TinybpeAdapter
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import MINBPE

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", min_size=1, max_size=16)


@given(st.lists(texts, min_size=1, max_size=3), st.integers(min_value=1, max_value=6), texts)
def test_trains_and_encodes_like_minbpe(documents: list[str], max_merges: int, text: str) -> None:
    """BPE-TRAIN-TIE relaxed as minbpe does: one joined text, the pair counted first wins a tie."""
    adapter = TinybpeAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, MINBPE)
    if rules:
        assert adapter.encode(text) == encode_profile(text, rules, MINBPE)


def test_a_model_without_merges_cannot_encode() -> None:
    """The trainer returns no merges for a text without pairs; its Tokenizer refuses them (docs/findings.md F20)."""
    adapter = TinybpeAdapter()
    assert adapter.train(["a"], 3) == []
    with pytest.raises(ValueError, match="must not be empty"):
        adapter.encode("a")


def test_decode_of_a_str_runs_out_of_memory_and_unknown_ids_vanish() -> None:
    """BPE-INPUT-IDS, BPE-VOCAB-SIZE: docs/findings.md F21."""
    adapter = TinybpeAdapter()
    adapter.load([(97, 98)])
    with pytest.raises(MemoryError):
        # a str on purpose: the library's answer to it is the finding
        adapter.decode("abc")  # type: ignore[arg-type]
    assert adapter.decode([97, 300]) == "a"
