"""Every check's counterexample, exactly, on one small example each (found by mutation testing).

``tests/checks/test_every_check_can_fail.py`` shows each check fails on its broken implementation; these tests pin what the
failure says, because the counterexample is the harness's contract with the person reading the report:
the clause, the inputs that reproduce it, the specification's answer and the implementation's. Every
example is fixed and small, so these run in milliseconds and no hypothesis search is involved.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest

from conformance.adapters.python import InProcessSubject
from conformance.checks import ALL_CHECKS, validation
from conformance.checks.common import encoding_clause, verify_encodings
from conformance.checks.decoding import BAD_ID_KINDS, boundary_inapplicable
from conformance.checks.encoding import _with_variants, pre_tokenization_inapplicable
from conformance.checks.properties import _permutations, document_order_inapplicable
from conformance.checks.replacement import _run_texts
from conformance.checks.training import cross_document_inapplicable
from conformance.checks.validation import (
    ALL_CASES,
    IDS_CASES,
    MAX_MERGES_CASES,
    TEXT_CASES,
    profile_accepts,
    setup_merges,
    verify_rejection,
)
from conformance.checks.vectors import mismatch_clause, vector_cases, vectors_inapplicable, verify_vector
from conformance.dialects.context import pairs_run_out, profile_encode
from conformance.dialects.probes import ProfileModel
from conformance.errors import ImplementationRaised, Violation
from conformance.results.advisories import collecting
from conformance.vectors.replay import Mismatch
from reference import LiteralTokenizer, Tokenizer
from reference.profiles import HF_TOKENIZERS, MINBPE, RUSTBPE, STRICT, TIKTOKEN
from tests.support import broken_for_checks as broken

CHECKS = {check.name: check for check in ALL_CHECKS}
LOW = "低" * 30


def violation_of(check_name: str, implementation: type, example: dict[str, Any]) -> Violation:
    with pytest.raises(Violation) as caught:
        CHECKS[check_name].verify(InProcessSubject(implementation), example)
    return caught.value


class AlternatingTies(LiteralTokenizer):
    """Breaks ties to the largest pair, then the smallest, on alternate train calls of one instance."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.calls = getattr(self, "calls", 0) + 1
        select = broken.select_largest_tied if self.calls % 2 else broken.select_pair
        return self._adopt(broken.literal_train(documents, max_merges, select=select))


class UnknownIdsAreTypeErrors(LiteralTokenizer):
    """Rejects unknown ids with the wrong error kind."""

    def decode(self, ids: list[int]) -> str:
        if any(isinstance(token, int) and token >= len(self._pieces) for token in ids):
            raise TypeError("unknown id")
        return super().decode(ids)


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


