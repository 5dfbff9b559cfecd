"""``rustbpe.Tokenizer`` behind the plug-in contract (profile ``rustbpe``).

Configuration: ``train_from_iterator(iter(documents), vocab_size=256 + max_merges,
pattern=r"[\\s\\S]+")``: each document is one item of the iterator and the pattern keeps it
whole, so there is no pre-tokenization and no counting across documents.

Mapping: rustbpe's ids are ``get_mergeable_ranks()`` ranks, bytes at their value and merge
``r`` at ``256 + r``, which are our ids. It does not report which two tokens a merge joined, so
the pairs are recovered from the ranks by the tiktoken convention in
:mod:`bpe_conformance.adapters.thirdparty.pieces`. It has no way to load rules.
"""

from __future__ import annotations

from importlib.metadata import version

import rustbpe

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rules_from_ranks

__all__ = ["RustbpeAdapter"]


class RustbpeAdapter:
    """Train, encode and decode with rustbpe (GPT-4-style trainer used by nanochat)."""

    name = "rustbpe"
    version = version("rustbpe")
    profile = "rustbpe"
    capabilities = frozenset({"train", "encode", "decode"})

    def __init__(self) -> None:
        self._tokenizer = rustbpe.Tokenizer()

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = rustbpe.Tokenizer()
        tokenizer.train_from_iterator(iter(documents), FIRST_RULE_ID + max_merges, pattern=r"[\s\S]+")
        self._tokenizer = tokenizer
        return rules_from_ranks(dict(tokenizer.get_mergeable_ranks()))

    def encode(self, text: str) -> list[int]:
        return list(self._tokenizer.encode(text))

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
