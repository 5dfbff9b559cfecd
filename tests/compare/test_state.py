"""The reference's state at a round, found by encoding, equals the literal training state; the judgement is honest.

The literal state is built here the plain way: the profile's training sequences with each of the first
``k`` rules replaced in turn (``reference.replace_pair``), as ``bpe_conformance.reference.dialects.train_profile`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.corpora import stdlib_documents, truncate
from bpe_conformance.compare import state
from bpe_conformance.compare.state import (
    ReferenceEncoder,
    first_difference,
    judge_first_divergence,
    profile_ids,
    strict_rules,
    training_state_counts,
)
from bpe_conformance.errors import CallTimeout
from bpe_conformance.inputs.strategies import corpora, encode_texts
from bpe_conformance.reference import LiteralTokenizer, count_pairs, replace_pair
from bpe_conformance.reference.dialects import encode_profile, train_profile, training_sequences
from bpe_conformance.reference.profiles import PROFILES, STRICT, Profile, get_profile
from tests.support.tie_variants import HashOrderTies, LargestTies

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.diagnosis import Retrain

TRAINABLE = [profile for profile in PROFILES.values() if profile.tie_break is not None]


def _literal_state_counts(
    documents: list[str], rules: list[tuple[int, int]], profile: Profile
) -> dict[tuple[int, int], int]:
    sequences = training_sequences(documents, profile)
    for rank, pair in enumerate(rules):
        sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return count_pairs(sequences)


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(documents=corpora(max_documents=3, max_length=24), data=st.data())
def test_the_state_after_k_rounds_is_the_literal_training_state(
    profile: Profile, documents: list[str], data: st.DataObject
) -> None:
    """BPE-ENCODE-ORDER: after k rounds every sequence is its rank-order encoding with the first k rules."""
    rules = train_profile(documents, 12, profile)
    rounds = data.draw(st.integers(0, len(rules)), label="rounds")
    assert training_state_counts(documents, rules[:rounds], profile) == _literal_state_counts(
        documents, rules[:rounds], profile
    )


def test_the_state_is_the_same_whatever_the_batches_and_the_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting the state a batch at a time, on the batched encoder or the heap one, changes no count."""
    documents = truncate(stdlib_documents(), 60_000)
    rules = train_profile(documents[:3], 40, STRICT)
    whole = training_state_counts(documents, rules, STRICT)
    monkeypatch.setattr(state, "STATE_BATCH_BYTES", 1)  # one sequence per batch: the heap encoder
    assert training_state_counts(documents, rules, STRICT) == whole == _literal_state_counts(documents, rules, STRICT)


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
@given(documents=corpora(max_documents=3, max_length=24), text=encode_texts())
def test_the_reference_encoder_is_the_profiles_encoding(profile: Profile, documents: list[str], text: str) -> None:
    """Fast where the profile encodes like strict, the literal dialect elsewhere: the same ids either way."""
    rules = train_profile(documents, 12, profile)
    assert ReferenceEncoder(rules, profile)(text) == encode_profile(text, rules, profile)


def test_ids_move_between_numberings_and_back() -> None:
    profile = get_profile("rustbpe")
    rules = [(97, 98), (256, 99), (257, 256)]
    assert strict_rules(rules, profile) == [(97, 98), (258, 99), (259, 258)]
    assert profile_ids([97, 258, 259, 255], profile) == [97, 256, 257, 255]
    assert strict_rules(rules, STRICT) == rules
    assert profile_ids([258], STRICT) == [258]


def test_first_difference_counts_a_missing_rule_as_a_difference() -> None:
    assert first_difference([(1, 2), (3, 4)], [(1, 2)]) == 1
    assert first_difference([], [(1, 2)]) == 0
    assert first_difference([(1, 2)], [(1, 2)]) is None


CORPUS = ["the cat sat on the mat", "a rat ate the hat", "that cat, that hat"]


def _retrainer(implementation: Callable[[], LiteralTokenizer]) -> Retrain:
    return lambda documents, merges: implementation().train(documents, merges)


def test_a_modelled_tie_order_is_named_only_as_confirmed_on_follow_ups() -> None:
    """BPE-TRAIN-TIE: a small corpus is examined, and the model is confirmed by retraining the implementation."""
    actual = LargestTies().train(CORPUS, 12)
    divergence = judge_first_divergence(
        CORPUS, 12, train_profile(CORPUS, 12, STRICT), actual, STRICT, _retrainer(LargestTies)
    )
    assert divergence is not None
    judgement = divergence.judgement
    assert divergence.examined
    assert judgement.kind.description == "tie broken the other way"
    assert judgement.confirmed
    assert judgement.clause == "BPE-TRAIN-TIE"
    assert "ties broken towards the largest pair" in judgement.cause
    assert "follow-up inputs" in judgement.cause
    assert judgement.expected_count == judgement.actual_count


def test_an_unmodelled_tie_order_gets_no_cause() -> None:
    actual = HashOrderTies().train(CORPUS, 12)
    divergence = judge_first_divergence(
        CORPUS, 12, train_profile(CORPUS, 12, STRICT), actual, STRICT, _retrainer(HashOrderTies)
    )
    assert divergence is not None
    judgement = divergence.judgement
    assert judgement.kind.description == "tie broken the other way"
    assert not judgement.confirmed
    assert "none of the known rules gives" in judgement.cause or judgement.cause.startswith("no known bug model")


def test_past_the_budget_no_cause_is_examined_and_the_report_says_so() -> None:
    """What was seen is still judged (round, pairs, counts); only the cause is left unexamined."""
    actual = LargestTies().train(CORPUS, 12)
    calls: list[list[str]] = []

    def retrain(documents: list[str], merges: int) -> list[tuple[int, int]]:
        calls.append(documents)
        return LargestTies().train(documents, merges)

    divergence = judge_first_divergence(
        CORPUS, 12, train_profile(CORPUS, 12, STRICT), actual, STRICT, retrain, budget=0
    )
    assert divergence is not None
    judgement = divergence.judgement
    assert not divergence.examined
    assert not judgement.confirmed
    assert calls == []
    assert judgement.cause.startswith("not examined")
    assert "budget of 0" in judgement.cause
    assert judgement.kind.description == "tie broken the other way"
    assert judgement.clause == "BPE-TRAIN-TIE"


def test_an_implementation_that_hangs_on_a_follow_up_leaves_the_cause_unexamined() -> None:
    actual = LargestTies().train(CORPUS, 12)

    def retrain(documents: list[str], merges: int) -> NoReturn:
        raise CallTimeout("train", "no answer within 1 s (process group killed)")

    divergence = judge_first_divergence(CORPUS, 12, train_profile(CORPUS, 12, STRICT), actual, STRICT, retrain)
    assert divergence is not None
    assert not divergence.examined
    assert not divergence.judgement.confirmed
    assert divergence.judgement.cause.startswith("not examined: the implementation timed out")


def test_a_reference_rule_list_its_own_state_does_not_select_is_refused() -> None:
    """The check of the harness itself: the fast engines and the literal reference must agree."""
    wrong = [(116, 104), (120, 120)]  # "xx" occurs nowhere: not the reference's rule 1 for CORPUS
    with pytest.raises(RuntimeError, match="does not select its own rule"):
        judge_first_divergence(CORPUS, 12, wrong, [(116, 104), (104, 101)], STRICT)
