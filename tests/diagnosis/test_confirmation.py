"""A cause is claimed only when proven: the follow-up inputs, the cross-examination and what is said otherwise."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from bpe_conformance import diagnosis
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.common import (
    PROBE_RULES,
    cross_examine_encodings,
    encoding_clause,
    subject_encoder,
    subject_retrainer,
    verify_training_rounds,
)
from bpe_conformance.diagnosis import (
    MIN_FOLLOW_UPS,
    NO_MODEL,
    Explanation,
    confirmation,
    cross_examine,
    divergence,
    first_divergence,
    follow_up_inputs,
    follow_ups,
    reproducing_models,
)
from bpe_conformance.diagnosis.follow_ups import FOLLOW_UP_MERGES
from bpe_conformance.reference import LiteralTokenizer, Tokenizer
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import MINBPE, PROFILES, STRICT, Profile, get_profile
from tests.support import broken_for_checks as broken
from tests.support.tie_variants import Gpt2PreTokenizer

TRAINING_PROFILES = [profile for profile in PROFILES.values() if profile.tie_break is not None]


def _prediction(
    index: int, documents: list[str], max_merges: int, profile: Profile
) -> tuple[tuple[int, int], ...] | None:
    merges = confirmation._answerable_merges(documents, max_merges, profile)
    rules = diagnosis.model_rules(index, tuple(documents), merges, profile)
    return confirmation._profile_rules(documents, merges, profile) if rules is None else rules


@pytest.mark.parametrize("profile", TRAINING_PROFILES, ids=lambda profile: profile.name)
def test_every_two_bug_models_part_on_some_follow_up_input(profile: Profile) -> None:
    """Models that are bugs under the profile (not the profile itself) are told apart by the follow-ups."""
    inputs = follow_up_inputs([], 8)
    bugs = [
        index
        for index in range(len(diagnosis.MODELS))
        if any(
            _prediction(index, docs, merges, profile)
            != confirmation._profile_rules(docs, confirmation._answerable_merges(docs, merges, profile), profile)
            for docs, merges in inputs
        )
    ]
    for first, second in itertools.combinations(bugs, 2):
        assert any(
            _prediction(first, docs, merges, profile) != _prediction(second, docs, merges, profile)
            for docs, merges in inputs
        ), (diagnosis.MODELS[first][1], diagnosis.MODELS[second][1])


def test_the_counterexample_reversed_comes_first_when_it_has_several_documents() -> None:
    assert follow_up_inputs(["ab", "cd"], 3)[0] == (["cd", "ab"], 3)
    assert follow_up_inputs(["ab"], 3)[0] != (["ab"], 3)
    assert len(follow_up_inputs(["ab"], 3)) == len(follow_up_inputs(["ab", "cd"], 3)) - 1


def test_minbpe_follow_ups_ask_only_for_merges_it_can_make() -> None:
    assert confirmation._answerable_merges(["abcd"], 8, MINBPE) == 3
    assert confirmation._answerable_merges(["abcd"], 8, STRICT) == 8
    assert confirmation._profile_rules(["abcd"], 8, MINBPE) == ((97, 98), (256, 99), (257, 100))
    assert confirmation._profile_rules(["abcd"], 8, get_profile("tiktoken")) is None


def test_confirmation_needs_one_survivor_and_enough_follow_ups() -> None:
    assert Explanation((3,), MIN_FOLLOW_UPS).confirmed
    assert not Explanation((3,), MIN_FOLLOW_UPS - 1).confirmed
    assert not Explanation((3, 4), 10).confirmed
    assert not Explanation((), 10).confirmed


def test_a_model_matching_the_counterexample_only_is_refuted_by_the_implementation() -> None:
    """The string-key trainer's rules on one corpus are first-seen's too; the follow-ups say otherwise."""
    documents = ["bcbc", "abab", "dede"]
    rules = broken.literal_train(documents, 1, select=broken.select_by_string)
    candidates = reproducing_models(documents, 1, rules, STRICT)
    assert len(candidates) > 1
    trainer = broken.StringTieBreak()
    survivors, asked = cross_examine(candidates, STRICT, trainer.train, documents, 1)
    assert [diagnosis.MODELS[index][1] for index in survivors] == ["ties broken by the pair's decimal string"]
    assert asked >= MIN_FOLLOW_UPS


def test_an_implementation_that_answers_nothing_refutes_every_candidate() -> None:
    candidates = reproducing_models(["abab", "acac"], 1, [(97, 99)], STRICT)
    # A non-list answer on purpose: it must refute every candidate.
    assert cross_examine(candidates, STRICT, lambda documents, merges: "no rules", ["abab", "acac"], 1) == ([], 1)  # type: ignore[arg-type, return-value]


def test_inputs_where_a_candidate_predicts_the_profiles_rules_refute_it_but_do_not_count_as_tests() -> None:
    """A candidate claims every follow-up: where it predicts the profile's rules, an answer that departs refutes it.

    Inputs on which every candidate predicts the profile's own rules are asked too, but they do not
    count among the inputs that put the candidate to the test.
    """
    index = next(i for i, model in enumerate(diagnosis.MODELS) if model[1] == "ties broken towards the largest pair")
    inputs = [docs for docs, merges in follow_up_inputs([], 8)]
    testing = [docs for docs in inputs if _prediction(index, docs, 8, STRICT) != tuple(train_profile(docs, 8, STRICT))]
    quiet = next(docs for docs in inputs if docs not in testing and train_profile(docs, 8, STRICT))
    asked: list[list[str]] = []

    def retrain(documents: list[str], merges: int) -> list[tuple[int, int]]:
        asked.append(documents)
        return broken.literal_train(documents, merges, select=broken.select_largest_tied)

    assert cross_examine([index], STRICT, retrain, [], 8) == ([index], len(testing))
    assert quiet in asked
    assert len(asked) == len(inputs)

    def departs_where_the_model_is_quiet(documents: list[str], merges: int) -> list[tuple[int, int]]:
        return [] if documents == quiet else retrain(documents, merges)

    assert cross_examine([index], STRICT, departs_where_the_model_is_quiet, [], 8)[0] == []


@pytest.mark.parametrize(
    ("explanation", "kind", "clause", "opening", "confirmed"),
    [
        (
            None,
            diagnosis.DivergenceKind.TIE_OTHER_WAY,
            "BPE-TRAIN-TIE",
            "no known bug model explains these rules; a pair tied for the top count was chosen",
            False,
        ),
        (None, diagnosis.DivergenceKind.NOT_MAXIMAL, "BPE-TRAIN-GREEDY", NO_MODEL, False),
        (Explanation((), 5), diagnosis.DivergenceKind.NOT_MAXIMAL, "BPE-TRAIN-GREEDY", NO_MODEL, False),
        (
            Explanation((6,), 0),
            diagnosis.DivergenceKind.NOT_MAXIMAL,
            "BPE-TRAIN-GREEDY",
            "not confirmed: consistent with",
            False,
        ),
        (
            Explanation((6,), 1),
            diagnosis.DivergenceKind.NOT_MAXIMAL,
            "BPE-TRAIN-COUNT",
            "not confirmed: consistent with",
            False,
        ),
        (
            Explanation((6, 7), 5),
            diagnosis.DivergenceKind.NOT_MAXIMAL,
            "BPE-TRAIN-GREEDY",
            "not confirmed: consistent with",
            False,
        ),
        (Explanation((6,), 5), diagnosis.DivergenceKind.NOT_MAXIMAL, "BPE-TRAIN-COUNT", "the rules are exactly", True),
    ],
)
def test_what_is_said_for_each_state_of_the_evidence(
    explanation: Explanation | None, kind: diagnosis.DivergenceKind, clause: str, opening: str, confirmed: bool
) -> None:
    assert diagnosis.MODELS[6][0] == "BPE-TRAIN-COUNT"
    assert diagnosis.MODELS[7][0] == "BPE-TRAIN-RECOUNT"
    said = divergence._clause_and_cause(kind, explanation, STRICT)
    assert (said[0], said[1].startswith(opening), said[2]) == (clause, True, confirmed), said


def test_the_unconfirmed_line_says_why() -> None:
    _, unasked, _ = divergence._clause_and_cause(diagnosis.DivergenceKind.NOT_MAXIMAL, Explanation((6,), 0), STRICT)
    _, undecided, _ = divergence._clause_and_cause(diagnosis.DivergenceKind.NOT_MAXIMAL, Explanation((6, 7), 4), STRICT)
    assert "no follow-up inputs were run" in unasked
    assert "overlapping windows counted once" in unasked
    assert "did not tell them apart" in undecided
    assert " or with the first round's counts reused" in undecided


def test_a_confirmed_cause_says_how_many_follow_ups_tested_it() -> None:
    _, cause, _ = divergence._clause_and_cause(diagnosis.DivergenceKind.NOT_MAXIMAL, Explanation((6,), 7), STRICT)
    assert "overlapping windows counted once" in cause
    assert "7 follow-up inputs" in cause


def test_a_non_list_answer_matches_no_model() -> None:
    assert confirmation.as_rules("ab") is None
    assert confirmation.as_rules([[97, 98]]) == ((97, 98),)


# --- the subject in the loop ---


class CountsCalls(LiteralTokenizer):
    calls = 0

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        type(self).calls += 1
        if documents == ["boom"]:
            raise ValueError("cannot")
        return super().train(documents, max_merges)


def test_the_retrainer_keeps_answers_and_turns_errors_into_none() -> None:
    CountsCalls.calls = 0
    retrain, answers = subject_retrainer(InProcessSubject(CountsCalls))
    assert retrain(["abab"], 2) == retrain(["abab"], 2) == [(97, 98)]
    assert CountsCalls.calls == 1
    assert answers == {(("abab",), 2): [(97, 98)]}
    assert retrain(["boom"], 2) is None


def test_after_follow_ups_the_subject_holds_the_rules_of_the_checked_documents() -> None:
    """The diagnosis trains the subject on other inputs; the check's later calls must not see them."""
    subject = InProcessSubject(broken.ReplacesOverlapping)
    documents = ["aaaa", "bcbc"]
    with pytest.raises(AssertionError):
        verify_training_rounds(subject, {"documents": documents, "max_merges": 8})
    fresh = broken.ReplacesOverlapping()
    fresh.train(documents, 8)
    assert subject.encode("aaaabcbc") == fresh.encode("aaaabcbc")


