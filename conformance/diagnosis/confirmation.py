"""Confirming a cause: the implementation is retrained on follow-up inputs that tell the models apart.

A bug model is named only when it made the implementation's rules on the counterexample and on every
follow-up input that tests it (:func:`cross_examine`). For a tie order none of the models gives, the
inputs cut before their first tie (:func:`tie_free_departures`) tell an unknown tie order from a
deeper departure.

>>> follow_up_inputs(["ab", "cd"], 3)[0]
(['cd', 'ab'], 3)
>>> from bpe_conformance.reference.profiles import STRICT
>>> rounds_before_a_tie(["ababab"], 8, STRICT), rounds_before_a_tie(["abab", "acac"], 8, STRICT)
(2, 0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bpe_conformance.diagnosis.follow_ups import FOLLOW_UP_CORPORA, FOLLOW_UP_MERGES, TIE_FREE_CORPORA
from bpe_conformance.diagnosis.models import Pair, checked_rules, model_rules, reproducing_models
from bpe_conformance.dialects.context import pairs_run_out
from bpe_conformance.reference import count_pairs, replace_pair
from bpe_conformance.reference.dialects import train_profile, training_sequences

if TYPE_CHECKING:
    from bpe_conformance.reference.profiles import Profile

__all__ = [
    "MIN_FOLLOW_UPS",
    "Explanation",
    "Retrain",
    "as_rules",
    "cross_examine",
    "explanation_of",
    "follow_up_inputs",
    "rounds_before_a_tie",
    "tie_free_departures",
]

Retrain = Callable[[list[str], int], "list[Pair] | None"]

# A cause is named only after the implementation matched it on this many inputs that test it.
MIN_FOLLOW_UPS = 2


def explanation_of(
    documents: list[str], max_merges: int, rules: list[Pair], profile: Profile, retrain: Retrain | None
) -> Explanation | None:
    """What the models make of ``rules``: confirmed against the implementation when ``retrain`` is given."""
    candidates = reproducing_models(documents, max_merges, rules, profile)
    if not candidates:
        return None
    if retrain is None:
        return Explanation(candidates=tuple(candidates), asked=0)
    survivors, asked = cross_examine(candidates, profile, retrain, documents, max_merges)
    return Explanation(candidates=tuple(survivors), asked=asked)


@dataclass(frozen=True)
class Explanation:
    """The bug models still consistent with the implementation, and how many follow-up inputs it answered."""

    candidates: tuple[int, ...]
    asked: int

    @property
    def confirmed(self) -> bool:
        """One model left, and it was put to the test on enough inputs where it makes its own prediction."""
        return len(self.candidates) == 1 and self.asked >= MIN_FOLLOW_UPS


def _profile_rules(documents: list[str], max_merges: int, profile: Profile) -> tuple[Pair, ...] | None:
    try:
        return tuple(train_profile(documents, max_merges, profile))
    except ValueError:
        return None  # an encode-only profile has no training to compare with


def _answerable_merges(documents: list[str], max_merges: int, profile: Profile) -> int:
    """``max_merges``, or the profile's rule count where it runs out of pairs first.

    A trainer that raises once no pair is left (minbpe's ``max()`` of nothing) is a stop-rule defect,
    reported by that check; follow-ups ask no more merges than the profile makes, so that defect never
    hides which bug model the rest of the trainer's behaviour matches.
    """
    if not pairs_run_out(documents, max_merges, profile):
        return max_merges
    return len(train_profile(documents, max_merges, profile))


def follow_up_inputs(documents: list[str], max_merges: int) -> list[tuple[list[str], int]]:
    """The inputs that tell the bug models apart: the counterexample reversed, then a fixed set.

    >>> follow_up_inputs(["ab", "cd"], 3)[0]
    (['cd', 'ab'], 3)
    """
    derived = [(list(documents[::-1]), max_merges)] if len(documents) > 1 else []
    return derived + [(list(corpus), FOLLOW_UP_MERGES) for corpus in FOLLOW_UP_CORPORA]


def as_rules(answer: object) -> tuple[Pair, ...] | None:
    try:
        return tuple(checked_rules(answer))
    except TypeError:
        return None


def cross_examine(
    candidates: list[int], profile: Profile, retrain: Retrain, documents: list[str], max_merges: int
) -> tuple[list[int], int]:
    """The candidates whose rules equal the implementation's on every follow-up input.

    Every input is put to the implementation: a candidate claims the implementation's rules on all
    of them, also where it predicts the profile's own rules, so an answer that departs from the
    profile there refutes it (an implementation a step away from a model, which drops only adjacent
    repeats, say, is told apart this way). An input *tests* the candidates when one of them predicts
    other rules than the profile or than another candidate; returns the survivors and how many such
    inputs were put.
    """
    survivors, tested = list(candidates), 0
    for inputs, limit in follow_up_inputs(documents, max_merges):
        merges = _answerable_merges(inputs, limit, profile)
        own = _profile_rules(inputs, merges, profile)
        if own is None:
            continue
        predictions = {}
        for index in survivors:
            rules = model_rules(index, tuple(inputs), merges, profile)
            predictions[index] = own if rules is None else rules
        answer = as_rules(retrain(list(inputs), merges))
        tested += set(predictions.values()) != {own}
        survivors = [index for index in survivors if predictions[index] == answer]
        if not survivors:
            break
    return survivors, tested


def rounds_before_a_tie(documents: list[str], max_merges: int, profile: Profile) -> int:
    """How many of the profile's first rounds have one pair alone at the top count.

    No tie order can change those rules, so an implementation that differs from the profile there
    differs in more than its tie order.

    >>> from bpe_conformance.reference.profiles import STRICT
    >>> rounds_before_a_tie(["ababab"], 8, STRICT), rounds_before_a_tie(["abab", "acac"], 8, STRICT)
    (2, 0)
    """
    sequences = training_sequences(documents, profile)
    rules = train_profile(documents, max_merges, profile)
    for rank, pair in enumerate(rules):
        counts = count_pairs(sequences)
        top = max(counts.values())
        if sum(1 for count in counts.values() if count == top) > 1:
            return rank
        sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return len(rules)


def tie_free_departures(profile: Profile, retrain: Retrain | None) -> tuple[int, int] | None:
    """(inputs the implementation answered unlike the profile, inputs asked), each input cut before its first tie.

    None when the implementation cannot be asked (no ``retrain``).
    """
    if retrain is None:
        return None
    departed = asked = 0
    for corpus in (*FOLLOW_UP_CORPORA, *TIE_FREE_CORPORA):
        merges = rounds_before_a_tie(list(corpus), FOLLOW_UP_MERGES, profile)
        if merges == 0:
            continue
        asked += 1
        departed += as_rules(retrain(list(corpus), merges)) != tuple(train_profile(list(corpus), merges, profile))
    return departed, asked
