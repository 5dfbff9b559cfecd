"""tiktoken through its adapter: encode-only, identified by piece-rank encoding."""

from __future__ import annotations

import pytest

pytest.importorskip("tiktoken")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.adapters.thirdparty.tiktoken_encoding import TiktokenAdapter
from bpe_conformance.dialects.identify import identify
from bpe_conformance.dialects.probes import renumbered
from bpe_conformance.reference.dialects import encode_profile
from bpe_conformance.reference.profiles import TIKTOKEN

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


def test_identified_as_its_declared_profile() -> None:
    report = identify(TiktokenAdapter)
    assert TiktokenAdapter.capabilities == {"load", "encode", "decode"}
    # bpeasy encodes through tiktoken, so an encoder alone cannot tell the two apart.
    assert report.matches == ["bpeasy", "tiktoken"], report.counterexample


@given(st.lists(texts, min_size=1, max_size=4), texts)
def test_encodes_by_piece_rank(documents: list[str], text: str) -> None:
    """BPE-ENCODE-ORDER: "Encoding applies the rules in rank order" — tiktoken instead merges the
    pair whose joined bytes rank lowest; on strictly trained rules it matches the tiktoken profile."""
    rules = renumbered(reference.train(documents, 8), 256)
    adapter = TiktokenAdapter()
    adapter.load(rules)
    assert adapter.encode(text) == encode_profile(text, rules, TIKTOKEN)
    assert adapter.decode(adapter.encode(text)) == text


def test_piece_rank_differs_from_rank_order() -> None:
    adapter = TiktokenAdapter()
    adapter.load([(98, 99), (97, 98), (257, 99)])
    assert adapter.encode("abc") == [258]  # strict rank order gives [97, 256]


def test_lone_surrogates_become_replacement_characters() -> None:
    assert TiktokenAdapter().encode("a\udc80b") == [97, 239, 191, 189, 98]  # BPE-INPUT-TEXT relaxed


def test_decode_replaces_cut_characters_and_rejects_unknown_ids() -> None:
    adapter = TiktokenAdapter()
    assert adapter.decode([228, 189]) == "\ufffd"
    with pytest.raises(KeyError):
        adapter.decode([97, 100000])


def test_rules_with_the_same_piece_cannot_be_ranks() -> None:
    with pytest.raises(ValueError, match="make the same piece 61 62"):
        TiktokenAdapter().load([(97, 98), (97, 98)])
