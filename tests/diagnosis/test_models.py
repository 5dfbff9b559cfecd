"""conformance/diagnosis/models.py: every bug model makes what its story says, seen on fresh copies.

The models are built by functions when :mod:`bpe_conformance.diagnosis.models` is imported, and mutmut
forks its test processes after import (docs/mutation.md, "Which tests mutmut runs"), so these tests
run on fresh copies of ``models`` and of the two modules that import its tables, ``confirmation`` and
``divergence``: that runs the functions building the models again, with mutmut's mutant in place.
Each rule list below is what a trainer with exactly one bug makes on those documents.
"""

from __future__ import annotations

import importlib
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import LARGEST_PAIR, RUSTBPE, STRICT, SUBWORD_NMT, Profile
from tests.support.fresh_modules import fresh_copy

if TYPE_CHECKING:
    from bpe_conformance.diagnosis import Retrain

STORY = "the rules are exactly what a trainer with {} makes, here and on "
TIE, NOT_MAXIMAL, STOPPED, SEEN_ONCE, NEVER_SEEN = (
    "tie broken the other way",
    "pair not maximal",
    "stopped early",
    "merged a pair seen once",
    "merged a pair that does not occur",
)
MIN_3 = Profile(name="min-3", description="strict, but pairs need a count of 3", min_count=3)
Fresh = SimpleNamespace  # .models, .confirmation, .divergence: fresh copies that import each other


@pytest.fixture
def fresh() -> Fresh:
    """Fresh copies of the bug models and of the diagnosis built on them (the imported ones untouched).

    One copy per test, not per module: mutmut links a function to the tests during which it ran, so
    each test must build the models itself to be run against a mutant of the function building them.
    """
    names = [f"bpe_conformance.diagnosis.{part}" for part in ("models", "confirmation", "divergence")]
    imported = {name: importlib.import_module(name) for name in names}
    try:
        copies = [fresh_copy(name, stand_in=True) for name in names]
    finally:
        sys.modules.update(imported)
    return Fresh(**dict(zip(("models", "confirmation", "divergence"), copies, strict=True)))


