"""``riptoken.CoreBPE`` behind the plug-in contract (profile ``tiktoken``; encode-only).

riptoken (PyPI, Rust) is a reimplementation of tiktoken's ``CoreBPE``. It cannot train, so the
adapter has ``load``, ``encode`` and ``decode`` only, and it never fetches a hosted vocabulary.
``load(rules)`` builds ``riptoken.CoreBPE(encoder, {}, r"[\\s\\S]+")`` where ``encoder`` gives each
single byte its own value as rank and rule ``r``'s piece the rank ``256 + r`` (the format of a
``.tiktoken`` file, which ``riptoken.load_tiktoken_bpe`` reads). The pattern matches the whole text,
so nothing is pre-tokenized. Its ids are its ranks, which are already our ids. Two rules with the
same piece cannot be expressed as ranks, so ``load`` rejects them. Unknown ids are skipped, as its
``decode_bytes`` documents.
"""

from __future__ import annotations

import riptoken

from bpe_conformance.adapters.thirdparty.pieces import ranks_from_rules

__all__ = ["RiptokenAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"


class RiptokenAdapter:
    """Encode and decode with a ``riptoken.CoreBPE`` made from our rules."""

    name = "riptoken"
    version = riptoken.__version__
    profile = "tiktoken"
    capabilities = frozenset({"load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self._core = riptoken.CoreBPE(ranks_from_rules(rules), {}, _NO_SPLIT_PATTERN)
        return list(rules)

    def encode(self, text: str) -> list[int]:
        return list(self._core.encode_ordinary(text))

    def decode(self, ids: list[int]) -> str:
        # ``CoreBPE.decode`` is documented as exactly this (U+FFFD for invalid UTF-8, as tiktoken), and
        # unlike ``decode_bytes`` it is missing from the package's type stubs.
        text: str = self._core.decode_bytes(ids).decode("utf-8", errors="replace")
        return text
