"""Localisation by experiments: the questions are sound, and correct trainers answer every one right.

The questions must have their shape under every profile they are asked under (one pair clearly ahead),
and a trainer that follows the profile exactly must agree on all of them: a question a correct
implementation could answer "wrong" would be a false accusation.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.diagnosis import Localisation, Stage, judge_rounds, localise_encoding, localise_training
from bpe_conformance.diagnosis.encoding_localisation import renamed
from bpe_conformance.diagnosis.training_probes import training_probes
from bpe_conformance.dialects.context import profile_encode
from bpe_conformance.reference import Tokenizer, encode, replace_pair
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import PROFILES, STRICT, Profile

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.diagnosis.localisation import Ask

TRAINABLE = [profile for profile in PROFILES.values() if training_probes(profile)]


def test_every_stage_has_questions_under_strict() -> None:
    """Each training stage but the tie (asked of the counterexample itself) has its own questions."""
    asked = {probe.stage for probe in training_probes(STRICT)}
    assert asked == {
        Stage.GREEDY,
        Stage.DOCUMENTS,
        Stage.DOCUMENT_SPLIT,
        Stage.INPUT,
        Stage.COUNTING,
        Stage.RECOUNT,
        Stage.REPLACEMENT_SCAN,
        Stage.STOP,
    }


def test_a_question_and_its_control_differ_only_in_the_feature() -> None:
    """The control has the same length in bytes and the same letters wherever the question has letters."""
    for probe in training_probes(STRICT):
        if probe.control is None:
            continue
        assert len(probe.control) == len(probe.documents)
        for question, control in zip(probe.documents, probe.control, strict=True):
            assert len(question.encode()) == len(control.encode())
            assert question != control
            assert control.isascii(), probe.question
            assert control.isalpha(), probe.question


def _asked_everything(profile: Profile, ask: Ask) -> Localisation:
    """Localise a made-up divergence that every stage is relevant to; return what was asked."""
    documents = ["aaab cc, dd\r\n", "aaab cc, dd\r\n", "x" * 300]
    rules = train_profile(documents, 3, profile)
    judgement = next(judge_rounds(documents, 3, rules[:1], profile))
    assert judgement.kind.clause == "BPE-TRAIN-STOP"
    assert judgement.round == 1
    return localise_training(documents, 3, judgement, profile, ask)


@pytest.mark.parametrize("profile", TRAINABLE, ids=lambda profile: profile.name)
def test_a_trainer_that_follows_the_profile_answers_every_question_right(profile: Profile) -> None:
    """No question is answered "wrong" by the profile's own training: no stage is ever blamed on it."""
    localisation = _asked_everything(profile, _ask(profile))
    assert not localisation.localised
    asked = {experiment.stage for experiment in localisation.experiments}
    assert Stage.GREEDY in asked
    assert Stage.STOP in asked
    assert all(experiment.agrees is True for experiment in localisation.experiments)


def test_the_fast_reference_answers_every_strict_question_right() -> None:
    """An engine written apart from the literal one (the fast trainer) agrees on every question too."""
    localisation = _asked_everything(STRICT, lambda documents, max_merges: Tokenizer().train(documents, max_merges))
    assert not localisation.localised
    assert all(experiment.agrees for experiment in localisation.experiments)


def _ask(profile: Profile) -> Ask:
    return lambda documents, max_merges: train_profile(documents, max_merges, profile)


@pytest.mark.parametrize(
    ("changed", "documents", "stage"),
    [
        ({"documents": "concatenated"}, ["xay", "xby", "xcy"], Stage.DOCUMENTS),
        ({"min_count": 3}, ["abab", "cdc"], Stage.STOP),
        ({"tie_break": "largest-ids"}, ["abab", "cdcd"], Stage.TIE),
        ({"pre_tokenization": r"\w+|\s+|[^\w\s]+"}, ["a,b a,b a,b"], Stage.DOCUMENT_SPLIT),
    ],
)
def test_a_trainer_one_parameter_away_is_localised_to_that_stage(
    changed: dict[str, Any], documents: list[str], stage: Stage
) -> None:
    dialect = dataclasses.replace(STRICT, **changed)
    rules = train_profile(documents, 8, dialect)
    judgement = next(judge_rounds(documents, 8, rules))
    localisation = localise_training(documents, 8, judgement, STRICT, _ask(dialect))
    assert (localisation.localised, localisation.stage, localisation.clause) == (True, stage, stage.clause)
    own = [experiment for experiment in localisation.experiments if experiment.stage is stage]
    if stage is Stage.TIE:  # the tie removed, the dialect makes the specification's rules
        assert own
        assert all(experiment.agrees for experiment in own)
    else:
        assert any(experiment.agrees is False and not experiment.control for experiment in own)


