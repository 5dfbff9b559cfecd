"""The checks: every one passes on the reference, and every one fails on a small broken implementation.

A check that passes on everything is a defect, so ``BROKEN_FOR`` must name a broken implementation
(``tests/support/broken_for_checks.py``, one bug each) for every check in the suite. ``COUNTEREXAMPLES``
then pins what each check's failure says on one small fixed example (no hypothesis search), fact by fact.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import Phase, settings

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS, select_checks
from bpe_conformance.checks.production import PRODUCTION_CHECKS
from bpe_conformance.checks.training import verify_greedy_selection, verify_tie_break
from bpe_conformance.checks.validation import (
    MAX_MERGES_CASES,
)
from bpe_conformance.errors import Violation
from bpe_conformance.reference import LiteralTokenizer, Tokenizer, select_pair
from bpe_conformance.reference.profiles import RUSTBPE
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.spec.clauses import load_clauses
from bpe_conformance.zoo.extremes import CountsInEightBits, HashSeededTies, NarrowsIntegersTo32Bits
from tests.checks.helpers import CHECKS, LOW, violation_of
from tests.support import broken_for_checks as broken
from tests.support import split_profile_trainers

if TYPE_CHECKING:
    from bpe_conformance.checks.base import Check
    from bpe_conformance.checks.examples import TextsExample, TrainingExample

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
    "pre-tokenization-split": split_profile_trainers.SplitIgnored,
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
    "max-merges-wide": NarrowsIntegersTo32Bits,
    "large-counts": CountsInEightBits,
    "determinism-across-processes": HashSeededTies,
}


def failing_settings() -> settings:
    """The active profile without hypothesis's explain phase, which re-runs a failing check hundreds of times."""
    active = settings()
    return settings(active, phases=[phase for phase in active.phases if phase is not Phase.explain])


def run_against(check_name: str, implementation: type, base: settings | None = None) -> CheckResult:
    return run_check(CHECKS[check_name], InProcessSubject(implementation), base or failing_settings(), seed=0)


# --- the catalogue ---


def test_check_names_are_unique_kebab_case_and_name_defined_clauses() -> None:
    names = [check.name for check in ALL_CHECKS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) for name in names), names
    defined = set(load_clauses())
    assert {clause for check in ALL_CHECKS for clause in check.clauses} <= defined


def test_every_clause_is_enforced_by_some_check() -> None:
    enforced = {clause for check in (*ALL_CHECKS, *PRODUCTION_CHECKS) for clause in check.clauses}
    assert set(load_clauses()) - enforced <= {
        "BPE-SER-JSON",
        "BPE-SER-DIGEST",
        "BPE-SER-LOAD",  # not observable through train/encode/decode/load
        # Enforced before any check: reading the vocabulary file, and binding a built-in one to it
        # (reference/vocabulary.py, dialects/production.py; tests/reference/test_vocabulary.py).
        "BPE-VOCAB-RANKS",
    }


def test_verification_is_in_plain_top_level_functions() -> None:
    """mutmut cannot see into decorated or nested functions, so a check's logic must not live there."""
    for check in ALL_CHECKS:
        assert inspect.isfunction(check.verify), check.name
        assert "<" not in check.verify.__qualname__, f"{check.name}: {check.verify.__qualname__}"
        module = inspect.getmodule(check.verify)
        assert module is not None, check.name
        assert module.__name__.startswith("bpe_conformance.checks."), check.name


# --- every check passes on the reference ---


@pytest.mark.parametrize("implementation", [Tokenizer, LiteralTokenizer], ids=["Tokenizer", "LiteralTokenizer"])
@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: check.name)
def test_check_passes_on_the_reference(check: Check, implementation: type) -> None:
    result = run_check(check, InProcessSubject(implementation), settings(), seed=0)
    assert result.outcome is Outcome.PASS, (result.message, result.counterexample)
    assert result.examples >= 1


# --- every check fails on its broken implementation ---


def test_every_check_has_a_broken_implementation() -> None:
    assert set(BROKEN_FOR) == set(CHECKS)