# (check, broken implementation, example, clause, inputs, expected, actual, fragment of the message)
COUNTEREXAMPLES = [
    (
        "round-trip",
        broken.NormalizesOnDecode,
        {"documents": ["cafe\u0301"], "max_merges": 2, "texts": []},
        "BPE-ROUNDTRIP",
        {
            "documents": ["cafe\u0301"],
            "max_merges": 2,
            "rules": [],
            "text": "cafe\u0301",
            "ids": [99, 97, 102, 101, 204, 129],
        },
        "cafe\u0301",
        "caf\u00e9",
        "decode([99, 97, 102, 101, 204, 129]) of encode(text) did not give the text back",
    ),
    (
        "decode-concatenates",
        broken.PiecesReversed,
        {"documents": ["abab"], "max_merges": 1, "texts": ["ab"]},
        "BPE-DECODE-CONCAT",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [258]},
        "ab",
        "ba",
        "decode([258]) is not the piece of the rule's two parts",
    ),
    (
        "decode-bytes-level",
        broken.DecodesPieceByPiece,
        {"documents": ["低低"], "max_merges": 1, "texts": [], "explode": []},
        "BPE-DECODE-BYTES",
        {"documents": ["低低"], "max_merges": 1, "rules": [[189, 142]], "ids": [228, 258, 228, 258]},
        "低低",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe4 in position 0: unexpected end of data",
        "raised UnicodeDecodeError",
    ),
    (
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "byte ff", "prefix": "a"},
        "BPE-DECODE-STRICT",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [97, 255], "problem": "byte ff"},
        "ValueError",
        "returned 'a\ufffd'",
        "with a byte ff must raise ValueError",
    ),
    (
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "first unknown id", "prefix": "ab"},
        "BPE-DECODE-STRICT",
        {
            "documents": ["abab"],
            "max_merges": 1,
            "rules": [[97, 98]],
            "ids": [258, 97, 259],
            "problem": "first unknown id",
        },
        "ValueError",
        "returned 'aba'",
        "must raise ValueError",
    ),
    (
        "decode-strict",
        broken.AcceptsBoolIds,
        {"documents": ["abab"], "max_merges": 1, "kind": "bool id", "prefix": ""},
        "BPE-INPUT-IDS",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [97, True], "problem": "bool id"},
        "TypeError",
        "returned 'a\\x01'",
        "must raise TypeError",
    ),
    (
        "vocab-size",
        broken.VocabularyFromMaxMerges,
        {"documents": ["abab"], "max_merges": 3},
        "BPE-VOCAB-SIZE",
        {"documents": ["abab"], "max_merges": 3, "rules": [[97, 98]], "ids": [259]},
        "an error",
        "",
        "so the vocabulary is 259 ids and id 259 must be unknown (rejected)",
    ),
    (
        "boundary-ids",
        broken.RejectsBoundaryIds,
        {"documents": ["abab"], "max_merges": 1, "texts": [], "cut": 1},
        "BPE-ALPHA-BOUNDARY",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [256, 257]},
        "",
        "ValueError: ids 256 and 257 are not in the vocabulary",
        "decode([256, 257])",
    ),
    (
        "rule-references",
        broken.MergeIdsFrom256,
        {"documents": ["aaaa", "aaaa"], "max_merges": 2},
        "BPE-RULE-REF",
        {"documents": ["aaaa", "aaaa"], "max_merges": 2},
        "parts in 0-255 or 258-258",
        [[97, 97], [256, 256]],
        "rule 1 (256, 256) refers to boundary id 256; rule 1 may refer only to bytes 0-255 or ids 258-258",
    ),
    (
        "rule-ids",
        broken.EncodeIdsOffByOne,
        {"documents": ["abab"], "max_merges": 1, "texts": []},
        "BPE-RULE-ID",
        {"documents": ["abab"], "max_merges": 1, "text": "abab"},
        {"rules": [[97, 98]], "utf8_hex": "61626162"},
        {"ids": [259, 259]},
        "id 259 at position 0 names no rule: 1 rules create ids 258-258",
    ),
    (
        "no-cross-document-pairs",
        broken.TrainsOnJoinedDocuments,
        {"documents": ["xay", "xby", "xcy"], "max_merges": 1},
        "BPE-TRAIN-DOCS",
        {"documents": ["xay", "xby", "xcy"], "max_merges": 1},
        [],
        [[121, 120]],
        "round 0: expected no rule, got (121, 120) (count 0)",
    ),
    (
        "overlapping-counts",
        broken.CountsWithoutOverlap,
        {"documents": ["aaab", "cdcd"], "max_merges": 2},
        "BPE-TRAIN-COUNT",
        {"documents": ["aaab", "cdcd"], "max_merges": 2},
        [[97, 97], [99, 100]],
        [[99, 100]],
        "expected (97, 97) (count 2), got (99, 100) (count 2)",
    ),
    (
        "greedy-selection",
        broken.SmallestFrequentPair,
        {"documents": ["abab", "cdcdcd"], "max_merges": 1},
        "BPE-TRAIN-GREEDY",
        {"documents": ["abab", "cdcdcd"], "max_merges": 1},
        [[99, 100]],
        [[97, 98]],
        "expected (99, 100) (count 3), got (97, 98) (count 2): pair not maximal",
    ),
    (
        "tie-break",
        broken.LargestTiedPair,
        {"documents": ["abab", "acac"], "max_merges": 2},
        "BPE-TRAIN-TIE",
        {"documents": ["abab", "acac"], "max_merges": 2},
        [[97, 98], [97, 99]],
        [[97, 99], [97, 98]],
        "round 0: expected (97, 98) (count 2), got (97, 99) (count 2)",
    ),
    (
        "recount-each-round",
        broken.NeverRecounts,
        {"documents": [LOW], "max_merges": 2},
        "BPE-TRAIN-RECOUNT",
        {"documents": [LOW], "max_merges": 2},
        [[189, 142], [228, 258]],
        [[189, 142], [228, 189]],
        "round 1: expected (228, 258) (count 30)",
    ),
    (
        "stop-rule",
        broken.StopsAtTwo,
        {"documents": ["abab", "acac"], "max_merges": 2},
        "BPE-TRAIN-STOP",
        {"documents": ["abab", "acac"], "max_merges": 2},
        [[97, 98], [97, 99]],
        [],
        "got no rule: stopped early",
    ),
    (
        "merge-scan",
        broken.ReplacesRightToLeft,
        {"documents": ["aaab", "aaab"], "max_merges": 2},
        "BPE-MERGE-SCAN",
        {"documents": ["aaab", "aaab"], "max_merges": 2},
        [[97, 97], [97, 98]],
        [[97, 97], [97, 258]],
        "round 1: expected (97, 98) (count 2), got (97, 258)",
    ),
    (
        "no-pre-tokenization",
        broken.PreTokenizes,
        {"documents": ["the cat, the hat, the mat, the bat"], "max_merges": 2},
        "BPE-ENCODE-RAW",
        {"documents": ["the cat, the hat, the mat, the bat"], "max_merges": 2},
        [[97, 116], [101, 32]],
        [[97, 116], [104, 101]],
        "round 1: expected (101, 32) (count 4)",
    ),
    (
        "documents-as-given",
        broken.StripsDocuments,
        {"documents": ["  ab", "  ab"], "max_merges": 2},
        "BPE-TRAIN-INPUT",
        {"documents": ["  ab", "  ab"], "max_merges": 2},
        [[32, 32], [97, 98]],
        [[97, 98]],
        "expected (32, 32) (count 2), got (97, 98) (count 2)",
    ),
    (
        "training-sees-only-its-documents",
        broken.RemembersEarlierDocuments,
        {"documents": ["abab"], "max_merges": 2, "earlier": ["cdcd"], "texts": []},
        "BPE-TRAIN-INPUT",
        {"documents": ["abab"], "max_merges": 2, "earlier_documents": ["cdcd"], "encoded": []},
        [[97, 98]],
        [[97, 98], [99, 100]],
        "training on the same documents gave other rules after an earlier training run and some encoding: "
        "the earlier documents or the encoded texts took part in training",
    ),
    (
        "encode-trained",
        broken.EncodesRulesInReverse,
        {"documents": ["abcbc", "abcbc"], "max_merges": 2, "texts": []},
        "BPE-ENCODE-ORDER",
        {"rules": [[98, 99], [97, 258]], "text": "abcbc"},
        [259, 258],
        [97, 258, 258],
        "encode('abcbc') after training gave ids that are not the canonical encoding under the model's rules "
        "(2 of 2 texts were wrong)",
    ),
    (
        "encode-loaded-rules",
        broken.SinglePassEncoder,
        {"rules": [(97, 97), (98, 98), (258, 98)], "texts": ["aabb"]},
        "BPE-MERGE-NOREMATCH",
        {"rules": [[97, 97], [98, 98], [258, 98]], "text": "aabb"},
        [258, 259],
        [260, 98],
        "encode('aabb') after load(rules)",
    ),
    (
        "encode-pure",
        broken.LearnsWhileEncoding,
        {"documents": ["ab"], "max_merges": 1, "texts": []},
        "BPE-ENCODE-PURE",
        {
            "documents": ["ab"],
            "max_merges": 1,
            "encoded_between": ["ab", "xyxyxyxy", "qqqqqqqq", "zzzz zzzz", "😀😀😀😀", "\x00\x00\x00"],
        },
        [120, 121, 120, 121, 120, 121, 120, 121],
        [263, 263],
        "encode('xyxyxyxy') changed",
    ),
    (
        "determinism",
        AlternatingTies,
        {"documents": ["abab", "acac"], "max_merges": 2, "texts": []},
        "BPE-PROP-DETERMINISM",
        {"documents": ["abab", "acac"], "max_merges": 2},
        [[97, 99], [97, 98]],
        [[97, 98], [97, 99]],
        "on a second call",
    ),
    (
        "document-order",
        broken.FirstSeenTieBreak,
        {"documents": ["acac", "abab"], "max_merges": 2, "seed": 1},
        "BPE-PROP-PERMUTE",
        {"documents": ["acac", "abab"], "max_merges": 2, "permuted_documents": ["abab", "acac"]},
        [[97, 99], [97, 98]],
        [[97, 98], [97, 99]],
        "documents reversed",
    ),
    (
        "prefix",
        broken.SortsRules,
        {"documents": ["abab", "acac", "acac"], "max_merges": 2},
        "BPE-PROP-PREFIX",
        {"documents": ["abab", "acac", "acac"], "max_merges": 1, "larger_max_merges": 2},
        [[97, 98]],
        [[97, 99]],
        "max_merges=1 are not a prefix of those for max_merges=2",
    ),
    (
        "unique-pieces",
        broken.ForgetsLastDocument,
        {"documents": ["abab"], "max_merges": 2},
        "BPE-PROP-UNIQUE",
        {"documents": ["abab"], "max_merges": 2},
        "distinct pieces",
        [[97, 98], [97, 98]],
        "rules 0 and 1 have the same piece 61 62",
    ),
    (
        "failed-call-keeps-model",
        broken.TrainClearsModelFirst,
        {"documents": ["abab"], "max_merges": 2, "texts": [], "call": MAX_MERGES_CASES[0]},
        "BPE-TRAIN-MAXMERGES",
        {
            "documents": ["abab"],
            "max_merges": 2,
            "rules": [[97, 98]],
            "operation": "train",
            "argument": (["abab"], -1),
            "problem": "max_merges -1",
            "texts": ["abab"],
        },
        [[258, 258]],
        [[97, 98, 97, 98]],
        "after a rejected train (max_merges -1) the same texts encode differently: "
        "a rejected call must leave the model unchanged",
    ),
    (
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["低低"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"},
        "BPE-DECODE-STRICT",
        {
            "documents": ["低低"],
            "max_merges": 1,
            "rules": [[189, 142]],
            "ids": [97, 258],
            "problem": "partial rule piece",
        },
        "ValueError",
        "returned 'a\ufffd\ufffd'",
        "with a partial rule piece must raise ValueError (or TypeError; any subclass), but it was accepted",
    ),
    (
        "decode-strict",
        broken.LenientDecoder,
        {"documents": ["abab"], "max_merges": 1, "kind": "negative id", "prefix": ""},
        "BPE-INPUT-IDS",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [97, -1], "problem": "negative id"},
        "ValueError",
        "returned 'a'",
        "with a negative id must raise ValueError",
    ),
    (
        "vocab-size",
        HoleInTheVocabulary,
        {"documents": ["abab"], "max_merges": 3},
        "BPE-VOCAB-SIZE",
        {"documents": ["abab"], "max_merges": 3, "rules": [[97, 98]], "ids": [260]},
        "an error",
        "",
        "so the vocabulary is 259 ids and id 260 must be unknown (rejected)",
    ),
]


@pytest.mark.parametrize(
    ("check_name", "implementation", "example", "clause", "inputs", "expected", "actual", "fragment"),
    COUNTEREXAMPLES,
    ids=[f"{row[0]}-{row[1].__name__}" for row in COUNTEREXAMPLES],
)
def test_counterexample_names_the_clause_the_inputs_and_both_answers(
    check_name: str,
    implementation: type,
    example: dict,
    clause: str,
    inputs: dict,
    expected: Any,
    actual: Any,
    fragment: str,
) -> None:
    """Each check's failure carries its clause, inputs that reproduce it, the spec's answer and the actual one."""
    violation = violation_of(check_name, implementation, example)
    assert (violation.clause, violation.inputs) == (clause, inputs)
    assert (violation.expected, violation.actual) == (expected, actual)
    assert fragment in violation.message
    assert clause in CHECKS[check_name].clauses
    assert str(violation) == f"[{clause}] {violation.message}"


