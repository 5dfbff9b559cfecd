"""fast-bpe-rs through its adapter: incremental pair counts that go stale on runs of one byte."""

from __future__ import annotations

import pytest

pytest.importorskip("fast_bpe_rs")

from bpe_conformance.adapters.thirdparty.fast_bpe_rs_trainer import FastBpeRsAdapter
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import RUSTBPE


def test_agrees_with_rustbpe_where_no_byte_repeats() -> None:
    for documents, max_merges in ((["abab", "acac"], 8), (["cdcdabab"], 1), (["abcd"], 1), (["a", "b", "a", "b"], 2)):
        assert FastBpeRsAdapter().train(documents, max_merges) == train_profile(documents, max_merges, RUSTBPE)


def test_runs_of_one_byte_learn_a_piece_no_count_supports() -> None:
    """BPE-TRAIN-RECOUNT: after "aa" the run "aaaaaa" is three "aa"s, yet it learns "aaa" (docs/findings.md F15)."""
    from fast_bpe_rs import BPE

    bpe = BPE(r"(?s).+")
    bpe.train(259, ["aaaaaa"])
    assert [bytes(bpe.decode([256 + rank])) for rank in range(3)] == [b"aa", b"aaa", b"aaaaaa"]
    assert bpe.encode("aaaaaa") == [256, 256, 256]  # its own rule 258 is the whole text


def test_unknown_ids_are_dropped() -> None:
    """BPE-DECODE-STRICT: docs/findings.md F16."""
    adapter = FastBpeRsAdapter()
    adapter.train(["abab"], 1)
    assert adapter.decode([97, 5000, 98]) == "ab"
