"""Encoding step by step: each rule in rank order, and what another order gives (BPE-ENCODE-ORDER).

A step is one rule that replaced something; rules whose pair is absent when their turn comes change
nothing and are not recorded. The ids any order gives decode to the same text, which is why a round
trip alone cannot tell the canonical encoding from another one.

>>> rules = [(97, 98), (258, 99)]
>>> trace = trace_encoding("abc", rules)
>>> [(step.rank, step.sequence_after) for step in trace.steps]
[(0, [258, 99]), (1, [259])]
>>> trace.ids, trace.document_ids, trace.decoded
([259], [256, 259, 257], 'abc')
>>> backwards = trace_encoding("abc", rules, order=reversed_ranks(len(rules)))
>>> backwards.ids, backwards.decoded, backwards.in_rank_order
([258, 99], 'abc', False)
"""

from __future__ import annotations

from dataclasses import dataclass

from bpe_conformance.reference.alphabet import BEGIN_ID, END_ID, FIRST_RULE_ID, rule_id
from bpe_conformance.reference.decoding import decode_bytes_with_pieces, strict_utf8
from bpe_conformance.reference.pieces import build_pieces
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.validation import check_rules, check_text

__all__ = ["EncodeStep", "EncodingTrace", "check_order", "reversed_ranks", "trace_encoding", "unmade_ids"]

Pair = tuple[int, int]


@dataclass(frozen=True)
class EncodeStep:
    """One rule that replaced its pair: the sequence before and after, and how many replacements."""

    rank: int
    pair: Pair
    new_id: int
    piece: bytes
    sequence_before: list[int]
    sequence_after: list[int]
    replacements: int


@dataclass(frozen=True)
class EncodingTrace:
    """The text's bytes, the rules that replaced something in the order applied, and the result.

    ``order`` lists the ranks in the order they were applied (rank order unless asked otherwise);
    ``ids`` are the body ids, ``document_ids`` the same wrapped in the boundary ids, and ``decoded``
    the text the ids decode to.
    """

    text: str
    order: list[int]
    start: list[int]
    steps: list[EncodeStep]
    ids: list[int]
    document_ids: list[int]
    decoded: str
    in_rank_order: bool


def reversed_ranks(count: int) -> list[int]:
    """The ranks of ``count`` rules, last first: the simplest order that is not rank order.

    >>> reversed_ranks(3)
    [2, 1, 0]
    """
    return list(range(count - 1, -1, -1))


def unmade_ids(pair: Pair, order: list[int], rank: int) -> list[int]:
    """The ids of ``pair`` (rule ``rank``'s) that no rule applied before it in ``order`` had made: while one is
    missing the rule cannot match, whatever the text. In rank order there are none (BPE-RULE-REF).

    >>> unmade_ids((258, 99), [1, 0], 1), unmade_ids((258, 99), [0, 1], 1), unmade_ids((97, 98), [1, 0], 0)
    ([258], [], [])
    """
    made = {rule_id(earlier) for earlier in order[: order.index(rank)]}
    return [part for part in pair if part >= FIRST_RULE_ID and part not in made]


def check_order(order: list[int], count: int) -> list[int]:
    """``order`` if it names each of the ranks 0 to ``count - 1`` exactly once; ValueError otherwise.

    >>> check_order([1, 0], 2)
    [1, 0]
    >>> check_order([0, 0], 2)
    Traceback (most recent call last):
    ...
    ValueError: order must list each rank from 0 to 1 once, got [0, 0]
    """
    if sorted(order) != list(range(count)):
        raise ValueError(f"order must list each rank from 0 to {count - 1} once, got {order}")
    return order


def trace_encoding(text: str, rules: list[Pair], order: list[int] | None = None) -> EncodingTrace:
    """Encode ``text`` like :func:`reference.encode`, recording each rule that replaced something.

    With ``order`` the rules are applied in that order of ranks instead (rule ``r`` still makes id
    ``258 + r``), which shows what an encoder that loses the rank order gives.
    """
    rules = check_rules(rules)
    ranks = list(range(len(rules))) if order is None else check_order(order, len(rules))
    pieces = build_pieces(rules)
    start = list(check_text(text))
    sequence = start
    steps = []
    for rank in ranks:
        replaced = replace_pair(sequence, rules[rank], rule_id(rank))
        if len(replaced) < len(sequence):
            steps.append(
                EncodeStep(
                    rank,
                    rules[rank],
                    rule_id(rank),
                    pieces[rule_id(rank)],
                    sequence,
                    replaced,
                    len(sequence) - len(replaced),
                )
            )
        sequence = replaced
    decoded = strict_utf8(decode_bytes_with_pieces(sequence, pieces))
    return EncodingTrace(
        text, ranks, start, steps, sequence, [BEGIN_ID, *sequence, END_ID], decoded, ranks == sorted(ranks)
    )