def test_first_divergence_with_the_implementation_confirms_its_bug() -> None:
    trainer = broken.ReplacesOverlapping()
    documents = ["aaaa", "bcbc"]
    divergence = first_divergence(documents, 8, trainer.train(documents, 8), retrain=trainer.train)
    assert divergence is not None
    assert divergence["confirmed"]
    assert divergence["clause"] == "BPE-MERGE-SCAN"
    assert "overlapping occurrences all replaced" in divergence["cause"]


def test_a_joined_documents_story_is_not_told_of_a_tie_dialect() -> None:
    """Runs of one byte make a largest-tie trainer's rules equal to a joining trainer's; follow-ups part them."""
    documents = ["baaaaaaaabaaaaaaaabaaaaaaaa", "aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb"]
    trainer = broken.LargestTiedPair()
    rules = trainer.train(documents, 4)
    joined = train_profile(documents, 4, replace(STRICT, documents="concatenated"))
    divergence = first_divergence(documents, 4, rules, retrain=trainer.train)
    if divergence is not None:
        assert divergence["clause"] == "BPE-TRAIN-TIE", (divergence, joined)


# --- encodings ---


def test_encoding_models_that_agree_on_the_wrong_answer_are_told_apart_by_the_implementation() -> None:
    rules = [(32, 97), (258, 32), (44, 259)]
    wrong = [("a a , a b", [97, 258, 32, 44, 258, 32, 98])]
    assert encoding_clause(wrong, rules) == "BPE-ENCODE-ORDER"  # two models explain it: the generic clause
    subject = InProcessSubject(Gpt2PreTokenizer)
    subject.load(rules)
    assert encoding_clause(wrong, rules, STRICT, subject_encoder(subject, rules), PROBE_RULES) == "BPE-ENCODE-RAW"
    assert encoding_clause(wrong, rules, STRICT, subject_encoder(subject, rules)) == "BPE-ENCODE-ORDER"


