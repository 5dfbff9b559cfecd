"""The literal reference as vocabulary-bound encoders, one per production profile (the bundled reference of
``run --vocabulary`` when no ``--impl`` is given).

>>> from bpe_conformance.reference.vocabulary import vocabulary_from_pieces
>>> vocabulary = vocabulary_from_pieces([(bytes([b]), b, None) for b in range(256)], "bytes")
>>> encoder = ReferenceCl100k()
>>> encoder.load_vocabulary(dict(vocabulary.rank_of), {"<|endoftext|>": 300})
>>> encoder.encode("hi"), encoder.decode([104, 105, 300])
([104, 105], 'hi<|endoftext|>')
"""

from __future__ import annotations

from bpe_conformance.reference.pretokenization import (
    SPLIT_PROFILES,
    decode_production,
    encode_production,
)
from bpe_conformance.reference.vocabulary import Vocabulary

__all__ = ["REFERENCE_ENCODERS", "ReferenceCl100k", "ReferenceGpt2", "ReferenceO200k"]


class _ReferenceEncoder:
    """The literal encoder and decoder of :mod:`bpe_conformance.reference.pretokenization` behind the contract."""

    version = "specs/bpe.md"
    capabilities = frozenset({"encode", "decode"})
    profile = ""

    def __init__(self) -> None:
        self._vocabulary: Vocabulary | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        by_rank = sorted(ranks.items(), key=lambda item: item[1])
        if [rank for _, rank in by_rank] != list(range(len(by_rank))):
            raise ValueError("ranks must run from 0 without a gap")
        self._vocabulary = Vocabulary(tuple(piece for piece, _ in by_rank), dict(special_tokens))

    def _loaded(self) -> Vocabulary:
        if self._vocabulary is None:
            raise ValueError("no vocabulary loaded")
        return self._vocabulary

    def encode(self, text: str) -> list[int]:
        return encode_production(text, self._loaded(), SPLIT_PROFILES[self.profile])

    def decode(self, ids: list[int]) -> str:
        return decode_production(ids, self._loaded())


class ReferenceGpt2(_ReferenceEncoder):
    name = "reference-gpt2"
    profile = "gpt2"


class ReferenceCl100k(_ReferenceEncoder):
    name = "reference-cl100k"
    profile = "cl100k"


class ReferenceO200k(_ReferenceEncoder):
    name = "reference-o200k"
    profile = "o200k"


REFERENCE_ENCODERS = {encoder.profile: encoder for encoder in (ReferenceGpt2, ReferenceCl100k, ReferenceO200k)}