@pytest.mark.parametrize(
    ("check_name", "implementation", "example", "clause", "inputs", "expected", "actual", "fragment"),
    COUNTEREXAMPLES,
    ids=[f"{row[0]}-{row[1].__name__}" for row in COUNTEREXAMPLES],
)
def test_the_same_example_passes_on_the_reference(
    check_name: str,
    implementation: type,
    example: dict,
    clause: str,
    inputs: dict,
    expected: Any,
    actual: Any,
    fragment: str,
) -> None:
    """The example is no trap: both reference tokenizers pass it, so the failure is the bug's alone."""
    for reference in (Tokenizer, LiteralTokenizer):
        CHECKS[check_name].verify(InProcessSubject(reference), example)


def test_training_counterexamples_carry_the_first_divergence() -> None:
    """BPE-TRAIN-RECOUNT: the judged round and the first divergent round are both reported."""
    violation = violation_of("recount-each-round", broken.NeverRecounts, {"documents": [LOW], "max_merges": 2})
    assert violation.divergence["round"] == 1
    assert violation.divergence["expected"] == {"pair": [228, 258], "count": 30}
    assert violation.counterexample()["divergence"] is violation.divergence


# --- which clause a wrong encoding breaks (BPE-ENCODE-*, BPE-MERGE-*) ------------------------------------


@pytest.mark.parametrize(
    ("text", "answer", "rules", "profile", "clause"),
    [
        ("ab", [256, 97], [(97, 98)], STRICT, "BPE-ENCODE-BOUNDARY"),
        ("ab", [256, 97], [(97, 98)], MINBPE, "BPE-ENCODE-ORDER"),  # 256 is minbpe's first rule, no boundary
        ("ab", [98, 97], [], STRICT, "BPE-ALPHA-BYTES"),
        ("aabb", [260, 98], [(97, 97), (98, 98), (258, 98)], STRICT, "BPE-MERGE-NOREMATCH"),
        ("aabb", [258, 98], [(97, 97), (98, 98), (256, 98)], MINBPE, "BPE-MERGE-NOREMATCH"),
        ("aaa", [97, 258], [(97, 97)], STRICT, "BPE-MERGE-SCAN"),  # scanned from the right
        ("aaa", [97, 256], [(97, 97)], MINBPE, "BPE-MERGE-SCAN"),
        ("aaa", [258, 258], [(97, 97)], STRICT, "BPE-MERGE-SCAN"),  # overlapping windows both merged
        ("aaa", [256, 256], [(97, 97)], MINBPE, "BPE-MERGE-SCAN"),
        ("aaa", [97, 259], [(98, 98), (97, 97)], STRICT, "BPE-MERGE-SCAN"),  # scanned from the right, rule 1
        ("aaa", [259, 259], [(98, 98), (97, 97)], STRICT, "BPE-MERGE-SCAN"),  # overlapping windows, rule 1
        ("caabb", [99, 260, 98], [(97, 97), (98, 98), (258, 98)], STRICT, "BPE-MERGE-NOREMATCH"),  # after a byte
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], STRICT, "BPE-ENCODE-RAW"),  # split at punctuation
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], MINBPE, "BPE-ENCODE-RAW"),
        ("a ,b", [97, 32, 44, 98], [(32, 44), (44, 98)], STRICT, "BPE-ENCODE-RAW"),  # space apart from punctuation
        ("\x80,", [194, 128, 44], [(128, 44)], STRICT, "BPE-ENCODE-RAW"),  # U+0080 is a word character
        ("ab ab", [97, 98, 32, 97, 98], [(98, 32)], STRICT, "BPE-ENCODE-RAW"),
        ("aba ", [258, 97, 32], [(97, 98), (97, 32)], STRICT, "BPE-ENCODE-RAW"),  # a chunk of several characters
        ("xyz", [1], [(97, 98)], STRICT, "BPE-ENCODE-ORDER"),
        ("abc", [259, 99], [(98, 99), (97, 98)], STRICT, "BPE-ENCODE-ORDER"),  # rules applied last to first
        ("abc", [257, 99], [(98, 99), (97, 98)], MINBPE, "BPE-ENCODE-ORDER"),
    ],
)
def test_a_wrong_encoding_is_blamed_on_the_bug_that_reproduces_it(
    text: str, answer: list[int], rules: list, profile: Any, clause: str
) -> None:
    """Each model of an encoding bug names its clause only when it gives exactly the wrong ids."""
    assert encoding_clause([(text, answer)], rules, profile) == clause
    assert profile_encode(text, rules, profile) != answer


def test_the_encoding_models_need_every_wrong_answer_reproduced() -> None:
    """One answer a scan model explains and one it does not: no model fits both, so the order clause."""
    wrong = [("aaa", [97, 258]), ("abab", [98, 97, 98, 97])]
    assert encoding_clause(wrong[:1], [(97, 97)]) == "BPE-MERGE-SCAN"
    assert encoding_clause(wrong, [(97, 97)]) == "BPE-ENCODE-ORDER"


# --- the known-answer vectors (every clause a vector shows) ---------------------------------------------


def _mismatch(operation: str, actual: Any, given: Any = None) -> Mismatch:
    return Mismatch("train-x", (), operation, given or {}, None, actual)


TRAIN_VECTOR = {"id": "train-x", "documents": ["abab", "acac"], "max_merges": 1, "clauses": ["BPE-TRAIN-GREEDY"]}
LOAD_VECTOR = {"id": "load-x", "rules": [[97, 97], [98, 98], [258, 98]], "clauses": ["BPE-ENCODE-ORDER"]}
INVALID_VECTOR = {"id": "invalid-x-y", "clauses": ["BPE-TRAIN-MAXMERGES", "BPE-INPUT-DOCS"]}


@pytest.mark.parametrize(
    ("vector", "mismatch", "clause"),
    [
        (INVALID_VECTOR, _mismatch("train", "returned [[97, 98]]"), "BPE-TRAIN-MAXMERGES"),
        (INVALID_VECTOR, _mismatch("encode", [97]), "BPE-TRAIN-MAXMERGES"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 99]]), "BPE-TRAIN-TIE"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 98], [97, 99]]), "BPE-TRAIN-STOP"),  # more than max_merges
        (TRAIN_VECTOR, _mismatch("train", [[97, 98]]), "BPE-TRAIN-INPUT"),  # the right rules, another answer
        (TRAIN_VECTOR, _mismatch("train", "raised ValueError: no"), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [[97, 98, 99]]), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [[97, True]]), "BPE-TRAIN-INPUT"),
        (TRAIN_VECTOR, _mismatch("train", [(97, 99)]), "BPE-TRAIN-INPUT"),
        (LOAD_VECTOR, _mismatch("encode", [260, 98], {"text": "aabb"}), "BPE-MERGE-NOREMATCH"),
        (LOAD_VECTOR, _mismatch("encode", [256, 97, 97, 98, 98], {"text": "aabb"}), "BPE-ENCODE-BOUNDARY"),
        (LOAD_VECTOR, _mismatch("encode", [True, 98], {"text": "aabb"}), "BPE-ENCODE-ORDER"),
        (LOAD_VECTOR, _mismatch("encode", (256, 97, 97, 98, 98), {"text": "aabb"}), "BPE-ENCODE-ORDER"),  # no list
        (LOAD_VECTOR, _mismatch("encode", "raised TypeError: no", {"text": "aabb"}), "BPE-ENCODE-ORDER"),
        (LOAD_VECTOR, _mismatch("load", "raised ValueError: no"), "BPE-INPUT-RULES"),
        (LOAD_VECTOR, _mismatch("decode", "baca"), "BPE-DECODE-CONCAT"),
        (LOAD_VECTOR, _mismatch("document_ids", [1]), "BPE-ENCODE-ORDER"),
    ],
)
def test_a_vector_mismatch_is_blamed_on_the_clause_it_breaks(vector: dict, mismatch: Mismatch, clause: str) -> None:
    """Invalid vectors name their own clause; rules and ids are diagnosed; anything else goes by operation."""
    assert mismatch_clause(vector, mismatch) == clause


