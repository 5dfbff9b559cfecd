"""``fast_bpe_rs.BPE`` behind the plug-in contract (profile ``rustbpe``).

Configuration: ``BPE(r"(?s).+")`` (the library's own no-split pattern from its README) and
``train(256 + max_merges, documents)``: each document is one item of the list and the pattern keeps
it whole, so there is no pre-tokenization and no counting across documents.

Mapping: bytes are ids 0-255 and merge ``r`` is ``256 + r``, which are our ids. The library
exposes no rank table, only ``decode([id]) -> bytes``: the rule pieces are read id by id from 256
up to the first id that decodes to nothing (no learned piece is empty), and the pairs are recovered
from those ranks by the tiktoken convention in :mod:`bpe_conformance.adapters.thirdparty.pieces`.
``decode`` is ``decode_to_string``. It has no way to load rules.
"""

from __future__ import annotations

from importlib.metadata import version

from fast_bpe_rs import BPE

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, reachable_budget, rules_from_ranks

__all__ = ["FastBpeRsAdapter"]

_NO_SPLIT_PATTERN = r"(?s).+"


class FastBpeRsAdapter:
    """Train, encode and decode with fast-bpe-rs (incremental pair counts in Rust)."""

    name = "fast-bpe-rs"
    version = version("fast-bpe-rs")
    profile = "rustbpe"
    capabilities = frozenset({"train", "encode", "decode"})

    def __init__(self) -> None:
        self._bpe = BPE(_NO_SPLIT_PATTERN)

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        bpe = BPE(_NO_SPLIT_PATTERN)
        bpe.train(FIRST_RULE_ID + max_merges, documents)
        self._bpe = bpe
        ranks = {bytes([value]): value for value in range(FIRST_RULE_ID)}
        for token_id in range(FIRST_RULE_ID, FIRST_RULE_ID + max_merges):
            piece = bytes(bpe.decode([token_id]))
            if not piece:
                break
            ranks[piece] = token_id
        return rules_from_ranks(ranks)

    def encode(self, text: str) -> list[int]:
        return list(self._bpe.encode(text))

    def decode(self, ids: list[int]) -> str:
        text: str = self._bpe.decode_to_string(ids)
        return text
