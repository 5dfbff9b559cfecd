"""smoltoken through its adapter: tiktoken's educational trainer in Rust, ties in hash-map order."""

from __future__ import annotations

import pytest

pytest.importorskip("smoltoken")

from bpe_conformance.adapters.thirdparty.smoltoken_trainer import SmoltokenAdapter
from bpe_conformance.reference.dialects import encode_profile, train_profile
from bpe_conformance.reference.profiles import BPEASY


def test_trains_and_encodes_like_bpeasy_where_no_tie_arises() -> None:
    adapter = SmoltokenAdapter()
    documents = ["aab aab aab", "abb"]  # every round has one most frequent pair
    assert adapter.train(documents, 2) == [(97, 98), (97, 256)] == train_profile(documents, 2, BPEASY)
    assert adapter.encode("aabab") == encode_profile("aabab", [(97, 98), (97, 256)], BPEASY)


def test_loaded_rules_encode_by_piece_rank_and_decode_lossily() -> None:
    adapter = SmoltokenAdapter()
    adapter.load([(98, 99), (97, 98), (257, 99)])
    assert adapter.encode("abc") == [258]
    assert adapter.decode([228, 189]) == "\ufffd"


def test_ties_follow_neither_ids_nor_order_of_appearance() -> None:
    """BPE-TRAIN-TIE: (a, c) beats (a, b) whichever document comes first, but (a, b) beats (c, d)
    (docs/findings.md F19)."""
    assert SmoltokenAdapter().train(["abab", "acac"], 1) == [(97, 99)]
    assert SmoltokenAdapter().train(["acac", "abab"], 1) == [(97, 99)]
    assert SmoltokenAdapter().train(["cdcd", "abab"], 1) == [(97, 98)]


def test_a_pair_seen_once_is_merged_only_if_no_merge_made_it() -> None:
    """BPE-TRAIN-STOP: pairs seen once merge in the first count, never once a merge makes them
    (docs/findings.md F30)."""
    assert SmoltokenAdapter().train(["ab"], 1) == [(97, 98)]
    assert SmoltokenAdapter().train(["aab", "xy"], 2) == [(97, 97), (120, 121)]
    assert SmoltokenAdapter().train(["aab"], 2) == [(97, 97)]  # (aa, b), seen once, is never merged
    assert train_profile(["aab"], 2, BPEASY) == [(97, 97), (256, 98)]
    assert SmoltokenAdapter().train(["aaaaaa"], 3) == [(97, 97), (256, 256)]


def test_an_empty_corpus_is_an_assertion() -> None:
    """BPE-INPUT-DOCS: ``assert data or path`` takes an empty list for no data (docs/findings.md F17)."""
    with pytest.raises(AssertionError, match="Either data or path"):
        SmoltokenAdapter().train([], 1)


def test_piece_rank_encoder_misses_the_merge_to_the_left() -> None:
    """BPE-ENCODE-ORDER: tiktoken gives [258, 32] for these ranks (docs/findings.md F18)."""
    adapter = SmoltokenAdapter()
    adapter.load([(97, 98), (32, 256), (97, 257)])
    assert adapter.encode("a ab") == [258]
    assert adapter.encode("a ab ") == [97, 257, 32]


def test_piece_rank_encoder_panics_on_a_piece_the_ranks_do_not_hold() -> None:
    """BPE-ENCODE-ORDER: ranks ``it``, ``ra``, ``rai`` encode "rait" as ``ra`` + ``it`` (tiktoken, the
    bpeasy profile); smoltoken merges ``ra`` with the ``it`` after it as if that were still ``i`` and
    panics looking up ``rait`` (docs/findings.md F29)."""
    rules = [(105, 116), (114, 97), (257, 105)]
    assert encode_profile("rait", rules, BPEASY) == [257, 256]
    adapter = SmoltokenAdapter()
    adapter.load(rules)
    assert adapter.encode("rai") == [258]
    with pytest.raises(BaseException, match="no entry found for key"):
        adapter.encode("rait")
