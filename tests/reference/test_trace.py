"""reference/trace.py: the training trace's rounds, sequences, candidates and the round that stopped (BPE-TRAIN-*)."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_conformance.reference import (
    decode_bytes,
    format_trace,
    replace_pair,
    trace_training,
    train_sequences,
)
from bpe_conformance.reference.trace import STOP_BELOW_MINIMUM, STOP_MAX_MERGES, STOP_NO_PAIR, replace_every_window
from tests.support.strategies_local import documents, max_merges

ABAB_ACAC = ["abab", "acac"]


def test_each_round_keeps_every_documents_sequence_before_and_after() -> None:
    """The seed chapter's first worked example, document by document: [258, 258] and [97, 99, 97, 99] after
    round 0, [258, 258] and [259, 259] after round 1 (BPE-TRAIN-DOCS, BPE-MERGE-SCAN)."""
    trace = trace_training(ABAB_ACAC, 32)
    assert trace.start == [[97, 98, 97, 98], [97, 99, 97, 99]]
    first, second = trace.rounds
    assert first.sequences_before == trace.start
    assert first.sequences_after == [[258, 258], [97, 99, 97, 99]]
    assert second.sequences_before == first.sequences_after
    assert second.sequences_after == [[258, 258], [259, 259]]
    assert (first.piece, second.piece) == (b"ab", b"ac")


def test_the_stop_round_has_the_counts_it_stopped_on() -> None:
    """BPE-TRAIN-STOP: after two rules every pair occurs once, so the third round makes none."""
    stop = trace_training(ABAB_ACAC, 32).stop
    assert stop.rule == STOP_BELOW_MINIMUM
    assert stop.top_counts == [((258, 258), 1), ((259, 259), 1)]
    assert stop.best == ((258, 258), 1)
    assert stop.sequences == [[258, 258], [259, 259]]
    assert (stop.rules_made, stop.max_merges) == (2, 32)


@pytest.mark.parametrize(
    ("documents", "max_merges", "rule", "best", "reason"),
    [
        (["a", "b"], 8, STOP_NO_PAIR, None, "no pair left after 0 rules"),
        (["aa", "aa"], 8, STOP_NO_PAIR, None, "no pair left after 1 rule"),
        (["aaab", "aab"], 32, STOP_BELOW_MINIMUM, ((97, 98), 1), "best count 1 < 2 after 1 rule"),
        (ABAB_ACAC, 32, STOP_BELOW_MINIMUM, ((258, 258), 1), "best count 1 < 2 after 2 rules"),
        (ABAB_ACAC, 1, STOP_MAX_MERGES, ((97, 99), 2), "max_merges reached (1)"),
        (ABAB_ACAC, 0, STOP_MAX_MERGES, ((97, 98), 2), "max_merges reached (0)"),
        (["a"], 0, STOP_MAX_MERGES, None, "max_merges reached (0)"),
    ],
)
def test_the_stop_rule_and_reason(documents: list[str], max_merges: int, rule: str, best: object, reason: str) -> None:
    """BPE-TRAIN-STOP names the rule that ended training: no pair left (never "best count 0"), a best count
    below 2, or max_merges rules made, with "rule" in the singular for one."""
    trace = trace_training(documents, max_merges)
    assert (trace.stop.rule, trace.stop.best, trace.stop_reason) == (rule, best, reason)
    assert trace.stop.rules_made == len(trace.rounds)


def test_the_stop_round_counts_what_a_further_round_would_have_seen() -> None:
    """When max_merges ends training the counts left are still shown, highest first, ties by pair."""
    stop = trace_training(ABAB_ACAC, 1, top=2).stop
    assert stop.top_counts == [((97, 99), 2), ((99, 97), 1)]
    assert trace_training(["a", "b"], 8).stop.top_counts == []


def test_trace_keeps_the_five_highest_counts_by_default() -> None:
    """BPE-TRAIN-GREEDY: each round shows its five best candidates, highest count first, ties by pair."""
    trace = trace_training(["abcdefgh", "abcdefgh"], 1)
    pairs = [(97, 98), (98, 99), (99, 100), (100, 101), (101, 102)]
    assert trace.rounds[0].top_counts == [(pair, 2) for pair in pairs]
    assert len(trace_training(["abcdefgh", "abcdefgh"], 1, top=7).rounds[0].top_counts) == 7
    assert len(trace_training(["abcdefgh", "abcdefgh"], 1, top=6).stop.top_counts) == 6
    assert len(trace_training(["abcdefgh", "abcdefgh"], 1).stop.top_counts) == 5


def test_the_runner_up_is_the_best_pair_with_a_lower_count() -> None:
    """BPE-TRAIN-GREEDY: why the winner won. The runner-up has the highest count below the winner's (not the
    smallest pair below it), ties broken by the smaller pair; a lone pair has none."""
    assert [step.runner_up for step in trace_training(ABAB_ACAC, 32).rounds] == [((98, 97), 1), ((99, 97), 1)]
    assert trace_training(["ccccxyxy"], 1).rounds[0].runner_up == ((120, 121), 2)
    assert trace_training(["abbb"], 1).rounds[0].runner_up == ((97, 98), 1)
    assert trace_training(["aaa"], 1).rounds[0].runner_up is None


def test_trace_table_marks_a_two_way_tie_and_only_ties() -> None:
    """BPE-TRAIN-TIE: a round decided by the tie rule says how many pairs tied; an untied one says nothing."""
    lines = format_trace(trace_training(ABAB_ACAC, 32)).splitlines()
    assert "tie of 2" in lines[1]
    assert "tie of" not in lines[2]
    assert lines[-1] == "stopped: best count 1 < 2 after 2 rules"


def test_replacements_are_the_length_reduction_not_the_count() -> None:
    """BPE-MERGE-SCAN: "A round shortens a sequence by the number of replacements made, which in general is not
    the pair's count": (97, 97) is counted 3 times in ["aaab", "aab"] and replaced twice."""
    step = trace_training(["aaab", "aab"], 32).rounds[0]
    assert (step.count, step.replacements, step.length_before, step.length_after) == (3, 2, 7, 5)
    assert [step.replacements for step in trace_training(ABAB_ACAC, 32).rounds] == [2, 2]


