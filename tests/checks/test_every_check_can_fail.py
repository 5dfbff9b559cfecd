"""The checks: every one passes on the reference, and every one fails on a small broken implementation.

A check that passes on everything is a defect, so ``BROKEN_FOR`` must name a broken implementation
(``tests/support/broken_for_checks.py``, one bug each) for every check in the suite.
"""

from __future__ import annotations

import inspect
import re

import pytest
from hypothesis import Phase, settings

from conformance.adapters.python import InProcessSubject
from conformance.checks import ALL_CHECKS, select_checks
from conformance.checks.training import verify_greedy_selection, verify_tie_break
from conformance.errors import Violation
from conformance.results.outcomes import Outcome
from conformance.running.runner import run_check
from conformance.spec.clauses import load_clauses
from reference import LiteralTokenizer, Tokenizer
from tests.support import broken_for_checks as broken

BROKEN_FOR = {
    "rule-references": broken.MergeIdsFrom256,
    "rule-ids": broken.EncodeIdsOffByOne,
    "no-cross-document-pairs": broken.TrainsOnJoinedDocuments,
    "overlapping-counts": broken.CountsWithoutOverlap,
    "greedy-selection": broken.SmallestFrequentPair,
    "tie-break": broken.LargestTiedPair,
    "recount-each-round": broken.NeverRecounts,
    "stop-rule": broken.StopsAtTwo,
    "training-sees-only-its-documents": broken.RemembersEarlierDocuments,
    "documents-as-given": broken.StripsDocuments,
    "merge-scan": broken.ReplacesRightToLeft,
    "encode-trained": broken.EncodesRulesInReverse,
    "encode-loaded-rules": broken.SinglePassEncoder,
    "no-pre-tokenization": broken.PreTokenizes,
    "encode-pure": broken.LearnsWhileEncoding,
    "round-trip": broken.NormalizesOnDecode,
    "decode-concatenates": broken.PiecesReversed,
    "decode-bytes-level": broken.DecodesPieceByPiece,
    "decode-strict": broken.LenientDecoder,
    "vocab-size": broken.VocabularyFromMaxMerges,
    "boundary-ids": broken.RejectsBoundaryIds,
    "determinism": broken.AlternatingTieBreak,
    "document-order": broken.FirstSeenTieBreak,
    "prefix": broken.SortsRules,
    "unique-pieces": broken.ForgetsLastDocument,
    "max-merges-validation": broken.AcceptsBoolMaxMerges,
    "documents-validation": broken.AcceptsBareString,
    "text-validation": broken.EncodesSurrogates,
    "ids-validation": broken.AcceptsBoolIds,
    "rules-validation": broken.LoadsWithoutValidation,
    "failed-call-keeps-model": broken.TrainClearsModelFirst,
    "vectors-training": broken.LargestTiedPair,
    "vectors-load": broken.EncodesRulesInReverse,
    "vectors-invalid": broken.AcceptsBoolMaxMerges,
}
CHECKS = {check.name: check for check in ALL_CHECKS}


def failing_settings() -> settings:
    """The active profile without hypothesis's explain phase, which re-runs a failing check hundreds of times."""
    active = settings()
    return settings(active, phases=[phase for phase in active.phases if phase is not Phase.explain])


def run_against(check_name: str, implementation: type, base: settings | None = None):
    return run_check(CHECKS[check_name], InProcessSubject(implementation), base or failing_settings(), seed=0)


# --- the catalogue ---


def test_check_names_are_unique_kebab_case_and_name_defined_clauses() -> None:
    names = [check.name for check in ALL_CHECKS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in names), names
    defined = set(load_clauses())
    assert {clause for check in ALL_CHECKS for clause in check.clauses} <= defined


def test_every_clause_is_enforced_by_some_check() -> None:
    assert set(load_clauses()) - {clause for check in ALL_CHECKS for clause in check.clauses} <= {
        "BPE-SER-JSON", "BPE-SER-DIGEST", "BPE-SER-LOAD"  # not observable through train/encode/decode/load
    }


def test_verification_is_in_plain_top_level_functions() -> None:
    """mutmut cannot see into decorated or nested functions, so a check's logic must not live there."""
    for check in ALL_CHECKS:
        assert inspect.isfunction(check.verify), check.name
        assert "<" not in check.verify.__qualname__, f"{check.name}: {check.verify.__qualname__}"
        assert inspect.getmodule(check.verify).__name__.startswith("conformance.checks."), check.name


# --- every check passes on the reference ---


@pytest.mark.parametrize("implementation", [Tokenizer, LiteralTokenizer], ids=["Tokenizer", "LiteralTokenizer"])
@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: check.name)
def test_check_passes_on_the_reference(check, implementation) -> None:
    result = run_check(check, InProcessSubject(implementation), settings(), seed=0)
    assert result.outcome is Outcome.PASS, (result.message, result.counterexample)
    assert result.examples >= 1


# --- every check fails on its broken implementation ---


def test_every_check_has_a_broken_implementation() -> None:
    assert set(BROKEN_FOR) == set(CHECKS)


@pytest.mark.parametrize("check_name", sorted(BROKEN_FOR))
def test_check_rejects_its_broken_implementation(check_name) -> None:
    result = run_against(check_name, BROKEN_FOR[check_name])
    assert result.outcome is Outcome.FAIL, (result.outcome, result.message)
    assert result.clause in CHECKS[check_name].clauses
    assert {"inputs", "expected", "actual"} <= set(result.counterexample)
    assert result.message


