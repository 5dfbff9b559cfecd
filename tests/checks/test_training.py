"""Tests of conformance/checks/training.py: the training checks (BPE-TRAIN-*, BPE-RULE-*).

Each test names the clause whose verdict it protects, on small fixed examples.
"""

from __future__ import annotations

from conformance.checks.training import cross_document_inapplicable
from reference import LiteralTokenizer
from reference.profiles import MINBPE, STRICT
from tests.checks.helpers import LOW, assert_inapplicable, trains_to, violation_of
from tests.support import broken_for_checks as broken


def test_training_counterexamples_carry_the_first_divergence() -> None:
    """BPE-TRAIN-RECOUNT: the judged round and the first divergent round are both reported."""
    violation = violation_of("recount-each-round", broken.NeverRecounts, {"documents": [LOW], "max_merges": 2})
    assert violation.divergence["round"] == 1
    assert violation.divergence["expected"] == {"pair": [228, 258], "count": 30}
    assert violation.counterexample()["divergence"] is violation.divergence


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


def test_no_cross_document_pairs_is_skipped_where_the_profile_joins_documents() -> None:
    """BPE-TRAIN-DOCS under minbpe: the reason names documents=concatenated and why."""
    reason = cross_document_inapplicable(MINBPE)
    assert_inapplicable(
        reason,
        "minbpe",
        "documents=concatenated",
        "the profile counts pairs across documents on purpose",
    )
    assert cross_document_inapplicable(STRICT) is None
