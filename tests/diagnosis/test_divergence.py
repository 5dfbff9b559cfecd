"""first_divergence: the first merge round where an implementation's rules leave the reference's, and why."""

from __future__ import annotations

import dataclasses
import doctest
import json
import unicodedata
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

import bpe_conformance.diagnosis as diagnosis
from bpe_conformance import reference
from bpe_conformance.diagnosis import (
    BELOW_MINIMUM,
    KIND_CLAUSES,
    NEVER_SEEN,
    NOT_MAXIMAL,
    SEEN_ONCE,
    STOPPED_EARLY,
    TIE_OTHER_WAY,
    TOO_MANY,
    describe,
    first_divergence,
    judge_rounds,
)
from bpe_conformance.inputs.strategies import corpora, max_merges_values, run_corpora, tie_corpora
from bpe_conformance.reference import train
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import RUSTBPE, STRICT, SUBWORD_NMT
from tests.support import broken_for_checks as broken

if TYPE_CHECKING:
    from collections.abc import Callable


@given(corpora(max_documents=4, max_length=20), max_merges_values(max_value=20))
def test_no_divergence_from_the_reference_itself(documents: list[str], max_merges: int) -> None:
    """BPE-PROP-DETERMINISM: "the same documents and `max_merges` give the same rules"."""
    assert first_divergence(documents, max_merges, train(documents, max_merges)) is None


@given(corpora(max_documents=3, max_length=20), st.integers(1, 16), st.data())
def test_the_divergent_round_is_the_first_rule_that_differs(
    documents: list[str], max_merges: int, data: st.DataObject
) -> None:
    """BPE-TRAIN-GREEDY: "Each round MUST select a pair whose count is the highest of all pairs counted"."""
    expected = train(documents, max_merges)
    actual = list(expected)
    position = data.draw(st.integers(0, len(actual)))
    replacement = data.draw(st.tuples(st.integers(0, 255), st.integers(0, 255)))
    actual[position:] = [replacement] if data.draw(st.booleans()) else []
    first = next((rank for rank, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b), None)
    if first is None and len(expected) == len(actual):
        assert first_divergence(documents, max_merges, actual) is None
        return
    first = min(len(expected), len(actual)) if first is None else first
    divergence = first_divergence(documents, max_merges, actual)
    assert divergence is not None
    assert divergence["round"] == first
    assert divergence["expected"] == (
        None if first >= len(expected) else {"pair": list(expected[first]), "count": divergence["expected"]["count"]}
    )
    assert (divergence["actual"] or {}).get("pair") == (list(actual[first]) if first < len(actual) else None)
    json.dumps(divergence)  # JSON-ready for reports


@given(tie_corpora(max_length=24), st.integers(1, 16))
def test_a_tie_dialect_is_only_ever_judged_a_tie(documents: list[str], max_merges: int) -> None:
    """BPE-TRAIN-TIE: "the round MUST select the smallest of them" — and nothing else is wrong with this dialect."""
    rules = broken.literal_train(documents, max_merges, select=broken.select_largest_tied)
    assert {judgement.kind.description for judgement in judge_rounds(documents, max_merges, rules)} <= {TIE_OTHER_WAY}


@given(run_corpora(max_documents=3, max_run=12), st.integers(1, 12))
def test_non_overlapping_counting_is_attributed_to_the_count_clause(documents: list[str], max_merges: int) -> None:
    """BPE-TRAIN-COUNT: "Windows overlap: `aaa` contains the pair (a, a) twice"."""

    def retrain(given: list[str], merges: int) -> list[tuple[int, int]]:
        return broken.literal_train(given, merges, count=broken.count_without_overlap)

    rules = retrain(documents, max_merges)
    divergence = first_divergence(documents, max_merges, rules, retrain=retrain)
    if divergence is None or divergence["diagnosis"] == STOPPED_EARLY:  # a stop at count 2 is ambiguous
        return
    # Named only when confirmed, and then as what it is; otherwise the round keeps its kind's clause.
    allowed = {"BPE-TRAIN-COUNT"} if divergence["confirmed"] else {KIND_CLAUSES[divergence["diagnosis"]]}
    assert divergence["clause"] in allowed, divergence


