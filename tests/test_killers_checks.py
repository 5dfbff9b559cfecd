"""Every check's counterexample, exactly, on one small example each (found by mutation testing).

``tests/test_checks.py`` shows each check fails on its broken implementation; these tests pin what the
failure says, because the counterexample is the harness's contract with the person reading the report:
the clause, the inputs that reproduce it, the specification's answer and the implementation's. Every
example is fixed and small, so these run in milliseconds and no hypothesis search is involved.
"""

from __future__ import annotations

from typing import Any

import broken_for_checks as broken
import pytest

from conformance.adapters.python import InProcessSubject
from conformance.checks import ALL_CHECKS
from conformance.checks.common import encoding_clause
from conformance.checks.decoding import BAD_ID_KINDS
from conformance.checks.validation import MAX_MERGES_CASES
from conformance.checks.vectors import mismatch_clause, vector_cases, verify_vector
from conformance.errors import ImplementationRaised, Violation
from conformance.identify import ProfileModel
from conformance.profile_context import profile_encode
from conformance.vector_replay import Mismatch
from reference import LiteralTokenizer, Tokenizer
from reference.profiles import HF_TOKENIZERS, MINBPE, STRICT

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
        "did not give the text back",
    ),
    (
        "decode-concatenates",
        broken.PiecesReversed,
        {"documents": ["abab"], "max_merges": 1, "texts": ["ab"]},
        "BPE-DECODE-CONCAT",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [258]},
        "ab",
        "ba",
        "decode([258])",
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
        "a\ufffd",
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
        "aba",
        "must raise ValueError",
    ),
    (
        "decode-strict",
        broken.AcceptsBoolIds,
        {"documents": ["abab"], "max_merges": 1, "kind": "bool id", "prefix": ""},
        "BPE-INPUT-IDS",
        {"documents": ["abab"], "max_merges": 1, "rules": [[97, 98]], "ids": [97, True], "problem": "bool id"},
        "TypeError",
        "a\x01",
        "must raise TypeError",
    ),
    (
        "vocab-size",
        broken.VocabularyFromMaxMerges,
        {"documents": ["abab"], "max_merges": 3},
        "BPE-VOCAB-SIZE",
        {"documents": ["abab"], "max_merges": 3, "rules": [[97, 98]], "ids": [259]},
        "ValueError",
        "",
        "id 259 must be unknown",
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
        "rule 1 (256, 256) refers to boundary id 256",
    ),
    (
        "rule-ids",
        broken.EncodeIdsOffByOne,
        {"documents": ["abab"], "max_merges": 1, "texts": []},
        "BPE-RULE-ID",
        {"documents": ["abab"], "max_merges": 1, "text": "abab"},
        {"rules": [[97, 98]], "utf8_hex": "61626162"},
        {"ids": [259, 259]},
        "id 259 at position 0 names no rule",
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
        "after an earlier training run",
    ),
    (
        "encode-trained",
        broken.EncodesRulesInReverse,
        {"documents": ["abcbc", "abcbc"], "max_merges": 2, "texts": []},
        "BPE-ENCODE-ORDER",
        {"rules": [[98, 99], [97, 258]], "text": "abcbc"},
        [259, 258],
        [97, 258, 258],
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
        "after a rejected train (max_merges -1)",
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
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], STRICT, "BPE-ENCODE-RAW"),  # split at punctuation
        ("ab,ab", [97, 98, 44, 97, 98], [(98, 44)], MINBPE, "BPE-ENCODE-RAW"),
        ("a ,b", [97, 32, 44, 98], [(32, 44), (44, 98)], STRICT, "BPE-ENCODE-RAW"),  # space apart from punctuation
        ("\x80,", [194, 128, 44], [(128, 44)], STRICT, "BPE-ENCODE-RAW"),  # U+0080 is a word character
        ("ab ab", [97, 98, 32, 97, 98], [(98, 32)], STRICT, "BPE-ENCODE-RAW"),
        ("xyz", [1], [(97, 98)], STRICT, "BPE-ENCODE-ORDER"),
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

    verify_vector(InProcessSubject(WithoutLoad), vector)
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
        (
            WrongErrorKindDeclaringMinbpe,
            "bool id",
            "BPE-INPUT-IDS",
            "TypeError",
            "raised ValueError: bool ids are not ids",
            "must raise TypeError, but it raised ValueError",
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
    assert violation.inputs["ids"] == [257] and "dropped: decodes to ''" in violation.message


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
    assert alone.inputs["ids"] == [256, 257] and "must be empty" in alone.message
    inside = violation_of("boundary-ids", BoundariesOnlyAtTheEnds, example)
    assert (inside.clause, inside.expected, inside.actual) == ("BPE-ALPHA-BOUNDARY", "abab", "ab||ab")
    assert inside.inputs["ids"] == [258, 257, 256, 258] and "must ignore the boundary ids" in inside.message


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
