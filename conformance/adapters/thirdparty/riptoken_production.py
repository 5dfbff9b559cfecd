"""riptoken 0.2.4 (a Rust reimplementation of tiktoken's ``CoreBPE``) behind a production profile's pattern.

``load_vocabulary(ranks, special_tokens)`` builds ``riptoken.CoreBPE(ranks, special_tokens, pattern)`` with
the pattern of the profile the class declares (tiktoken's, copied in :mod:`bpe_conformance.reference.pretokenization`),
so riptoken's own regex engine and merge loop are what is judged:

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.riptoken_production:RiptokenCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is its ``encode_ordinary``; ``decode`` is ``decode_bytes`` with U+FFFD for invalid UTF-8.
"""

from __future__ import annotations

import riptoken

from bpe_conformance.reference.pretokenization import SPLIT_PROFILES

__all__ = ["RiptokenCl100k", "RiptokenGpt2", "RiptokenO200k"]


class _Production:
    version = riptoken.__version__
    capabilities = frozenset({"encode", "decode"})
    profile = ""

    def __init__(self) -> None:
        self._core: riptoken.CoreBPE | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        self._core = riptoken.CoreBPE(dict(ranks), dict(special_tokens), SPLIT_PROFILES[self.profile].pattern)

    def _loaded(self) -> riptoken.CoreBPE:
        if self._core is None:
            raise ValueError("no vocabulary loaded")
        return self._core

    def encode(self, text: str) -> list[int]:
        return list(self._loaded().encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        return bytes(self._loaded().decode_bytes(ids)).decode("utf-8", errors="replace")


class RiptokenGpt2(_Production):
    name = "riptoken-gpt2"
    profile = "gpt2"


class RiptokenCl100k(_Production):
    name = "riptoken-cl100k"
    profile = "cl100k"


class RiptokenO200k(_Production):
    name = "riptoken-o200k"
    profile = "o200k"
