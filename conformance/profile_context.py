"""The dialect profile a run judges an implementation under, and the reference bound to it.

Every check asks :func:`subject_profile` which profile to judge by: the one the implementation
declares (``ImplementationInfo.profile``), or the one ``run --profile NAME`` put in its place with
:func:`with_profile`. The helpers here are the profile's literal reference
(:mod:`reference.dialects`) in the shapes the checks need. Under ``strict`` each helper returns
exactly what the strict reference returns.

>>> from reference.profiles import MINBPE, STRICT
>>> expected_rules(["ab"], 2, STRICT), expected_rules(["ab"], 2, MINBPE) is None
([], True)
>>> rule_problem(0, 256, STRICT), rule_problem(1, 256, MINBPE)
('boundary id 256', None)
>>> differing_parameters(MINBPE)[:3]
['tie_break=first-seen', 'min_count=1', 'no_pairs_left=error']
"""

from __future__ import annotations

import dataclasses
from typing import Any

from conformance.answer_bounds import check_trained_answer
from conformance.errors import ImplementationRaised
from conformance.subject import ImplementationInfo, Subject
from reference.alphabet import BOUNDARY_IDS
from reference.dialects import encode_profile, profile_pieces, train_profile
from reference.profiles import STRICT, Profile, get_profile

__all__ = [
    "ProfiledSubject",
    "bounded_answer",
    "differing_parameters",
    "expected_rules",
    "is_strict",
    "known_profile",
    "not_applicable",
    "profile_encode",
    "profile_pieces_of",
    "rule_problem",
    "rules_are_valid",
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


def with_profile(subject: Subject, name: str | None) -> Subject:
    """``subject`` judged under profile ``name`` (unchanged when ``name`` is None or already declared)."""
    if name is None or name == subject.info.profile:
        return subject
    known_profile(name)
    return ProfiledSubject(subject, name)


def expected_rules(documents: list[str], max_merges: int, profile: Profile) -> Rules | None:
    """The profile's rules for valid input, or None when the profile's training fails on it.

    Only ``no_pairs_left="error"`` profiles fail on valid input: minbpe's ``max()`` of no pairs.
    """
    try:
        return train_profile(documents, max_merges, profile)
    except ValueError:
        if profile.no_pairs_left != "error":
            raise
        return None


def train_subject(subject: Subject, documents: list[str], max_merges: int) -> Rules | None:
    """``subject.train``; None when the profile fails on this input too (nothing left to judge).

    An implementation whose profile fails once pairs run out may raise there: that is its
    declared behaviour, not an error. Raising where the profile does not is still an error.
    """
    profile = subject_profile(subject)
    if profile.no_pairs_left != "error":
        return bounded_answer(documents, max_merges, subject.train(documents, max_merges), profile)
    try:
        return bounded_answer(documents, max_merges, subject.train(documents, max_merges), profile)
    except ImplementationRaised:
        if expected_rules(list(documents), max_merges, profile) is None:
            return None
        raise


def bounded_answer(documents: list[str], max_merges: int, rules: Rules, profile: Profile) -> Rules:
    """``rules`` once they are within the bounds of the request (:mod:`conformance.answer_bounds`).

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
