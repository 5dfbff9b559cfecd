"""Dialects written the way their libraries write them, each held to the profile it declares.

Plain code, not :mod:`bpe_conformance.reference.dialects`: they are independent implementations of a profile, so when
``compare`` finds them equal to the reference under their declared profile on a real corpus, that says
something about both.

* :class:`MinbpeStyle` is minbpe's ``BasicTokenizer``: the documents joined into one text, the pair
  counts in an insertion-ordered dict, ``max`` of it (the first pair seen wins a tie), pairs seen once
  merged too, ids ``256 + r``; it stops when no pair is left (where minbpe itself raises). Profile
  ``minbpe``.
* :class:`LargestPairStyle` counts each document apart and breaks ties towards the largest ``(a, b)``,
  as subword-nmt's ``max`` over ``(count, pair)`` does on integer ids; stops below 2; ids ``256 + r``.
  Profile ``largest-pair``.

>>> MinbpeStyle().train(["abab", "cd"], 3), LargestPairStyle().train(["abab", "acac"], 3)
([(97, 98), (256, 256), (257, 99)], [(97, 99), (97, 98)])
"""

from __future__ import annotations

import itertools

from tests.support.seed_chapter import merge_pair

Pair = tuple[int, int]
Rules = list[Pair]


def _pair_counts(ids: list[int], counts: dict[Pair, int] | None = None) -> dict[Pair, int]:
    counts = {} if counts is None else counts
    for pair in itertools.pairwise(ids):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


class _Dialect:
    """Rules ``256 + r``; encoding applies them in rank order; decoding joins the pieces."""

    version = "1.0"
    capabilities = frozenset({"train", "load", "encode", "decode"})
    decode_errors = "strict"

    def __init__(self) -> None:
        self.rules: Rules = []
        self.pieces = [bytes([value]) for value in range(256)]

    def load(self, rules: Rules) -> None:
        pieces = [bytes([value]) for value in range(256)]
        for rank, (first, second) in enumerate(rules):
            if not (0 <= first < 256 + rank and 0 <= second < 256 + rank):
                raise ValueError(f"rule {rank} refers to an id that does not exist yet: {(first, second)}")
            pieces.append(pieces[first] + pieces[second])
        self.rules, self.pieces = [tuple(rule) for rule in rules], pieces  # type: ignore[misc]

    def encode(self, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(self.rules):
            ids = merge_pair(ids, pair, 256 + rank)
        return ids

    def decode(self, ids: list[int]) -> str:
        if any(not 0 <= token < len(self.pieces) for token in ids):
            raise ValueError("unknown id")
        return b"".join(self.pieces[token] for token in ids).decode("utf-8", errors=self.decode_errors)


class MinbpeStyle(_Dialect):
    """minbpe's BasicTokenizer, stopping when no pair is left."""

    name = "minbpe-style"
    profile = "minbpe"
    decode_errors = "replace"

    def train(self, documents: list[str], max_merges: int) -> Rules:
        ids = list("".join(documents).encode("utf-8"))
        rules: Rules = []
        for rank in range(max_merges):
            counts = _pair_counts(ids)
            if not counts:
                break
            pair = max(counts, key=counts.__getitem__)
            ids = merge_pair(ids, pair, 256 + rank)
            rules.append(pair)
        self.load(rules)
        return rules


class LargestPairStyle(_Dialect):
    """Documents apart, ties to the largest (a, b), stop below 2."""

    name = "largest-pair-style"
    profile = "largest-pair"

    def train(self, documents: list[str], max_merges: int) -> Rules:
        sequences = [list(document.encode("utf-8")) for document in documents]
        rules: Rules = []
        for rank in range(max_merges):
            counts: dict[Pair, int] = {}
            for sequence in sequences:
                _pair_counts(sequence, counts)
            if not counts:
                break
            count, pair = max((count, pair) for pair, count in counts.items())
            if count < 2:
                break
            sequences = [merge_pair(sequence, pair, 256 + rank) for sequence in sequences]
            rules.append(pair)
        self.load(rules)
        return rules


class EncodeOnly(_Dialect):
    """Loads rules and encodes with them, trains nothing (it does not declare ``train``)."""

    name = "encode-only"
    profile = "largest-pair"
    capabilities = frozenset({"load", "encode", "decode"})
