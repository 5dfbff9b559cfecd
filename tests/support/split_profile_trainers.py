"""Small pure-Python pre-tokenizing trainers judged by ``run --profile rustbpe+split=cl100k``: one correct, four
with one bug each.

Each declares that profile (rustbpe's dialect: ties to the smallest pair, pairs seen once merged, ids
``256 + r``, documents separate) behind cl100k's split. Each owns its pattern and its merge loop: it
splits every document with its pattern (the ``regex`` package), counts pairs inside chunks only,
recounting every round, and encodes a text chunk by chunk by applying its rules in rank order. The
bugs, each one real ports have shipped:

* :class:`WhitespaceWithoutLookahead`: ``\\s+`` where cl100k has ``\\s+(?!\\S)``, so the space before a
  word stays with the spaces before it (``"a  b"`` is ``a``, ``"  "``, ``b``, not ``a``, ``" "``, ``" b"``);
* :class:`DigitsUngrouped`: ``\\p{N}++`` where cl100k has ``\\p{N}{1,3}+`` (``12345`` one chunk, not ``123``, ``45``);
* :class:`SplitIgnored`: declares the split and trains and encodes whole documents;
* :class:`EncodesAcrossChunks`: trains behind the split but encodes the whole text, so a token may span
  two chunks.
"""

from __future__ import annotations

import itertools

import regex

from bpe_conformance.reference.pretokenization import CL100K

__all__ = [
    "SPLIT_BUGS",
    "CorrectSplitTrainer",
    "DigitsUngrouped",
    "EncodesAcrossChunks",
    "SplitIgnored",
    "WhitespaceWithoutLookahead",
]

Pair = tuple[int, int]
FIRST_ID = 256


def _count(sequences: list[list[int]]) -> dict[Pair, int]:
    counts: dict[Pair, int] = {}
    for sequence in sequences:
        for pair in itertools.pairwise(sequence):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def _replace(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    out: list[int] = []
    position = 0
    while position < len(sequence):
        if position + 1 < len(sequence) and (sequence[position], sequence[position + 1]) == pair:
            out.append(new_id)
            position += 2
        else:
            out.append(sequence[position])
            position += 1
    return out


class CorrectSplitTrainer:
    """Correct: cl100k's pattern, pairs counted inside chunks, each chunk encoded on its own."""

    name = "correct-split-trainer"
    version = "1.0"
    profile = "rustbpe+split=cl100k"
    capabilities = frozenset({"train", "encode", "decode", "load"})
    pattern: str | None = CL100K.pattern

    def __init__(self) -> None:
        self.rules: list[Pair] = []

    def reset(self) -> None:
        self.rules = []

    def chunks(self, text: str) -> list[str]:
        if self.pattern is None:
            return [text] if text else []
        return [match.group(0) for match in regex.finditer(self.pattern, text)]

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        sequences = [list(chunk.encode()) for document in documents for chunk in self.chunks(document)]
        rules: list[Pair] = []
        for rank in range(max_merges):
            counts = _count(sequences)
            if not counts:
                break
            best = max(counts.values())
            pair = min(pair for pair, count in counts.items() if count == best)
            sequences = [_replace(sequence, pair, FIRST_ID + rank) for sequence in sequences]
            rules.append(pair)
        self.rules = rules
        return list(rules)

    def load(self, rules: list[Pair]) -> None:
        self.rules = [(int(first), int(second)) for first, second in rules]

    def encode_piece(self, text: str) -> list[int]:
        sequence = list(text.encode())
        for rank, pair in enumerate(self.rules):
            sequence = _replace(sequence, pair, FIRST_ID + rank)
        return sequence

    def encode(self, text: str) -> list[int]:
        return [token for chunk in self.chunks(text) for token in self.encode_piece(chunk)]

    def decode(self, ids: list[int]) -> str:
        pieces = [bytes([value]) for value in range(FIRST_ID)]
        for first, second in self.rules:
            pieces.append(pieces[first] + pieces[second])
        for token in ids:
            if not 0 <= token < len(pieces):
                raise ValueError(f"unknown id {token}")
        return b"".join(pieces[token] for token in ids).decode("utf-8")


class WhitespaceWithoutLookahead(CorrectSplitTrainer):
    """Bug: ``\\s+`` for ``\\s+(?!\\S)``: a run of spaces keeps the space that belongs to the next word."""

    name = "whitespace-without-lookahead"
    pattern = CL100K.pattern.replace(r"\s+(?!\S)|\s", r"\s+")


class DigitsUngrouped(CorrectSplitTrainer):
    """Bug: ``\\p{N}++`` for ``\\p{N}{1,3}+``: a digit run is one chunk, not groups of three."""

    name = "digits-ungrouped"
    pattern = CL100K.pattern.replace(r"\p{N}{1,3}+", r"\p{N}++")


class SplitIgnored(CorrectSplitTrainer):
    """Bug: declares the cl100k split but trains and encodes whole documents."""

    name = "split-ignored"
    pattern = None


class EncodesAcrossChunks(CorrectSplitTrainer):
    """Bug: trains behind the split, then applies its rules to the whole text, merging across chunks."""

    name = "encodes-across-chunks"

    def encode(self, text: str) -> list[int]:
        return self.encode_piece(text)


SPLIT_BUGS = (WhitespaceWithoutLookahead, DigitsUngrouped, SplitIgnored, EncodesAcrossChunks)
