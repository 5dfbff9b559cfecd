"""Zoo members whose one bug is in replacing a pair by its new id (used by training and encoding).

>>> member = OverlappingReplacement()
>>> member.load([(97, 97)])
[(97, 97)]
>>> member.encode("aaa"), member.decode(member.encode("aaa"))
([258, 258], 'aaaa')
"""

from __future__ import annotations

from bpe_conformance.zoo.base import Pair, Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "ChainsNewTokens",
    "OverlappingReplacement",
    "ReplacementMissesFinalPair",
    "ReplacesFirstOccurrenceOnly",
    "ReplacesFromTheRight",
]


class OverlappingReplacement(ZooMember):
    """Replaces overlapping occurrences too: 'aaa' with (a, a) becomes two new tokens.

    Breaks BPE-MERGE-SCAN: matches never overlap, so [a, a, a] becomes [new, a]. Seen in the wild:
    source chapter 000 works this exact example, showing that [new, new] decodes to 'aaaa'; it is
    what happens when replacement mirrors overlapping counting.
    """

    name = "overlapping-replacement"
    clause = "BPE-MERGE-SCAN"
    also = ("BPE-ROUNDTRIP", "BPE-ENCODE-ORDER", "BPE-DECODE-CONCAT")
    witness = make_witness("encode", "aaa", setup=[("load", [[(97, 97)]])])
    why = (
        "Counting may use the middle 'a' of 'aaa' twice; replacing may not, because each id stands "
        "for bytes, and [aa, aa] stands for four of them. The text grows by a letter on every "
        "round trip, which is how this bug is usually found, long after the rules were trained."
    )

    def replace_pair(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        first, second = pair
        replaced = []
        position = 0
        while position < len(sequence):
            if position + 1 < len(sequence) and sequence[position] == first and sequence[position + 1] == second:
                replaced.append(new_id)
                overlaps = (
                    position + 2 < len(sequence)
                    and sequence[position + 1] == first
                    and sequence[position + 2] == second
                )
                position += 1 if overlaps else 2
            else:
                replaced.append(sequence[position])
                position += 1
        return replaced


class ReplacesFromTheRight(ZooMember):
    """Scans for the pair from the right end, so 'aaa' becomes [a, new].

    Breaks BPE-MERGE-SCAN: the scan runs left to right. Seen in the wild: iterating backwards is
    the usual idiom for deleting from a list in place without shifting the indices still to visit.
    """

    name = "replaces-from-the-right"
    clause = "BPE-MERGE-SCAN"
    also = ("BPE-ENCODE-ORDER", "BPE-TRAIN-COUNT")
    witness = make_witness("encode", "aaa", setup=[("load", [[(97, 97)]])])
    why = (
        "Left to right and right to left only disagree when occurrences overlap, as in a run of "
        "three: [aa, a] versus [a, aa]. Both decode to 'aaa', so round trips pass; the ids differ, "
        "and in training the next rule becomes (a, aa) instead of (aa, a)."
    )

    def replace_pair(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        first, second = pair
        replaced = []
        position = len(sequence) - 1
        while position >= 0:
            if position >= 1 and sequence[position - 1] == first and sequence[position] == second:
                replaced.append(new_id)
                position -= 2
            else:
                replaced.append(sequence[position])
                position -= 1
        replaced.reverse()
        return replaced


class ReplacementMissesFinalPair(ZooMember):
    """Tests ``position + 2 < len(sequence)`` for a match, so a pair at the very end is never merged.

    Breaks BPE-MERGE-SCAN: every non-overlapping occurrence is replaced. Seen in the wild: the
    bounds of this loop are where hand-written merges go wrong; source chapter 004 recommends a
    unit test with the pair at the end of the sequence, and tiktoken's ``_educational`` trainer
    handles the last element separately after its loop.
    """

    name = "replacement-misses-final-pair"
    clause = "BPE-MERGE-SCAN"
    also = ("BPE-ENCODE-ORDER", "BPE-TRAIN-COUNT")
    witness = make_witness("encode", "abab", setup=[("load", [[(97, 98)]])])
    why = (
        "The guard for 'is there a second element?' is position + 1 < len. One too strict and the "
        "final occurrence survives: 'abab' becomes [ab, a, b]. Nothing is lost, so decoding still "
        "works, and only the exact ids show the difference."
    )

    def replace_pair(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        first, second = pair
        replaced = []
        position = 0
        while position < len(sequence):
            if position + 2 < len(sequence) and sequence[position] == first and sequence[position + 1] == second:
                replaced.append(new_id)
                position += 2
            else:
                replaced.append(sequence[position])
                position += 1
        return replaced


class ReplacesFirstOccurrenceOnly(ZooMember):
    """Replaces only the first occurrence of the pair in each sequence.

    Breaks BPE-PROP-UNIQUE: the pair survives elsewhere, is counted again and becomes a second rule
    with the same piece; replacement must take every occurrence (BPE-MERGE-SCAN). Seen in the
    wild: ``list.index`` or ``str.replace(old, new, 1)`` used to find "the" occurrence; GPT-2's
    ``bpe`` loops over ``word.index`` for this reason.
    """

    name = "replaces-first-occurrence-only"
    clause = "BPE-PROP-UNIQUE"
    also = ("BPE-MERGE-SCAN", "BPE-ENCODE-ORDER", "BPE-TRAIN-RECOUNT")
    witness = make_witness("train", ["abab", "abab"], 32)
    why = (
        "After merging only the first (a, b) of 'abab', the second is still there, still frequent, "
        "and training learns (a, b) again with a new id: two rules with the same piece. A trained "
        "vocabulary with duplicate pieces is a sign that replacement left occurrences behind."
    )

    def replace_pair(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        first, second = pair
        for position in range(len(sequence) - 1):
            if sequence[position] == first and sequence[position + 1] == second:
                return [*sequence[:position], new_id, *sequence[position + 2 :]]
        return list(sequence)


class ChainsNewTokens(ZooMember):
    """While applying a rule, merges each new token at once with what follows if any rule fits.

    Breaks BPE-MERGE-NOREMATCH: a token made in a round is not matched again in that round, so
    later rules wait their turn. Seen in the wild: source chapter 000 names this mistake (merging
    the new token with the next byte straight away makes the result depend on control flow, not
    on the saved rules); it is what a "merge cascade" shortcut in a hand-written encoder does.
    """

    name = "chains-new-tokens"
    clause = "BPE-MERGE-NOREMATCH"
    also = ("BPE-ENCODE-ORDER",)
    witness = make_witness("encode", "abcd", setup=[("load", [[(97, 98), (99, 100), (258, 99)]])])
    why = (
        "Rule 0 makes 'ab'; rule 1 then pairs 'c' with 'd' before rule 2 could join 'ab' with 'c'. "
        "Chaining 'ab' with 'c' the moment it is made lets the later rule 2 jump ahead of rule 1 "
        "and steal the 'c': [abc, d] instead of [ab, cd]. A round's new tokens wait for later rounds."
    )

    def apply_rules(self, sequence: list[int], rules: Rules) -> list[int]:
        rank_of: dict[Pair, int] = {}
        for rank, pair in enumerate(rules):
            rank_of.setdefault(pair, rank)
        for rank, pair in enumerate(rules):
            sequence = self._replace_and_chain(sequence, pair, self.new_id(rank), rank_of)
        return sequence

    def _replace_and_chain(self, sequence: list[int], pair: Pair, new_id: int, rank_of: dict[Pair, int]) -> list[int]:
        first, second = pair
        replaced = []
        position = 0
        while position < len(sequence):
            if position + 1 < len(sequence) and sequence[position] == first and sequence[position + 1] == second:
                replaced.append(new_id)
                position += 2
                while position < len(sequence) and (replaced[-1], sequence[position]) in rank_of:
                    replaced[-1] = self.new_id(rank_of[(replaced[-1], sequence[position])])
                    position += 1
            else:
                replaced.append(sequence[position])
                position += 1
        return replaced


MEMBERS = [
    OverlappingReplacement,
    ReplacesFromTheRight,
    ReplacementMissesFinalPair,
    ReplacesFirstOccurrenceOnly,
    ChainsNewTokens,
]
