"""reference/trace.py: the training trace's rounds, candidates and stop reason (BPE-TRAIN-*)."""

from __future__ import annotations

import re

from reference import format_trace, trace_training


def test_trace_stop_reason_reports_a_best_count_of_zero_when_no_pair_is_left() -> None:
    """BPE-TRAIN-STOP: with nothing left to count, the trace says the best count was 0, not 1, against
    the minimum of 2, and how many rules were made."""
    for documents, rules_made in ((["a", "b"], 0), (["aa", "aa"], 1)):
        reason = trace_training(documents, 8).stop_reason
        assert re.search(r"\bbest count 0\b", reason), reason
        assert re.search(r"< 2\b", reason), reason
        assert re.search(rf"\bafter {rules_made} rules\b", reason), reason


def test_trace_keeps_the_five_highest_counts_by_default() -> None:
    """BPE-TRAIN-GREEDY: each round shows its five best candidates, highest count first, ties by pair."""
    trace = trace_training(["abcdefgh", "abcdefgh"], 1)
    pairs = [(97, 98), (98, 99), (99, 100), (100, 101), (101, 102)]
    assert trace.rounds[0].top_counts == [(pair, 2) for pair in pairs]
    assert len(trace_training(["abcdefgh", "abcdefgh"], 1, top=7).rounds[0].top_counts) == 7


def test_trace_table_marks_a_two_way_tie_and_only_ties() -> None:
    """BPE-TRAIN-TIE: a round decided by the tie rule says how many pairs tied; an untied one says nothing."""
    lines = format_trace(trace_training(["abab", "acac"], 32)).splitlines()
    assert "tie of 2" in lines[1]
    assert "tie of" not in lines[2]
