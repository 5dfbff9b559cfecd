"""cminbpe through its two adapters: minbpe on the Python backend, and a C backend that differs from it."""

from __future__ import annotations

import pytest

pytest.importorskip("cminbpe")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.cminbpe_regex import CminbpeAdapter, CminbpeCAdapter
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import MINBPE

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=16)


@given(st.lists(texts, min_size=1, max_size=3), st.integers(min_value=0, max_value=6), texts)
def test_python_backend_trains_and_encodes_like_minbpe(documents: list[str], max_merges: int, text: str) -> None:
    adapter = CminbpeAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, MINBPE)
    assert adapter.encode(text) == encode_profile(text, rules, MINBPE)


def test_c_backend_breaks_ties_otherwise_and_refuses_an_empty_text() -> None:
    """The two backends of one library disagree (docs/findings.md F22)."""
    assert CminbpeAdapter().train(["cdcdabab"], 1) == [(99, 100)]
    assert CminbpeCAdapter().train(["cdcdabab"], 1) == [(97, 98)]
    assert CminbpeAdapter().train([""], 1) == []
    with pytest.raises(ValueError, match="Input text is empty"):
        CminbpeCAdapter().train([""], 1)
