"""ffbpe 0.1.10 (PyPI, Rust): its tiktoken-shaped ``Encoding`` over the ranks the harness hands it (production runs).

``ffbpe.tiktoken_compat.Encoding(name, pat_str=..., mergeable_ranks=..., special_tokens=...)`` takes what
tiktoken's constructor takes; it turns the ranks into merges itself and splits with its own regex engine.
``load_vocabulary(ranks, special_tokens)`` gives it the ranks and specials of ``run --vocabulary`` and the
pattern of the profile the class declares (tiktoken's, copied in
:mod:`bpe_conformance.reference.pretokenization`):

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.ffbpe_production:FfbpeCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is its ``encode_ordinary``; ``decode`` is its ``decode`` (U+FFFD for invalid UTF-8).
"""

from __future__ import annotations

from importlib.metadata import version

from ffbpe.tiktoken_compat import Encoding

from bpe_conformance.reference.pretokenization import SPLIT_PROFILES

__all__ = ["FfbpeCl100k", "FfbpeO200k"]


class _Production:
    version = version("ffbpe")
    capabilities = frozenset({"encode", "decode"})
    profile = ""

    def __init__(self) -> None:
        self._encoding: Encoding | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        self._encoding = Encoding(
            self.profile,
            pat_str=SPLIT_PROFILES[self.profile].pattern,
            mergeable_ranks=dict(ranks),
            special_tokens=dict(special_tokens),
        )

    def _loaded(self) -> Encoding:
        if self._encoding is None:
            raise ValueError("no vocabulary loaded")
        return self._encoding

    def encode(self, text: str) -> list[int]:
        return list(self._loaded().encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        return str(self._loaded().decode(ids))


class FfbpeCl100k(_Production):
    name = "ffbpe-cl100k"
    profile = "cl100k"


class FfbpeO200k(_Production):
    name = "ffbpe-o200k"
    profile = "o200k"
