"""Checks of derived properties: determinism, document order, prefixes, unique pieces (BPE-PROP-*).

These need no expected answer: they compare the implementation with itself.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> verify_prefix(InProcessSubject(Tokenizer), {"documents": ["abcabc", "abd"], "max_merges": 4})
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, Check
from bpe_conformance.checks.common import rules_json, training_examples
from bpe_conformance.checks.examples import SeedExample, TextsExample, TrainingExample, drawn
from bpe_conformance.dialects.context import not_applicable, subject_profile, train_subject
from bpe_conformance.errors import Violation
from bpe_conformance.inputs.strategies import corpora, encode_texts, max_merges_values

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["PROPERTY_CHECKS", "document_order_inapplicable"]

Rules = list[tuple[int, int]]


def _inputs(example: TrainingExample) -> JSONObject:
    return {"documents": list(example["documents"]), "max_merges": example["max_merges"]}


def verify_determinism(subject: Subject, example: TextsExample) -> None:
    """BPE-PROP-DETERMINISM: the same documents give the same rules, and the same text the same ids."""
    documents, max_merges = list(example["documents"]), example["max_merges"]
    first = train_subject(subject, list(documents), max_merges)
    if first is None:
        return
    second = train_subject(subject, list(documents), max_merges)
    subject.reset()
    fresh = train_subject(subject, list(documents), max_merges)
    for label, rules in (("a second call", second), ("a fresh instance", fresh)):
        if rules != first:
            raise Violation(
                "BPE-PROP-DETERMINISM",
                f"training on the same documents gave other rules on {label}",
                inputs=_inputs(example),
                expected=rules_json(first),
                actual=rules_json(rules or []),
            )
    if not subject.supports("encode"):
        return
    for text in [*documents, *example["texts"]]:
        first_ids, second_ids = subject.encode(text), subject.encode(text)
        if first_ids != second_ids:
            raise Violation(
                "BPE-PROP-DETERMINISM",
                f"encode({text!r}) gave different ids on a second call",
                inputs={**_inputs(example), "text": text},
                expected=first_ids,
                actual=second_ids,
            )


def _permutations(documents: list[str], seed: int) -> list[tuple[str, list[str]]]:
    shuffled = list(documents)
    random.Random(seed).shuffle(shuffled)
    return [("reversed", documents[::-1]), (f"shuffled with seed {seed}", shuffled), ("sorted", sorted(documents))]


def document_order_inapplicable(profile: Profile) -> str | None:
    """Why BPE-PROP-PERMUTE does not hold under ``profile``, or None when it does.

    Joined documents make new pairs at each seam, and a first-seen tie-break depends on which
    document comes first; every other tie-break is a function of the tied pairs alone.
    """
    if profile.documents == "concatenated":
        return not_applicable(profile, "documents", "the order of the joined documents changes the pairs at the seams")
    if profile.tie_break == "first-seen":
        return not_applicable(profile, "tie_break", "which tied pair is seen first depends on the document order")
    return None


def verify_document_order(subject: Subject, example: SeedExample) -> None:
    """BPE-PROP-PERMUTE: any permutation of the documents gives the same rules."""
    if document_order_inapplicable(subject_profile(subject)) is not None:
        return
    documents, max_merges = list(example["documents"]), example["max_merges"]
    rules = train_subject(subject, list(documents), max_merges)
    for label, permuted in _permutations(documents, example["seed"]):
        other = train_subject(subject, list(permuted), max_merges)
        if other != rules:
            raise Violation(
                "BPE-PROP-PERMUTE",
                f"training on the documents {label} gave other rules",
                inputs={**_inputs(example), "permuted_documents": permuted},
                expected=rules_json(rules or []),
                actual=rules_json(other or []),
            )


def verify_prefix(subject: Subject, example: TrainingExample) -> None:
    """BPE-PROP-PREFIX: the rules for m merges are a prefix of the rules for m + k merges.

    Checked for every m below the number of rules made with ``max_merges``, so a reordering anywhere shows.
    """
    documents, largest = list(example["documents"]), example["max_merges"]
    longer = train_subject(subject, list(documents), largest)
    if longer is None:
        return
    for max_merges in range(len(longer)):
        shorter = train_subject(subject, list(documents), max_merges) or []
        if longer[: len(shorter)] != shorter:
            raise Violation(
                "BPE-PROP-PREFIX",
                f"the rules for max_merges={max_merges} are not a prefix of those for max_merges={largest}",
                inputs={"documents": documents, "max_merges": max_merges, "larger_max_merges": largest},
                expected=rules_json(longer[: len(shorter)]),
                actual=rules_json(shorter),
            )


def _pieces(rules: Rules, first_rule_id: int) -> list[bytes]:
    """Pieces of the rules' ids; an id that does not exist (yet) counts as empty, the rules may be broken."""
    pieces = [bytes([value]) for value in range(256)] + [b""] * (first_rule_id - 256)
    for first, second in rules:
        pieces.append(b"".join(pieces[part] if 0 <= part < len(pieces) else b"" for part in (first, second)))
    return pieces[first_rule_id:]


def verify_unique_pieces(subject: Subject, example: TrainingExample) -> None:
    """BPE-PROP-UNIQUE: no two trained rules have the same piece (so never the same pair twice)."""
    rules = train_subject(subject, list(example["documents"]), example["max_merges"])
    if rules is None:
        return
    seen: dict[bytes, int] = {}
    for rank, piece in enumerate(_pieces(rules, subject_profile(subject).first_rule_id)):
        if piece in seen:
            raise Violation(
                "BPE-PROP-UNIQUE",
                f"rules {seen[piece]} and {rank} have the same piece {piece.hex(' ')}",
                inputs=_inputs(example),
                expected="distinct pieces",
                actual=rules_json(rules),
            )
        seen[piece] = rank


def _document_order_examples() -> st.SearchStrategy[SeedExample]:
    return drawn(
        SeedExample,
        documents=corpora(min_documents=2, max_documents=4, max_length=20),
        max_merges=max_merges_values(max_value=20),
        seed=st.integers(0, 2**16),
    )


PROPERTY_CHECKS = [
    Check(
        name="determinism",
        level=ALGORITHM,
        clause="BPE-PROP-DETERMINISM",
        summary="the same documents give the same rules (again, and in a fresh instance); the same text the same ids",
        verify=verify_determinism,
        strategy=lambda: drawn(
            TextsExample,
            documents=corpora(max_documents=3, max_length=20),
            max_merges=max_merges_values(max_value=20),
            texts=st.lists(encode_texts(max_length=20), max_size=2),
        ),
        budget=0.5,
    ),
    Check(
        name="document-order",
        level=ALGORITHM,
        clause="BPE-PROP-PERMUTE",
        summary="reversing, shuffling or sorting the documents does not change the rules",
        verify=verify_document_order,
        inapplicable=document_order_inapplicable,
        strategy=_document_order_examples,
        budget=0.5,
    ),
    Check(
        name="prefix",
        level=ALGORITHM,
        clause="BPE-PROP-PREFIX",
        summary="the rules for m merges are a prefix of the rules for m + k merges",
        verify=verify_prefix,
        strategy=lambda: drawn(
            TrainingExample, documents=corpora(max_documents=3, max_length=20), max_merges=st.integers(2, 12)
        ),
        budget=0.5,
    ),
    Check(
        name="unique-pieces",
        level=ALGORITHM,
        clause="BPE-PROP-UNIQUE",
        summary="no two trained rules have the same piece",
        verify=verify_unique_pieces,
        strategy=lambda: training_examples(corpora(max_documents=4, max_length=24)),
        budget=0.5,
    ),
]
