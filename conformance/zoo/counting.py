"""Zoo members whose one bug is in counting pairs, or in keeping the counts up to date.

>>> CountsNonOverlapping().train(["aaa"], 32)  # the spec gives [(97, 97)]
[]
>>> CountsComputedOnce().train(["aaaa", "aaaa"], 32)  # the spec gives [(97, 97), (258, 258)]
[(97, 97)]
"""

from __future__ import annotations

from itertools import pairwise

from bpe_conformance.zoo.base import BYTE_COUNT, Pair, Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "CountsAccumulateAcrossRounds",
    "CountsComputedOnce",
    "CountsDocumentFrequency",
    "CountsMissLastPair",
    "CountsNonOverlapping",
    "PacksPairsWithByteBase",
]


# ---- counting -----------------------------------------------------------------------------------


class CountsNonOverlapping(ZooMember):
    """Counts a run like 'aaa' as one (a, a), the number of replacements, not of windows.

    Breaks BPE-TRAIN-COUNT: every adjacent window counts, overlapping ones included. Seen in the
    wild: minbpe issue #51 and pull request #72 propose exactly this change (citing that
    SentencePiece counts this way); it is a defensible dialect, and not the strict one.
    """

    name = "counts-non-overlapping"
    clause = "BPE-TRAIN-COUNT"
    also = ("BPE-TRAIN-STOP", "BPE-TRAIN-GREEDY")
    witness = make_witness("train", ["aaa"], 32)
    why = (
        "'aaa' has two (a, a) windows, although one replacement can use only one of them. The spec "
        "counts windows: two, so a rule. Counting what a replacement could consume gives one, and "
        "training stops. Counting overlaps and replacing without them is deliberate."
    )

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        counts: dict[Pair, int] = {}
        for sequence in sequences:
            counted_at: dict[Pair, int] = {}
            for position in range(len(sequence) - 1):
                pair = (sequence[position], sequence[position + 1])
                if counted_at.get(pair) == position - 1:
                    continue
                counted_at[pair] = position
                counts[pair] = counts.get(pair, 0) + 1
        return counts


class CountsDocumentFrequency(ZooMember):
    """Counts in how many documents a pair occurs instead of how often.

    Breaks BPE-TRAIN-COUNT. Seen in the wild: GPT-2's ``encoder.py`` has ``get_pairs`` returning a
    *set* of pairs, which is all encoding needs; reusing such a helper for training turns
    occurrence counts into document frequencies.
    """

    name = "counts-document-frequency"
    clause = "BPE-TRAIN-COUNT"
    also = ("BPE-TRAIN-GREEDY", "BPE-TRAIN-STOP")
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "Each of 'abab' and 'acac' contains its pair twice, so the spec learns two rules. Counted "
        "as a set per document, every pair occurs once and training stops at once: the counts "
        "must be of windows, not of documents."
    )

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        counts: dict[Pair, int] = {}
        for sequence in sequences:
            for pair in set(pairwise(sequence)):
                counts[pair] = counts.get(pair, 0) + 1
        return counts


class CountsMissLastPair(ZooMember):
    """Counts windows with ``range(len(sequence) - 2)``, missing each sequence's last pair.

    Breaks BPE-TRAIN-COUNT. Seen in the wild: source chapter 004 describes this off-by-one in its
    own sampler and recommends asserting that the counts sum to ``len(ids) - 1``.
    """

    name = "counts-miss-last-pair"
    clause = "BPE-TRAIN-COUNT"
    also = ("BPE-TRAIN-STOP", "BPE-TRAIN-GREEDY")
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "A sequence of n ids has n - 1 windows. Stop the loop one early and 'abab' shows (a, b) "
        "once instead of twice; with short documents that is the difference between a rule and "
        "none. The sum of all counts is an easy invariant to assert."
    )

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        counts: dict[Pair, int] = {}
        for sequence in sequences:
            for position in range(len(sequence) - 2):
                pair = (sequence[position], sequence[position + 1])
                counts[pair] = counts.get(pair, 0) + 1
        return counts


