"""``bpeasy`` behind the plug-in contract (profile ``bpeasy``).

Configuration: ``bpeasy.train_bpe(iter(documents), python_regex=r"[\\s\\S]+",
max_token_length=2**31, vocab_size=256 + max_merges)``: each document is one iterator item,
kept whole by the pattern, and the token-length cap is out of reach. Encoding and decoding go
through ``bpeasy.tokenizer.BPEasyTokenizer(vocab, regex_pattern=r"[\\s\\S]+")``, which wraps a
``tiktoken.Encoding``.

Mapping: bpeasy returns ``piece -> rank`` with bytes at their value and merge ``r`` at
``256 + r``: these ranks are the ids, and ours. The pair of each merge is recovered with
bpeasy's own ``bpeasy.convert.bpe(vocab, piece, max_rank=rank)`` (the tiktoken convention).
``load(rules)`` builds the same ``piece -> rank`` table from the rules' pieces.
"""

from __future__ import annotations

import bpeasy
from bpeasy.convert import bpe
from bpeasy.tokenizer import BPEasyTokenizer

from bpe_conformance.adapters.thirdparty.pieces import FIRST_RULE_ID, ranks_from_rules, reachable_budget

__all__ = ["BpeasyAdapter"]

_NO_SPLIT_PATTERN = r"[\s\S]+"
_NO_LENGTH_CAP = 2**31


class BpeasyAdapter:
    """Train with bpeasy's Rust trainer; encode and decode with its tiktoken wrapper."""

    name = "bpeasy"
    version = bpeasy.__version__
    profile = "bpeasy"
    capabilities = frozenset({"train", "load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def _adopt(self, vocab: dict[bytes, int]) -> list[tuple[int, int]]:
        self._tokenizer = BPEasyTokenizer(vocab, regex_pattern=_NO_SPLIT_PATTERN)
        rules = []
        for piece, rank in sorted(
            ((piece, rank) for piece, rank in vocab.items() if rank >= FIRST_RULE_ID), key=lambda item: item[1]
        ):
            parts = bpe(vocab, piece, max_rank=rank)
            if len(parts) != 2:
                raise ValueError(f"bpeasy rank {rank} (piece {piece.hex(' ')}) splits into {len(parts)} parts, not 2")
            rules.append((vocab[parts[0]], vocab[parts[1]]))
        return rules

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        max_merges = reachable_budget(documents, max_merges)  # type: ignore[assignment]
        vocab = bpeasy.train_bpe(iter(documents), _NO_SPLIT_PATTERN, _NO_LENGTH_CAP, FIRST_RULE_ID + max_merges)
        return self._adopt(vocab)

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        self._adopt(ranks_from_rules(rules))
        return [(int(first), int(second)) for first, second in rules]

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tokenizer.encode(text, disallowed_special=())
        return ids

    def decode(self, ids: list[int]) -> str:
        text: str = self._tokenizer.decode(ids)
        return text
