"""HF tokenizers given tiktoken's split patterns verbatim: P4 of docs/findings-production.md."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import regex

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.production import verify_production_encode
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import Violation
from bpe_conformance.reference.pretokenization import CL100K, O200K
from bpe_conformance.reference.vocabulary import read_tiktoken_file

pre_tokenizers = pytest.importorskip("tokenizers.pre_tokenizers")
tokenizers = pytest.importorskip("tokenizers")


def test_p4_oniguruma_reads_a_possessive_interval_as_a_repeat() -> None:
    split = pre_tokenizers.Split(tokenizers.Regex(r"\p{N}{1,3}+"), "isolated")
    assert split.pre_tokenize_str("0000") == [("0000", (0, 4))]  # (\p{N}{1,3})+: one chunk
    assert regex.findall(r"\p{N}{1,3}+", "0000") == ["000", "0"]  # possessive, as tiktoken's engine reads it
    plain = pre_tokenizers.Split(tokenizers.Regex(r"\p{N}{1,3}"), "isolated")
    assert plain.pre_tokenize_str("0000") == [("000", (0, 3)), ("0", (3, 4))]


@pytest.mark.skipif(not os.environ.get("BPE_REAL_VOCABULARIES"), reason="BPE_REAL_VOCABULARIES is not set")
def test_the_harness_blames_the_split_under_cl100k_and_o200k_passes() -> None:
    from bpe_conformance.adapters.thirdparty.hf_tokenizers_released import HFCl100k, HFO200k

    folder = Path(os.environ["BPE_REAL_VOCABULARIES"])
    cl100k = ProductionSetup(CL100K, read_tiktoken_file(folder / "cl100k_base.tiktoken", dict(CL100K.special_tokens)))
    bound = bind_vocabulary(InProcessSubject(HFCl100k), cl100k)
    with pytest.raises(Violation) as raised:
        verify_production_encode(bound, "0000")
    assert raised.value.clause == "BPE-PRETOK-SPLIT"
    o200k = ProductionSetup(O200K, read_tiktoken_file(folder / "o200k_base.tiktoken", dict(O200K.special_tokens)))
    verify_production_encode(bind_vocabulary(InProcessSubject(HFO200k), o200k), "0000")  # o200k has \p{N}{1,3}
