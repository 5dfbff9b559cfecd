"""Tests of the check registry: conformance/checks/__init__.py (the catalogue, selection) and base.py (Check)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bpe_conformance.adapters.subject import CAPABILITIES
from bpe_conformance.checks import ALL_CHECKS, select_checks
from bpe_conformance.checks.base import Check
from bpe_conformance.reference.profiles import MINBPE
from bpe_conformance.spec.clauses import load_clauses

KEBAB_CASE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def test_a_check_needs_exactly_one_source_of_examples_and_a_positive_budget() -> None:
    """A check without examples would pass on everything; one with two would be ambiguous."""

    def make(**fields: Any) -> Check:
        return Check(
            name="demo", clause="BPE-TRAIN-TIE", summary="demo", verify=lambda subject, example: None, **fields
        )

    assert make(cases=lambda: [1]).budget == 1.0
    assert make(strategy=lambda: None, budget=0.25).budget == 0.25
    assert list(make(profile_cases=lambda profile: [profile.name]).fixed_cases(MINBPE)) == ["minbpe"]
    assert list(make(cases=lambda: [1]).fixed_cases(MINBPE)) == [1]
    assert list(make(strategy=lambda: None).fixed_cases(MINBPE)) == []  # a searching check has no fixed cases
    one_source = "check 'demo' needs exactly one of strategy, cases or profile_cases"
    for fields, message in (
        ({}, one_source),
        ({"cases": lambda: [1], "strategy": lambda: None}, one_source),
        ({"cases": lambda: [1], "profile_cases": lambda profile: [1]}, one_source),
        ({"strategy": lambda: None, "profile_cases": lambda profile: [1]}, one_source),
        ({"cases": lambda: [1], "budget": 0}, "check 'demo' budget must be positive, got 0"),
        ({"cases": lambda: [1], "budget": -1.0}, "check 'demo' budget must be positive, got -1.0"),
    ):
        with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
            make(**fields)
        assert str(caught.value) == message


def test_every_check_names_defined_clauses_and_declared_capabilities() -> None:
    """Each check: a unique kebab-case name, defined clauses, capabilities of the contract, one source."""
    defined = set(load_clauses())
    assert len({check.name for check in ALL_CHECKS}) == len(ALL_CHECKS)
    for check in ALL_CHECKS:
        assert KEBAB_CASE.fullmatch(check.name), check.name
        assert set(check.clauses) <= defined, check.name
        assert check.requires, check.name
        assert check.requires <= CAPABILITIES, check.name
        assert check.requires_any <= CAPABILITIES, check.name
        assert not check.requires_any & check.requires, check.name
        assert check.clauses[0] == check.clause
        assert check.clause not in check.also


def test_unknown_patterns_suggest_up_to_three_close_names_and_the_listing_command() -> None:
    """Selecting a typo fails loudly with the nearest names, so a misspelt check never runs nothing."""
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        select_checks(["decode-strikt"])
    message = str(caught.value)
    assert message.startswith("no check name or clause id matches 'decode-strikt'; did you mean decode-strict")
    assert message.endswith(" (list the checks with: bpe-conformance run --list-checks)")
    suggestions = message.split("did you mean ", 1)[1].split("?", 1)[0].split(", ")
    assert 1 <= len(suggestions) <= 3
    assert len(suggestions) == len(set(suggestions))
    known = {check.name for check in ALL_CHECKS} | {clause for check in ALL_CHECKS for clause in check.clauses}
    assert set(suggestions) <= known
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        select_checks(["BPE-" + "TRAIN-TIED"])
    assert "did you mean BPE-TRAIN-TIE" in str(caught.value)
    assert len(str(caught.value).split("did you mean ", 1)[1].split("?", 1)[0].split(", ")) == 3
    with pytest.raises(ValueError) as caught:  # noqa: PT011 - the message is asserted below, more closely than match= would
        select_checks(["zzzzzzzz"])
    assert "did you mean" not in str(caught.value)
    with pytest.raises(TypeError, match=r"each pattern must be a str, not int \(3\)"):
        # a non-str pattern on purpose: it must be refused
        select_checks(["tie-break", 3])  # type: ignore[list-item]


def test_a_check_names_every_capability_a_subject_lacks_for_it() -> None:
    """All of ``requires`` and, when given, one of ``requires_any``: the skip message names what is missing."""
    check = Check(
        "demo",
        "BPE-INPUT-IDS",
        "demo",
        lambda subject, example: None,
        cases=list,
        requires=frozenset({"encode", "decode"}),
        requires_any=frozenset({"train", "load"}),
    )
    assert check.missing_capabilities(frozenset({"encode", "decode", "load"})) == []
    assert check.missing_capabilities(frozenset({"encode", "decode", "train"})) == []
    assert check.missing_capabilities(frozenset({"encode", "decode"})) == ["load or train"]
    assert check.missing_capabilities(frozenset({"train"})) == ["decode", "encode"]
    plain = Check("demo", "BPE-INPUT-IDS", "demo", lambda subject, example: None, cases=list)
    assert plain.missing_capabilities(frozenset()) == ["train"]
    assert plain.missing_capabilities(frozenset({"train"})) == []
