"""rustbpe through its adapter: strict ties, but pairs seen once are merged."""

from __future__ import annotations

import pytest

pytest.importorskip("rustbpe")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.rustbpe_trainer import RustbpeAdapter
from bpe_conformance.dialects.identify import identify
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import RUSTBPE

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


def test_identified_as_its_declared_profile() -> None:
    assert identify(RustbpeAdapter).matches == ["rustbpe"]


@given(st.lists(texts, min_size=1, max_size=4), st.integers(min_value=0, max_value=8), texts)
def test_trains_and_encodes_like_its_profile(documents: list[str], max_merges: int, text: str) -> None:
    """BPE-TRAIN-STOP: "Stop when the best count is < 2" — rustbpe stops only when no pair is left;
    otherwise it is the strict algorithm numbered from 256."""
    adapter = RustbpeAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, RUSTBPE)
    assert adapter.encode(text) == encode_profile(text, rules, RUSTBPE)


def test_merges_pairs_seen_once() -> None:
    assert RustbpeAdapter().train(["abcd"], 1) == [(97, 98)]  # strict makes no rule


def test_ties_and_documents_are_strict() -> None:
    assert RustbpeAdapter().train(["cdcdabab"], 1) == [(97, 98)]  # BPE-TRAIN-TIE
    assert RustbpeAdapter().train(["a", "b", "a", "b"], 2) == []  # BPE-TRAIN-DOCS


def test_decode_rejects_cut_characters_and_unknown_ids() -> None:
    adapter = RustbpeAdapter()
    with pytest.raises(TypeError):  # a pyo3 mix-up, but it does refuse the invalid UTF-8
        adapter.decode([228, 189])
    with pytest.raises(ValueError, match="Unknown token id: 100000"):
        adapter.decode([97, 100000])
