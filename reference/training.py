"""Training: count, select, replace, repeat (BPE-TRAIN-*).

>>> train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> train(["aaab", "aab"], 32)
[(97, 97)]
>>> train(["abab", "acac"], 1)
[(97, 98)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.reference.alphabet import MIN_MERGE_COUNT, rule_id
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.selection import select_pair
from bpe_conformance.reference.validation import check_documents, check_max_merges

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["Round", "TrainingResult", "train", "train_sequences", "training_rounds"]


@dataclass(frozen=True)
class Round:
    """One merge: the counts it was chosen from, the rule it made and the sequences it left."""

    rank: int
    counts: dict[tuple[int, int], int]
    pair: tuple[int, int]
    count: int
    new_id: int
    sequences_before: list[list[int]]
    sequences_after: list[list[int]]


@dataclass(frozen=True)
class TrainingResult:
    """The rules in rank order and every training document's final id sequence."""

    rules: list[tuple[int, int]]
    sequences: list[list[int]]


def training_rounds(documents: list[str], max_merges: int) -> Iterator[Round]:
    """Yield one :class:`Round` per rule made, stopping by BPE-TRAIN-STOP.

    Arguments are validated before the first round, so a bad call fails before yielding.
    """
    return _rounds(*_validated(documents, max_merges))


def _validated(documents: object, max_merges: object) -> tuple[list[list[int]], int]:
    checked_max_merges = check_max_merges(max_merges)
    return [list(data) for data in check_documents(documents)], checked_max_merges


def _rounds(sequences: list[list[int]], max_merges: int) -> Iterator[Round]:
    for rank in range(max_merges):
        counts = count_pairs(sequences)
        pair = select_pair(counts)
        if pair is None or counts[pair] < MIN_MERGE_COUNT:
            return
        new_id = rule_id(rank)
        merged = [replace_pair(sequence, pair, new_id) for sequence in sequences]
        yield Round(rank, counts, pair, counts[pair], new_id, sequences, merged)
        sequences = merged


def train_sequences(documents: list[str], max_merges: int) -> TrainingResult:
    """Train and also return each document's final sequence (what ``encode`` gives for it)."""
    sequences, checked_max_merges = _validated(documents, max_merges)
    rules = []
    for merge in _rounds(sequences, checked_max_merges):
        rules.append(merge.pair)
        sequences = merge.sequences_after
    return TrainingResult(rules, sequences)


def train(documents: list[str], max_merges: int) -> list[tuple[int, int]]:
    """Learn at most ``max_merges`` ordered rules from ``documents``; rule ``r`` has id ``258 + r``."""
    return train_sequences(documents, max_merges).rules