class PacksPairsWithByteBase(ZooMember):
    """Keys pair counts by ``a * 256 + b``, which stops being unique once ids exceed 255.

    Breaks BPE-TRAIN-COUNT: different pairs share a key and unpack to the wrong pair. Seen in the
    wild: source chapter 004 suggests packing a pair into one integer key for speed, with the
    vocabulary size as multiplier; a fixed multiplier of 256 only works before the first merge.
    """

    name = "packs-pairs-with-byte-base"
    clause = "BPE-TRAIN-COUNT"
    also = ("BPE-TRAIN-GREEDY", "BPE-RULE-REF")
    witness = make_witness("train", ["baa", "baa"], 2)
    why = (
        "Packing (a, b) into a * 256 + b is reversible only while b < 256. After the first merge the "
        "pair (98, 258) packs to 25346, which unpacks to (99, 2): the trainer learns a rule for a "
        "pair that does not occur, and as soon as two real pairs collide their counts add up."
    )

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        packed: dict[int, int] = {}
        for sequence in sequences:
            for first, second in pairwise(sequence):
                key = first * BYTE_COUNT + second
                packed[key] = packed.get(key, 0) + 1
        return {divmod(key, BYTE_COUNT): count for key, count in packed.items()}


# ---- recounting ---------------------------------------------------------------------------------


class CountsComputedOnce(ZooMember):
    """Counts pairs once, before the first merge, and keeps choosing from that stale table.

    Breaks BPE-TRAIN-RECOUNT: counts are recomputed from the new state each round. Seen in the
    wild: source chapters 001 and 003 single this out as the classic mistake; UniqToken issue #8
    reports a heap trainer whose stale entries lose pairs.
    """

    name = "counts-computed-once"
    clause = "BPE-TRAIN-RECOUNT"
    also = ("BPE-TRAIN-GREEDY", "BPE-TRAIN-STOP")
    witness = make_witness("train", ["aaaa", "aaaa"], 32)
    why = (
        "A merge removes pairs and creates new ones that contain the new id. A table counted once "
        "knows none of them: after (a, a) becomes 258 the spec sees (258, 258) twice and merges it, "
        "while the stale table has nothing left and stops."
    )

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        rules: Rules = []
        counts = self.count_pairs(sequences)
        for _ in range(self.merge_budget(max_merges)):
            pair = self.select_pair(counts)
            if pair is None or self.should_stop(counts[pair]):
                break
            new_id = self.new_id(len(rules))
            sequences = [self.replace_pair(sequence, pair, new_id) for sequence in sequences]
            rules.append(pair)
            del counts[pair]
        return rules


class CountsAccumulateAcrossRounds(ZooMember):
    """Adds each round's counts to a table that is never reset.

    Breaks BPE-TRAIN-RECOUNT: counts describe the current sequences only. Seen in the wild:
    apetokenizer issue #2 reports pair counts that are never reset between merge iterations.
    """

    name = "counts-accumulate-across-rounds"
    clause = "BPE-TRAIN-RECOUNT"
    also = ("BPE-TRAIN-GREEDY", "BPE-PROP-UNIQUE", "BPE-TRAIN-STOP")
    witness = make_witness("train", ["abab", "acac"], 3)
    why = (
        "A counts table created outside the loop keeps the pairs of sequences that no longer exist. "
        "(a, c) has been merged away, yet its old counts keep it on top, and the trainer learns it "
        "again as a third rule that can never apply."
    )

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        rules: Rules = []
        counts: dict[Pair, int] = {}
        for _ in range(self.merge_budget(max_merges)):
            for counted, count in self.count_pairs(sequences).items():
                counts[counted] = counts.get(counted, 0) + count
            pair = self.select_pair(counts)
            if pair is None or self.should_stop(counts[pair]):
                break
            new_id = self.new_id(len(rules))
            sequences = [self.replace_pair(sequence, pair, new_id) for sequence in sequences]
            rules.append(pair)
        return rules


MEMBERS = [
    CountsNonOverlapping,
    CountsDocumentFrequency,
    CountsMissLastPair,
    PacksPairsWithByteBase,
    CountsComputedOnce,
    CountsAccumulateAcrossRounds,
]