def test_a_vector_failure_carries_the_vector_the_operation_and_both_answers() -> None:
    """BPE-TRAIN-TIE on the first training vector, and BPE-DECODE-CONCAT found after skipped replays."""
    vector = vector_cases("training.json")[0]
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.LargestTiedPair), vector)
    violation = caught.value
    assert violation.clause == "BPE-TRAIN-TIE"
    assert violation.inputs == {
        "vector": vector["id"],
        "operation": "train",
        "input": {"documents": ["abab", "acac"], "max_merges": 32},
    }
    assert (violation.expected, violation.actual) == ([[97, 98], [97, 99]], [[97, 99], [97, 98]])
    assert vector["id"] in violation.message and vector["description"] in violation.message
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.PiecesReversed), vector)
    assert (caught.value.clause, caught.value.inputs["operation"]) == ("BPE-DECODE-CONCAT", "decode")
    assert (caught.value.expected, caught.value.actual) == ("abac", "baca")


def test_vectors_replay_load_only_where_load_is_offered_and_only_under_strict() -> None:
    """A subject without load skips the load vectors; a declared dialect skips them all (strict answers)."""
    vector = next(vector for vector in vector_cases("load.json") if vector["id"] == "load-7b4cff2076002117")
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.EncodesRulesInReverse), vector)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-ENCODE-ORDER",
        [258, 258],
        [259, 259],
    )

    class WithoutLoad(broken.EncodesRulesInReverse):
        capabilities = ("train", "encode", "decode")

    class DeclaresLargestPair(broken.LargestTiedPair):
        profile = "largest-pair"

    class ReferenceWithoutLoad(Tokenizer):
        capabilities = ("train", "encode", "decode")

    verify_vector(InProcessSubject(WithoutLoad), vector)
    verify_vector(InProcessSubject(ReferenceWithoutLoad), vector_cases("training.json")[0])
    verify_vector(InProcessSubject(DeclaresLargestPair), vector_cases("training.json")[0])
    invalid = next(vector for vector in vector_cases("invalid.json") if vector["description"] == "max_merges True")
    with pytest.raises(Violation) as caught:
        verify_vector(InProcessSubject(broken.AcceptsBoolMaxMerges), invalid)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-TRAIN-MAXMERGES",
        "TypeError",
        "returned [[97, 98]]",
    )


# --- decoding under a lenient declared profile (BPE-DECODE-STRICT as the profile relaxes it) -------------


def dialect(profile: Any, **overrides: Any) -> type:
    """An implementation that follows ``profile`` exactly (the profile's literal reference), with overrides."""

    class Dialect:
        def __init__(self) -> None:
            self.model = ProfileModel(profile)

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            return self.model.train(documents, max_merges)

        def encode(self, text: str) -> list[int]:
            return self.model.encode(text)

        def decode(self, ids: list[int]) -> str:
            return self.model.decode(ids)

    Dialect.profile = profile.name
    for name, method in overrides.items():
        setattr(Dialect, name, method)
    return Dialect


class StrictDeclaringMinbpe(LiteralTokenizer):
    """Decodes strictly although its declared profile replaces invalid UTF-8."""

    profile = "minbpe"


class BoolIdsDeclaringMinbpe(broken.AcceptsBoolIds):
    profile = "minbpe"


class WrongErrorKindDeclaringMinbpe(LiteralTokenizer):
    profile = "minbpe"

    def decode(self, ids: list[int]) -> str:
        if any(type(token) is bool for token in ids):
            raise ValueError("bool ids are not ids")
        return super().decode(ids)


@pytest.mark.parametrize(
    ("implementation", "kind", "clause", "expected", "actual", "fragment"),
    [
        (
            StrictDeclaringMinbpe,
            "byte ff",
            "BPE-DECODE-STRICT",
            "a\ufffd",
            "raised ValueError: ids decode to invalid UTF-8 at byte offset 1 (invalid start byte): 61 ff",
            "under profile minbpe (decode_policy=replace) must return 'a\ufffd', but it raised ValueError",
        ),
        (
            BoolIdsDeclaringMinbpe,
            "bool id",
            "BPE-INPUT-IDS",
            "TypeError",
            "returned 'aa\\x01'",
            "with a bool id under profile minbpe (decode_policy=replace) must raise TypeError, but it returned",
        ),
    ],
)
def test_a_lenient_profile_expects_its_own_answer(
    implementation: type, kind: str, clause: str, expected: str, actual: str, fragment: str
) -> None:
    """Under replace/skip-unknown policies the profile's answer (U+FFFD, or the strict error kind) is required."""
    example = {"documents": ["abab"], "max_merges": 1, "kind": kind, "prefix": "a"}
    with pytest.raises(Violation) as caught:
        CHECKS["decode-strict"].verify(InProcessSubject(implementation), example)
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == (clause, expected, actual)
    assert violation.inputs["problem"] == kind and violation.inputs["rules"] == [[97, 98]]
    assert fragment in violation.message


@pytest.mark.parametrize("profile", [MINBPE, HF_TOKENIZERS], ids=lambda profile: profile.name)
@pytest.mark.parametrize("kind", BAD_ID_KINDS)
def test_a_dialect_that_follows_its_lenient_profile_passes_decode_strict(profile: Any, kind: str) -> None:
    """The same bad ids are no violation for an implementation that gives its profile's answer."""
    example = {"documents": ["abab", "低低"], "max_merges": 4, "kind": kind, "prefix": "é"}
    CHECKS["decode-strict"].verify(InProcessSubject(dialect(profile)), example)


def test_vocab_size_under_skip_unknown_drops_the_next_id() -> None:
    """BPE-VOCAB-SIZE under hf-tokenizers: an id past the vocabulary decodes to nothing, it does not raise."""
    example = {"documents": ["abab"], "max_merges": 3}
    CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS)), example)

    def raise_on_unknown(self: Any, ids: list[int]) -> str:
        if any(token >= 256 + len(self.model.rules) for token in ids):
            raise ValueError("unknown id")
        return self.model.decode(ids)

    with pytest.raises(Violation) as caught:
        CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS, decode=raise_on_unknown)), example)
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-VOCAB-SIZE", "", "ValueError: unknown id")
    assert violation.inputs["ids"] == [257] and violation.message.endswith("must be unknown (dropped: decodes to '')")

    def drop_only_the_next_id(self: Any, ids: list[int]) -> str:
        if any(token > 256 + len(self.model.rules) for token in ids):
            raise ValueError("unknown id")
        return self.model.decode([token for token in ids if token != 256 + len(self.model.rules)])

    with pytest.raises(Violation) as caught:
        CHECKS["vocab-size"].verify(InProcessSubject(dialect(HF_TOKENIZERS, decode=drop_only_the_next_id)), example)
    violation = caught.value
    assert (violation.expected, violation.actual, violation.inputs["ids"]) == ("", "ValueError: unknown id", [258])


# --- boundary ids inside a text, and rule lists a piece-rank encoder may refuse ---------------------------


class BoundariesOnlyAtTheEnds(LiteralTokenizer):
    """Ignores 256 and 257 around the ids but spells them '|' anywhere else."""

    def decode(self, ids: list[int]) -> str:
        ids = list(ids)
        while ids and ids[0] in (256, 257):
            ids.pop(0)
        while ids and ids[-1] in (256, 257):
            ids.pop()
        inner = [124 if token in (256, 257) else token for token in ids]
        return super().decode(inner)


class BoundariesAsBytes(LiteralTokenizer):
    """Spells 256 and 257 as '<' and '>'."""

    def decode(self, ids: list[int]) -> str:
        return super().decode([{256: 60, 257: 62}.get(token, token) for token in ids])


