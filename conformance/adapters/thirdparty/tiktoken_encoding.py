"""``tiktoken.Encoding`` behind the plug-in contract (profile ``tiktoken``; encode-only).

tiktoken cannot train, so the adapter has ``load``, ``encode`` and ``decode`` only, and it
never fetches a hosted vocabulary. ``load(rules)`` builds
``tiktoken.Encoding(name="bpe-conformance", pat_str=r"[\\s\\S]+", mergeable_ranks=...,
special_tokens={})`` where ``mergeable_ranks`` gives each single byte its own value as rank
(0-255 in byte order) and rule ``r``'s piece the rank ``256 + r``. The pattern matches the whole
text, so nothing is pre-tokenized. tiktoken's ids are its ranks, which are already our ids.
Two rules with the same piece cannot be expressed as ranks, so ``load`` rejects them.
"""

from __future__ import annotations

import tiktoken

from bpe_conformance.adapters.thirdparty.pieces import ranks_from_rules

__all__ = ["NO_SPLIT_PATTERN", "TiktokenAdapter"]

NO_SPLIT_PATTERN = r"[\s\S]+"


class TiktokenAdapter:
    """Encode and decode with a ``tiktoken.Encoding`` made from our rules."""

    name = "tiktoken"
    version = tiktoken.__version__
    profile = "tiktoken"
    capabilities = frozenset({"load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        ranks = ranks_from_rules(rules)
        self._encoding = tiktoken.Encoding(
            name="bpe-conformance", pat_str=NO_SPLIT_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )
        self._rules = [(int(first), int(second)) for first, second in rules]
        return list(self._rules)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._encoding.encode(text, disallowed_special=())
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._encoding.decode(ids)
        return text