def test_answers_that_decide_nothing_leave_the_divergence_unlocalised() -> None:
    """An implementation that raises on every question: no stage is blamed, the symptom is named."""
    judgement = next(judge_rounds(["abab", "acac"], 8, [(97, 99)]))
    localisation = localise_training(["abab", "acac"], 8, judgement, STRICT, lambda documents, max_merges: None)
    assert not localisation.localised
    assert localisation.stage is None
    assert localisation.label == "unlocalised: first seen as tie broken the other way [BPE-TRAIN-TIE]"
    assert all(experiment.agrees is None for experiment in localisation.experiments)


def test_the_tie_is_removed_from_the_counterexample_itself() -> None:
    """A trainer that breaks ties its own way but counts wrongly too disagrees once the tie is gone."""
    first_seen = dataclasses.replace(STRICT, tie_break="first-seen")

    documents = ["cdcd", "abab"]

    def ask(asked: list[str], max_merges: int) -> list[tuple[int, int]]:
        if asked != documents and {"abab", "cdcd"} & set(asked):  # only the tie-free variants go wrong
            return [(120, 120)] * max_merges
        return train_profile(asked, max_merges, first_seen)

    judgement = next(judge_rounds(documents, 1, train_profile(documents, 1, first_seen)))
    localisation = localise_training(documents, 1, judgement, STRICT, ask)
    assert not localisation.localised
    ties = [experiment for experiment in localisation.experiments if experiment.stage is Stage.TIE]
    assert ties
    assert all(experiment.agrees is False for experiment in ties)


def _spec(text: str, rules: list[tuple[int, int]]) -> list[int]:
    return profile_encode(text, rules, STRICT)


def _chunked(text: str, rules: list[tuple[int, int]]) -> list[int]:
    data = text.encode()
    return [token for start in range(0, len(data), 32) for token in encode(data[start : start + 32].decode(), rules)]


def _reversed_order(text: str, rules: list[tuple[int, int]]) -> list[int]:
    sequence = list(text.encode())
    for rank in reversed(range(len(rules))):
        sequence = replace_pair(sequence, rules[rank], 258 + rank)
    return sequence


def _last_copy_ranked(text: str, rules: list[tuple[int, int]]) -> list[int]:
    """Lowest rank first, with a rank table in which a pair listed again takes its last rank."""
    rank_of = {pair: rank for rank, pair in enumerate(rules)}
    sequence = list(text.encode())
    while present := [rank_of[pair] for pair in itertools.pairwise(sequence) if pair in rank_of]:
        rank = min(present)
        sequence = replace_pair(sequence, rules[rank], 258 + rank)
    return sequence


@pytest.mark.parametrize(
    ("encoder", "text", "rules", "stage"),
    [
        (_chunked, "x" + "ab" * 40, [(97, 98)], Stage.CHUNKING),
        (_reversed_order, "abc", [(97, 98), (258, 99)], Stage.RULE_ORDER),
        (_reversed_order, "abcab", [(97, 98), (99, 97), (97, 98)], Stage.RULE_ORDER),
        (_last_copy_ranked, "xyzxy", [(120, 121), (122, 258), (120, 121)], Stage.LOWEST_RANK),
    ],
)
def test_an_encoder_is_localised_by_questions_on_which_it_and_the_specification_differ(
    encoder: Callable[[str, list[tuple[int, int]]], list[int]], text: str, rules: list[tuple[int, int]], stage: Stage
) -> None:
    wrong = [(text, encoder(text, rules))]
    assert wrong[0][1] != _spec(text, rules)
    localisation = localise_encoding(wrong, rules, STRICT, encoder)
    assert (localisation.localised, localisation.stage) == (True, stage)
    assert any(experiment.agrees is False and not experiment.control for experiment in localisation.experiments)


def test_a_correct_encoder_answers_every_question_right() -> None:
    """Every question the encoding stages ask is answered right by the specification's own encoder: only the
    made-up wrong answer they start from disagrees."""
    wrong = [("a b, c" * 8, [0])]
    localisation = localise_encoding(wrong, [(97, 32), (258, 98)], STRICT, _spec)
    asked = [experiment for experiment in localisation.experiments if experiment.answer != [0]]
    assert len(asked) > 10
    assert all(experiment.agrees for experiment in asked)


def test_a_correct_encoder_is_never_blamed_for_a_pair_listed_twice() -> None:
    """Rules listing a pair twice bring the lowest-rank question; the specification answers it right."""
    rules = [(97, 98), (98, 99), (97, 98), (98, 99)]
    localisation = localise_encoding([("abcab", [0])], rules, STRICT, _spec)
    asked = [experiment for experiment in localisation.experiments if experiment.stage is Stage.LOWEST_RANK]
    assert len(asked) == 2
    assert all(experiment.agrees for experiment in asked)
    assert localisation.stage is not Stage.LOWEST_RANK


def test_renaming_keeps_every_rule_where_it_applied() -> None:
    text, rules = "a b, é", [(97, 32), (258, 98), (195, 169)]
    plain = renamed(text, rules)
    assert plain is not None
    assert plain[0].isascii()
    assert plain[0].isalpha()
    assert len(_spec(text, rules)) == len(_spec(*plain))
