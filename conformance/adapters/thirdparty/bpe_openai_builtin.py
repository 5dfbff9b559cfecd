"""bpe-openai 0.1.4 (PyPI; Python over GitHub's Rust ``bpe-openai`` crate): cl100k_base and o200k_base built in.

bpe-openai ships both rank files gzipped and builds its encodings from them by name
(``bpe_openai.get_encoding``); it has no public loader for other ranks, so each class declares its built-in
vocabulary, which ``run --vocabulary`` compares with the file before judging anything:

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.bpe_openai_builtin:BpeOpenaiCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is its ``encode_ordinary`` (special-token text is ordinary text); ``decode`` is its ``decode``.
"""

from __future__ import annotations

from importlib.metadata import version

import bpe_openai

__all__ = ["BpeOpenaiCl100k", "BpeOpenaiO200k"]


class _BuiltIn:
    version = version("bpe-openai")
    capabilities = frozenset({"encode", "decode"})
    vocabulary = ""

    def __init__(self) -> None:
        self._encoding = bpe_openai.get_encoding(self.vocabulary)

    def encode(self, text: str) -> list[int]:
        return list(self._encoding.encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        return str(self._encoding.decode(ids))


class BpeOpenaiCl100k(_BuiltIn):
    """bpe-openai's ``cl100k_base``."""

    name = "bpe-openai-cl100k_base"
    profile = "cl100k"
    vocabulary = "cl100k_base"


class BpeOpenaiO200k(_BuiltIn):
    """bpe-openai's ``o200k_base``."""

    name = "bpe-openai-o200k_base"
    profile = "o200k"
    vocabulary = "o200k_base"
