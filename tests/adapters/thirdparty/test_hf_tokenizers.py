"""HF ``tokenizers`` through its adapter: identified as ``hf-tokenizers``, and why it is not strict."""

from __future__ import annotations

import pytest

pytest.importorskip("tokenizers")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.adapters.thirdparty.hf_tokenizers import HFTokenizersAdapter
from bpe_conformance.dialects.identify import identify
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import HF_TOKENIZERS

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


def test_identified_as_its_declared_profile() -> None:
    report = identify(HFTokenizersAdapter)
    assert HFTokenizersAdapter.profile == "hf-tokenizers"
    assert report.matches == ["hf-tokenizers"], report.counterexample


@given(st.lists(texts, min_size=1, max_size=4), st.integers(min_value=0, max_value=8), texts)
def test_trains_and_encodes_like_its_profile(documents: list[str], max_merges: int, text: str) -> None:
    """BPE-TRAIN-GREEDY: "The highest count wins" — HF's trainer makes the rules of the
    hf-tokenizers profile (ties by its own ids, min_frequency 2) and encodes in rank order."""
    adapter = HFTokenizersAdapter()
    rules = adapter.train(documents, max_merges)
    assert rules == train_profile(documents, max_merges, HF_TOKENIZERS)
    assert adapter.encode(text) == encode_profile(text, rules, HF_TOKENIZERS)


def test_worked_example_and_numbering() -> None:
    adapter = HFTokenizersAdapter()
    assert adapter.train(["abab", "acac"], 32) == [(97, 98), (97, 99)]  # BPE-TRAIN-TIE agrees here
    assert adapter.encode("abac") == [256, 257]  # BPE-RULE-ID: 256 + r, no boundary ids
    assert adapter.token_bytes(256) == b"ab"


def test_ties_follow_hf_ids_where_the_space_sorts_after_letters() -> None:
    # BPE-TRAIN-TIE: strict takes (32, 97); in HF's alphabet ' ' is 'Ġ' (U+0120), after 'b'.
    assert HFTokenizersAdapter().train([" a a", "bcbc"], 1) == [(98, 99)]


def test_min_frequency_two_stops_like_strict_and_documents_stay_apart() -> None:
    assert HFTokenizersAdapter().train(["abcd"], 4) == []  # BPE-TRAIN-STOP
    assert HFTokenizersAdapter().train(["a", "b", "a", "b"], 4) == []  # BPE-TRAIN-DOCS


def test_decode_skips_unknown_ids_and_replaces_cut_characters() -> None:
    adapter = HFTokenizersAdapter()
    assert adapter.decode([97, 100000, 98]) == "ab"  # BPE-DECODE-STRICT relaxed: skip-unknown
    assert adapter.decode([228, 189]) == "\ufffd"


def test_loaded_rules_encode_in_rank_order() -> None:
    adapter = HFTokenizersAdapter()
    assert adapter.load([(98, 99), (97, 98), (257, 99)]) == [(98, 99), (97, 98), (257, 99)]
    assert adapter.encode("abc") == [97, 256]  # BPE-ENCODE-ORDER: 'abc' is a piece, but (ab, c) never applies
    assert adapter.decode(adapter.encode("a b\u4f4e")) == "a b\u4f4e"  # BPE-ROUNDTRIP