def test_an_overlapping_round_records_what_replacing_every_window_gives() -> None:
    """BPE-MERGE-SCAN: [a, a, a] becomes [258, 97]; consuming both counted windows would give [258, 258], which
    stands for 'aaaa'."""
    overlap = trace_training(["aaa"], 32).rounds[0].overlap
    assert overlap is not None
    assert (overlap.document, overlap.replaced, overlap.every_window) == (0, [258, 97], [258, 258])
    assert overlap.every_window_bytes == b"aaaa"
    overlap = trace_training(["aaab", "aab"], 32).rounds[0].overlap
    assert overlap is not None
    assert (overlap.document, overlap.every_window, overlap.every_window_bytes) == (0, [258, 258, 98], b"aaaab")


def test_the_overlap_is_found_in_the_first_document_where_windows_overlap() -> None:
    """A document whose windows do not overlap is passed over; rounds without any overlap record none."""
    overlap = trace_training(["aab", "aaa"], 1).rounds[0].overlap
    assert overlap is not None
    assert (overlap.document, overlap.replaced, overlap.every_window) == (1, [258, 97], [258, 258])
    assert trace_training(ABAB_ACAC, 32).rounds[0].overlap is None
    assert trace_training(["aaaa"], 1).rounds[0].overlap is not None  # 3 windows, 2 replacements


def test_kept_documents_limits_the_sequences_not_the_training() -> None:
    """A long corpus keeps only the first documents' sequences; counts, lengths and overlaps still see them all."""
    trace = trace_training(["ab", "aaa", "ab"], 32, kept_documents=1)
    assert trace.start == [[97, 98]]
    assert [step.sequences_after for step in trace.rounds] == [[[97, 98]], [[259]]]
    assert trace.rounds[0].sequences_before == [[97, 98]]
    assert trace.stop.sequences == [[259]]
    assert (trace.rounds[0].length_before, trace.rounds[0].length_after) == (7, 6)
    assert trace.rounds[0].overlap is not None
    assert trace.rounds[0].overlap.document == 1
    assert trace_training(["ab", "aaa", "ab"], 32).start == [[97, 98], [97, 97, 97], [97, 98]]


@pytest.mark.parametrize(
    ("sequence", "pair", "expected"),
    [
        ([97, 97, 97], (97, 97), [258, 258]),
        ([97, 97, 97, 97], (97, 97), [258, 258, 258]),
        ([97, 97, 98, 97, 97], (97, 97), [258, 98, 258]),
        ([98, 97, 97], (97, 97), [98, 258]),
        ([99, 97, 98], (97, 98), [99, 258]),
        ([97, 98, 97, 98], (97, 98), [258, 258]),
        ([97], (97, 97), [97]),
        ([], (97, 97), []),
    ],
)
def test_replace_every_window(sequence: list[int], pair: tuple[int, int], expected: list[int]) -> None:
    assert replace_every_window(sequence, pair, 258) == expected


@given(st.lists(st.sampled_from([97, 98]), max_size=12), st.sampled_from([(97, 97), (97, 98), (98, 97), (98, 98)]))
def test_replace_every_window_makes_one_id_per_counted_window(sequence: list[int], pair: tuple[int, int]) -> None:
    """BPE-TRAIN-COUNT counts every window; the forbidden replacement turns each into an id, and only differs
    from BPE-MERGE-SCAN's when windows overlap, which needs a pair of one id twice."""
    every_window = replace_every_window(sequence, pair, 258)
    assert every_window.count(258) == sum(1 for window in itertools.pairwise(sequence) if window == pair)
    if pair[0] != pair[1]:
        assert every_window == replace_pair(sequence, pair, 258)


@given(documents(), max_merges())
def test_the_trace_agrees_with_training(docs: list[str], merges: int) -> None:
    """BPE-TRAIN-INPUT: the last round leaves exactly the sequences train_sequences gives; every round starts
    where the previous one ended, and each sequence still stands for its document's bytes."""
    trace = trace_training(docs, merges)
    result = train_sequences(docs, merges)
    assert [step.pair for step in trace.rounds] == result.rules
    assert trace.stop.sequences == result.sequences
    previous = trace.start
    for step in trace.rounds:
        assert step.sequences_before == previous
        assert step.replacements == step.length_before - step.length_after > 0
        previous = step.sequences_after
    rules = result.rules
    assert [decode_bytes(sequence, rules) for sequence in trace.stop.sequences] == [doc.encode() for doc in docs]


def test_bad_arguments_are_rejected_before_any_round() -> None:
    with pytest.raises(TypeError, match=re.escape("max_merges")):
        trace_training(ABAB_ACAC, 2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non-negative"):
        trace_training(ABAB_ACAC, -1)
