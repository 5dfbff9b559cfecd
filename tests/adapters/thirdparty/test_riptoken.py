"""riptoken through its adapter: an encoder given our ranks, identified by piece-rank encoding."""

from __future__ import annotations

import pytest

pytest.importorskip("riptoken")

from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.adapters.thirdparty.riptoken_encoding import RiptokenAdapter
from bpe_conformance.dialects.probes import renumbered
from bpe_conformance.reference.dialects import encode_profile
from bpe_conformance.reference.profiles import TIKTOKEN

texts = st.text(alphabet="ab a\u00e9\u4f4e\n", max_size=20)


@given(st.lists(texts, min_size=1, max_size=4), texts)
def test_encodes_by_piece_rank(documents: list[str], text: str) -> None:
    """BPE-ENCODE-ORDER: "Encoding applies the rules in rank order" — riptoken instead merges the pair whose
    joined bytes rank lowest, as tiktoken does; on strictly trained rules it matches the tiktoken profile."""
    rules = renumbered(reference.train(documents, 8), 256)
    adapter = RiptokenAdapter()
    adapter.load(rules)
    assert adapter.encode(text) == encode_profile(text, rules, TIKTOKEN)
    assert adapter.decode(adapter.encode(text)) == text


def test_piece_rank_differs_from_rank_order() -> None:
    adapter = RiptokenAdapter()
    adapter.load([(98, 99), (97, 98), (257, 99)])
    assert adapter.encode("abc") == [258]  # strict rank order gives [97, 256]


def test_lone_surrogates_are_refused_and_cut_characters_replaced() -> None:
    adapter = RiptokenAdapter()
    with pytest.raises(UnicodeEncodeError):
        adapter.encode("a\udc80b")
    assert adapter.decode([228, 189]) == "\ufffd"
