"""Where, and probably why, an implementation's training first parted from the specification.

Each of the implementation's rules is judged in the state its own earlier rules leave behind (the
reference replacement applied to the same documents). The first round whose rule is not the one the
specification makes in that state is the first divergence from the reference; its *kind* says what
went wrong there, and a few models of common bugs (counting across documents, non-overlapping counts,
stale counts, wrong scan direction, pre-tokenization) name the likely clause.

>>> first_divergence(["abab", "acac"], 32, [(97, 98), (97, 99)]) is None
True
>>> divergence = first_divergence(["abab", "acac"], 32, [(97, 99), (97, 98)])
>>> divergence["round"], divergence["diagnosis"], divergence["clause"]
(0, 'tie broken the other way', 'BPE-TRAIN-TIE')
>>> divergence["expected"], divergence["actual"]
({'pair': [97, 98], 'count': 2}, {'pair': [97, 99], 'count': 2})
>>> first_divergence(["xay", "xby", "xcy"], 32, [(121, 120)])["cause"]
'the rules are exactly what a trainer with documents joined before training makes'
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from reference import MIN_MERGE_COUNT, count_pairs, replace_pair, rule_id, select_pair
from reference.validation import check_documents, check_max_merges

__all__ = [
    "KIND_CLAUSES",
    "NEVER_SEEN",
    "NOT_MAXIMAL",
    "SEEN_ONCE",
    "STOPPED_EARLY",
    "TIE_OTHER_WAY",
    "TOO_MANY",
    "Judgement",
    "describe",
    "first_divergence",
    "judge_rounds",
    "replace_overlapping",
    "replace_right_to_left",
]

Pair = tuple[int, int]
Counts = dict[Pair, int]
Sequences = list[list[int]]

TIE_OTHER_WAY = "tie broken the other way"
NOT_MAXIMAL = "pair not maximal"
STOPPED_EARLY = "stopped early"
SEEN_ONCE = "merged a pair seen once"
NEVER_SEEN = "merged a pair that does not occur"
TOO_MANY = "made more than max_merges rules"
KIND_CLAUSES = {
    TIE_OTHER_WAY: "BPE-TRAIN-TIE",
    NOT_MAXIMAL: "BPE-TRAIN-GREEDY",
    STOPPED_EARLY: "BPE-TRAIN-STOP",
    SEEN_ONCE: "BPE-TRAIN-STOP",
    NEVER_SEEN: "BPE-TRAIN-STOP",
    TOO_MANY: "BPE-TRAIN-STOP",
}


@dataclass(frozen=True)
class Judgement:
    """One round whose rule (or missing rule) is not what the specification makes in that state."""

    round: int
    kind: str
    clause: str
    cause: str
    expected: Pair | None
    expected_count: int | None
    actual: Pair | None
    actual_count: int | None
    top_counts: list[tuple[Pair, int]]

    def as_dict(self) -> dict[str, Any]:
        """The JSON-ready ``divergence`` of a counterexample."""
        return {
            "round": self.round,
            "expected": _pair_record(self.expected, self.expected_count),
            "actual": _pair_record(self.actual, self.actual_count),
            "diagnosis": self.kind,
            "clause": self.clause,
            "cause": self.cause,
            "top_counts": [[first, second, count] for (first, second), count in self.top_counts],
        }


def _pair_record(pair: Pair | None, count: int | None) -> dict[str, Any] | None:
    return None if pair is None else {"pair": list(pair), "count": count}


# --- bug models: buggy trainers that each differ from the reference in one step ---
#
# A model explains the implementation only if it makes exactly the implementation's rules, all of
# them: agreeing on one round is too often a coincidence.

Replace = Callable[[list[int], Pair, int], list[int]]
Count = Callable[[Sequences], Counts]


def replace_right_to_left(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """The scan-direction bug: ``[a, a, a]`` gives ``[a, n]``."""
    return replace_pair(sequence[::-1], (pair[1], pair[0]), new_id)[::-1]


def replace_overlapping(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """Every matching window becomes the new id, so ``[a, a, a]`` gives ``[n, n]``: the middle id is used twice."""
    replaced, position = [], 0
    while position < len(sequence):
        if sequence[position : position + 2] == list(pair):
            replaced.append(new_id)
            position += 1 if sequence[position + 1 : position + 3] == list(pair) else 2
        else:
            replaced.append(sequence[position])
            position += 1
    return replaced


def _count_non_overlapping(sequences: Sequences) -> Counts:
    counts: Counts = {}
    for sequence in sequences:
        free_from: dict[Pair, int] = {}
        for position in range(len(sequence) - 1):
            pair = (sequence[position], sequence[position + 1])
            if position >= free_from.get(pair, 0):
                counts[pair] = counts.get(pair, 0) + 1
                free_from[pair] = position + 2
    return counts


def _simulate(
    sequences: Sequences,
    rounds: int,
    count: Count = count_pairs,
    replace: Replace = replace_pair,
    minimum: int = MIN_MERGE_COUNT,
    select: Callable[[Counts], Pair | None] = select_pair,
) -> list[Pair]:
    rules: list[Pair] = []
    for rank in range(rounds):
        counts = count(sequences)
        pair = select(counts)
        if pair is None or counts[pair] < minimum:
            break
        rules.append(pair)
        sequences = [replace(sequence, pair, rule_id(rank)) for sequence in sequences]
    return rules


def _stale_counts(sequences: Sequences, rounds: int) -> list[Pair]:
    counts, rules = count_pairs(sequences), []
    for _ in range(rounds):
        pair = select_pair({pair: count for pair, count in counts.items() if pair not in rules})
        if pair is None or counts[pair] < MIN_MERGE_COUNT:
            break
        rules.append(pair)
    return rules


def _byte_kind(byte: int) -> str:
    if byte >= 128 or chr(byte).isalnum():
        return "word"
    return "space" if chr(byte).isspace() else "punctuation"


def _start(documents: list[bytes]) -> Sequences:
    return [list(data) for data in documents]


def _words(documents: list[bytes], key: Callable[[int], object]) -> Sequences:
    return [list(group) for data in documents for _, group in itertools.groupby(data, key=key)]


def _largest_of_ties(counts: Counts) -> Pair | None:
    return max(counts, key=lambda pair: (counts[pair], pair)) if counts else None


def _first_seen_of_ties(counts: Counts) -> Pair | None:
    return max(counts, key=counts.__getitem__) if counts else None  # counts are in first-occurrence order


def _smallest_string_of_ties(counts: Counts) -> Pair | None:
    return min(counts, key=lambda pair: (-counts[pair], f"{pair[0]},{pair[1]}")) if counts else None


def _tie_dialect(select: Callable[[Counts], Pair | None]) -> Callable[[list[bytes], int], list[Pair]]:
    def train_with(documents: list[bytes], rounds: int) -> list[Pair]:
        return _simulate(_start(documents), rounds, select=select)

    return train_with


def _counted_twice_left(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_start(documents), rounds, minimum=MIN_MERGE_COUNT + 1)


def _seen_once_merged(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_start(documents), rounds, minimum=1)


def _joined(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate([[byte for data in documents for byte in data]], rounds)


def _without_overlap(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_start(documents), rounds, _count_non_overlapping)


def _first_counts(documents: list[bytes], rounds: int) -> list[Pair]:
    return _stale_counts(_start(documents), rounds)


def _right_to_left(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_start(documents), rounds, count_pairs, replace_right_to_left)


def _overlapping(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_start(documents), rounds, count_pairs, replace_overlapping)


def _split_by_kind(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_words(documents, _byte_kind), rounds)


def _split_at_whitespace(documents: list[bytes], rounds: int) -> list[Pair]:
    return _simulate(_words(documents, lambda byte: chr(byte).isspace()), rounds)


# Tie dialects come first: when one of them explains the rules too, the tie is the simpler story.
_MODELS: tuple[tuple[str, str, Callable[[list[bytes], int], list[Pair]]], ...] = (
    ("BPE-TRAIN-TIE", "ties broken towards the largest pair", _tie_dialect(_largest_of_ties)),
    ("BPE-TRAIN-TIE", "ties broken towards the pair seen first", _tie_dialect(_first_seen_of_ties)),
    ("BPE-TRAIN-TIE", "ties broken by the pair's decimal string", _tie_dialect(_smallest_string_of_ties)),
    ("BPE-TRAIN-STOP", "a pair counted exactly twice left unmerged", _counted_twice_left),
    ("BPE-TRAIN-STOP", "pairs seen once merged too", _seen_once_merged),
    ("BPE-TRAIN-DOCS", "documents joined before training", _joined),
    ("BPE-TRAIN-COUNT", "overlapping windows counted once", _without_overlap),
    ("BPE-TRAIN-RECOUNT", "the first round's counts reused", _first_counts),
    ("BPE-MERGE-SCAN", "replacement scanning right to left", _right_to_left),
    ("BPE-MERGE-SCAN", "overlapping occurrences all replaced", _overlapping),
    ("BPE-ENCODE-RAW", "documents split into words, spaces and punctuation first", _split_by_kind),
    ("BPE-ENCODE-RAW", "documents split at whitespace first", _split_at_whitespace),
)


def _explanation(documents: list[bytes], max_merges: int, rules: list[Pair]) -> tuple[str, str] | None:
    """The clause and cause of the first buggy trainer that makes exactly ``rules``; None if none does."""
    for clause, cause, model in _MODELS:
        if model(documents, max_merges) == rules:
            return clause, f"the rules are exactly what a trainer with {cause} makes"
    return None


def _clause_and_cause(kind: str, explanation: tuple[str, str] | None) -> tuple[str, str]:
    return (KIND_CLAUSES[kind], "") if explanation is None else explanation


def _kind(rank: int, max_merges: int, actual: Pair | None, actual_count: int, best_count: int) -> str:
    if actual is None:
        return STOPPED_EARLY
    if rank >= max_merges:
        return TOO_MANY
    if best_count < MIN_MERGE_COUNT:
        return SEEN_ONCE if actual_count == 1 else NEVER_SEEN
    return TIE_OTHER_WAY if actual_count == best_count else NOT_MAXIMAL


def _judge(rules: list[Pair], rank: int, counts: Counts, max_merges: int) -> Judgement | None:
    best = select_pair(counts)
    best_count = 0 if best is None else counts[best]
    expected = best if rank < max_merges and best_count >= MIN_MERGE_COUNT else None
    actual = rules[rank] if rank < len(rules) else None
    if actual == expected:
        return None
    actual_count = counts.get(actual, 0) if actual is not None else 0
    kind = _kind(rank, max_merges, actual, actual_count, best_count)
    return Judgement(
        round=rank,
        kind=kind,
        clause=KIND_CLAUSES[kind],
        cause="",
        expected=expected,
        expected_count=None if expected is None else best_count,
        actual=actual,
        actual_count=None if actual is None else actual_count,
        top_counts=sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:5],
    )


def _checked_rules(rules: object) -> list[Pair]:
    if not isinstance(rules, (list, tuple)):
        raise TypeError(f"actual_rules must be a list of (int, int) pairs, not {type(rules).__name__}")
    checked = []
    for rank, rule in enumerate(rules):
        if not isinstance(rule, (list, tuple)) or len(rule) != 2 or not all(type(part) is int for part in rule):
            raise TypeError(f"actual_rules[{rank}] must be a pair of ints, not {rule!r}")
        checked.append((rule[0], rule[1]))
    return checked


def judge_rounds(documents: list[str], max_merges: int, actual_rules: list[Pair]) -> Iterator[Judgement]:
    """Every round where ``actual_rules`` is not what the specification makes, each judged in its own state.

    The state of round r is the documents after the reference replacement of ``actual_rules[:r]``, so a
    tie broken the other way in round 0 does not make every later rule look wrong.

    >>> [judgement.kind for judgement in judge_rounds(["aaab", "aab"], 32, [(97, 97), (258, 98)])]
    ['merged a pair seen once']
    """
    data = check_documents(documents)
    limit = check_max_merges(max_merges)
    rules = _checked_rules(actual_rules)
    sequences = _start(data)
    explanation: tuple[str, str] | None = None
    explained = False
    for rank in range(len(rules) + 1):
        judgement = _judge(rules, rank, count_pairs(sequences), limit)
        if judgement is not None:
            if not explained:  # the models run once, and only for an implementation that diverges
                explanation, explained = _explanation(data, limit, rules), True
            clause, cause = _clause_and_cause(judgement.kind, explanation)
            yield dataclasses.replace(judgement, clause=clause, cause=cause)
        if rank < len(rules):
            sequences = [replace_pair(sequence, rules[rank], rule_id(rank)) for sequence in sequences]


def first_divergence(documents: list[str], max_merges: int, actual_rules: list[Pair]) -> dict[str, Any] | None:
    """The first round where ``actual_rules`` leaves the reference's rules, as a JSON-ready dict; None if equal.

    Keys: ``round``; ``expected`` and ``actual`` (each ``{"pair": [a, b], "count": n}`` with the count in
    that round's state under the specification, or None for "no rule"); ``diagnosis`` (one of
    "tie broken the other way", "pair not maximal", "stopped early", "merged a pair seen once",
    "merged a pair that does not occur", "made more than max_merges rules"); ``clause``, the likely
    clause; ``cause``, the bug model that explains the choice ("" when none does); ``top_counts``.

    >>> first_divergence(["abab", "acac"], 32, [(97, 98)])["diagnosis"]
    'stopped early'
    >>> first_divergence(["abab", "acac"], 1, [(97, 98), (97, 99)])["diagnosis"]
    'made more than max_merges rules'
    """
    judgement = next(judge_rounds(documents, max_merges, actual_rules), None)
    return None if judgement is None else judgement.as_dict()


def describe(divergence: dict[str, Any]) -> str:
    """One line for a failure message.

    >>> describe(first_divergence(["abab", "acac"], 32, [(97, 99)]))
    'round 0: expected (97, 98) (count 2), got (97, 99) (count 2): tie broken the other way [BPE-TRAIN-TIE]'
    """

    def side(record: dict[str, Any] | None) -> str:
        if record is None:
            return "no rule"
        return f"({record['pair'][0]}, {record['pair'][1]}) (count {record['count']})"

    text = f"round {divergence['round']}: expected {side(divergence['expected'])}, got {side(divergence['actual'])}"
    text += f": {divergence['diagnosis']}"
    if divergence["cause"]:
        text += f"; {divergence['cause']}"
    return text + f" [{divergence['clause']}]"