@pytest.mark.parametrize("dialect", [broken.LargestTiedPair, broken.StringTieBreak])
def test_a_tie_dialect_fails_only_the_tie_check_among_training_checks(dialect) -> None:
    """Greedy selection is judged by replaying the implementation's own rules, so it ignores the tie rule."""
    tie = run_against("tie-break", dialect)
    assert tie.outcome is Outcome.FAIL and tie.clause == "BPE-TRAIN-TIE"
    assert tie.counterexample["divergence"]["diagnosis"] == "tie broken the other way"
    for name in ("greedy-selection", "stop-rule", "no-cross-document-pairs", "overlapping-counts", "merge-scan"):
        assert run_against(name, dialect).outcome is Outcome.PASS, name


def test_string_order_ties_are_caught_on_pairs_straddling_id_100() -> None:
    documents = ["cfcf", "dede"]  # (99, 102) and (100, 101) both occur twice
    with pytest.raises(Violation) as caught:
        verify_tie_break(InProcessSubject(broken.StringTieBreak), {"documents": documents, "max_merges": 1})
    assert caught.value.clause == "BPE-TRAIN-TIE"
    assert caught.value.divergence["expected"]["pair"] == [99, 102]
    assert caught.value.divergence["actual"]["pair"] == [100, 101]


def test_checks_are_plain_functions_usable_without_pytest_or_hypothesis() -> None:
    example = {"documents": ["abab", "acac"], "max_merges": 32}
    verify_greedy_selection(InProcessSubject(broken.LargestTiedPair), example)  # tie rule aside, greedy holds
    with pytest.raises(Violation) as caught:
        verify_tie_break(InProcessSubject(broken.LargestTiedPair), example)
    assert caught.value.expected == [[97, 98], [97, 99]] and caught.value.actual == [[97, 99], [97, 98]]
    assert caught.value.counterexample()["divergence"]["round"] == 0


@pytest.mark.parametrize(
    ("check_name", "implementation", "clause"),
    [
        ("merge-scan", broken.ReplacesOverlapping, "BPE-MERGE-SCAN"),
        ("stop-rule", broken.MergesPairsSeenOnce, "BPE-TRAIN-STOP"),
        ("greedy-selection", broken.TrainsOnJoinedDocuments, "BPE-TRAIN-DOCS"),
        ("encode-loaded-rules", broken.EncodesRulesInReverse, "BPE-ENCODE-ORDER"),
        ("tie-break", broken.FirstSeenTieBreak, "BPE-TRAIN-TIE"),
    ],
)
def test_more_bugs_are_caught_and_named(check_name, implementation, clause) -> None:
    result = run_against(check_name, implementation)
    assert (result.outcome, result.clause) == (Outcome.FAIL, clause), result.message


def test_training_failures_carry_the_first_divergent_round() -> None:
    result = run_against("no-cross-document-pairs", broken.TrainsOnJoinedDocuments)
    divergence = result.counterexample["divergence"]
    assert divergence["clause"] == "BPE-TRAIN-DOCS" and "joined" in divergence["cause"]
    assert set(divergence) >= {"round", "expected", "actual", "diagnosis"}


# --- selection ---


def test_select_checks_by_name_glob_and_clause_in_suite_order() -> None:
    assert [check.name for check in select_checks(["tie-break"])] == ["tie-break"]
    chosen = [check.name for check in select_checks(["decode-*", "round-trip"])]
    in_suite_order = [name for name in CHECKS if name.startswith("decode-") or name == "round-trip"]
    assert chosen == in_suite_order
    assert "tie-break" in [check.name for check in select_checks(["BPE-TRAIN-TIE"])]
    assert {check.name for check in select_checks(["BPE-PROP-*"])} >= {"determinism", "document-order", "prefix"}
    assert select_checks([]) == []


def test_select_checks_rejects_unknown_patterns_and_wrong_types() -> None:
    with pytest.raises(ValueError, match=r"'tie-brake'.*did you mean tie-break"):
        select_checks(["tie-break", "tie-brake"])
    with pytest.raises(TypeError, match="wrap it in a list"):
        select_checks("tie-break")
    with pytest.raises(TypeError, match="must be a str"):
        select_checks([3])


def test_a_round_trip_lost_by_the_encoder_blames_the_encoder_not_the_decoder() -> None:
    """BPE-ROUNDTRIP: ids whose pieces do not spell the text are the encoder's fault, said so, never the decoder's."""
    from conformance.checks.decoding import verify_round_trip

    class DropsTheLastByte(Tokenizer):
        def encode(self, text):
            ids = super().encode(text)
            return ids[:-1] if ids and text.encode()[-1:] == b"\x8e" else ids  # cuts 低 (e4 bd 8e) in half

    example = {"documents": ["ab"], "max_merges": 0, "texts": ["a低"]}
    with pytest.raises(Violation) as raised:
        verify_round_trip(InProcessSubject(DropsTheLastByte), example)
    message = raised.value.message
    assert raised.value.clause == "BPE-ROUNDTRIP"
    assert "61 e4 bd" in message and "61 e4 bd 8e" in message and "cannot decode to the text" in message
    assert "concatenate to valid UTF-8" not in message
    verify_round_trip(InProcessSubject(Tokenizer), example)


def test_a_round_trip_that_works_passes_whatever_the_numbering() -> None:
    """BPE-ROUNDTRIP judges only the round trip: ids numbered from 256 (a dialect judged strict) still pass."""
    from conformance.checks.decoding import verify_round_trip
    from conformance.dialects.context import with_profile
    from reference.profiles import RUSTBPE
    from tests.checks.test_profiles import _Dialect

    class NumberedFrom256(_Dialect):
        profile_object, declared = RUSTBPE, "rustbpe"

    subject = with_profile(InProcessSubject(NumberedFrom256), "strict")
    verify_round_trip(subject, {"documents": ["abab abab", "xyxy"], "max_merges": 4, "texts": ["ab xy"]})