def test_boundary_ids_must_decode_to_nothing_alone_and_inside_a_text() -> None:
    """BPE-ALPHA-BOUNDARY: [256, 257] is the empty text, and boundaries cut into a text leave it whole."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["xyz"], "cut": 1}
    alone = violation_of("boundary-ids", BoundariesAsBytes, example)
    assert (alone.clause, alone.expected, alone.actual) == ("BPE-ALPHA-BOUNDARY", "", "<>")
    assert alone.inputs["ids"] == [256, 257] and alone.message.startswith("decode([256, 257]) must be empty")
    inside = violation_of("boundary-ids", BoundariesOnlyAtTheEnds, example)
    assert (inside.clause, inside.expected, inside.actual) == ("BPE-ALPHA-BOUNDARY", "abab", "ab||ab")
    assert inside.inputs["ids"] == [258, 257, 256, 258]
    assert inside.message.startswith("decode([258, 257, 256, 258]) must ignore the boundary ids")


def recording_decodes(decoded: list[list[int]]) -> type:
    """The literal reference, appending every id list it is asked to decode to ``decoded``."""

    class RecordsDecodes(LiteralTokenizer):
        def decode(self, ids: list[int]) -> str:
            decoded.append(list(ids))
            return super().decode(ids)

    return RecordsDecodes


@pytest.mark.parametrize("cut", range(5))
def test_the_cut_is_a_place_between_ids_counted_round_both_ends(cut: int) -> None:
    """BPE-ALPHA-BOUNDARY: the example's cut is taken modulo len(ids) + 1, the places from front to back.

    "abab" under (97, 98) is [258, 258]: three places, so cut 3 is the front again and cut 4 the middle.
    """
    decoded: list[list[int]] = []
    example = {"documents": ["abab"], "max_merges": 1, "texts": [], "cut": cut}
    CHECKS["boundary-ids"].verify(InProcessSubject(recording_decodes(decoded)), example)
    place = cut % 3
    assert decoded[-1] == [*[258, 258][:place], 257, 256, *[258, 258][place:]]


def _refusing(refuse: Any, profile: str) -> type:
    class Refusing(LiteralTokenizer):
        def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
            if refuse(rules):
                raise ValueError("two rules make the same piece")
            return super().load(rules)

    Refusing.profile = profile
    return Refusing


def test_only_a_piece_rank_encoder_may_refuse_rules_that_repeat_a_piece() -> None:
    """BPE-ENCODE-ORDER under tiktoken: one rank per piece, so a repeated piece may be refused with ValueError."""
    repeated = {"rules": [(97, 98), (97, 98)], "texts": ["abab"]}
    distinct = {"rules": [(97, 98), (258, 99)], "texts": ["abc"]}
    dialect_refusal = _refusing(lambda rules: len(set(rules)) < len(rules), "tiktoken")
    CHECKS["encode-loaded-rules"].verify(InProcessSubject(dialect_refusal), repeated)
    for implementation, example in (
        (_refusing(lambda rules: True, "tiktoken"), distinct),
        (_refusing(lambda rules: len(set(rules)) < len(rules), "strict"), repeated),
    ):
        with pytest.raises(ImplementationRaised, match="two rules make the same piece"):
            CHECKS["encode-loaded-rules"].verify(InProcessSubject(implementation), example)


# --- document order: each permutation is named and reproducible (BPE-PROP-PERMUTE) ----------------------


@pytest.mark.parametrize(
    ("documents", "seed", "label", "permuted"),
    [
        (["abab", "acac", "acac", "abab"], 0, "shuffled with seed 0", ["acac", "abab", "acac", "abab"]),
        (["acac", "abab", "abab", "acac"], 1, "sorted", ["abab", "abab", "acac", "acac"]),
    ],
)
def test_the_failing_permutation_is_named_and_given(
    documents: list[str], seed: int, label: str, permuted: list
) -> None:
    """Reversed, shuffled with the example's seed, sorted: the first that changes the rules is reported."""
    violation = violation_of(
        "document-order", broken.FirstSeenTieBreak, {"documents": documents, "max_merges": 2, "seed": seed}
    )
    assert violation.inputs["permuted_documents"] == permuted
    assert f"training on the documents {label} gave other rules" in violation.message


def test_the_shuffled_permutation_is_reproducible_from_its_seed() -> None:
    """A failure names its seed, so the same seed must give the same shuffle (random.Random(seed))."""
    documents = [f"document {number}" for number in range(12)]
    shuffled = list(documents)
    random.Random(5).shuffle(shuffled)
    permutations = _permutations(documents, 5)
    assert permutations == _permutations(documents, 5)
    assert permutations == [
        ("reversed", documents[::-1]),
        ("shuffled with seed 5", shuffled),
        ("sorted", sorted(documents)),
    ]


# --- validation under a declared profile: which bad calls the profile itself accepts -----------------------


def test_the_set_up_model_has_every_rule_the_profile_makes_and_never_runs_out_of_pairs() -> None:
    """Bad calls are made against a model with rules; setting up never asks a trainer past its last pair."""
    assert (setup_merges(STRICT), setup_merges(MINBPE)) == (2, 5)
    for profile in (STRICT, MINBPE, HF_TOKENIZERS):
        assert not pairs_run_out(["abab", "acac"], setup_merges(profile), profile)


