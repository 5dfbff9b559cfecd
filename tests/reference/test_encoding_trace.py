"""reference/encoding_trace.py: encoding step by step in rank order, and what another order gives (BPE-ENCODE-ORDER)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import encode, reversed_ranks, trace_encoding, train
from bpe_conformance.reference.encoding_trace import check_order, unmade_ids
from tests.support.strategies_local import any_texts, rule_lists

ABAC_RULES = [(97, 98), (97, 99)]
ABC_RULES = [(97, 98), (258, 99)]


def test_the_seed_chapters_encoding_step_by_step() -> None:
    """BPE-ENCODE-ORDER and BPE-ENCODE-BOUNDARY: abac -> [258, 259] -> [256, 258, 259, 257] -> abac."""
    trace = trace_encoding("abac", ABAC_RULES)
    assert trace.start == [97, 98, 97, 99]
    assert [(step.rank, step.pair, step.new_id, step.piece) for step in trace.steps] == [
        (0, (97, 98), 258, b"ab"),
        (1, (97, 99), 259, b"ac"),
    ]
    assert [(step.sequence_before, step.sequence_after) for step in trace.steps] == [
        ([97, 98, 97, 99], [258, 97, 99]),
        ([258, 97, 99], [258, 259]),
    ]
    assert [step.replacements for step in trace.steps] == [1, 1]
    assert (trace.ids, trace.document_ids, trace.decoded) == ([258, 259], [256, 258, 259, 257], "abac")
    assert (trace.text, trace.order, trace.in_rank_order) == ("abac", [0, 1], True)


def test_a_rule_whose_pair_is_absent_is_not_a_step() -> None:
    trace = trace_encoding("abab", [(97, 98), (120, 121), (258, 258)])
    assert [(step.rank, step.replacements) for step in trace.steps] == [(0, 2), (2, 1)]
    assert trace.ids == [260]
    assert trace_encoding("xyz", ABAC_RULES).steps == []
    assert trace_encoding("", ABAC_RULES).ids == []


def test_out_of_rank_order_the_later_rule_finds_nothing() -> None:
    """BPE-ENCODE-ORDER: with `ab` then `ab`+`c`, applying them backwards leaves the second rule nothing to match:
    [258, 99] instead of [259], and both decode to 'abc'."""
    trace = trace_encoding("abc", ABC_RULES, order=reversed_ranks(2))
    assert (trace.order, trace.in_rank_order) == ([1, 0], False)
    assert [step.rank for step in trace.steps] == [0]
    assert (trace.ids, trace.document_ids, trace.decoded) == ([258, 99], [256, 258, 99, 257], "abc")
    assert trace_encoding("abc", ABC_RULES).ids == [259]


def test_an_order_in_rank_order_is_rank_order() -> None:
    assert trace_encoding("abc", ABC_RULES, order=[0, 1]).in_rank_order
    assert trace_encoding("abc", [(97, 98)], order=reversed_ranks(1)).in_rank_order
    assert trace_encoding("abac", ABAC_RULES, order=[1, 0]).ids == [258, 259]  # independent rules


@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_reversed_ranks(count: int) -> None:
    assert reversed_ranks(count) == list(range(count))[::-1]


@pytest.mark.parametrize("order", [[0], [0, 0], [1, 2], [0, 1, 2], [-1, 0]])
def test_an_order_must_name_each_rank_once(order: list[int]) -> None:
    with pytest.raises(ValueError, match=r"order must list each rank from 0 to 1 once, got "):
        check_order(order, 2)
    with pytest.raises(ValueError, match=r"order must list each rank"):
        trace_encoding("abc", ABC_RULES, order=order)


def test_bad_rules_and_text_are_rejected_like_encode() -> None:
    with pytest.raises(ValueError, match="rule 0"):
        trace_encoding("abc", [(97, 259)])
    with pytest.raises(TypeError):
        trace_encoding(b"abc", ABC_RULES)  # type: ignore[arg-type]


@given(rule_lists(), any_texts(), st.data())
def test_any_order_decodes_to_the_text_and_rank_order_is_encode(
    rules: list[tuple[int, int]], text: str, data: st.DataObject
) -> None:
    """BPE-ROUNDTRIP holds whatever the order (replacing a pair by its piece never changes the bytes), which is
    why a round trip cannot find a wrong order; only rank order gives the canonical ids of BPE-ENCODE-ORDER."""
    canonical = trace_encoding(text, rules)
    assert canonical.ids == encode(text, rules)
    order = data.draw(st.permutations(range(len(rules))))
    shuffled = trace_encoding(text, rules, order=order)
    for trace in (canonical, shuffled):
        assert trace.decoded == text
        previous = trace.start
        for step in trace.steps:
            assert step.sequence_before == previous
            assert step.replacements == len(step.sequence_before) - len(step.sequence_after) > 0
            assert step.new_id == 258 + step.rank
            assert step.pair == rules[step.rank]
            previous = step.sequence_after
        assert trace.ids == previous
    ranks = [step.rank for step in shuffled.steps]
    assert ranks == [rank for rank in order if rank in ranks]


def test_trained_rules_in_reverse_give_another_encoding() -> None:
    rules = train(["abcabc", "abcabc"], 32)
    assert trace_encoding("abcabc", rules).ids != trace_encoding("abcabc", rules, order=reversed_ranks(len(rules))).ids


def test_unmade_ids_are_the_parts_no_rule_applied_before_had_made() -> None:
    """BPE-RULE-REF: in rank order every id a rule names was made by an earlier rule; out of order it may not be."""
    assert unmade_ids((258, 99), [1, 0], 1) == [258]
    assert unmade_ids((258, 259), [2, 0, 1], 2) == [258, 259]
    assert unmade_ids((258, 259), [0, 2, 1], 2) == [259]
    assert unmade_ids((258, 259), [0, 1, 2], 2) == []
    assert unmade_ids((97, 98), [1, 0], 0) == []
    assert unmade_ids((257, 258), [0, 1], 1) == []  # ids below 258 are never made by a rule
    assert unmade_ids((258, 258), [0, 1], 0) == [258, 258]
