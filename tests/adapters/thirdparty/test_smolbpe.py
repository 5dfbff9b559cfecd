"""smolbpe through its adapter: minbpe's algorithm, but zero merges is an assertion."""

from __future__ import annotations

import pytest

pytest.importorskip("smolbpe")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.smolbpe_tokenizer import SmolbpeAdapter
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import MINBPE

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=16)


@given(st.lists(texts, min_size=1, max_size=3), st.integers(min_value=1, max_value=6), texts)
def test_trains_and_encodes_like_minbpe(documents: list[str], max_merges: int, text: str) -> None:
    adapter = SmolbpeAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, MINBPE)
    assert adapter.encode(text) == encode_profile(text, rules, MINBPE)


def test_zero_merges_is_an_assertion() -> None:
    """BPE-TRAIN-MAXMERGES: ``assert vocab_size > len(self.vocab)`` refuses 256 (docs/findings.md F24)."""
    with pytest.raises(AssertionError):
        SmolbpeAdapter().train(["abab"], 0)
