"""Checks of encoding: exact canonical ids, no pre-tokenization (or, behind a split, the profile's split), and no
side effects (BPE-ENCODE-*, BPE-PRETOK-SPLIT).

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> verify_encode_loaded_rules(InProcessSubject(Tokenizer), {"rules": [(98, 99), (97, 98)], "texts": ["abc"]})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, Check
from bpe_conformance.checks.common import verify_encodings, verify_training_rounds
from bpe_conformance.checks.examples import TextsExample, TrainingExample, drawn
from bpe_conformance.checks.training import stage_clauses_besides
from bpe_conformance.dialects.context import (
    not_applicable,
    profile_pieces_of,
    rules_are_valid,
    subject_profile,
    train_subject,
)
from bpe_conformance.dialects.probes import renumbered
from bpe_conformance.errors import ImplementationRaised, Violation
from bpe_conformance.inputs.split_texts import split_corpora, split_texts
from bpe_conformance.inputs.strategies import (
    corpora,
    encode_texts,
    max_merges_values,
    pretokenization_corpora,
    texts_and_rules,
)

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["ENCODING_CHECKS", "pre_tokenization_inapplicable", "split_inapplicable"]

_ENCODE_CLAUSES = ("BPE-ALPHA-BYTES", "BPE-ENCODE-BOUNDARY", "BPE-MERGE-NOREMATCH", "BPE-MERGE-SCAN", "BPE-ENCODE-RAW")
# Texts whose pairs the training corpora rarely contain: encoding them must not teach the model anything.
_NEW_PAIRS = ("xyxyxyxy", "qqqqqqqq", "zzzz zzzz", "😀😀😀😀", "\x00\x00\x00")


def verify_encode_trained(subject: Subject, example: TextsExample) -> None:
    """BPE-ENCODE-ORDER: after training, training documents and unseen texts get exactly the canonical ids.

    For a training document these are its final training sequence (BPE-TRAIN-INPUT). Canonical is
    the profile's encode algorithm: rank order, or piece rank for tiktoken-style encoders.
    """
    documents = list(example["documents"])
    rules = train_subject(subject, documents, example["max_merges"])
    if rules is not None and rules_are_valid(rules, subject_profile(subject)):
        verify_encodings(subject, [*documents, *example["texts"]], rules, context="after training")


def _has_repeated_piece(rules: list[tuple[int, int]], profile: Profile) -> bool:
    pieces = profile_pieces_of(rules, profile)[profile.first_rule_id :]
    return len(set(pieces)) < len(pieces)


def verify_encode_loaded_rules(subject: Subject, example: LoadedExample) -> None:
    """BPE-ENCODE-ORDER: for any valid rule list given to ``load``, even one training never makes, exact ids.

    The rules are renumbered into the profile's ids. A piece-rank encoder keeps one rank per piece,
    so it may refuse (ValueError) a rule list in which two rules make the same piece.
    """
    profile = subject_profile(subject)
    rules = renumbered([(rule[0], rule[1]) for rule in example["rules"]], profile.first_rule_id)
    try:
        subject.load(list(rules))
    except ImplementationRaised as raised:
        refusable = profile.encode_algorithm == "piece-rank" and _has_repeated_piece(rules, profile)
        if refusable and raised.is_input_error:
            return
        raise
    verify_encodings(subject, list(example["texts"]), rules, context="after load(rules)", loaded=True)


def pre_tokenization_inapplicable(profile: Profile) -> str | None:
    """Why BPE-ENCODE-RAW does not apply under ``profile`` (it pre-tokenizes), or None when it does."""
    if profile.split is not None:
        return not_applicable(profile, "split", "the profile's split pattern replaces it: see pre-tokenization-split")
    if profile.pre_tokenization is None:
        return None
    return not_applicable(profile, "pre_tokenization", "the profile splits text into chunks before merging")


def split_inapplicable(profile: Profile) -> str | None:
    """Why BPE-PRETOK-SPLIT does not apply to a trainer under ``profile`` (it has no split), or None when it does."""
    if profile.split is not None:
        return None
    return not_applicable(profile, "split", "the profile names no split pattern")


def verify_split(subject: Subject, example: TextsExample) -> None:
    """BPE-PRETOK-SPLIT: behind the profile's split, training counts pairs inside chunks only and encoding
    merges chunk by chunk.

    The rules are judged round by round against the reference trained behind the split; a divergence is
    the split's (BPE-PRETOK-SPLIT) when the implementation trains right on the counterexample's own chunks,
    each given as a document. The documents, the documents joined, and other texts are then encoded: a
    token across two chunks, or a chunk encoded right on its own but wrong in its text, is the split's.
    """
    if split_inapplicable(subject_profile(subject)) is not None:
        return
    documents = list(example["documents"])
    rules = verify_training_rounds(subject, {"documents": documents, "max_merges": example["max_merges"]})
    if rules is None or not rules_are_valid(rules, subject_profile(subject)):
        return
    joined = [" ".join(documents), "\n".join(documents), "".join(documents)]
    verify_encodings(subject, [*documents, *joined, *example["texts"]], rules, context="after training")


def verify_no_pretokenization(subject: Subject, example: TrainingExample) -> None:
    """BPE-ENCODE-RAW: merges cross spaces and punctuation, in training and in encoding."""
    if pre_tokenization_inapplicable(subject_profile(subject)) is not None:
        return
    documents = list(example["documents"])
    rules = verify_training_rounds(subject, example)
    if rules is None or not rules_are_valid(rules, subject_profile(subject)):
        return
    joined = [" ".join(documents), ", ".join(documents), "\n".join(documents)]
    verify_encodings(subject, [*documents, *joined], rules, context="after training")


def _snapshot(subject: Subject, texts: list[str]) -> list[list[int]]:
    return [subject.encode(text) for text in texts]


def verify_encode_pure(subject: Subject, example: TextsExample) -> None:
    """BPE-ENCODE-PURE: encoding other texts (with pairs training never saw) changes no later encoding."""
    documents = list(example["documents"])
    if train_subject(subject, documents, example["max_merges"]) is None:
        return
    probes = [*documents, *example["texts"], *_NEW_PAIRS]
    before = _snapshot(subject, probes)
    for _ in range(2):
        _snapshot(subject, [*example["texts"], *_NEW_PAIRS])
    after = _snapshot(subject, probes)
    for text, first, second in zip(probes, before, after, strict=True):
        if first != second:
            raise Violation(
                "BPE-ENCODE-PURE",
                f"encode({text!r}) changed after encoding other texts: encoding must not change the model",
                inputs={"documents": documents, "max_merges": example["max_merges"], "encoded_between": probes},
                expected=first,
                actual=second,
            )


class LoadedExample(TypedDict):
    """Rules to load, and texts to encode with them."""

    rules: list[tuple[int, int]]
    texts: list[str]


def _with_variants(case: tuple[str, list[tuple[int, int]]]) -> LoadedExample:
    text, rules = case
    return {"rules": rules, "texts": [text, text[::-1], text * 2]}


def _loaded_examples() -> st.SearchStrategy[LoadedExample]:
    return texts_and_rules(max_rules=10, max_length=24).map(_with_variants)


def _trained_examples(documents: st.SearchStrategy[list[str]]) -> st.SearchStrategy[TextsExample]:
    return drawn(
        TextsExample,
        documents=documents,
        max_merges=max_merges_values(max_value=24),
        texts=st.lists(encode_texts(max_length=24), max_size=3),
    )


ENCODING_CHECKS = [
    Check(
        name="encode-trained",
        level=ALGORITHM,
        clause="BPE-ENCODE-ORDER",
        summary="after training, every text (training documents and unseen ones) encodes to the exact canonical ids",
        verify=verify_encode_trained,
        strategy=lambda: _trained_examples(corpora(max_documents=4, max_length=24)),
        requires=frozenset({"train", "encode"}),
        also=_ENCODE_CLAUSES,
    ),
    Check(
        name="encode-loaded-rules",
        level=ALGORITHM,
        clause="BPE-ENCODE-ORDER",
        summary="for any valid rule list given to load, even one no training makes, encode gives the exact ids",
        verify=verify_encode_loaded_rules,
        strategy=_loaded_examples,
        requires=frozenset({"load", "encode"}),
        also=(*_ENCODE_CLAUSES, "BPE-SER-LOAD"),
    ),
    Check(
        name="no-pre-tokenization",
        level=ALGORITHM,
        clause="BPE-ENCODE-RAW",
        summary="merges cross spaces and punctuation, in training and in encoding",
        verify=verify_no_pretokenization,
        inapplicable=pre_tokenization_inapplicable,
        strategy=lambda: drawn(
            TrainingExample,
            documents=pretokenization_corpora(max_documents=3, max_length=24),
            max_merges=st.integers(4, 24),
        ),
        requires=frozenset({"train", "encode"}),
        also=(*stage_clauses_besides("BPE-ENCODE-RAW"), "BPE-ENCODE-ORDER"),
    ),
    Check(
        name="pre-tokenization-split",
        level=ALGORITHM,
        clause="BPE-PRETOK-SPLIT",
        summary="behind the profile's split, pairs are counted inside chunks only and texts encoded chunk by chunk",
        verify=verify_split,
        inapplicable=split_inapplicable,
        strategy=lambda: drawn(
            TextsExample,
            documents=split_corpora(max_documents=3, max_fragments=6),
            max_merges=st.integers(4, 32),
            texts=st.lists(split_texts(max_fragments=6, max_run=24), max_size=3),
        ),
        requires=frozenset({"train", "encode"}),
        also=(*stage_clauses_besides("BPE-PRETOK-SPLIT"), *_ENCODE_CLAUSES, "BPE-ENCODE-ORDER"),
    ),
    Check(
        name="encode-pure",
        level=ALGORITHM,
        clause="BPE-ENCODE-PURE",
        summary="encoding other texts never changes the ids a text gets",
        verify=verify_encode_pure,
        strategy=lambda: _trained_examples(corpora(max_documents=3, max_length=20)),
        requires=frozenset({"train", "encode"}),
        budget=0.5,
    ),
]
