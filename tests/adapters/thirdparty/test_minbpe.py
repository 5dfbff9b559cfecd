"""minbpe's BasicTokenizer (packaged in MiniBpeRust) through its adapter."""

from __future__ import annotations

import pytest

pytest.importorskip("MiniBpeRust")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.minbpe_basic import MinbpeAdapter
from bpe_conformance.dialects.context import pairs_run_out
from bpe_conformance.dialects.identify import identify
from bpe_conformance.dialects.probes import capture
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import MINBPE

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


def test_identified_as_its_declared_profile() -> None:
    assert identify(MinbpeAdapter).matches == ["minbpe"]


@given(st.lists(texts, min_size=1, max_size=4), st.integers(min_value=0, max_value=8), texts)
def test_trains_and_encodes_like_its_profile(documents: list[str], max_merges: int, text: str) -> None:
    """BPE-TRAIN-TIE: "ties go to the smallest (a, b) tuple" — minbpe takes the pair counted first
    in one joined text; otherwise it is the literal algorithm, except that it fails where the profile
    stops for want of pairs (its defect, docs/findings.md F13)."""
    adapter = MinbpeAdapter()
    trained = capture(lambda: adapter.train(documents, max_merges))
    if pairs_run_out(documents, max_merges, MINBPE):
        assert not trained.ok, trained
        return
    expected = capture(lambda: train_profile(documents, max_merges, MINBPE))
    assert trained.agrees_with(expected), (trained, expected)
    if trained.ok:
        assert adapter.encode(text) == encode_profile(text, trained.value, MINBPE)


def test_first_seen_pair_wins_a_tie() -> None:
    assert MinbpeAdapter().train(["cdcdabab"], 1) == [(99, 100)]  # strict picks (97, 98)


def test_documents_are_joined_before_counting() -> None:
    assert MinbpeAdapter().train(["a", "b", "a", "b"], 1) == [(97, 98)]  # BPE-TRAIN-DOCS relaxed


def test_running_out_of_pairs_is_an_error() -> None:
    """The library's defect (docs/findings.md F13); the profile stops there, and the suite fails stop-rule."""
    with pytest.raises(ValueError, match=r"max\(\) arg is an empty sequence"):
        MinbpeAdapter().train(["ab"], 2)


def test_loaded_rules_and_lossy_decode() -> None:
    adapter = MinbpeAdapter()
    assert adapter.load([(98, 99), (97, 98), (257, 99)]) == [(98, 99), (97, 98), (257, 99)]
    assert adapter.encode("abc") == [97, 256]
    assert adapter.decode([228, 189]) == "\ufffd"
    with pytest.raises(KeyError):
        adapter.decode([97, 100000])
