"""Trainers behind the cl100k split pattern for ``compare --split``: one correct, two with one bug each.

All declare profile ``rustbpe`` (ties to the smallest pair, pairs seen once merged, ids ``256 + r``) and
``split = "cl100k"``. :class:`LiteralChunkTrainer` is the literal chunk reference (every chunk occurrence
recounted each round) with its own literal encoder, so ``compare`` puts the word-count engine against
it. The broken ones:

* :class:`FrequencyBlindTrainer` keeps each distinct chunk once but forgets how often it occurs, the
  classic word-count slip (a pair inside ``" the"`` counts once, however many times ``" the"`` occurs);
* :class:`SplitIgnoringTrainer` declares the split and trains on whole documents, so merges cross chunks.
"""

from __future__ import annotations

from bpe_conformance.reference.chunk_training import chunk_counts, train_chunks_literal
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.dialects import profile_pieces, select_profile_pair
from bpe_conformance.reference.pretokenization import CL100K, split_text
from bpe_conformance.reference.profiles import RUSTBPE
from bpe_conformance.reference.replacement import replace_pair

__all__ = ["FrequencyBlindTrainer", "LiteralChunkTrainer", "NumberSplitTrainer", "SplitIgnoringTrainer"]

Pair = tuple[int, int]


def _train_sequences(sequences: list[list[int]], max_merges: int) -> list[Pair]:
    pieces = profile_pieces([], RUSTBPE)
    rules: list[Pair] = []
    for rank in range(max_merges):
        pair = select_profile_pair(count_pairs(sequences), pieces, RUSTBPE)
        if pair is None:
            break
        sequences = [replace_pair(sequence, pair, RUSTBPE.first_rule_id + rank) for sequence in sequences]
        rules.append(pair)
        pieces.append(pieces[pair[0]] + pieces[pair[1]])
    return rules


class LiteralChunkTrainer:
    """Correct: the literal chunk reference, encoding each chunk by applying the rules in rank order."""

    name = "literal-chunk-trainer"
    version = "1.0"
    profile = "rustbpe"
    split = "cl100k"
    capabilities = frozenset({"train", "encode", "decode"})

    def __init__(self) -> None:
        self.rules: list[Pair] = []

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        self.rules = self._train(documents, max_merges)
        return list(self.rules)

    def _train(self, documents: list[str], max_merges: int) -> list[Pair]:
        return train_chunks_literal(documents, max_merges, RUSTBPE, CL100K)

    def encode(self, text: str) -> list[int]:
        ids: list[int] = []
        for chunk in split_text(text, CL100K):
            sequence = list(chunk.encode())
            for rank, pair in enumerate(self.rules):
                sequence = replace_pair(sequence, pair, RUSTBPE.first_rule_id + rank)
            ids.extend(sequence)
        return ids

    def decode(self, ids: list[int]) -> str:
        pieces = profile_pieces(self.rules, RUSTBPE)
        return b"".join(pieces[token] for token in ids).decode("utf-8", errors="replace")


class FrequencyBlindTrainer(LiteralChunkTrainer):
    """Bug: each distinct chunk counted once, its frequency forgotten."""

    name = "frequency-blind-trainer"

    def _train(self, documents: list[str], max_merges: int) -> list[Pair]:
        return _train_sequences([list(chunk) for chunk in chunk_counts(documents, RUSTBPE, CL100K)], max_merges)


class SplitIgnoringTrainer(LiteralChunkTrainer):
    """Bug: declares the cl100k split but trains on whole documents (merges cross chunk boundaries)."""

    name = "split-ignoring-trainer"

    def _train(self, documents: list[str], max_merges: int) -> list[Pair]:
        return _train_sequences([list(document.encode()) for document in documents], max_merges)


class NumberSplitTrainer(LiteralChunkTrainer):
    """Bad declaration: a split that is not a string."""

    name = "number-split-trainer"
    split = 100_000  # type: ignore[assignment]
