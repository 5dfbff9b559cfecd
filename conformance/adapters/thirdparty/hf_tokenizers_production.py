"""Hugging Face ``tokenizers`` as GPT-2 ships it: a byte-level BPE model behind ``ByteLevel(use_regex=True)``.

``load_vocabulary(ranks, special_tokens)`` writes the ranks as a ``tokenizer.json`` (pieces as byte-level
symbols, ids = ranks, the specials as added tokens) and loads it with ``Tokenizer.from_str``. HF's model
merges pairs by merge rank, not pieces by piece rank, so each piece's merge is the pair that lowest-rank
merging of its own bytes, with only lower ranks, ends in (the conversion tiktoken's ranks need; a piece
that merging cannot reach cannot be written as a merge, and ``load_vocabulary`` refuses it). HF's
ByteLevel pattern is GPT-2's original one, which tiktoken says ``r50k_pat_str`` is equivalent to, so the
class declares profile ``gpt2``. ``encode_special_tokens`` is set: HF matches added tokens in any text
unless told otherwise, and ordinary text must not yield specials (BPE-SPECIAL-ORDINARY).

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.hf_tokenizers_production:HFByteLevelGpt2 \\
        --vocabulary encoder.json,vocab.bpe
"""

from __future__ import annotations

import json
from importlib.metadata import version

from tokenizers import Tokenizer

from bpe_conformance.reference.dialects import byte_level_symbol

__all__ = ["HFByteLevelGpt2", "merge_of", "tokenizer_json"]


def _symbols(piece: bytes) -> str:
    return "".join(byte_level_symbol(value) for value in piece)


def merge_of(piece: bytes, rank: int, rank_of: dict[bytes, int]) -> tuple[bytes, bytes]:
    """The two parts lowest-rank merging of ``piece``'s bytes ends in, using only ranks below ``rank``."""
    parts = [piece[position : position + 1] for position in range(len(piece))]
    while len(parts) > 2:
        joinable = [
            (rank_of[parts[i] + parts[i + 1]], i)
            for i in range(len(parts) - 1)
            if rank_of.get(parts[i] + parts[i + 1], rank) < rank
        ]
        if not joinable:
            raise ValueError(f"piece {piece!r} (rank {rank}) is not reached by merging lower ranks")
        _, i = min(joinable)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts[0], parts[1]


def tokenizer_json(ranks: dict[bytes, int], special_tokens: dict[str, int]) -> str:
    """A GPT-2-style ``tokenizer.json`` for ``ranks``: merges in rank order, specials as added tokens."""
    merges = []
    for piece, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(piece) > 1:
            first, second = merge_of(piece, rank, ranks)
            merges.append(f"{_symbols(first)} {_symbols(second)}")
    added = [
        {"id": token_id, "content": text, "single_word": False, "lstrip": False, "rstrip": False}
        | {"normalized": False, "special": True}
        for text, token_id in special_tokens.items()
    ]
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        # The specials are in the model's vocabulary too, as in GPT-2's own tokenizer.json: an added token
        # the model does not know is given the next free id, not its own.
        "vocab": {_symbols(piece): rank for piece, rank in ranks.items()} | dict(special_tokens),
        "merges": merges,
    }
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": byte_level,
        "post_processor": None,
        "decoder": byte_level,
        "model": model,
    }
    return json.dumps(document, ensure_ascii=False)


class HFByteLevelGpt2:
    """``tokenizers`` with GPT-2's pre-tokenizer and decoder over the harness's ranks."""

    name = "hf-tokenizers-bytelevel"
    version = version("tokenizers")
    profile = "gpt2"
    capabilities = frozenset({"encode", "decode"})

    def __init__(self) -> None:
        self._tokenizer: Tokenizer | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        tokenizer = Tokenizer.from_str(tokenizer_json(ranks, special_tokens))
        tokenizer.encode_special_tokens = True
        self._tokenizer = tokenizer

    def _loaded(self) -> Tokenizer:
        if self._tokenizer is None:
            raise ValueError("no vocabulary loaded")
        return self._tokenizer

    def encode(self, text: str) -> list[int]:
        return list(self._loaded().encode(text, add_special_tokens=False).ids)

    def decode(self, ids: list[int]) -> str:
        return str(self._loaded().decode(ids, skip_special_tokens=False))
