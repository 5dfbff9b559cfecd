"""tiktoken with a released encoding's own pattern and specials, on ranks the harness hands it (production runs).

``tiktoken_ext.openai_public`` defines each released encoding as a function that downloads its rank file
and returns the pattern and special tokens beside it. The adapter calls that function with the loader
swapped for one that returns the ranks of ``run --vocabulary``, so nothing is downloaded and tiktoken's
own pattern and specials (not this project's copies of them) are what is judged:

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.tiktoken_released:TiktokenCl100k \\
        --vocabulary cl100k_base.tiktoken

``encode`` is tiktoken's ``encode(text, disallowed_special=())``: special-token text in ordinary text is
ordinary text (``encode_ordinary``).
"""

from __future__ import annotations

from typing import Any

import tiktoken
import tiktoken_ext.openai_public as openai_public

__all__ = ["TiktokenCl100k", "TiktokenGpt2", "TiktokenO200k", "released_encoding"]


def released_encoding(constructor: str, ranks: dict[bytes, int]) -> tiktoken.Encoding:
    """tiktoken's ``constructor`` (``cl100k_base``, ...) over ``ranks`` instead of the downloaded file."""
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = lambda *_args, **_kwargs: dict(ranks)
    try:
        spec: dict[str, Any] = getattr(openai_public, constructor)()
    finally:
        openai_public.load_tiktoken_bpe = original
    spec.pop("explicit_n_vocab", None)  # it counts the released file's pieces, not these
    return tiktoken.Encoding(**spec)


class _Released:
    constructor = ""
    version = tiktoken.__version__
    capabilities = frozenset({"encode", "decode"})

    def __init__(self) -> None:
        self._encoding: tiktoken.Encoding | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:  # noqa: ARG002 - the contract's signature; tiktoken's constructor brings its own specials
        self._encoding = released_encoding(self.constructor, ranks)

    def _loaded(self) -> tiktoken.Encoding:
        if self._encoding is None:
            raise ValueError("no vocabulary loaded")
        return self._encoding

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._loaded().encode(text, disallowed_special=())
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._loaded().decode(ids)
        return text


class TiktokenGpt2(_Released):
    """tiktoken's ``r50k_base`` (GPT-2's pattern and ``<|endoftext|>``)."""

    name = "tiktoken-r50k_base"
    profile = "gpt2"
    constructor = "r50k_base"


class TiktokenCl100k(_Released):
    """tiktoken's ``cl100k_base``."""

    name = "tiktoken-cl100k_base"
    profile = "cl100k"
    constructor = "cl100k_base"


class TiktokenO200k(_Released):
    """tiktoken's ``o200k_base``."""

    name = "tiktoken-o200k_base"
    profile = "o200k"
    constructor = "o200k_base"
