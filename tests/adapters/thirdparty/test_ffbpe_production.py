"""ffbpe's tiktoken-shaped Encoding: P3 of docs/findings-production.md (pip install '.[production-ffbpe]')."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.production import verify_production_encode
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import Violation
from bpe_conformance.reference.pretokenization import CL100K, encode_production_fast
from bpe_conformance.reference.vocabulary import Vocabulary, read_tiktoken_file

compat = pytest.importorskip("ffbpe.tiktoken_compat")

RANKS = {bytes([value]): value for value in range(256)} | {b"aa": 256, b"aaa": 257}


def test_p3_a_piece_is_given_a_merge_that_merging_never_reaches() -> None:
    encoding = compat.Encoding("t", pat_str=CL100K.pattern, mergeable_ranks=RANKS, special_tokens={})
    assert encoding.encode_ordinary("aaa") == [256, 97]  # 'aa' + 'a'
    vocabulary = Vocabulary(tuple(sorted(RANKS, key=RANKS.__getitem__)), {})
    assert encode_production_fast("aaa", vocabulary, CL100K) == [257]  # the piece 'aaa', as tiktoken


def test_the_harness_blames_the_merging() -> None:
    from bpe_conformance.adapters.thirdparty.ffbpe_production import FfbpeCl100k

    vocabulary = Vocabulary(tuple(sorted(RANKS, key=RANKS.__getitem__)), dict(CL100K.special_tokens))
    bound = bind_vocabulary(InProcessSubject(FfbpeCl100k), ProductionSetup(CL100K, vocabulary))
    with pytest.raises(Violation) as raised:
        verify_production_encode(bound, "aaa")
    assert raised.value.clause == "BPE-PRETOK-RANK"


@pytest.mark.skipif(not os.environ.get("BPE_REAL_VOCABULARIES"), reason="BPE_REAL_VOCABULARIES is not set")
def test_p3_on_the_real_cl100k_base() -> None:
    path = Path(os.environ["BPE_REAL_VOCABULARIES"]) / "cl100k_base.tiktoken"
    vocabulary = read_tiktoken_file(path, dict(CL100K.special_tokens))
    encoding = compat.Encoding(
        "cl100k", pat_str=CL100K.pattern, mergeable_ranks=dict(vocabulary.rank_of), special_tokens={}
    )
    assert encoding.encode_ordinary("000") == [410, 15]  # '00' + '0'
    assert encode_production_fast("000", vocabulary, CL100K) == [931]  # '000'