@pytest.mark.parametrize("check_name", sorted(BROKEN_FOR))
def test_check_rejects_its_broken_implementation(check_name: str) -> None:
    result = run_against(check_name, BROKEN_FOR[check_name])
    assert result.outcome is Outcome.FAIL, (result.outcome, result.message)
    assert result.clause in CHECKS[check_name].clauses
    assert result.counterexample is not None
    assert {"inputs", "expected", "actual"} <= set(result.counterexample)
    assert result.message


@pytest.mark.parametrize("dialect", [broken.LargestTiedPair, broken.StringTieBreak])
def test_a_tie_dialect_fails_training_checks_only_under_the_tie_clause(dialect: type) -> None:
    """Every training check fails on the divergence its example provokes, and a tie dialect's is localised to
    the tie: one deviation, one clause, however many checks see it (the reports group them)."""
    tie = run_against("tie-break", dialect)
    assert tie.outcome is Outcome.FAIL
    assert tie.clause == "BPE-TRAIN-TIE"
    assert tie.counterexample is not None
    assert tie.counterexample["divergence"]["diagnosis"] == "tie broken the other way"
    assert tie.counterexample["localisation"]["stage"] == "tie"
    for name in ("greedy-selection", "stop-rule", "no-cross-document-pairs", "overlapping-counts", "merge-scan"):
        result = run_against(name, dialect)
        assert result.outcome is Outcome.PASS or result.clause == "BPE-TRAIN-TIE", (name, result.message)


def test_string_order_ties_are_caught_on_pairs_straddling_id_100() -> None:
    documents = ["cfcf", "dede"]  # (99, 102) and (100, 101) both occur twice
    with pytest.raises(Violation) as caught:
        verify_tie_break(InProcessSubject(broken.StringTieBreak), {"documents": documents, "max_merges": 1})
    assert caught.value.clause == "BPE-TRAIN-TIE"
    assert caught.value.divergence is not None
    assert caught.value.divergence["expected"]["pair"] == [99, 102]
    assert caught.value.divergence["actual"]["pair"] == [100, 101]


def test_checks_are_plain_functions_usable_without_pytest_or_hypothesis() -> None:
    example: TrainingExample = {"documents": ["abab", "acac"], "max_merges": 32}
    verify_greedy_selection(InProcessSubject(broken.MergesPairsSeenOnce), {"documents": ["abab"], "max_merges": 1})
    with pytest.raises(Violation) as caught:
        verify_tie_break(InProcessSubject(broken.LargestTiedPair), example)
    assert caught.value.expected == [[97, 98], [97, 99]]
    assert caught.value.actual == [[97, 99], [97, 98]]
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
def test_more_bugs_are_caught_and_named(check_name: str, implementation: type, clause: str) -> None:
    result = run_against(check_name, implementation)
    assert (result.outcome, result.clause) == (Outcome.FAIL, clause), result.message


def test_training_failures_carry_the_first_divergent_round() -> None:
    result = run_against("no-cross-document-pairs", broken.TrainsOnJoinedDocuments)
    assert result.counterexample is not None
    divergence = result.counterexample["divergence"]
    assert divergence["clause"] == "BPE-TRAIN-DOCS"
    assert "joined" in divergence["cause"]
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
        # a non-str pattern on purpose: it must be refused
        select_checks([3])  # type: ignore[list-item]


def test_a_round_trip_lost_by_the_encoder_blames_the_encoder_not_the_decoder() -> None:
    """BPE-ROUNDTRIP: ids whose pieces do not spell the text are the encoder's fault, said so, never the decoder's."""
    from bpe_conformance.checks.decoding import verify_round_trip

    class DropsTheLastByte(Tokenizer):
        def encode(self, text: str) -> list[int]:
            ids = super().encode(text)
            return ids[:-1] if ids and text.encode()[-1:] == b"\x8e" else ids  # cuts 低 (e4 bd 8e) in half

    example: TextsExample = {"documents": ["ab"], "max_merges": 0, "texts": ["a低"]}
    with pytest.raises(Violation) as raised:
        verify_round_trip(InProcessSubject(DropsTheLastByte), example)
    message = raised.value.message
    assert raised.value.clause == "BPE-ROUNDTRIP"
    assert "61 e4 bd" in message
    assert "61 e4 bd 8e" in message
    assert "cannot decode to the text" in message
    assert "concatenate to valid UTF-8" not in message
    verify_round_trip(InProcessSubject(Tokenizer), example)