def test_the_encoder_loads_other_rules_only_when_it_can() -> None:
    subject = InProcessSubject(Tokenizer)
    subject.load([(97, 98)])
    encode = subject_encoder(subject, [(97, 98)])
    assert encode("ab", [(97, 98)]) == [258]
    assert encode("ab", [(98, 97)]) == [97, 98]
    assert encode("ab", [(97, 300)]) is None  # rules it refuses answer nothing


def test_cross_examination_keeps_every_candidate_the_implementation_agrees_with() -> None:
    candidates = [("A", lambda text, rules, profile: [1]), ("B", lambda text, rules, profile: [2])]
    assert cross_examine_encodings(candidates, ["x"], [(97, 98)], STRICT, lambda text, rules: [2]) == candidates[1:]
    assert cross_examine_encodings(candidates, ["x"], [(97, 98)], STRICT, lambda text, rules: [3]) == []
    same = [("A", lambda text, rules, profile: [1]), ("B", lambda text, rules, profile: [1])]
    assert cross_examine_encodings(same, ["x"], [(97, 98)], STRICT, lambda text, rules: [9]) == same


def test_every_tie_free_corpus_has_five_rounds_before_its_first_tie_under_every_profile() -> None:
    """The follow-ups that tell a tie order from other bugs need rounds no tie order can change."""
    for corpus in follow_ups.TIE_FREE_CORPORA:
        for profile in PROFILES.values():
            if profile.tie_break is not None:
                assert diagnosis.rounds_before_a_tie(list(corpus), FOLLOW_UP_MERGES, profile) >= 5, (corpus, profile)


