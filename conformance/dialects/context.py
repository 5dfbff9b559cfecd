"""The dialect profile a run judges an implementation under, and the reference bound to it.

Every check asks :func:`subject_profile` which profile to judge by: the one the implementation
declares (``ImplementationInfo.profile``), or the one ``run --profile NAME`` put in its place with
:func:`with_profile`. The helpers here are the profile's literal reference
(:mod:`bpe_conformance.reference.dialects`) in the shapes the checks need. Under ``strict`` each helper returns
exactly what the strict reference returns.

>>> from bpe_conformance.reference.profiles import MINBPE, STRICT
>>> expected_rules(["ab"], 2, STRICT), expected_rules(["ab"], 2, MINBPE)
([], [(97, 98)])
>>> rule_problem(0, 256, STRICT), rule_problem(1, 256, MINBPE)
('boundary id 256', None)
>>> differing_parameters(MINBPE)[:3]
['tie_break=first-seen', 'min_count=1', 'first_rule_id=256']
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bpe_conformance.adapters.subject import ImplementationInfo, Subject
from bpe_conformance.dialects.answer_bounds import check_trained_answer
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.reference.alphabet import BOUNDARY_IDS
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.dialects import encode_profile, profile_pieces, train_profile, training_sequences
from bpe_conformance.reference.profiles import STRICT, Profile, get_profile
from bpe_conformance.reference.replacement import replace_pair

__all__ = [
    "ProfiledSubject",
    "bounded_answer",
    "differing_parameters",
    "expected_rules",
    "input_refusal",
    "is_strict",
    "known_profile",
    "not_applicable",
    "pairs_run_out",
    "profile_encode",
    "profile_pieces_of",
    "rule_problem",
    "rules_are_valid",
    "stop_violation",
    "subject_profile",
    "train_subject",
    "vocabulary_size",
    "with_profile",
]

Rules = list[tuple[int, int]]


def known_profile(name: object) -> Profile:
    """The profile named ``name``; an unknown name is a ValueError listing the known ones."""
    return get_profile(name)


def subject_profile(subject: Subject) -> Profile:
    """The profile the checks judge ``subject`` by."""
    return get_profile(subject.info.profile)


def is_strict(profile: Profile) -> bool:
    """True when ``profile`` has every parameter of ``strict`` (its name aside)."""
    return not differing_parameters(profile)


def differing_parameters(profile: Profile) -> list[str]:
    """``name=value`` for every parameter in which ``profile`` differs from ``strict``."""
    ignored = {"name", "description"}
    return [
        f"{field.name}={getattr(profile, field.name)}"
        for field in dataclasses.fields(profile)
        if field.name not in ignored and getattr(profile, field.name) != getattr(STRICT, field.name)
    ]


def not_applicable(profile: Profile, parameter: str, why: str) -> str:
    """The skip message for a clause that the value of ``parameter`` makes inapplicable."""
    return f"not applicable under profile {profile.name} ({parameter}={getattr(profile, parameter)}: {why})"


class ProfiledSubject(Subject):
    """``subject`` judged under another profile than the one it declares (``run --profile``)."""

    def __init__(self, subject: Subject, profile: str) -> None:
        self.inner = subject
        self.info: ImplementationInfo = dataclasses.replace(subject.info, profile=profile)

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self.inner.train(documents, max_merges)

    def encode(self, text: str) -> list[int]:
        return self.inner.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self.inner.decode(ids)

    def load(self, rules: Rules) -> None:
        self.inner.load(rules)

    def reset(self) -> None:
        self.inner.reset()

    def close(self) -> None:
        self.inner.close()

    @property
    def declared_profile(self) -> str:
        """The profile the wrapped implementation declares, not the one it is judged under."""
        return self.inner.declared_profile


def with_profile(subject: Subject, name: str | None) -> Subject:
    """``subject`` judged under profile ``name`` (unchanged when ``name`` is None or already declared)."""
    if name is None or name == subject.info.profile:
        return subject
    known_profile(name)
    return ProfiledSubject(subject, name)


def expected_rules(documents: list[str], max_merges: int, profile: Profile) -> Rules:
    """The profile's rules for valid input: every profile stops when no pair is left."""
    return train_profile(documents, max_merges, profile)


def pairs_run_out(documents: list[str], max_merges: int, profile: Profile) -> bool:
    """True when the profile's training stops because no adjacent pair is left, before max_merges rules.

    >>> from bpe_conformance.reference.profiles import MINBPE
    >>> pairs_run_out(["ab"], 2, MINBPE), pairs_run_out(["ab"], 1, MINBPE), pairs_run_out(["abab"], 2, STRICT)
    (True, False, False)
    """
    rules = train_profile(documents, max_merges, profile)
    if len(rules) >= max_merges:
        return False
    sequences = training_sequences(documents, profile)
    for rank, pair in enumerate(rules):
        sequences = [replace_pair(sequence, pair, profile.first_rule_id + rank) for sequence in sequences]
    return not count_pairs(sequences)