def test_a_round_trip_that_works_passes_whatever_the_numbering() -> None:
    """BPE-ROUNDTRIP judges only the round trip: ids numbered from 256 (a dialect judged strict) still pass."""
    from bpe_conformance.checks.decoding import verify_round_trip
    from bpe_conformance.dialects.context import with_profile
    from tests.checks.test_profiles import _Dialect

    class NumberedFrom256(_Dialect):
        profile_object, declared = RUSTBPE, "rustbpe"

    subject = with_profile(InProcessSubject(NumberedFrom256), "strict")
    verify_round_trip(subject, {"documents": ["abab abab", "xyxy"], "max_merges": 4, "texts": ["ab xy"]})


class AlternatingTies(LiteralTokenizer):
    """Breaks ties to the largest pair, then the smallest, on alternate train calls of one instance."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.calls = getattr(self, "calls", 0) + 1
        select = broken.select_largest_tied if self.calls % 2 else select_pair
        return self._adopt(broken.literal_train(documents, max_merges, select=select))


class HoleInTheVocabulary(LiteralTokenizer):
    """Sizes the vocabulary by max_merges but rejects the one id right after the last rule made."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = super().train(documents, max_merges)
        self._pieces.extend(b"" for _ in range(max_merges - len(rules)))
        self.hole = 258 + len(rules)
        return rules

    def decode(self, ids: list[int]) -> str:
        if self.hole in ids:
            raise ValueError("unknown id")
        return super().decode(ids)


@dataclasses.dataclass(frozen=True)
class Counterexample:
    """What one check's failure must say on one small example: the counterexample is the harness's contract
    with the person reading the report (the clause, inputs that reproduce it, the specification's answer and
    the implementation's).

    ``reported`` names the example's fields the failure's inputs repeat as given; ``added`` holds the inputs
    the check adds (the rules it trained, the ids it decoded, the problem it set up); nothing else is reported.
    """

    check: str
    implementation: type
    example: dict[str, Any]
    clause: str
    expected: Any
    actual: Any
    fragment: str
    reported: tuple[str, ...] = ("documents", "max_merges")
    added: dict[str, Any] = dataclasses.field(default_factory=dict)


