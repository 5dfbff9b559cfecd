"""``flashbpe.Tokenizer`` behind the plug-in contract (profile ``flashbpe``).

flashbpe (PyPI) is a fork of karpathy/rustbpe reworked for streaming training. Configuration:
``train_from_iterator(iter(documents), vocab_size=256 + max_merges, pattern=r"[\\s\\S]+")``: each
document is one item of the iterator and the pattern keeps it whole, so there is no
pre-tokenization and no counting across documents.

Mapping: flashbpe's ids are its ``get_mergeable_ranks()`` ranks. Unlike rustbpe, it ranks the 256
single bytes in GPT-2's byte-level order (``!`` is 0), so a byte's id is mapped to the byte's value;
merge ``r`` is rank ``256 + r`` in both numberings. The pairs are recovered from the ranks by the
tiktoken convention in :mod:`bpe_conformance.adapters.thirdparty.pieces`. Ids unknown to us are passed
to flashbpe unchanged (unknown there too), and so is anything that is not an int, so its own
policy applies. It has no way to load rules.
"""

from __future__ import annotations

from importlib.metadata import version

import flashbpe

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rules_from_ranks

__all__ = ["FlashbpeAdapter"]


class FlashbpeAdapter:
    """Train, encode and decode with flashbpe (a rustbpe fork)."""

    name = "flashbpe"
    version = version("flashbpe")
    profile = "flashbpe"
    capabilities = frozenset({"train", "encode", "decode"})

    def __init__(self) -> None:
        self._adopt(flashbpe.Tokenizer())

    def _adopt(self, tokenizer: flashbpe.Tokenizer) -> list[tuple[int, int]]:
        ours: dict[bytes, int] = {}
        self._to_ours: dict[int, int] = {}
        for piece, rank in tokenizer.get_mergeable_ranks():
            our_id = piece[0] if len(piece) == 1 else rank
            ours[bytes(piece)] = our_id
            self._to_ours[rank] = our_id
        self._to_flashbpe = {our_id: rank for rank, our_id in self._to_ours.items()}
        self._tokenizer = tokenizer
        return rules_from_ranks(ours) if ours else []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        tokenizer = flashbpe.Tokenizer()
        tokenizer.train_from_iterator(iter(documents), FIRST_RULE_ID + max_merges, pattern=r"[\s\S]+")
        return self._adopt(tokenizer)

    def encode(self, text: str) -> list[int]:
        return [self._to_ours[token_id] for token_id in self._tokenizer.encode(text)]

    def decode(self, ids: list[int]) -> str:
        # Only ints are renumbered: anything else (a float, a bool, a str) reaches flashbpe as it came.
        text: str = self._tokenizer.decode(
            [self._to_flashbpe.get(token_id, token_id) if type(token_id) is int else token_id for token_id in ids]
        )
        return text