@pytest.mark.parametrize(
    ("documents", "max_merges", "rules", "kind", "clause"),
    [
        (["abab", "acac"], 32, [(97, 99), (97, 98)], TIE_OTHER_WAY, "BPE-TRAIN-TIE"),
        (["abbb"], 1, [(97, 98)], NOT_MAXIMAL, "BPE-TRAIN-GREEDY"),
        (["abab", "acac"], 32, [(97, 98)], STOPPED_EARLY, "BPE-TRAIN-STOP"),
        (["abab", "acac"], 1, [(97, 98), (97, 99)], TOO_MANY, "BPE-TRAIN-STOP"),
        (["aaab", "aab"], 2, [(97, 97), (97, 98)], SEEN_ONCE, "BPE-TRAIN-STOP"),
        # Without the implementation to question no bug model is confirmed: each round keeps its kind's clause.
        (["aaab", "aab"], 32, [(97, 97), (258, 98)], SEEN_ONCE, "BPE-TRAIN-STOP"),  # [a, a, a] -> [a, n]
        (["aaab", "aab"], 32, [(97, 97), (120, 121)], NEVER_SEEN, "BPE-TRAIN-STOP"),
        (["xay", "xby", "xcy"], 32, [(121, 120)], NEVER_SEEN, "BPE-TRAIN-STOP"),
        (["低" * 30], 2, [(189, 142), (228, 189)], NOT_MAXIMAL, "BPE-TRAIN-GREEDY"),
        (["aaab", "aaab"], 4, [(97, 97), (97, 258), (259, 98)], NOT_MAXIMAL, "BPE-TRAIN-GREEDY"),
        (["a b a b"], 2, [], STOPPED_EARLY, "BPE-TRAIN-STOP"),
    ],
)
def test_worked_divergences(
    documents: list[str], max_merges: int, rules: list[tuple[int, int]], kind: str, clause: str
) -> None:
    divergence = first_divergence(documents, max_merges, rules)
    assert divergence is not None
    assert (divergence["diagnosis"], divergence["clause"]) == (kind, clause), divergence


def test_the_counts_are_those_of_the_specification_in_that_round() -> None:
    divergence = first_divergence(["低" * 30], 2, [(189, 142), (228, 189)])
    assert divergence is not None
    assert divergence["round"] == 1
    assert divergence["expected"] == {"pair": [228, 258], "count": 30}
    assert divergence["actual"] == {"pair": [228, 189], "count": 0}  # every 189 was merged in round 0
    assert divergence["top_counts"][:2] == [[228, 258, 30], [258, 228, 29]]
    assert "first round's counts" in divergence["cause"]


def test_the_record_names_the_kind_by_its_stable_slug_and_its_sentence() -> None:
    """The report's ``kind`` is the slug files keep across rewordings; ``diagnosis`` is the sentence shown."""
    divergence = first_divergence(["aaab", "aab"], 32, [(97, 97), (258, 98)])
    assert divergence is not None
    assert (divergence["kind"], divergence["diagnosis"]) == ("seen-once", SEEN_ONCE)


def test_a_stop_at_count_two_names_the_other_explanation_too() -> None:
    documents = ["a\n", "a\n"]
    divergence = first_divergence(documents, 1, [])
    assert divergence is not None
    assert divergence["clause"] == "BPE-TRAIN-STOP"
    assert "exactly twice" in divergence["cause"]


def test_pretokenized_training_is_attributed_to_the_training_input_clause() -> None:
    """BPE-TRAIN-INPUT: documents MUST NOT be split into words first (BPE-ENCODE-RAW is the encoder's)."""
    documents = ["the cat, the hat, the mat, the bat"]
    trainer = broken.PreTokenizes()
    divergence = first_divergence(documents, 8, trainer.train(documents, 8), retrain=trainer.train)
    assert divergence is not None
    assert divergence["confirmed"]
    assert divergence["clause"] == "BPE-TRAIN-INPUT"
    assert "split into words, spaces and punctuation" in divergence["cause"]


