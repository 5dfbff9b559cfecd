"""Zoo members whose one bug is in training's choices: which pair wins, when to stop, which id.

>>> TiesByStringKey().train(["dede", "cfcf"], 32)  # the spec gives [(99, 102), (100, 101)]
[(100, 101), (99, 102)]
>>> StopsAtTwo().train(["abab", "acac"], 32)  # the spec gives [(97, 98), (97, 99)]
[]
"""

from __future__ import annotations

from bpe_conformance.zoo.base import BYTE_COUNT, Pair, Rules, ZooMember
from bpe_conformance.zoo.witness import make_witness

__all__ = [
    "MEMBERS",
    "AppendsBeforeStopCheck",
    "MaxOverItemsNotCounts",
    "MergesSingletons",
    "NewIdsFromByteCount",
    "OneMergeTooMany",
    "StopsAtTwo",
    "StopsOneMergeEarly",
    "TiesByFirstOccurrence",
    "TiesByLastOccurrence",
    "TiesByStringKey",
    "TiesToLargestPair",
]


# ---- selection ----------------------------------------------------------------------------------


class MaxOverItemsNotCounts(ZooMember):
    """Takes ``max(counts.items())``, which compares pairs first, not counts.

    Breaks BPE-TRAIN-GREEDY: the largest pair wins whatever its count, and its count then decides
    the stop. Seen in the wild: a classic Python slip (tuples compare element by element); the
    correct forms need ``key=``, as in minbpe's ``max(stats, key=stats.get)``.
    """

    name = "max-over-items-not-counts"
    clause = "BPE-TRAIN-GREEDY"
    also = ("BPE-TRAIN-STOP", "BPE-TRAIN-TIE")
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "``max`` over (pair, count) items looks at the pair first, so it returns the numerically "
        "largest pair, here (c, a) seen once, and training stops although (a, b) and (a, c) occur "
        "twice. Greedy means the highest count, always."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        if not counts:
            return None
        pair, _count = max(counts.items())
        return pair


class TiesToLargestPair(ZooMember):
    """Breaks ties between equal counts towards the largest pair instead of the smallest.

    Breaks BPE-TRAIN-TIE. Seen in the wild: subword-nmt's ``learn_bpe`` uses
    ``max(stats, key=lambda x: (stats[x], x))``, so ties go to the largest pair (its maintainer
    describes ties as resolved by alphabetical order, subword-nmt issue #104).
    """

    name = "ties-to-largest-pair"
    clause = "BPE-TRAIN-TIE"
    also = ("BPE-PROP-DETERMINISM",)
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "(a, b) and (a, c) both occur twice. Both choices are deterministic, but only one is the "
        "spec: the smallest pair, (97, 98). Taking the maximum of (count, pair) flips every tie, "
        "so the same corpus yields its rules in another order with other ids."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        if not counts:
            return None
        return max(counts, key=lambda pair: (counts[pair], pair))