def as_implementation(fresh: Fresh, cause: str, profile: Profile = STRICT) -> Retrain:
    """A trainer that is the bug model telling ``cause`` (the profile's own training where it changes nothing)."""
    (model,) = [
        model
        for index, (_, _, model) in enumerate(fresh.models.MODELS)
        if fresh.models.model_cause(index, profile) == cause
    ]

    def retrain(documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = model(documents, max_merges, profile)
        return train_profile(documents, max_merges, profile) if rules is None else rules

    return retrain


def confirmed(
    fresh: Fresh,
    cause: str,
    documents: list[str],
    max_merges: int,
    rules: list[tuple[int, int]],
    profile: Profile = STRICT,
) -> dict[str, Any]:
    """The first divergence of ``rules``, the implementation being the model of ``cause``; it must be confirmed."""
    divergence: dict[str, Any] = fresh.divergence.first_divergence(
        documents, max_merges, rules, profile, as_implementation(fresh, cause, profile)
    )
    assert divergence["confirmed"], divergence
    assert divergence["cause"].startswith(STORY.format(cause)), divergence
    return divergence


def test_the_copies_hold_the_models_the_divergence_judges_with(fresh: Fresh) -> None:
    """The fixture's premise: the fresh divergence and confirmation use the fresh models, not the imported."""
    from bpe_conformance.diagnosis import models

    assert fresh.models.MODELS is not models.MODELS
    assert fresh.divergence.model_clause is fresh.models.model_clause  # which reads the fresh MODELS
    assert fresh.divergence.model_cause is fresh.models.model_cause
    assert fresh.confirmation.reproducing_models is fresh.models.reproducing_models
    assert sys.modules["bpe_conformance.diagnosis.models"] is models


@pytest.mark.parametrize(
    ("documents", "max_merges", "rules", "kind", "clause", "cause"),
    [
        (["abab", "acac"], 1, [(97, 99)], TIE, "BPE-TRAIN-TIE", "ties broken towards the largest pair"),
        (["bcbc", "abab", "dede"], 1, [(98, 99)], TIE, "BPE-TRAIN-TIE", "ties broken towards the pair seen first"),
        (
            ["bcbc", "abab", "dede"],
            2,
            [(100, 101), (97, 98)],
            TIE,
            "BPE-TRAIN-TIE",
            "ties broken by the pair's decimal string",
        ),
        (["abab", "acac"], 1, [], STOPPED, "BPE-TRAIN-STOP", "a pair counted exactly twice left unmerged"),
        (
            ["abab", "acac"],
            3,
            [(97, 98), (97, 99), (258, 258)],
            SEEN_ONCE,
            "BPE-TRAIN-STOP",
            "pairs seen once merged too",
        ),
        (["xay", "xby", "xcy"], 1, [(121, 120)], NEVER_SEEN, "BPE-TRAIN-DOCS", "documents joined before training"),
        (["aaab", "cdcd"], 2, [(99, 100)], TIE, "BPE-TRAIN-COUNT", "overlapping windows counted once"),
        (["低" * 30], 2, [(189, 142), (228, 189)], NOT_MAXIMAL, "BPE-TRAIN-RECOUNT", "the first round's counts reused"),
        (
            ["aaab", "aaab"],
            2,
            [(97, 97), (97, 258)],
            NOT_MAXIMAL,
            "BPE-MERGE-SCAN",
            "replacement scanning right to left",
        ),
        (
            ["aaaa", "bcbc"],
            8,
            [(97, 97), (98, 99), (258, 258)],
            SEEN_ONCE,
            "BPE-MERGE-SCAN",
            "overlapping occurrences all replaced",
        ),
        (
            ["the cat, the hat, the mat, the bat"],
            2,
            [(97, 116), (104, 101)],
            TIE,
            "BPE-TRAIN-INPUT",
            "documents split into words, spaces and punctuation first",
        ),
        (
            ["the cat, the hat, the mat, the bat"],
            8,
            [(97, 116), (104, 101), (116, 259), (258, 44)],
            TIE,
            "BPE-TRAIN-INPUT",
            "documents split at whitespace first",
        ),
        (
            ["abab", "abab", "cdcd", "cdcd", "cdcd"],
            1,
            [(97, 98)],
            NOT_MAXIMAL,
            "BPE-TRAIN-DOCS",
            "repeated documents dropped before counting",
        ),
        (["  ab", "  ab"], 2, [(97, 98)], TIE, "BPE-TRAIN-INPUT", "documents stripped of surrounding whitespace"),
        (["e\u0301" * 3, "abab"], 1, [(195, 169)], NOT_MAXIMAL, "BPE-TRAIN-INPUT", "documents normalized to NFC"),
    ],
)
def test_each_bug_model_names_its_clause_and_cause(
    fresh: Fresh,
    documents: list[str],
    max_merges: int,
    rules: list[tuple[int, int]],
    kind: str,
    clause: str,
    cause: str,
) -> None:
    """The first divergence names the one bug that makes exactly these rules (BPE-TRAIN-* and friends)."""
    divergence = confirmed(fresh, cause, documents, max_merges, rules)
    assert (divergence["diagnosis"], divergence["clause"]) == (kind, clause)


def test_the_stop_story_counts_in_the_profiles_minimum(fresh: Fresh) -> None:
    """BPE-TRAIN-STOP under a profile that merges pairs seen once: stopping is told as 'exactly once'."""
    divergence = confirmed(fresh, "a pair counted exactly once left unmerged", ["ab"], 1, [], RUSTBPE)
    assert divergence["diagnosis"] == STOPPED


def test_the_judging_profile_itself_is_no_bug_model(fresh: Fresh) -> None:
    """BPE-TRAIN-TIE under largest-pair: its own tie rule is correct there, the smallest pair is the bug."""
    assert fresh.divergence.first_divergence(["abab", "acac"], 1, [(97, 99)], LARGEST_PAIR) is None
    confirmed(fresh, "ties broken towards the pair seen first", ["abab", "acac"], 1, [(97, 98)], LARGEST_PAIR)


def test_a_rewrite_that_only_truncates_the_rules_is_told_as_a_stop(fresh: Fresh) -> None:
    """BPE-TRAIN-STOP: documents that strip to a prefix of the right rules are no input story."""
    divergence = fresh.divergence.first_divergence(["  x", "  y"], 4, [], STRICT)
    assert divergence["diagnosis"] == STOPPED
    assert "stripped" not in divergence["cause"]


def test_a_continuation_byte_0x80_belongs_to_its_word(fresh: Fresh) -> None:
    """BPE-TRAIN-INPUT: the word-splitting model keeps U+0400's bytes d0 80 together, like any letter."""
    divergence = confirmed(
        fresh, "documents split into words, spaces and punctuation first", ["Ѐ,Ѐ,Ѐ,Ѐ"], 8, [(208, 128)]
    )
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-TRAIN-INPUT")


def test_stale_counts_run_out_of_pairs_before_max_merges(fresh: Fresh) -> None:
    """BPE-TRAIN-RECOUNT: first-round counts offer three pairs, so that trainer stops after three rules."""
    divergence = confirmed(
        fresh, "the first round's counts reused", ["低" * 30], 8, [(189, 142), (228, 189), (142, 228)]
    )
    assert divergence["clause"] == "BPE-TRAIN-RECOUNT"


def test_stale_counts_break_ties_by_pieces_under_subword_nmt(fresh: Fresh) -> None:
    """BPE-TRAIN-RECOUNT under subword-nmt, whose ties compare the pairs' pieces."""
    divergence = confirmed(
        fresh, "the first round's counts reused", ["abcab", "bcabc"], 3, [(98, 99), (97, 98), (99, 97)], SUBWORD_NMT
    )
    assert divergence["clause"] == "BPE-TRAIN-RECOUNT"


def test_the_word_splitting_model_keeps_spaces_apart_from_punctuation(fresh: Fresh) -> None:
    """BPE-TRAIN-INPUT: words, spaces and punctuation are three kinds, so ", " is two pieces, no pair."""
    divergence = confirmed(fresh, "documents split into words, spaces and punctuation first", ["a, b, c, d"], 2, [])
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-TRAIN-INPUT")


def test_a_byte_whose_latin1_character_is_a_space_belongs_to_its_word(fresh: Fresh) -> None:
    """BPE-TRAIN-INPUT: U+00A0 is bytes c2 a0; 0xa0 is a word byte like any byte >= 0x80, not a space."""
    divergence = confirmed(
        fresh,
        "documents split into words, spaces and punctuation first",
        ["\u00a0,\u00a0,\u00a0,\u00a0"],
        2,
        [(194, 160)],
    )
    assert (divergence["diagnosis"], divergence["clause"]) == (STOPPED, "BPE-TRAIN-INPUT")


@pytest.mark.parametrize(
    ("sequence", "replaced"),
    [
        ([97, 98, 97, 98], [256, 256]),
        ([97, 98, 99], [256, 99]),
        ([97, 97, 97, 98], [256, 256, 98]),
    ],
)
def test_the_overlapping_replacement_keeps_every_id_outside_a_match(
    fresh: Fresh, sequence: list[int], replaced: list[int]
) -> None:
    """replace_overlapping (BPE-MERGE-SCAN bug model): every matching window becomes the new id, and every
    id that is in no matching window stays, in order."""
    assert fresh.models.replace_overlapping(sequence, (sequence[0], sequence[1]), 256) == replaced


def test_the_seen_once_model_breaks_subword_nmt_ties_by_rule_pieces(fresh: Fresh) -> None:
    """BPE-TRAIN-STOP under subword-nmt: after "ab", the count-1 tie ("ab", "b") / ("b", "ab") goes to "b" first."""
    divergence = confirmed(fresh, "pairs seen once merged too", ["abbab"], 2, [(97, 98), (98, 256)], SUBWORD_NMT)
    assert (divergence["round"], divergence["diagnosis"]) == (1, SEEN_ONCE)


def test_the_stop_story_spells_a_minimum_above_two_as_a_number(fresh: Fresh) -> None:
    """BPE-TRAIN-STOP under a profile whose minimum is 3: stopping before a pair seen 3 times."""
    divergence = confirmed(fresh, "a pair counted exactly 3 times left unmerged", ["ababab"], 2, [], MIN_3)
    assert divergence["diagnosis"] == STOPPED


@pytest.mark.parametrize("rules", ["ab", {(97, 98): 0}, 5])
def test_rules_that_are_not_a_list_are_refused_naming_their_type(fresh: Fresh, rules: object) -> None:
    """checked_rules, as judge_rounds and first_divergence meet it: actual_rules that are not a list (or
    tuple) are a TypeError that names the argument, what it must be and the type it got."""

    def judged_rounds(*arguments: object) -> list[Any]:
        return list(fresh.divergence.judge_rounds(*arguments))

    for judge in (fresh.divergence.first_divergence, judged_rounds):
        with pytest.raises(TypeError) as refused:
            judge(["abab"], 2, rules)
        words = str(refused.value).replace(",", " ").split()
        assert words[0] == "actual_rules"
        assert "list" in words
        assert "(int" in words
        assert "int)" in words
        assert words[-1] == type(rules).__name__


def test_a_prefix_of_the_right_rules_is_never_blamed_on_rewritten_input(fresh: Fresh) -> None:
    """No unproven cause: stripping each document's surrounding whitespace makes exactly the first rule of
    this corpus and then stops, and no other model does; still, rules that are a prefix of the right ones
    are told as stopping early (BPE-TRAIN-STOP), not as documents rewritten before training."""
    documents, max_merges = ["b  \nA\nA\n", "", "bAAb \n ", "A"], 6
    prefix = [(10, 65)]
    assert train_profile(documents, max_merges, STRICT)[:1] == prefix != train_profile(documents, max_merges, STRICT)
    models = fresh.models
    making_it = [
        index
        for index in range(len(models.MODELS))
        if models.model_rules(index, tuple(documents), max_merges, STRICT) == tuple(prefix)
    ]
    assert [models.MODELS[index][1] for index in making_it] == ["documents stripped of surrounding whitespace"]
    assert models.reproducing_models(documents, max_merges, prefix, STRICT) == []
