"""Tests of conformance/checks/properties.py: the property checks (BPE-PROP-*).

Each test names the clause whose verdict it protects, on small fixed examples.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.properties import _permutations, document_order_inapplicable
from bpe_conformance.reference import LiteralTokenizer, select_pair
from bpe_conformance.reference.profiles import HF_TOKENIZERS, MINBPE, STRICT
from tests.checks.helpers import (
    CHECKS,
    assert_inapplicable,
    assert_ranges,
    checks_drawing_their_sizes,
    longest,
    trains_to,
    violation_of,
)
from tests.support import broken_for_checks as broken


@pytest.mark.parametrize(
    ("documents", "seed", "label", "permuted"),
    [
        (["abab", "acac", "acac", "abab"], 0, "shuffled with seed 0", ["acac", "abab", "acac", "abab"]),
        (["acac", "abab", "abab", "acac"], 1, "sorted", ["abab", "abab", "acac", "acac"]),
    ],
)
def test_the_failing_permutation_is_named_and_given(
    documents: list[str], seed: int, label: str, permuted: list[str]
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
            select = broken.select_largest_tied if type(self).instances % 2 else select_pair
            return self._adopt(broken.literal_train(documents, max_merges, select=select))

    violation = violation_of(
        "determinism", TiesPerInstance, {"documents": ["abab", "acac"], "max_merges": 2, "texts": []}
    )
    assert (violation.expected, violation.actual) == ([[97, 99], [97, 98]], [[97, 98], [97, 99]])
    assert "gave other rules on a fresh instance" in violation.message


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
def test_unique_pieces_spells_malformed_rules_as_far_as_they_go(rules: list[Any], piece: str | None) -> None:
    """BPE-PROP-UNIQUE: pieces of ids that are no rule yet are empty, boundaries are empty, bytes are bytes."""
    example = {"documents": ["abab"], "max_merges": 2}
    if piece is None:
        CHECKS["unique-pieces"].verify(InProcessSubject(trains_to(rules)), example)
        return
    violation = violation_of("unique-pieces", trains_to(rules), example)
    assert f"rules 0 and 1 have the same piece {piece}" in violation.message
    assert violation.actual == [list(rule) for rule in rules]


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


def test_document_order_is_skipped_where_joined_documents_or_first_seen_ties_make_order_matter() -> None:
    """BPE-PROP-PERMUTE: the reason names the profile parameter that makes the clause moot, and why."""
    separate_first_seen = dataclasses.replace(STRICT, name="separate-first-seen", tie_break="first-seen")
    assert_inapplicable(
        document_order_inapplicable(MINBPE),
        "minbpe",
        "documents=concatenated",
        "the order of the joined documents changes the pairs at the seams",
    )
    assert_inapplicable(
        document_order_inapplicable(separate_first_seen),
        "separate-first-seen",
        "tie_break=first-seen",
        "which tied pair is seen first depends on the document order",
    )
    assert document_order_inapplicable(HF_TOKENIZERS) is None


def test_document_order_examples_have_two_to_four_documents_and_a_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """BPE-PROP-PERMUTE needs two documents at least to permute: 2 to 4 documents of up to 20 characters,
    max_merges from 0 to 20, and a shuffle seed from 0 to 2**16 (the failure names it)."""
    check = checks_drawing_their_sizes(monkeypatch, "bpe_conformance.checks.properties")["document-order"]
    ranges = {
        "documents": (lambda example: len(example["documents"]), 2, 4),
        "document length": (lambda example: longest(example["documents"]), 20, 20),
        "max_merges": (lambda example: example["max_merges"], 0, 20),
        "seed": (lambda example: example["seed"], 0, 2**16),
    }
    assert check.strategy is not None
    assert_ranges(check.strategy(), ranges)
