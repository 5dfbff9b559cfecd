"""Trainers that combine documented choices no named profile combines, and one whose tie order no profile has.

Each trains with its own plain loop (a dict of pair counts in the order pairs are first counted, every
document apart, rules at ``258 + r``) and is otherwise the strict reference (load, encode, decode,
input checks), so the only thing that separates them from ``strict`` is what their names say:

* :class:`FirstSeenMinOne` breaks ties towards the pair counted first and merges pairs seen once:
  minbpe's choices, with documents kept apart and strict's numbering. No named profile is this.
* :class:`LargestPiecesMinOneJoined` joins its documents with a newline, merges pairs seen once and
  breaks ties towards the largest pieces.
* :class:`LastSeen` breaks ties towards the pair counted *last*: an order no profile documents.

>>> FirstSeenMinOne().train(["cdcdabab"], 1), LastSeen().train(["abab", "baba"], 1)
([(99, 100)], [(98, 97)])
"""

from __future__ import annotations

from itertools import pairwise

from bpe_conformance import reference
from bpe_conformance.reference.validation import check_documents, check_max_merges

__all__ = ["FirstSeenMinOne", "LargestPiecesMinOneJoined", "LastSeen"]

Pair = tuple[int, int]
FIRST_ID = 258


def _merge(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    merged: list[int] = []
    index = 0
    while index < len(ids):
        if index + 1 < len(ids) and (ids[index], ids[index + 1]) == pair:
            merged.append(new_id)
            index += 2
        else:
            merged.append(ids[index])
            index += 1
    return merged


class _PlainTrainer(reference.Tokenizer):
    """Strict in everything but training, which this loop does with the subclass's choices."""

    name = "plain-trainer"
    profile = "strict"
    min_count = 2
    separator: bytes | None = None  # None: documents apart; else joined with these bytes

    def _tie(self, tied: list[Pair], pieces: dict[int, bytes]) -> Pair:
        raise NotImplementedError

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        encoded = check_documents(documents)
        budget = check_max_merges(max_merges)
        sequences = [list(data) for data in encoded]
        if self.separator is not None:
            sequences = [list(self.separator.join(encoded))]
        pieces = {value: bytes([value]) for value in range(256)}
        rules: list[Pair] = []
        while len(rules) < budget:
            counts: dict[Pair, int] = {}
            for ids in sequences:
                for pair in pairwise(ids):
                    counts[pair] = counts.get(pair, 0) + 1
            if not counts or max(counts.values()) < self.min_count:
                break
            best = max(counts.values())
            pair = self._tie([pair for pair, count in counts.items() if count == best], pieces)
            new_id = FIRST_ID + len(rules)
            pieces[new_id] = pieces[pair[0]] + pieces[pair[1]]
            sequences = [_merge(ids, pair, new_id) for ids in sequences]
            rules.append(pair)
        return self._adopt(rules)


class FirstSeenMinOne(_PlainTrainer):
    """Ties to the first pair counted, pairs seen once merged; documents apart, ids 258 + r."""

    name = "first-seen-min-one"
    min_count = 1

    def _tie(self, tied: list[Pair], pieces: dict[int, bytes]) -> Pair:
        return tied[0]


class LargestPiecesMinOneJoined(_PlainTrainer):
    """Documents joined with a newline, pairs seen once merged, ties to the largest (piece a, piece b)."""

    name = "largest-pieces-min-one-joined"
    min_count = 1
    separator = b"\n"

    def _tie(self, tied: list[Pair], pieces: dict[int, bytes]) -> Pair:
        return max(tied, key=lambda pair: (pieces[pair[0]], pieces[pair[1]]))


class LastSeen(_PlainTrainer):
    """Ties to the pair counted last of those tied: no documented tie order."""

    name = "last-seen"

    def _tie(self, tied: list[Pair], pieces: dict[int, bytes]) -> Pair:
        return tied[-1]
