"""Checks of replacement: left-to-right, non-overlapping, and no same-round rematch (BPE-MERGE-*).

Replacement is not directly observable through the plug-in contract, so it is checked where it shows:
in the rules a run of one byte produces, and in the ids of runs of odd and even length.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> verify_merge_scan(InProcessSubject(Tokenizer), {"documents": ["aaab", "aaab"], "max_merges": 4})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, Check
from bpe_conformance.checks.common import verify_encodings, verify_training_rounds
from bpe_conformance.checks.examples import TrainingExample, drawn
from bpe_conformance.checks.training import stage_clauses_besides
from bpe_conformance.dialects.context import rules_are_valid, subject_profile
from bpe_conformance.inputs.strategies import run_corpora

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject

__all__ = ["REPLACEMENT_CHECKS", "verify_merge_scan"]

_SCAN_CLAUSES = ("BPE-MERGE-SCAN", "BPE-MERGE-NOREMATCH")


def _run_texts(documents: list[str]) -> list[str]:
    """Every document, and runs of 1 to 7 copies of each character the documents start with."""
    starts = sorted({document[0] for document in documents if document})
    return [*documents, *(char * length for char in starts for length in range(1, 8))]


def verify_merge_scan(subject: Subject, example: TrainingExample) -> None:
    """BPE-MERGE-SCAN: ``[a, a, a]`` becomes ``[n, a]``, visible in the rules learned and the ids of runs."""
    documents = list(example["documents"])
    rules = verify_training_rounds(subject, example)
    if rules is None or not subject.supports("encode"):
        return
    if not rules_are_valid(rules, subject_profile(subject)):
        return  # rule-references reports malformed rules
    verify_encodings(subject, _run_texts(documents), rules, context="after training on runs")


REPLACEMENT_CHECKS = [
    Check(
        name="merge-scan",
        level=ALGORITHM,
        clause="BPE-MERGE-SCAN",
        summary="replacement scans left to right without overlap: [a, a, a] -> [n, a], a made token is not rematched",
        verify=verify_merge_scan,
        strategy=lambda: drawn(
            TrainingExample, documents=run_corpora(max_documents=3, max_run=16), max_merges=st.integers(3, 24)
        ),
        also=("BPE-MERGE-NOREMATCH", *stage_clauses_besides("BPE-MERGE-SCAN"), "BPE-ENCODE-ORDER"),
    ),
]