def test_without_the_implementation_no_cause_is_claimed() -> None:
    """Matching a model on the counterexample alone is no proof: the round keeps its kind's clause."""
    documents = ["the cat, the hat, the mat, the bat"]
    divergence = first_divergence(documents, 8, broken.PreTokenizes().train(documents, 8))
    assert divergence is not None
    assert not divergence["confirmed"]
    assert divergence["cause"].startswith("not confirmed")
    assert divergence["clause"] == KIND_CLAUSES[divergence["diagnosis"]]


def test_describe_is_one_line_with_the_clause() -> None:
    """describe: one line stating the round, the expected and the actual pair with their counts, the
    kind, the cause and the clause."""
    divergence = first_divergence(["abbb"], 1, [(97, 98)])
    assert divergence is not None
    text = describe(divergence)
    assert "\n" not in text
    assert text.startswith("round 0:")
    assert "expected (98, 98) (count 2)" in text
    assert "got (97, 98) (count 1)" in text
    assert NOT_MAXIMAL in text
    assert "no known bug model explains these rules" in text
    assert text.endswith(" [BPE-TRAIN-GREEDY]")
    divergence = first_divergence(["abab"], 32, [])
    assert divergence is not None
    assert "got no rule" in describe(divergence)


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ((["ab"], True, []), TypeError, "max_merges"),
        (("ab", 1, []), TypeError, "documents"),
        ((["ab"], 1, "ab"), TypeError, "actual_rules"),
        ((["ab"], 1, [(97, 98, 99)]), TypeError, r"actual_rules\[0\]"),
        ((["ab"], 1, [(97, True)]), TypeError, r"actual_rules\[0\]"),
        ((["a\ud800"], 1, []), ValueError, "surrogate"),
    ],
)
def test_bad_arguments_are_named(arguments: tuple[object, ...], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        # wrong types on purpose: the call must be refused
        first_divergence(*arguments)  # type: ignore[arg-type]


def test_docstring_examples_run() -> None:
    assert doctest.testmod(diagnosis).failed == 0


@pytest.mark.parametrize(
    ("documents", "max_merges", "rewrite", "clause", "cause"),
    [
        (["cdcd", "cdcd", "abab"], 1, lambda docs: list(dict.fromkeys(docs)), "BPE-TRAIN-DOCS", "repeated documents"),
        (["\t\tab", "\t\tcd", "\t\tef", "ab"], 1, lambda docs: [d.strip() for d in docs], "BPE-TRAIN-INPUT", "strip"),
        (["e\u0301e\u0301"], 1, lambda docs: [unicodedata.normalize("NFC", d) for d in docs], "BPE-TRAIN-INPUT", "NFC"),
    ],
)
def test_rewritten_input_is_attributed_to_the_input_clauses(
    documents: list[str],
    max_merges: int,
    rewrite: Callable[[list[str]], list[str]],
    clause: str,
    cause: str,
) -> None:
    """BPE-TRAIN-INPUT / BPE-TRAIN-DOCS: "each document is UTF-8 encoded on its own" and counted as given."""

    def retrain(given: list[str], merges: int) -> list[tuple[int, int]]:
        return reference.train(rewrite(given), merges)

    divergence = first_divergence(documents, max_merges, retrain(documents, max_merges), retrain=retrain)
    assert divergence is not None, divergence
    assert divergence["clause"] == clause, divergence
    assert divergence["confirmed"], divergence
    assert cause in divergence["cause"]


def test_a_rewrite_that_only_stops_training_early_is_told_as_a_stop() -> None:
    """A prefix of the right rules is the stop rule's story, even when dropping a repeat also explains it."""
    divergence = first_divergence(["aa", "aa", "aa"], 1, [])
    assert divergence is not None
    assert divergence["clause"] == "BPE-TRAIN-STOP", divergence


@pytest.mark.parametrize(
    ("documents", "rules"),
    [
        (["abc", "abc", "ac", "ac", "ab"], [(97, 98), (256, 99)]),  # ("ab", "c") beats ("a", "c")
        (["abc", "abc", "ba", "ba", "ab"], [(97, 98), (98, 97)]),  # ("b", "a") beats ("ab", "c")
        (["\0bc", "\0bc", "ba", "ba", "\0b"], [(0, 98), (98, 97)]),  # ("b", "a") beats ("\0b", "c")
    ],
)
def test_subword_nmt_ties_compare_the_pieces_earlier_rules_spell(
    documents: list[str], rules: list[tuple[int, int]]
) -> None:
    """BPE-TRAIN-TIE under subword-nmt: round 1's tie compares the piece of rule 0 (a + b, byte 0 included),
    so subword-nmt's own rules are no divergence."""
    assert train_profile(documents, 2, SUBWORD_NMT) == rules
    assert first_divergence(documents, 2, rules, SUBWORD_NMT) is None


@pytest.mark.parametrize("rule", [(258, 97), (300, 97)])
def test_a_rule_naming_an_id_not_made_yet_merges_a_pair_that_does_not_occur(rule: tuple[int, int]) -> None:
    """BPE-TRAIN-STOP: rule 0 naming id 258 (its own) or 300 is judged like any pair that does not occur."""
    divergence = first_divergence(["ab"], 2, [rule])
    assert divergence is not None
    assert (divergence["diagnosis"], divergence["actual"]) == (NEVER_SEEN, {"pair": list(rule), "count": 0})


MIN_3 = dataclasses.replace(STRICT, name="min-3", min_count=3)


def test_a_pair_counted_twice_is_below_a_minimum_of_three() -> None:
    """BPE-TRAIN-STOP: under min_count 3, merging a pair seen twice is below the minimum, not 'seen once'."""
    divergence = first_divergence(["abab"], 2, [(97, 98)], MIN_3)
    assert divergence is not None
    assert (divergence["diagnosis"], divergence["clause"]) == (BELOW_MINIMUM, "BPE-TRAIN-STOP")


def test_a_rule_after_every_pair_is_gone_merges_a_pair_that_does_not_occur() -> None:
    """BPE-TRAIN-STOP under a minimum of 1: with no pair left at all, any rule is a pair that does not occur."""
    divergence = first_divergence(["a"], 2, [(97, 97)], RUSTBPE)
    assert divergence is not None
    assert (divergence["diagnosis"], divergence["expected"]) == (NEVER_SEEN, None)


def test_a_judgements_counts_are_none_exactly_when_its_pair_is() -> None:
    """Judgement: expected and actual each carry their count in that round's state, None for "no rule"."""
    (stopped,) = judge_rounds(["abab", "acac"], 32, [])
    assert (stopped.expected, stopped.expected_count, stopped.actual, stopped.actual_count) == ((97, 98), 2, None, None)
    (too_many,) = judge_rounds(["abab", "acac"], 1, [(97, 98), (97, 99)])
    assert (too_many.expected, too_many.expected_count, too_many.actual, too_many.actual_count) == (
        None,
        None,
        (97, 99),
        2,
    )


def test_top_counts_are_the_five_highest_highest_first_then_by_pair() -> None:
    """Judgement.top_counts: the five highest counts of the round's state, highest first, equal counts in pair
    order (here counted in the opposite order), the pair counted once left out."""
    divergence = first_divergence(["fedcba", "fedcba", "ab"], 2, [])
    assert divergence is not None
    assert divergence["top_counts"] == [[98, 97, 2], [99, 98, 2], [100, 99, 2], [101, 100, 2], [102, 101, 2]]


def test_every_round_after_a_rule_naming_an_id_not_made_yet_is_judged_too() -> None:
    """BPE-RULE-REF, as the diagnosis meets it: an id that does not exist yet (the rule's own, 258, or 300)
    spells nothing, so judging goes on past that rule to every later round instead of failing."""
    judgements = list(judge_rounds(["abab", "abab"], 3, [(97, 258), (97, 300), (97, 98)]))
    assert [(judgement.round, judgement.actual) for judgement in judgements] == [(0, (97, 258)), (1, (97, 300))]