def test_rounds_before_a_tie_stop_at_the_first_tied_top_count() -> None:
    assert diagnosis.rounds_before_a_tie(["abab", "acac"], 8, STRICT) == 0  # ab and ac tie at once
    assert diagnosis.rounds_before_a_tie(["ababab"], 8, STRICT) == 2  # ab (3), then (258, 258) alone; then it stops
    assert diagnosis.rounds_before_a_tie(["ababab"], 1, STRICT) == 1
    assert diagnosis.rounds_before_a_tie(["abcabcab", "abab"], 8, STRICT) == 1  # ab (4), then ties at 2


@pytest.mark.parametrize(
    ("evidence", "says"),
    [
        (None, "which an unknown tie order would do, and so would counts or documents"),
        ((0, 1), "which an unknown tie order would do, and so would counts or documents"),
        ((3, 9), "not a tie order alone: the implementation also departs from the specification on 3 of 9"),
        ((0, 9), "ties broken in an order none of the known rules gives; on 9 follow-up inputs"),
    ],
)
def test_an_unexplained_tie_says_only_what_the_inputs_without_ties_show(
    evidence: tuple[int, int] | None, says: str
) -> None:
    clause, cause, confirmed = divergence._clause_and_cause(
        diagnosis.DivergenceKind.TIE_OTHER_WAY, None, STRICT, lambda: evidence
    )
    assert (clause, confirmed) == ("BPE-TRAIN-TIE", False), cause
    assert says in cause, cause


def test_tie_free_departures_ask_the_implementation_and_count_its_departures() -> None:
    assert diagnosis.tie_free_departures(STRICT, None) is None
    departures = diagnosis.tie_free_departures(STRICT, lambda docs, merges: train_profile(docs, merges, STRICT))
    assert departures is not None
    departed, asked = departures
    assert departed == 0
    assert asked >= len(follow_ups.TIE_FREE_CORPORA)
    lowered = diagnosis.tie_free_departures(
        STRICT, lambda docs, merges: train_profile([doc.lower() for doc in docs], merges, STRICT)
    )
    assert lowered is not None
    assert lowered[0] >= 1