COUNTEREXAMPLES = [
    Counterexample(
        "round-trip",
        broken.NormalizesOnDecode,
        {"documents": ["cafe\u0301"], "max_merges": 2, "texts": []},
        clause="BPE-ROUNDTRIP",
        added={"rules": [], "text": "cafe\u0301", "ids": [99, 97, 102, 101, 204, 129]},
        expected="cafe\u0301",
        actual="café",
        fragment="decode([99, 97, 102, 101, 204, 129]) of encode(text) did not give the text back",
    ),
    Counterexample(
        "decode-concatenates",
        broken.PiecesReversed,
        {"documents": ["abab"], "max_merges": 1, "texts": ["ab"]},
        clause="BPE-RULE-PIECE",
        added={"rules": [[97, 98]], "ids": [258]},
        expected="ab",
        actual="ba",
        fragment="decode([258]) is not the piece of the rule's two parts",
    ),
    Counterexample(
        "decode-bytes-level",
        broken.DecodesPieceByPiece,
        {"documents": ["低低"], "max_merges": 1, "texts": [], "explode": []},
        clause="BPE-DECODE-BYTES",
        added={"rules": [[189, 142]], "ids": [228, 258, 228, 258]},
        expected="低低",
        actual="UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe4 in position 0: unexpected end of data",
        fragment="raised UnicodeDecodeError",
    ),
    Counterexample(
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "byte ff", "prefix": "a"},
        clause="BPE-DECODE-STRICT",
        added={"rules": [[97, 98]], "ids": [97, 255], "problem": "byte ff"},
        expected="ValueError",
        actual="returned 'a\ufffd'",
        fragment="with a byte ff must raise ValueError",
    ),
    Counterexample(
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "first unknown id", "prefix": "ab"},
        clause="BPE-DECODE-STRICT",
        added={"rules": [[97, 98]], "ids": [258, 97, 259], "problem": "first unknown id"},
        expected="ValueError",
        actual="returned 'aba'",
        fragment="must raise ValueError",
    ),
    Counterexample(
        "decode-strict",
        broken.AcceptsBoolIds,
        {"documents": ["abab"], "max_merges": 1, "kind": "bool id", "prefix": ""},
        clause="BPE-INPUT-IDS",
        added={"rules": [[97, 98]], "ids": [97, True], "problem": "bool id"},
        expected="TypeError",
        actual="returned 'a\\x01'",
        fragment="must raise TypeError",
    ),
    Counterexample(
        "vocab-size",
        broken.VocabularyFromMaxMerges,
        {"documents": ["abab"], "max_merges": 3},
        clause="BPE-VOCAB-SIZE",
        added={"rules": [[97, 98]], "ids": [259]},
        expected="an error",
        actual="",
        fragment="so the vocabulary is 259 ids and id 259 must be unknown (rejected)",
    ),
    Counterexample(
        "boundary-ids",
        broken.RejectsBoundaryIds,
        {"documents": ["abab"], "max_merges": 1, "texts": [], "cut": 1},
        clause="BPE-ALPHA-BOUNDARY",
        added={"rules": [[97, 98]], "ids": [256, 257]},
        expected="",
        actual="ValueError: ids 256 and 257 are not in the vocabulary",
        fragment="decode([256, 257])",
    ),
    Counterexample(
        "rule-references",
        broken.MergeIdsFrom256,
        {"documents": ["aaaa", "aaaa"], "max_merges": 2},
        clause="BPE-RULE-ID",
        expected="parts in 0-255 or 258-258",
        actual=[[97, 97], [256, 256]],
        fragment="rule 1 (256, 256) refers to boundary id 256; rule 1 may refer only to bytes 0-255 or ids 258-258",
    ),
    Counterexample(
        "rule-ids",
        broken.EncodeIdsOffByOne,
        {"documents": ["abab"], "max_merges": 1, "texts": []},
        clause="BPE-RULE-ID",
        added={"text": "abab"},
        expected={"rules": [[97, 98]], "utf8_hex": "61626162"},
        actual={"ids": [259, 259]},
        fragment="id 259 at position 0 names no rule: 1 rules create ids 258-258",
    ),
    Counterexample(
        "no-cross-document-pairs",
        broken.TrainsOnJoinedDocuments,
        {"documents": ["xay", "xby", "xcy"], "max_merges": 1},
        clause="BPE-TRAIN-DOCS",
        expected=[],
        actual=[[121, 120]],
        fragment="round 0: expected no rule, got (121, 120) (count 0)",
    ),
    Counterexample(
        "overlapping-counts",
        broken.CountsWithoutOverlap,
        {"documents": ["aaab", "cdcd"], "max_merges": 2},
        clause="BPE-TRAIN-COUNT",
        expected=[[97, 97], [99, 100]],
        actual=[[99, 100]],
        fragment="expected (97, 97) (count 2), got (99, 100) (count 2)",
    ),
    Counterexample(
        "greedy-selection",
        broken.SmallestFrequentPair,
        {"documents": ["abab", "cdcdcd"], "max_merges": 1},
        clause="BPE-TRAIN-GREEDY",
        expected=[[99, 100]],
        actual=[[97, 98]],
        fragment="expected (99, 100) (count 3), got (97, 98) (count 2): pair not maximal",
    ),
    Counterexample(
        "tie-break",
        broken.LargestTiedPair,
        {"documents": ["abab", "acac"], "max_merges": 2},
        clause="BPE-TRAIN-TIE",
        expected=[[97, 98], [97, 99]],
        actual=[[97, 99], [97, 98]],
        fragment="round 0: expected (97, 98) (count 2), got (97, 99) (count 2)",
    ),
    Counterexample(
        "recount-each-round",
        broken.NeverRecounts,
        {"documents": [LOW], "max_merges": 2},
        clause="BPE-TRAIN-RECOUNT",
        expected=[[189, 142], [228, 258]],
        actual=[[189, 142], [228, 189]],
        fragment="round 1: expected (228, 258) (count 30)",
    ),
    Counterexample(
        "stop-rule",
        broken.StopsAtTwo,
        {"documents": ["abab", "acac"], "max_merges": 2},
        clause="BPE-TRAIN-STOP",
        expected=[[97, 98], [97, 99]],
        actual=[],
        fragment="got no rule: stopped early",
    ),
    Counterexample(
        "merge-scan",
        broken.ReplacesRightToLeft,
        {"documents": ["aaab", "aaab"], "max_merges": 2},
        clause="BPE-MERGE-SCAN",
        expected=[[97, 97], [97, 98]],
        actual=[[97, 97], [97, 258]],
        fragment="round 1: expected (97, 98) (count 2), got (97, 258)",
    ),
    Counterexample(
        "no-pre-tokenization",
        broken.PreTokenizes,
        {"documents": ["the cat, the hat, the mat, the bat"], "max_merges": 2},
        clause="BPE-TRAIN-INPUT",  # it splits its training documents only: its encoder is right
        expected=[[97, 116], [101, 32]],
        actual=[[97, 116], [104, 101]],
        fragment="round 1: expected (101, 32) (count 4)",
    ),
    Counterexample(
        "documents-as-given",
        broken.StripsDocuments,
        {"documents": ["  ab", "  ab"], "max_merges": 2},
        clause="BPE-TRAIN-INPUT",
        expected=[[32, 32], [97, 98]],
        actual=[[97, 98]],
        fragment="expected (32, 32) (count 2), got (97, 98) (count 2)",
    ),
    Counterexample(
        "training-sees-only-its-documents",
        broken.RemembersEarlierDocuments,
        {"documents": ["abab"], "max_merges": 2, "earlier": ["cdcd"], "texts": []},
        clause="BPE-TRAIN-INPUT",
        added={"earlier_documents": ["cdcd"], "encoded": []},
        expected=[[97, 98]],
        actual=[[97, 98], [99, 100]],
        fragment="training on the same documents gave other rules after an earlier training run and some encoding: "
        "the earlier documents or the encoded texts took part in training",
    ),
    Counterexample(
        "encode-trained",
        broken.EncodesRulesInReverse,
        {"documents": ["abcbc", "abcbc"], "max_merges": 2, "texts": []},
        clause="BPE-ENCODE-ORDER",
        reported=(),
        added={"rules": [[98, 99], [97, 258]], "text": "abcbc"},
        expected=[259, 258],
        actual=[97, 258, 258],
        fragment="encode('abcbc') after training gave ids that are not the canonical encoding under the model's rules "
        "(2 of 2 texts were wrong)",
    ),
    Counterexample(
        "encode-loaded-rules",
        broken.SinglePassEncoder,
        {"rules": [(97, 97), (98, 98), (258, 98)], "texts": ["aabb"]},
        # A single left-to-right pass breaks rank order itself (it fails rules (b, c), (a, b) on "abc"), as
        # the zoo's stack encoder does: localisation names BPE-ENCODE-ORDER, the rematch is a consequence.
        clause="BPE-ENCODE-ORDER",
        reported=(),
        added={"rules": [[97, 97], [98, 98], [258, 98]], "text": "aabb"},
        expected=[258, 259],
        actual=[260, 98],
        fragment="encode('aabb') after load(rules)",
    ),
    Counterexample(
        "encode-pure",
        broken.LearnsWhileEncoding,
        {"documents": ["ab"], "max_merges": 1, "texts": []},
        clause="BPE-ENCODE-PURE",
        added={"encoded_between": ["ab", "xyxyxyxy", "qqqqqqqq", "zzzz zzzz", "😀😀😀😀", "\x00\x00\x00"]},
        expected=[120, 121, 120, 121, 120, 121, 120, 121],
        actual=[263, 263],
        fragment="encode('xyxyxyxy') changed",
    ),
    Counterexample(
        "determinism",
        AlternatingTies,
        {"documents": ["abab", "acac"], "max_merges": 2, "texts": []},
        clause="BPE-PROP-DETERMINISM",
        expected=[[97, 99], [97, 98]],
        actual=[[97, 98], [97, 99]],
        fragment="on a second call",
    ),
    Counterexample(
        "document-order",
        broken.FirstSeenTieBreak,
        {"documents": ["acac", "abab"], "max_merges": 2, "seed": 1},
        clause="BPE-PROP-PERMUTE",
        added={"permuted_documents": ["abab", "acac"]},
        expected=[[97, 99], [97, 98]],
        actual=[[97, 98], [97, 99]],
        fragment="documents reversed",
    ),
    Counterexample(
        "prefix",
        broken.SortsRules,
        {"documents": ["abab", "acac", "acac"], "max_merges": 2},
        clause="BPE-PROP-PREFIX",
        reported=("documents",),
        added={"max_merges": 1, "larger_max_merges": 2},
        expected=[[97, 98]],
        actual=[[97, 99]],
        fragment="max_merges=1 are not a prefix of those for max_merges=2",
    ),
    Counterexample(
        "unique-pieces",
        broken.ForgetsLastDocument,
        {"documents": ["abab"], "max_merges": 2},
        clause="BPE-PROP-UNIQUE",
        expected="distinct pieces",
        actual=[[97, 98], [97, 98]],
        fragment="rules 0 and 1 have the same piece 61 62",
    ),
    Counterexample(
        "failed-call-keeps-model",
        broken.TrainClearsModelFirst,
        {"documents": ["abab"], "max_merges": 2, "texts": [], "call": MAX_MERGES_CASES[0]},
        clause="BPE-TRAIN-MAXMERGES",
        added={
            "rules": [[97, 98]],
            "operation": "train",
            "argument": (["abab"], -1),
            "problem": "max_merges -1",
            "texts": ["abab"],
        },
        expected=[[258, 258]],
        actual=[[97, 98, 97, 98]],
        fragment="after a rejected train (max_merges -1) the same texts encode differently: "
        "a rejected call must leave the model unchanged",
    ),
    Counterexample(
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["低低"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"},
        clause="BPE-DECODE-STRICT",
        added={"rules": [[189, 142]], "ids": [97, 258], "problem": "partial rule piece"},
        expected="ValueError",
        actual="returned 'a\ufffd\ufffd'",
        fragment="with a partial rule piece must raise ValueError (or TypeError; any subclass), but it was accepted",
    ),
    Counterexample(
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "negative id", "prefix": ""},
        clause="BPE-INPUT-IDS",
        added={"rules": [[97, 98]], "ids": [97, -1], "problem": "negative id"},
        expected="ValueError",
        actual="returned 'a'",
        fragment="with a negative id must raise ValueError",
    ),
    Counterexample(
        "vocab-size",
        HoleInTheVocabulary,
        {"documents": ["abab"], "max_merges": 3},
        clause="BPE-VOCAB-SIZE",
        added={"rules": [[97, 98]], "ids": [260]},
        expected="an error",
        actual="",
        fragment="so the vocabulary is 259 ids and id 260 must be unknown (rejected)",
    ),
]