class TiesByFirstOccurrence(ZooMember):
    """Breaks ties by which pair was seen first in the corpus (dict insertion order).

    Breaks BPE-TRAIN-TIE, and makes the rules depend on document order (BPE-PROP-PERMUTE). Seen in
    the wild: minbpe and tiktoken's ``_educational`` take ``max(stats, key=stats.get)``; minbpe pull
    request #90 shows two orderings of the same text giving different merges. The hand-worked
    example in source chapter 003 uses this rule on purpose.
    """

    name = "ties-by-first-occurrence"
    clause = "BPE-TRAIN-TIE"
    also = ("BPE-PROP-PERMUTE",)
    witness = make_witness("train", ["acac", "abab"], 32)
    why = (
        "``max`` returns the first of equal maxima, and a dict remembers insertion order, so ties go "
        "to the pair met first. With 'acac' listed before 'abab', (a, c) wins; swap the documents and "
        "(a, b) wins. The spec breaks ties by the pair itself, so order cannot matter."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        if not counts:
            return None
        return max(counts, key=counts.__getitem__)


class TiesByLastOccurrence(ZooMember):
    """Finds the best pair with a hand-written loop using ``>=``, so the last tied pair wins.

    Breaks BPE-TRAIN-TIE, and makes the rules depend on document order (BPE-PROP-PERMUTE). Seen in
    the wild: the tie rule of a hand-written argmax is decided by ``>`` versus ``>=``; source
    chapter 001's trainer spells its tie rule out in that comparison for exactly this reason.
    """

    name = "ties-by-last-occurrence"
    clause = "BPE-TRAIN-TIE"
    also = ("BPE-PROP-PERMUTE",)
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "With ``if count >= best_count`` every later pair of the same count replaces the earlier "
        "one, so the last tied pair in scanning order wins: (a, c) from the second document. One "
        "character of a comparison decides every tie in the corpus."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        best_pair, best_count = None, 0
        for pair, count in counts.items():
            if count >= best_count:
                best_pair, best_count = pair, count
        return best_pair


class TiesByStringKey(ZooMember):
    """Breaks ties by comparing string keys such as "100,101" < "99,102".

    Breaks BPE-TRAIN-TIE: pairs are compared as integers. Seen in the wild: source chapter 001's
    TypeScript trainer keys its counts by strings and breaks ties with ``k < bestK``; any
    implementation that keys a map by ``f"{a},{b}"`` inherits lexicographic order.
    """

    name = "ties-by-string-key"
    clause = "BPE-TRAIN-TIE"
    also = ("BPE-PROP-DETERMINISM",)
    witness = make_witness("train", ["dede", "cfcf"], 32)
    why = (
        "(99, 102) is smaller than (100, 101) as integers, but the string '100,101' sorts before "
        "'99,102' because '1' < '9'. Ids below 100 and above 100 are where string keys and integer "
        "pairs disagree, and byte values cross that line all the time."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        if not counts:
            return None
        return min(counts, key=lambda pair: (-counts[pair], f"{pair[0]},{pair[1]}"))


# ---- stopping -----------------------------------------------------------------------------------


class MergesSingletons(ZooMember):
    """Keeps merging pairs seen only once; stops only when nothing is left to count.

    Breaks BPE-TRAIN-STOP (minimum count 2). Seen in the wild: minbpe's ``BasicTokenizer.train``
    and tiktoken's ``_educational.bpe_train`` merge until the vocabulary size is reached, and the
    trainer in source chapter 002 stops only ``if not stats``.
    """

    name = "merges-singletons"
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-VOCAB-SIZE",)
    witness = make_witness("train", ["abc"], 32)
    why = (
        "A pair seen once saves nothing when merged: the new id is used once and costs a vocabulary "
        "entry. The spec stops when the best count is below 2, so 'abc' gets no rules; a trainer "
        "that only stops when no pair is left memorises the whole document."
    )

    def should_stop(self, best_count: int) -> bool:
        return best_count < 1


class StopsAtTwo(ZooMember):
    """Stops when the best count is at most 2 instead of below 2.

    Breaks BPE-TRAIN-STOP: a pair seen exactly twice is merged. Seen in the wild: an off-by-one in
    reading "minimum frequency 2" (subword-nmt stops when no pair has frequency >= 2, issue #33).
    """

    name = "stops-at-two"
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-VOCAB-SIZE",)
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "The threshold is 'fewer than two': a pair seen twice is worth a rule. Writing <= instead of "
        "< throws those rules away, and on small corpora that is most of them: the worked example "
        "'abab', 'acac' ends with no rules instead of two."
    )

    def should_stop(self, best_count: int) -> bool:
        return best_count <= 2


class AppendsBeforeStopCheck(ZooMember):
    """Records the best pair as a rule before checking its count, so one extra rule slips in.

    Breaks BPE-TRAIN-STOP: training ends one rule too late whenever it stops on the count. Seen in
    the wild: the stop test placed after the bookkeeping of a loop body, a common shape when a
    trainer logs or stores each merge first.
    """

    name = "appends-before-stop-check"
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-VOCAB-SIZE",)
    witness = make_witness("train", ["abab", "acac"], 32)
    why = (
        "Order matters inside the loop: check the count, then make the rule. Checking after storing "
        "adds a rule for a pair seen once, here (258, 258), every time training stops on the count, "
        "so the vocabulary is always one id too big."
    )

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        rules: Rules = []
        for _ in range(self.merge_budget(max_merges)):
            counts = self.count_pairs(sequences)
            pair = self.select_pair(counts)
            if pair is None:
                break
            new_id = self.new_id(len(rules))
            sequences = [self.replace_pair(sequence, pair, new_id) for sequence in sequences]
            rules.append(pair)
            if self.should_stop(counts[pair]):
                break
        return rules


class StopsOneMergeEarly(ZooMember):
    """Makes at most ``max_merges - 1`` rules (an off-by-one in the loop bound).

    Breaks BPE-TRAIN-STOP: when the budget is what stops training, it stops one rule early. Seen
    in the wild: converting between a vocabulary size and a number of merges (minbpe computes
    ``vocab_size - 256``) invites off-by-one errors in the loop bound.
    """

    name = "stops-one-merge-early"
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-TRAIN-MAXMERGES", "BPE-VOCAB-SIZE")
    witness = make_witness("train", ["abab", "acac"], 2)
    why = (
        "max_merges is an upper bound that must be reached when the corpus allows it. With 2 allowed "
        "and two pairs worth merging, the spec makes both rules; a loop bound of max_merges - 1 "
        "makes one. Corpora that stop on the count hide this bug."
    )

    def merge_budget(self, max_merges: int) -> int:
        return max(max_merges - 1, 0)


class OneMergeTooMany(ZooMember):
    """Makes up to ``max_merges + 1`` rules (a ``<=`` in the loop bound).

    Breaks BPE-TRAIN-STOP: training does not stop when the budget is spent. Seen in the wild: the
    same vocabulary-size-to-merges conversion, the other way round.
    """

    name = "one-merge-too-many"
    clause = "BPE-TRAIN-STOP"
    also = ("BPE-TRAIN-MAXMERGES", "BPE-VOCAB-SIZE", "BPE-PROP-PREFIX")
    witness = make_witness("train", ["abab", "acac"], 1)
    why = (
        "Asked for one rule, the trainer returns two. Any caller that sized an embedding table by "
        "max_merges now has ids beyond its end."
    )

    def merge_budget(self, max_merges: int) -> int:
        return max_merges + 1


# ---- ids ----------------------------------------------------------------------------------------


class NewIdsFromByteCount(ZooMember):
    """Gives rule r the id 256 + r, forgetting the two boundary ids.

    Breaks BPE-RULE-ID: rule r has id 258 + r; 256 and 257 are the boundaries. Seen in the wild:
    minbpe and the trainers in source chapters 001 and 002 number merges from 256, which is right
    in their alphabet (no boundary ids) and wrong in this one.
    """

    name = "new-ids-from-byte-count"
    clause = "BPE-RULE-ID"
    also = ("BPE-ALPHA-BOUNDARY", "BPE-ENCODE-ORDER", "BPE-DECODE-CONCAT")
    witness = make_witness("train", ["aaaa", "aaaa"], 32)
    why = (
        "With 256 + r the first rule gets the begin id and the second the end id. Rules over bytes "
        "look right, so the mistake only shows when a later rule refers to a merged id: here "
        "(256, 256) where the spec has (258, 258)."
    )

    def new_id(self, rank: int) -> int:
        return BYTE_COUNT + rank


MEMBERS = [
    MaxOverItemsNotCounts,
    TiesToLargestPair,
    TiesByFirstOccurrence,
    TiesByLastOccurrence,
    TiesByStringKey,
    MergesSingletons,
    StopsAtTwo,
    AppendsBeforeStopCheck,
    StopsOneMergeEarly,
    OneMergeTooMany,
    NewIdsFromByteCount,
]
