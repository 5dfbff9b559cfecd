"""The diagnosis's inputs without ties: how many rounds come before a tie, which follow-ups are asked, what is said.

Written to kill mutation survivors of ``bpe_conformance.diagnosis``. An unmodeled tie order is told apart
from a deeper bug (BPE-TRAIN-TIE against the counting, selection and input clauses) only on rounds
whose top pair is alone.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bpe_conformance import diagnosis
from bpe_conformance.diagnosis import divergence, models
from bpe_conformance.diagnosis.follow_ups import FOLLOW_UP_CORPORA, FOLLOW_UP_MERGES, TIE_FREE_CORPORA
from bpe_conformance.inputs.strategies import corpora
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.reference.trace import trace_training
from tests.support import broken_for_checks as broken


def _rounds_before_a_tie_by_trace(documents: list[str], max_merges: int) -> int:
    """The same number, read from the reference's round-by-round trace: the first round with tie candidates."""
    rounds = trace_training(documents, max_merges).rounds
    return next((step.rank for step in rounds if len(step.tie_candidates) > 1), len(rounds))


@given(corpora(max_documents=2, max_length=14))
@example(["aaaabccaaaabcc", "accbbbabccb"])
@example(["ccccacbbacaab", "cbacbbacccbbc"])
@example(["cbcbbbacabcacb", "bcbbbcbbbbccb"])
def test_rounds_before_a_tie_agree_with_the_training_trace(documents: list[str]) -> None:
    """BPE-TRAIN-TIE: the rounds counted as tie-free are exactly those whose top count one pair holds alone."""
    assert diagnosis.rounds_before_a_tie(documents, 8, STRICT) == _rounds_before_a_tie_by_trace(documents, 8)


def test_tie_free_departures_ask_every_corpus_with_a_tie_free_round_once_and_only_those() -> None:
    """BPE-TRAIN-TIE: each follow-up is cut before its first tie; one cut to no rounds at all is not asked."""
    calls: list[tuple[list[str], int]] = []

    def retrain(documents: list[str], merges: int) -> list[tuple[int, int]]:
        calls.append((list(documents), merges))
        return train_profile(documents, merges, STRICT)

    departures = diagnosis.tie_free_departures(STRICT, retrain)
    assert departures is not None
    departed, asked = departures
    expected = []
    for corpus in (*FOLLOW_UP_CORPORA, *TIE_FREE_CORPORA):
        merges = _rounds_before_a_tie_by_trace(list(corpus), FOLLOW_UP_MERGES)
        if merges:
            expected.append((list(corpus), merges))
    assert calls == expected
    assert all(merges > 0 for _, merges in calls)
    assert (departed, asked) == (0, len(calls))


@pytest.mark.parametrize("asked", [diagnosis.MIN_FOLLOW_UPS, diagnosis.MIN_FOLLOW_UPS + 3])
def test_enough_tie_free_follow_ups_tell_a_tie_order_from_a_deeper_bug(asked: int) -> None:
    """BPE-TRAIN-TIE: with MIN_FOLLOW_UPS or more inputs asked the cause says what they showed."""
    agreeing = divergence._unexplained_tie((0, asked))
    departing = divergence._unexplained_tie((1, asked))
    assert diagnosis.TIED_UNTESTED not in (agreeing, departing)
    assert str(asked) in agreeing
    assert diagnosis.NO_MODEL not in agreeing
    assert diagnosis.NO_MODEL in departing
    assert f"1 of {asked}" in departing


def test_too_few_tie_free_follow_ups_say_the_tie_order_is_untested() -> None:
    """BPE-TRAIN-TIE: fewer than MIN_FOLLOW_UPS inputs asked, or none possible, tell nothing."""
    assert divergence._unexplained_tie(None) == diagnosis.TIED_UNTESTED
    assert divergence._unexplained_tie((0, diagnosis.MIN_FOLLOW_UPS - 1)) == diagnosis.TIED_UNTESTED


def _hash_order_tie(counts: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    """Highest count first; ties in a fixed multiplicative hash order, which no bug model knows."""
    if not counts:
        return None
    return min(counts, key=lambda pair: (-counts[pair], (pair[0] * 2654435761 + pair[1] * 40503) % 2**32))


def _hash_order_trainer(documents: list[str], max_merges: int) -> list[tuple[int, int]]:
    return broken.literal_train(documents, max_merges, select=_hash_order_tie)


def _first_tie_judgement(retrain: object) -> diagnosis.Judgement:
    documents, max_merges = ["abab", "cdcd", "efef", "ghgh"], 4
    rules = _hash_order_trainer(documents, max_merges)
    assert rules != train_profile(documents, max_merges, STRICT)
    judgements = list(diagnosis.judge_rounds(documents, max_merges, rules, STRICT, retrain))  # type: ignore[arg-type]
    assert judgements
    assert judgements[0].kind.description == diagnosis.TIE_OTHER_WAY
    return judgements[0]


def test_an_unmodeled_tie_order_is_told_by_the_implementations_own_tie_free_answers() -> None:
    """BPE-TRAIN-TIE: judge_rounds asks the implementation the tie-free follow-ups and says what they showed."""
    judgement = _first_tie_judgement(_hash_order_trainer)
    assert judgement.clause == "BPE-TRAIN-TIE"
    assert not judgement.confirmed
    assert judgement.cause != diagnosis.TIED_UNTESTED
    assert diagnosis.NO_MODEL not in judgement.cause  # it makes the specification's rules wherever no tie is
    assert "cut before their first tie" in judgement.cause


def test_without_a_way_to_ask_the_implementation_an_unmodeled_tie_stays_untested() -> None:
    """BPE-TRAIN-TIE: with no retrain the diagnosis claims nothing about the tie-free inputs."""
    assert _first_tie_judgement(None).cause == diagnosis.TIED_UNTESTED


def test_candidates_the_follow_ups_did_not_separate_are_said_to_be_so() -> None:
    """BPE-TRAIN-TIE: two candidates left after follow-ups: the cause names both and why it is unconfirmed."""
    both = diagnosis.Explanation(candidates=(0, 1), asked=3)
    clause, cause, confirmed = divergence._clause_and_cause(diagnosis.DivergenceKind.TIE_OTHER_WAY, both, STRICT)
    assert (clause, confirmed) == ("BPE-TRAIN-TIE", False)
    assert "largest pair" in cause
    assert "seen first" in cause
    assert "(the follow-up inputs did not tell them apart)" in cause
    unasked = diagnosis.Explanation(candidates=(0, 1), asked=0)
    assert (
        "(no follow-up inputs were run)"
        in divergence._clause_and_cause(diagnosis.DivergenceKind.TIE_OTHER_WAY, unasked, STRICT)[1]
    )


@given(st.lists(st.lists(st.integers(97, 99), max_size=8), max_size=3))
@example([[97, 97, 97], [97, 98, 97, 98]])
def test_the_non_overlapping_counting_model_counts_what_a_scan_would_replace(sequences: list[list[int]]) -> None:
    """BPE-TRAIN-COUNT: the "overlapping windows counted once" model counts (a, a) in aaa once, abab's (a, b) twice."""
    assert models._count_non_overlapping(sequences) == broken.count_without_overlap(sequences)
