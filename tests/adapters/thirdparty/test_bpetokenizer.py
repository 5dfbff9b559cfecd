"""bpetokenizer's base Tokenizer through its adapter: minbpe's algorithm, with its own input asserts."""

from __future__ import annotations

import pytest

pytest.importorskip("bpetokenizer")

from bpe_conformance.adapters.thirdparty.bpetokenizer_base import BpetokenizerAdapter
from bpe_conformance.dialects.identify import identify
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import MINBPE


def test_closest_profiles_train_as_minbpe() -> None:
    """minbpe's training explains it; its decode raising KeyError on every call (F12) also looks like the
    rejection of invalid UTF-8 that the tinybpe profile (minbpe's training, strict decoding) makes."""
    report = identify(BpetokenizerAdapter)
    assert report.closest == "tinybpe"
    ranked = sorted(report.explained, key=lambda name: -report.explained[name])
    assert ranked[:2] == ["tinybpe", "minbpe"]


def test_first_seen_pair_wins_a_tie_on_joined_documents() -> None:
    """BPE-TRAIN-TIE / BPE-TRAIN-DOCS relaxed as minbpe does: one joined text, first-counted pair."""
    assert BpetokenizerAdapter().train(["cdcdabab"], 1) == [(99, 100)] == train_profile(["cdcdabab"], 1, MINBPE)
    assert BpetokenizerAdapter().train(["a", "b", "a", "b"], 1) == [(97, 98)]


def test_an_empty_corpus_is_an_assertion_not_a_value_error() -> None:
    """BPE-INPUT-DOCS: the library asserts ``texts`` instead of raising ValueError (docs/findings.md)."""
    with pytest.raises(AssertionError):
        BpetokenizerAdapter().train([], 0)


def test_a_generator_of_documents_is_joined_not_rejected() -> None:
    """BPE-INPUT-DOCS (docs/findings.md F12): a generator is trained on, never refused with TypeError.

    Empty, as the protocol rebuilds one, it is an empty text and ``assert texts`` fails; with items, the
    text trains until no pair is left and minbpe's ``max`` over no pairs raises ValueError.
    """
    nothing: list[str] = []
    with pytest.raises(AssertionError):
        BpetokenizerAdapter().train((document for document in nothing), 8)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty sequence"):
        BpetokenizerAdapter().train((document for document in ["abab"]), 8)  # type: ignore[arg-type]