def test_the_profile_judges_a_bad_call_on_a_model_set_up_like_the_subjects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The profile's reference is trained on the set-up documents when the subject can train, else loaded with
    the rules that training makes first, (97, 98) and (97, 99): both sides see the same model."""
    calls: list[tuple[Any, ...]] = []

    class RecordingModel(ProfileModel):
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            calls.append(("train", list(documents), max_merges))
            return super().train(documents, max_merges)

        def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
            calls.append(("load", list(rules)))
            return super().load(rules)

    monkeypatch.setattr(validation, "ProfileModel", RecordingModel)
    assert profile_accepts(IDS_CASES[-1], HF_TOKENIZERS, True)
    assert calls == [("train", ["abab", "acac"], setup_merges(HF_TOKENIZERS))]
    calls.clear()
    assert profile_accepts(IDS_CASES[-1], HF_TOKENIZERS, False)
    assert calls == [("load", LiteralTokenizer().train(["abab", "acac"], 2))]
    assert calls[0][1] == [(97, 98), (97, 99)]
    calls.clear()
    verify_rejection(InProcessSubject(dialect(HF_TOKENIZERS)), IDS_CASES[-1])  # it can train
    assert calls == [("train", ["abab", "acac"], setup_merges(HF_TOKENIZERS))]


def test_a_profile_accepts_only_the_bad_calls_its_own_reference_accepts() -> None:
    """hf-tokenizers drops a huge unknown id; tiktoken replaces lone surrogates; max_merges stays strict."""
    assert [profile_accepts(case, HF_TOKENIZERS, True) for case in IDS_CASES] == [False] * 10 + [True]
    assert [profile_accepts(case, TIKTOKEN, False) for case in TEXT_CASES] == [False, False, False, True, True, True]
    assert not any(profile_accepts(case, MINBPE, True) for case in MAX_MERGES_CASES)
    lenient = dialect(HF_TOKENIZERS)
    CHECKS["ids-validation"].verify(InProcessSubject(lenient), IDS_CASES[-1])
    with pytest.raises(Violation) as caught:
        CHECKS["ids-validation"].verify(
            InProcessSubject(dialect(HF_TOKENIZERS, decode=lambda self, ids: "")), IDS_CASES[0]
        )
    assert caught.value.clause == "BPE-INPUT-IDS"


# --- determinism of encoding, fresh instances, unique pieces of malformed rules, wrong error kinds --------


class EncodeAlternates(LiteralTokenizer):
    """Returns the canonical ids, then the raw bytes, then the canonical ids again..."""

    def encode(self, text: str) -> list[int]:
        self.calls = getattr(self, "calls", 0) + 1
        return super().encode(text) if self.calls % 2 else list(text.encode("utf-8"))


def test_determinism_covers_encoding_and_fresh_instances() -> None:
    """BPE-PROP-DETERMINISM: the same text twice gives the same ids; a fresh instance gives the same rules."""
    violation = violation_of("determinism", EncodeAlternates, {"documents": ["abab"], "max_merges": 1, "texts": []})
    assert violation.clause == "BPE-PROP-DETERMINISM"
    assert violation.inputs == {"documents": ["abab"], "max_merges": 1, "text": "abab"}
    assert (violation.expected, violation.actual) == ([258, 258], [97, 98, 97, 98])
    assert "encode('abab') gave different ids on a second call" in violation.message

    class TrainOnly(EncodeAlternates):
        capabilities = ("train",)

    CHECKS["determinism"].verify(InProcessSubject(TrainOnly), {"documents": ["abab"], "max_merges": 1, "texts": []})

    class TiesPerInstance(LiteralTokenizer):
        instances = 0

        def __init__(self) -> None:
            type(self).instances += 1
            super().__init__()

        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            select = broken.select_largest_tied if type(self).instances % 2 else broken.select_pair
            return self._adopt(broken.literal_train(documents, max_merges, select=select))

    violation = violation_of(
        "determinism", TiesPerInstance, {"documents": ["abab", "acac"], "max_merges": 2, "texts": []}
    )
    assert (violation.expected, violation.actual) == ([[97, 99], [97, 98]], [[97, 98], [97, 99]])
    assert "gave other rules on a fresh instance" in violation.message


def trains_to(rules: list[tuple[int, int]]) -> type:
    """An implementation whose train returns ``rules`` whatever the documents."""
    return type("TrainsTo", (LiteralTokenizer,), {"train": lambda self, documents, max_merges: list(rules)})


@pytest.mark.parametrize(
    ("rules", "piece"),
    [
        ([(97, 98), (258, 257)], "61 62"),  # the end id adds nothing to rule 0's piece
        ([(256, 97), (257, 97)], "61"),  # boundary ids spell nothing
        ([(97, 258), (97, 256)], "61"),  # an id that names no rule yet spells nothing either
        ([(0, 97), (97, 0)], None),  # byte 0 is a byte like any other
        ([(97, 258), (97, 97)], None),  # a rule naming itself spells only its other part
    ],
)
def test_unique_pieces_spells_malformed_rules_as_far_as_they_go(rules: list, piece: str | None) -> None:
    """BPE-PROP-UNIQUE: pieces of ids that are no rule yet are empty, boundaries are empty, bytes are bytes."""
    example = {"documents": ["abab"], "max_merges": 2}
    if piece is None:
        CHECKS["unique-pieces"].verify(InProcessSubject(trains_to(rules)), example)
        return
    violation = violation_of("unique-pieces", trains_to(rules), example)
    assert f"rules 0 and 1 have the same piece {piece}" in violation.message
    assert violation.actual == [list(rule) for rule in rules]


class BoolMaxMergesIsValueError(LiteralTokenizer):
    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(max_merges, bool):
            raise ValueError("max_merges is a bool")
        return super().train(documents, max_merges)


def test_a_rejection_with_the_other_error_family_is_an_advisory_not_a_violation() -> None:
    """BPE-TRAIN-MAXMERGES: a bool max_merges should be a TypeError; a ValueError (the seed's) is a note."""
    case = MAX_MERGES_CASES[2]
    with collecting() as notes:
        verify_rejection(InProcessSubject(BoolMaxMergesIsValueError), case)
    (note,) = notes
    assert "BPE-TRAIN-MAXMERGES" in note and "raised ValueError" in note and "prefers TypeError" in note


def test_decode_strict_takes_the_other_family_as_an_advisory() -> None:
    """An unknown id should be a ValueError; a TypeError is an advisory note, under strict and lenient policies."""
    cases = ((UnknownIdsAreTypeErrors, "far unknown id"), (WrongErrorKindDeclaringMinbpe, "bool id"))
    for implementation, kind in cases:
        example = {"documents": ["abab"], "max_merges": 1, "kind": kind, "prefix": ""}
        with collecting() as notes:
            CHECKS["decode-strict"].verify(InProcessSubject(implementation), example)
        assert len(notes) == 1 and "prefers" in notes[0], implementation


def test_an_implementation_without_train_is_set_up_by_load() -> None:
    """A load-only implementation gets the rules (97, 98), (97, 99) loaded before the bad encode/decode/load."""

    class LoadOnly(LiteralTokenizer):
        capabilities = ("load", "encode", "decode")

    for case in [case for case in ALL_CASES if case.operation != "train"]:
        verify_rejection(InProcessSubject(LoadOnly), case)
    minbpe_accepting = dialect(MINBPE, train=lambda self, documents, max_merges: [])
    with pytest.raises(Violation):
        verify_rejection(InProcessSubject(minbpe_accepting), MAX_MERGES_CASES[0])


# --- decoding: which ids each check decodes, and what its failure says (BPE-DECODE-*) ---------------------


def test_decode_strict_has_nothing_to_ask_when_no_rule_piece_is_partial() -> None:
    """BPE-DECODE-STRICT: "partial rule piece" needs a rule whose piece is not UTF-8; without one, no call."""
    example = {"documents": ["abab"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"}
    CHECKS["decode-strict"].verify(InProcessSubject(broken.LenientDecoder), example)


def test_a_partial_rule_piece_is_found_among_the_profiles_own_rule_ids() -> None:
    """Under minbpe rule 0 is id 256: its partial piece must decode to U+FFFD (replace), not raise."""
    example = {"documents": ["低低"], "max_merges": 1, "kind": "partial rule piece", "prefix": "a"}
    violation = violation_of("decode-strict", StrictDeclaringMinbpe, example)
    assert (violation.clause, violation.expected, violation.actual) == (
        "BPE-DECODE-STRICT",
        "a\ufffd\ufffd",
        "returned 'a'",
    )
    assert violation.inputs["ids"] == [97, 256] and violation.inputs["rules"] == [[189, 142]]


class DecodesPieceByPieceReplacing(LiteralTokenizer):
    """Decodes each id's piece on its own and replaces what is not UTF-8 there."""

    def decode(self, ids: list[int]) -> str:
        return "".join(self.decode_bytes([token]).decode("utf-8", errors="replace") for token in ids)


def test_decode_bytes_decodes_the_canonical_the_exploded_and_the_byte_ids() -> None:
    """BPE-DECODE-BYTES: the example's explode choices replace tokens by their bytes, splitting characters anew."""
    decoded: list[list[int]] = []
    example = {"documents": ["低低低低"], "max_merges": 2, "texts": [], "explode": [True, False]}
    CHECKS["decode-bytes-level"].verify(InProcessSubject(recording_decodes(decoded)), example)
    byte_ids = list("低低低低".encode())
    assert decoded == [[259, 259, 259, 259], [228, 189, 142, 259, 228, 189, 142, 259], byte_ids]


def test_a_character_split_across_pieces_must_decode_whole() -> None:
    """BPE-DECODE-BYTES: a replacement character where the bytes together are valid UTF-8 is a violation."""
    example = {"documents": ["低低"], "max_merges": 1, "texts": [], "explode": []}
    violation = violation_of("decode-bytes-level", DecodesPieceByPieceReplacing, example)
    assert (violation.clause, violation.expected) == ("BPE-DECODE-BYTES", "低低")
    assert violation.actual == "\ufffd" * 6 and violation.inputs["ids"] == [228, 258, 228, 258]
    assert violation.message == "decode([228, 258, 228, 258]) must decode the concatenated bytes, not each piece"


class JoinsPiecesBackwards(LiteralTokenizer):
    """Decodes one id right, but joins the pieces of several ids last to first."""

    def decode(self, ids: list[int]) -> str:
        return super().decode(list(ids)[::-1])


def test_decode_concatenates_joins_the_pieces_of_the_texts_in_order() -> None:
    """BPE-DECODE-CONCAT: the canonical ids of the texts, all together, decode to the texts joined."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["abc", "d"]}
    violation = violation_of("decode-concatenates", JoinsPiecesBackwards, example)
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-DECODE-CONCAT", "abcd", "dcab")
    assert violation.inputs == {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [258, 99, 100]}
    assert violation.message == "decode([258, 99, 100]) is not its pieces concatenated"


def test_decode_concatenates_checks_every_rule_after_a_partial_piece() -> None:
    """BPE-DECODE-CONCAT: rule 0 (bytes bd 8e) is no text alone and is skipped; rule 1 (低) is still checked."""
    example = {"documents": ["低低低低"], "max_merges": 2, "texts": []}
    violation = violation_of("decode-concatenates", broken.PiecesReversed, example)
    assert (violation.clause, violation.inputs["ids"], violation.expected) == ("BPE-DECODE-CONCAT", [259], "低")


def test_decode_concatenates_judges_rule_pieces_only_not_the_boundary_ids() -> None:
    """One bug, one failing check: boundary ids spelt as bytes break BPE-ALPHA-BOUNDARY, not BPE-DECODE-CONCAT."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": ["ab"], "cut": 0}
    CHECKS["decode-concatenates"].verify(InProcessSubject(BoundariesAsBytes), example)
    assert violation_of("boundary-ids", BoundariesAsBytes, example).clause == "BPE-ALPHA-BOUNDARY"


# --- why a check does not apply under a profile (the report prints it) -------------------------------------


def test_a_skipped_check_names_the_parameter_its_value_and_why() -> None:
    """Boundary ids and document order: the reason names the profile parameter that makes the clause moot."""
    separate_first_seen = dataclasses.replace(STRICT, name="separate-first-seen", tie_break="first-seen")
    assert boundary_inapplicable(MINBPE) == (
        "not applicable under profile minbpe (boundary_ids=False: ids 256 and 257 are the first two rules, "
        "not boundaries)"
    )
    assert document_order_inapplicable(MINBPE) == (
        "not applicable under profile minbpe (documents=concatenated: the order of the joined documents changes "
        "the pairs at the seams)"
    )
    assert document_order_inapplicable(separate_first_seen) == (
        "not applicable under profile separate-first-seen (tie_break=first-seen: which tied pair is seen first "
        "depends on the document order)"
    )
    words = dataclasses.replace(STRICT, name="words", pre_tokenization=r"\w+|\s+")
    assert pre_tokenization_inapplicable(words) == (
        "not applicable under profile words (pre_tokenization=\\w+|\\s+: the profile splits text into chunks "
        "before merging)"
    )
    assert boundary_inapplicable(STRICT) is None and document_order_inapplicable(HF_TOKENIZERS) is None
    assert pre_tokenization_inapplicable(STRICT) is None
    assert cross_document_inapplicable(MINBPE) == (
        "not applicable under profile minbpe (documents=concatenated: the profile counts pairs across documents "
        "on purpose)"
    )
    assert vectors_inapplicable(RUSTBPE) == (
        "not applicable under profile rustbpe (min_count=1, first_rule_id=256, boundary_ids=False: the vectors "
        "hold strict answers)"
    )


# --- determinism: both encodings of a text are compared (BPE-PROP-DETERMINISM) -----------------------------


def test_determinism_compares_two_encodings_of_each_text() -> None:
    """BPE-PROP-DETERMINISM: an encoder whose third answer differs is caught on the second text."""

    class ThirdAnswerDiffers(LiteralTokenizer):
        def encode(self, text: str) -> list[int]:
            self.calls = getattr(self, "calls", 0) + 1
            return list(text.encode("utf-8")) if self.calls == 3 else super().encode(text)

    example = {"documents": ["abab", "acac"], "max_merges": 2, "texts": []}
    violation = violation_of("determinism", ThirdAnswerDiffers, example)
    assert violation.inputs["text"] == "acac"
    assert (violation.expected, violation.actual) == ([97, 99, 97, 99], [259, 259])


# --- rule ids: what an encoding after training may contain (BPE-RULE-ID, BPE-ENCODE-BOUNDARY) --------------


class BoundaryInTheBody(LiteralTokenizer):
    def encode(self, text: str) -> list[int]:
        return [256, *super().encode(text)]


class EncodesTheTextReversed(LiteralTokenizer):
    def encode(self, text: str) -> list[int]:
        return super().encode(text[::-1])


def test_rule_ids_blames_a_boundary_id_in_a_body_on_the_boundary_clause() -> None:
    """BPE-ENCODE-BOUNDARY: 256 and 257 never appear in the encoding of a text; BPE-RULE-ID for the rest."""
    example = {"documents": ["abab"], "max_merges": 1, "texts": []}
    boundary = violation_of("rule-ids", BoundaryInTheBody, example)
    assert boundary.clause == "BPE-ENCODE-BOUNDARY" and boundary.actual == {"ids": [256, 258, 258]}
    assert boundary.message == "encode('abab') after training: boundary id 256 at position 0 of a body encoding"
    reversed_text = violation_of("rule-ids", EncodesTheTextReversed, example)
    assert reversed_text.clause == "BPE-RULE-ID" and reversed_text.actual == {"ids": [98, 258, 97]}
    assert reversed_text.expected == {"rules": [[97, 98]], "utf8_hex": "61626162"}
    assert "the ids, read as 258 + rank of the returned rules, spell other bytes" in reversed_text.message


# --- training failures: the first divergent round and the profile judged by (BPE-TRAIN-*) -------------------


def test_a_training_failure_names_an_earlier_divergence_and_a_lenient_profile() -> None:
    """A check reports its own round; if the rules left the specification's earlier, the message says where.

    Round 0 picks (100, 99) (count 2) over (99, 100) (count 3): greedy-selection's finding, so tie-break
    judges round 1 in the state the implementation's rules leave and reports that, pointing back at round 0.
    """
    example = {"documents": ["abab", "acac", "cdcdcd"], "max_merges": 2}
    later = violation_of("tie-break", trains_to([(100, 99), (97, 99)]), example)
    assert later.clause == "BPE-TRAIN-TIE" and later.divergence["round"] == 0
    assert later.message.startswith("train(documents, 2) round 1: expected (97, 98) (count 2), got (97, 99) (count 2)")
    assert later.message.endswith(" (the rules first differ from the specification's at round 0)")
    same_round = violation_of("tie-break", broken.LargestTiedPair, {"documents": ["abab", "acac"], "max_merges": 2})
    assert same_round.divergence["round"] == 0 and "first differ" not in same_round.message


def test_a_training_failure_under_a_profile_is_judged_and_diagnosed_by_that_profile() -> None:
    """Under largest-pair, (97, 99) is the answer: the divergence and the message are the profile's."""
    stops = type("StopsAtTwoDeclaringLargestPair", (broken.StopsAtTwo,), {"profile": "largest-pair"})
    violation = violation_of("stop-rule", stops, {"documents": ["abab", "acac"], "max_merges": 2})
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-TRAIN-STOP", [[97, 99], [97, 98]], [])
    assert violation.divergence["expected"] == {"pair": [97, 99], "count": 2}
    assert violation.message.startswith("train(documents, 2) round 0: expected (97, 99) (count 2), got no rule")
    assert violation.message.endswith(" (judged under profile largest-pair)")


def test_documents_as_given_also_reports_pairs_across_documents() -> None:
    """BPE-TRAIN-DOCS is documents-as-given's too: joined documents are documents not counted as given."""
    violation = violation_of(
        "documents-as-given", broken.TrainsOnJoinedDocuments, {"documents": ["xay", "xby", "xcy"], "max_merges": 1}
    )
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-TRAIN-DOCS", [], [[121, 120]])


# --- no pre-tokenization in encoding, a clean training input, a model kept after a rejected call --------------


class EncodesWordByWord(LiteralTokenizer):
    """Trains on the raw documents but encodes each run of spaces or non-spaces on its own."""

    def encode(self, text: str) -> list[int]:
        encode = super().encode
        return [token for chunk in re.findall(r"\s+|\S+", text) for token in encode(chunk)]


def recording_encodes(encoded: list[str]) -> type:
    """The literal reference, appending every text it is asked to encode to ``encoded``."""

    class RecordsEncodes(LiteralTokenizer):
        def encode(self, text: str) -> list[int]:
            encoded.append(text)
            return super().encode(text)

    return RecordsEncodes


def test_no_pre_tokenization_checks_the_encodings_too() -> None:
    """BPE-ENCODE-RAW: rules trained right but applied word by word are a violation of encoding."""
    example = {"documents": ["the cat, the hat, the mat, the bat"], "max_merges": 2}
    violation = violation_of("no-pre-tokenization", EncodesWordByWord, example)
    assert (violation.clause, violation.inputs["text"]) == ("BPE-ENCODE-RAW", example["documents"][0])
    assert violation.message.startswith(f"encode({example['documents'][0]!r}) after training gave ids")


def test_no_pre_tokenization_encodes_the_documents_joined_by_space_comma_and_newline() -> None:
    """BPE-ENCODE-RAW: the joined documents put spaces and punctuation between pairs the rules know."""
    encoded: list[str] = []
    example = {"documents": ["ab", "cd"], "max_merges": 2}
    CHECKS["no-pre-tokenization"].verify(InProcessSubject(recording_encodes(encoded)), example)
    assert encoded == ["ab", "cd", "ab cd", "ab, cd", "ab\ncd"]


def test_no_pre_tokenization_leaves_other_encoding_bugs_to_their_checks() -> None:
    """One bug, one failing check: rules applied last to first break BPE-ENCODE-ORDER, not BPE-ENCODE-RAW."""
    example = {"documents": ["abcbc", "abcbc"], "max_merges": 2}
    CHECKS["no-pre-tokenization"].verify(InProcessSubject(broken.EncodesRulesInReverse), example)
    assert violation_of("encode-trained", broken.EncodesRulesInReverse, {**example, "texts": []}).clause == (
        "BPE-ENCODE-ORDER"
    )


class TrainsOnWhatItEncoded(LiteralTokenizer):
    """Adds every text it has encoded to the documents of its next training run."""

    def encode(self, text: str) -> list[int]:
        self.encoded = [*getattr(self, "encoded", []), text]
        return super().encode(text)

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return super().train([*documents, *getattr(self, "encoded", [])], max_merges)


def test_training_sees_only_its_documents_not_the_texts_encoded_before() -> None:
    """BPE-TRAIN-INPUT: texts encoded between two training runs take no part in the second."""
    example = {"documents": ["abab"], "max_merges": 2, "earlier": [], "texts": ["cdcd"]}
    violation = violation_of("training-sees-only-its-documents", TrainsOnWhatItEncoded, example)
    assert (violation.clause, violation.expected, violation.actual) == (
        "BPE-TRAIN-INPUT",
        [[97, 98]],
        [[97, 98], [99, 100]],
    )
    assert violation.inputs["encoded"] == ["cdcd"]


class LosesTheModelOnARejectedTrain(LiteralTokenizer):
    """Marks the model lost before validating train's arguments; encode then raises."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.lost = True
        rules = super().train(documents, max_merges)
        self.lost = False
        return rules

    def encode(self, text: str) -> list[int]:
        if getattr(self, "lost", False):
            raise RuntimeError("the model is gone")
        return super().encode(text)


def test_a_model_that_cannot_encode_after_a_rejected_call_is_a_violation() -> None:
    """BPE-TRAIN-MAXMERGES: a rejected train must leave a model that still encodes; the error is the answer."""
    example = {"documents": ["abab"], "max_merges": 2, "texts": [], "call": MAX_MERGES_CASES[0]}
    violation = violation_of("failed-call-keeps-model", LosesTheModelOnARejectedTrain, example)
    assert (violation.clause, violation.expected) == ("BPE-TRAIN-MAXMERGES", [[258, 258]])
    assert violation.actual == "encode raised RuntimeError: the model is gone"


# --- replacement seen through encoding (BPE-MERGE-SCAN), and the texts the encoding checks use ----------------


class EncodesRightToLeft(LiteralTokenizer):
    """Trains right, but applies each rule scanning from the right end when encoding."""

    def encode(self, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(self._rules):
            ids = broken.replace_right_to_left(ids, pair, 258 + rank)
        return ids


def test_merge_scan_checks_the_encodings_of_runs_too() -> None:
    """BPE-MERGE-SCAN: rules trained right but applied from the right are a violation of encoding."""
    violation = violation_of("merge-scan", EncodesRightToLeft, {"documents": ["aaab", "aaab"], "max_merges": 2})
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-MERGE-SCAN", [258, 259], [97, 258, 98])
    assert violation.message.startswith("encode('aaab') after training on runs gave ids")


def test_merge_scan_encodes_the_documents_and_runs_of_one_to_seven_of_their_first_characters() -> None:
    """Odd and even runs of each first character: where a scan from the wrong end or with overlap shows."""
    runs = [char * length for char in "ab" for length in range(1, 8)]
    assert _run_texts(["ba", "", "a", "bc"]) == ["ba", "", "a", "bc", *runs]


def test_loaded_rules_are_checked_on_the_text_its_reverse_and_the_text_twice() -> None:
    """BPE-ENCODE-ORDER after load: the reverse and the doubled text put the rules' pairs in new places."""
    assert _with_variants(("abc", [(97, 98)])) == {"rules": [(97, 98)], "texts": ["abc", "cba", "abcabc"]}


def test_merge_scan_leaves_other_encoding_bugs_to_their_checks() -> None:
    """One bug, one failing check: rules applied last to first break BPE-ENCODE-ORDER, not BPE-MERGE-SCAN."""
    CHECKS["merge-scan"].verify(
        InProcessSubject(broken.EncodesRulesInReverse), {"documents": ["abcbc", "abcbc"], "max_merges": 2}
    )


def test_a_wrong_encoding_names_the_text_the_context_and_the_profile() -> None:
    """The message says which text, after what, how many texts were wrong (of several), under which profile."""
    rules = [(98, 99), (97, 258)]
    subject = InProcessSubject(broken.EncodesRulesInReverse)
    subject.load(rules)
    with pytest.raises(Violation) as caught:
        verify_encodings(subject, ["abc"], rules, context="after load(rules)")
    violation = caught.value
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-ENCODE-ORDER", [259], [97, 258])
    assert (
        violation.message
        == "encode('abc') after load(rules) gave ids that are not the canonical encoding under the model's rules"
    )

    def encode_right_to_left(self: Any, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(self.model.rules):
            ids = broken.replace_right_to_left(ids, pair, 256 + rank)
        return ids

    loading = dialect(MINBPE, encode=encode_right_to_left, load=lambda self, rules: self.model.load(rules))
    example = {"rules": [(97, 97)], "texts": ["aaa", "aaaa"]}
    violation = violation_of("encode-loaded-rules", loading, example)
    assert (violation.clause, violation.expected, violation.actual) == ("BPE-MERGE-SCAN", [256, 97], [97, 256])
    assert violation.message.endswith(" (1 of 2 texts were wrong) (profile minbpe: rank-order)")


class _ClearsWhatItIsGiven:
    """Empties every list it is handed, then rejects the call: a rude but legal implementation."""

    def train(self, documents: list[Any], max_merges: Any) -> None:
        documents.clear()
        raise ValueError("documents rejected")

    def load(self, rules: list[Any]) -> None:
        for rule in rules:
            if isinstance(rule, list):
                rule.clear()
        rules.clear()
        raise ValueError("rules rejected")


@pytest.mark.parametrize(
    "case",
    [
        validation.BadCall("train", (["abab", 5], 8), "TypeError", "BPE-INPUT-DOCS", "a document that is not a str"),
        validation.RULES_CASES[2],  # [[97, 98], [258, 260]]: a rule that refers to a later rule
    ],
    ids=["train-documents", "load-nested-rules"],
)
def test_a_bad_call_hands_each_call_its_own_copy_of_the_case(case: validation.BadCall) -> None:
    """The harness must lose or corrupt nothing: a case is shared by every run and every report, so an
    implementation that mutates what it is given (down to the rules inside the list) must not change it."""
    before = repr(case.argument)
    for _ in range(2):
        with pytest.raises(ValueError):
            case.call(_ClearsWhatItIsGiven())
    assert repr(case.argument) == before


class _ModelThatComesBackEveryFourthPass(Tokenizer):
    """Impure: each encoding of "xyxyxyxy" moves its model on one step of a cycle of four (reversed ids
    in three steps of four), so a check that encodes the other texts a multiple of four times misses it."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = 0

    def encode(self, text: str) -> list[int]:
        if text == "xyxyxyxy":
            self.steps += 1
        ids = super().encode(text)
        return ids if self.steps % 4 == 0 else ids[::-1]


def test_encode_pure_snapshots_again_after_encoding_the_other_texts_exactly_twice() -> None:
    """BPE-ENCODE-PURE: "encoding MUST NOT change the model". The check encodes the probes, the other
    texts twice, then the probes again; a model that has moved on by then is caught, whatever its cycle."""
    example = {"documents": ["abcd"], "max_merges": 0, "texts": []}
    with pytest.raises(Violation) as caught:
        CHECKS["encode-pure"].verify(InProcessSubject(_ModelThatComesBackEveryFourthPass), example)
    assert (caught.value.clause, caught.value.expected, caught.value.actual) == (
        "BPE-ENCODE-PURE",
        [97, 98, 99, 100],
        [100, 99, 98, 97],
    )
