"""quicktok 0.4.0 (PyPI ``quicktok-v1``, C++): cl100k_base and o200k_base built in (production runs).

quicktok loads its own bundled vocabularies by name (``quicktok.get_encoding``) and has no loader for a
rank file, so each class declares its built-in vocabulary, which ``run --vocabulary`` compares with the
file before judging anything (:mod:`bpe_conformance.dialects.production`):

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.quicktok_builtin:QuicktokCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is its ``encode_ordinary`` (special-token text is ordinary text); ``decode`` is its ``decode``
(U+FFFD for invalid UTF-8, like tiktoken's).
"""

from __future__ import annotations

import quicktok

__all__ = ["QuicktokCl100k", "QuicktokO200k"]


class _BuiltIn:
    version = str(quicktok.__version__)
    capabilities = frozenset({"encode", "decode"})
    vocabulary = ""

    def __init__(self) -> None:
        self._encoding = quicktok.get_encoding(self.vocabulary)

    def encode(self, text: str) -> list[int]:
        return list(self._encoding.encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        return str(self._encoding.decode(ids))


class QuicktokCl100k(_BuiltIn):
    """quicktok's ``cl100k_base``."""

    name = "quicktok-cl100k_base"
    profile = "cl100k"
    vocabulary = "cl100k_base"


class QuicktokO200k(_BuiltIn):
    """quicktok's ``o200k_base``."""

    name = "quicktok-o200k_base"
    profile = "o200k"
    vocabulary = "o200k_base"