def _row_id(row: Counterexample) -> str:
    return f"{row.check}-{row.implementation.__name__}"


@pytest.mark.parametrize("row", COUNTEREXAMPLES, ids=_row_id)
def test_counterexample_names_the_clause_the_inputs_and_both_answers(row: Counterexample) -> None:
    """Each check's failure carries its clause, inputs that reproduce it, the spec's answer and the actual one."""
    violation = violation_of(row.check, row.implementation, row.example)
    assert violation.clause == row.clause
    assert row.clause in CHECKS[row.check].clauses
    for name in row.reported:
        assert violation.inputs[name] == row.example[name], name
        assert type(violation.inputs[name]) is type(row.example[name]), name
    for name, value in row.added.items():
        assert violation.inputs[name] == value, name
    assert sorted(violation.inputs) == sorted([*row.reported, *row.added])
    assert violation.expected == row.expected
    assert violation.actual == row.actual
    assert row.fragment in violation.message
    assert str(violation) == f"[{row.clause}] {violation.message}"


@pytest.mark.parametrize("row", COUNTEREXAMPLES, ids=_row_id)
def test_the_same_example_passes_on_the_reference(row: Counterexample) -> None:
    """The example is no trap: both reference tokenizers pass it, so the failure is the bug's alone."""
    for reference in (Tokenizer, LiteralTokenizer):
        CHECKS[row.check].verify(InProcessSubject(reference), row.example)
