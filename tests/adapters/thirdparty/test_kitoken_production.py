"""kitoken on the real rank files: P2 of docs/findings-production.md (tox -e production-matrix)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.production import verify_production_encode
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import Violation
from bpe_conformance.reference.pretokenization import CL100K, encode_production_fast
from bpe_conformance.reference.vocabulary import read_tiktoken_file

kitoken = pytest.importorskip("kitoken")
FOLDER = os.environ.get("BPE_REAL_VOCABULARIES")
pytestmark = pytest.mark.skipif(not FOLDER, reason="BPE_REAL_VOCABULARIES is not set (tox -e production-matrix)")


def _setup() -> ProductionSetup:
    path = Path(str(FOLDER)) / "cl100k_base.tiktoken"
    return ProductionSetup(CL100K, read_tiktoken_file(path, dict(CL100K.special_tokens)))


def test_p2_special_token_text_is_encoded_apart_from_the_text_around_it() -> None:
    setup = _setup()
    encoder = kitoken.Kitoken.from_tiktoken_file(str(Path(str(FOLDER)) / "cl100k_base.tiktoken"))
    text = " <|endoftext|>"
    assert encoder.encode(text, False) == [220, 27, 91, 8862, 728, 428, 91, 29]  # ' ', '<', '|', ...
    assert encode_production_fast(text, setup.vocabulary, CL100K) == [83739, 8862, 728, 428, 91, 29]  # ' <|', ...
    changed = " <|endoftexx|>"  # no special's text: kitoken agrees
    assert encoder.encode(changed, False) == encode_production_fast(changed, setup.vocabulary, CL100K)


def test_the_harness_blames_the_specials_and_passes_the_rest() -> None:
    from bpe_conformance.adapters.thirdparty.kitoken_production import KitokenCl100k

    bound = bind_vocabulary(InProcessSubject(KitokenCl100k), _setup())
    with pytest.raises(Violation) as raised:
        verify_production_encode(bound, " <|endoftext|>")
    assert raised.value.clause == "BPE-SPECIAL-ORDINARY"
    verify_production_encode(bound, "hello  world's 12345 Привет")
    assert bound.decode([100257]) == "<|endoftext|>"  # decode_specials=True: the specials decode to their text
