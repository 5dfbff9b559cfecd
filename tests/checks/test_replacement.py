"""Tests of conformance/checks/replacement.py: the merge-scan check (BPE-MERGE-SCAN).

Each test names the clause whose verdict it protects, on small fixed examples.
"""

from __future__ import annotations

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.replacement import _run_texts
from bpe_conformance.errors import Violation
from bpe_conformance.reference import LiteralTokenizer
from tests.checks.helpers import CHECKS, violation_of
from tests.support import broken_for_checks as broken


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


def test_merge_scan_reports_other_encoding_bugs_under_their_own_clause() -> None:
    """One bug, one clause: rules applied last to first fail merge-scan's example under BPE-ENCODE-ORDER, the
    clause localisation finds (one rule on runs is replaced right), not BPE-MERGE-SCAN."""
    with pytest.raises(Violation) as raised:
        CHECKS["merge-scan"].verify(
            InProcessSubject(broken.EncodesRulesInReverse), {"documents": ["abcbc", "abcbc"], "max_merges": 2}
        )
    assert raised.value.localisation is not None
    assert raised.value.clause == "BPE-ENCODE-ORDER"
    assert raised.value.localisation["stage"] == "rule-order"
    scans = [e for e in raised.value.localisation["experiments"] if e["stage"] == "replacement-scan"]
    assert scans
    assert all(experiment["agrees"] for experiment in scans)


class TrainsButCannotEncode(LiteralTokenizer):
    """Declares only ``train``: merge-scan judges its rules, and must not ask it to encode."""

    capabilities = ("train",)

    def encode(self, text: str) -> list[int]:
        raise AssertionError("merge-scan asked an implementation without encode to encode")


class ReplacesRightToLeftWithoutEncode(broken.ReplacesRightToLeft):
    capabilities = ("train",)
    encode = TrainsButCannotEncode.encode


def test_merge_scan_judges_only_the_rules_of_an_implementation_without_encode() -> None:
    """BPE-MERGE-SCAN: without the encode capability the rules are the whole evidence; nothing is encoded."""
    example = {"documents": ["aaab", "aaab"], "max_merges": 4}
    subject = InProcessSubject(TrainsButCannotEncode)
    assert not subject.supports("encode")
    CHECKS["merge-scan"].verify(subject, example)
    violation = violation_of("merge-scan", ReplacesRightToLeftWithoutEncode, example)
    assert violation.clause == "BPE-MERGE-SCAN"
    assert violation.divergence is not None