def train_subject(subject: Subject, documents: list[str], max_merges: int) -> Rules | None:
    """``subject.train``; None when it raised on valid input once no pair was left (nothing to judge).

    No profile fails on valid input: "crash when pairs run out" is a defect (minbpe's ``max()`` of
    nothing), not a dialect. The stop-rule check reports it (:func:`stop_violation`); every other
    check has nothing to judge there, so one defect is one failure, not one per check. Raising
    anywhere else on valid input stays the check's ``error`` outcome.
    """
    profile = subject_profile(subject)
    try:
        return bounded_answer(documents, max_merges, subject.train(documents, max_merges), profile)
    except ImplementationRaised:
        if pairs_run_out(list(documents), max_merges, subject_profile(subject)):
            return None
        raise


# A corpus whose pairs run out after a rule, under every profile (the budget is never the stop).
_RUN_OUT_CONTROL = (["ab", "ab"], 8)


def input_refusal(subject: Subject, documents: list[str], max_merges: int) -> ImplementationRaised | None:
    """The refusal behind a raise on valid input where no rule was due, when it is one (else None).

    A trainer that raised on ``documents`` before any rule (an empty corpus, say) while it stops
    properly once pairs run out on a corpus that makes a rule is refusing this input, not breaking
    the stop rule: the returned error is recorded as a refusal (one finding, the runner). None when a
    rule was due, when the control also fails (a stop defect), or when the raise is no input error.
    """
    profile = subject_profile(subject)
    if expected_rules(list(documents), max_merges, profile):
        return None
    control, budget = _RUN_OUT_CONTROL
    subject.reset()
    try:
        stops = subject.train(list(control), budget) == expected_rules(list(control), budget, profile)
    except ImplementationRaised:
        return None
    if not stops:
        return None
    subject.reset()
    try:
        subject.train(list(documents), max_merges)
    except ImplementationRaised as raised:
        return raised if raised.is_input_error else None
    return None


def stop_violation(subject: Subject, documents: list[str], max_merges: int) -> Violation:
    """The BPE-TRAIN-STOP violation of a trainer that raises once no pair is left (called after it did)."""
    expected = expected_rules(list(documents), max_merges, subject_profile(subject))
    try:
        actual: Any = f"returned {subject.train(list(documents), max_merges)!r} on a second call"
    except ImplementationRaised as raised:
        actual = f"{raised.kind}: {raised.message}"
    return Violation(
        "BPE-TRAIN-STOP",
        f"train(documents, {max_merges}) raised once no pair was left after {len(expected)} rules: "
        f"training must stop there and return the rules, not fail ({actual})",
        inputs={"documents": list(documents), "max_merges": max_merges},
        expected=[list(pair) for pair in expected],
        actual=actual,
    )


def bounded_answer(documents: list[str], max_merges: int, rules: Rules, profile: Profile) -> Rules:
    """``rules`` once they are within the bounds of the request (:mod:`bpe_conformance.dialects.answer_bounds`).

    Every check and the diagnosis build pieces from trained rules; this is where the answer enters.
    """
    check_trained_answer(documents, max_merges, rules, profile)
    return rules


def rule_problem(rank: int, part: object, profile: Profile) -> str | None:
    """Why ``part`` may not be a part of rule ``rank`` in the profile's numbering; None when it may."""
    if not isinstance(part, int) or isinstance(part, bool):
        return f"{part!r}, which is not an int"
    if part < 0:
        return f"negative id {part}"
    if profile.boundary_ids and part in BOUNDARY_IDS:
        return f"boundary id {part}"
    if part >= profile.first_rule_id + rank:
        return f"id {part}, which is itself or a later rule"
    return None


def rules_are_valid(rules: Any, profile: Profile) -> bool:
    """True when every rule is a pair of earlier ids in the profile's numbering."""
    return all(
        isinstance(rule, (list, tuple))
        and len(rule) == 2
        and all(rule_problem(rank, part, profile) is None for part in rule)
        for rank, rule in enumerate(rules)
    )


def profile_pieces_of(rules: Rules, profile: Profile) -> list[bytes]:
    """The piece of every id in the profile's numbering (boundary ids, if any, carry no bytes)."""
    return profile_pieces(rules, profile)


def vocabulary_size(rules: Rules, profile: Profile) -> int:
    """Bytes, boundary ids if the profile has them, and one id per rule."""
    return profile.first_rule_id + len(rules)


def profile_encode(text: str, rules: Rules, profile: Profile) -> list[int]:
    """The canonical body ids of ``text`` under ``profile`` (its encode algorithm and numbering)."""
    return encode_profile(text, rules, profile)
