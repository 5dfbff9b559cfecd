"""Checks of training: rule ids and references, counting, selection, ties, recounting and stopping.

Every training check judges the implementation's rules round by round in the state its own earlier
rules leave (:func:`bpe_conformance.diagnosis.judge_rounds`) and reports only the rounds of its own bug
class, so a dialect that breaks ties differently fails ``tie-break`` and nothing else here.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> verify_rule_references(InProcessSubject(Tokenizer), {"documents": ["abcabc"], "max_merges": 4})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hypothesis import strategies as st

from bpe_conformance.checks.base import ALGORITHM, Check
from bpe_conformance.checks.common import rules_json, training_examples, verify_training_rounds
from bpe_conformance.checks.examples import EarlierExample, TextsExample, TrainingExample, drawn
from bpe_conformance.diagnosis import TRAINING_STAGES
from bpe_conformance.dialects.context import (
    input_refusal,
    not_applicable,
    profile_pieces_of,
    rule_problem,
    rules_are_valid,
    stop_violation,
    subject_profile,
    train_subject,
)
from bpe_conformance.errors import Violation
from bpe_conformance.inputs.strategies import (
    boundary_pair_corpora,
    corpora,
    encode_texts,
    max_merges_values,
    recount_corpora,
    run_corpora,
    tie_corpora,
)
from bpe_conformance.reference import BOUNDARY_IDS, BYTE_COUNT

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.reference.json_values import JSONObject
    from bpe_conformance.reference.profiles import Profile

__all__ = ["TRAINING_CHECKS", "TRAINING_STAGE_CLAUSES", "cross_document_inapplicable", "stage_clauses_besides"]

# Every training check reports the first divergence of its example under the localised stage's clause.
TRAINING_STAGE_CLAUSES = tuple(dict.fromkeys(stage.clause for stage in TRAINING_STAGES))


def stage_clauses_besides(*own: str) -> tuple[str, ...]:
    """The training stages' clauses a check may also report, besides its own."""
    return tuple(clause for clause in TRAINING_STAGE_CLAUSES if clause not in own)


def _inputs(example: TrainingExample) -> JSONObject:
    return {"documents": list(example["documents"]), "max_merges": example["max_merges"]}


def _numbered_from(rules: Sequence[Iterable[object]], first: int) -> bool:
    """Whether every part of every rule is a byte or an earlier rule's id when rule r has id ``first + r``."""
    return all(
        type(part) is int and (0 <= part < BYTE_COUNT or first <= part < first + rank)
        for rank, rule in enumerate(rules)
        for part in rule
    )


def _reference_clause(rules: Sequence[Iterable[object]], part: object, profile: Profile) -> str:
    """The clause a trained rule list breaks when ``part`` is a reference it may not make.

    Rules that are all well formed when numbered from the byte count (256) rather than past the boundary
    ids were numbered wrong (BPE-RULE-ID): their 256 is their own first rule. Otherwise a boundary id in a
    trained rule means training counted and merged it (BPE-ALPHA-BOUNDARY: no training sequence holds
    one). Any other bad reference is BPE-RULE-REF's.
    """
    if not profile.boundary_ids or type(part) is not int or part not in BOUNDARY_IDS:
        return "BPE-RULE-REF"
    return "BPE-RULE-ID" if _numbered_from(rules, BYTE_COUNT) else "BPE-ALPHA-BOUNDARY"


def verify_rule_references(subject: Subject, example: TrainingExample) -> None:
    """BPE-RULE-REF: each part of rule r is a byte (0-255) or an earlier rule's id (258 to 257 + r).

    Under a profile without boundary ids, rule r is 256 + r and may refer to 256 to 255 + r. A trained
    rule that names a boundary id is reported under the clause :func:`_reference_clause` gives it (a
    *loaded* rule list naming one is BPE-RULE-REF's, judged by the load checks).
    """
    profile = subject_profile(subject)
    first = profile.first_rule_id
    rules = train_subject(subject, list(example["documents"]), example["max_merges"])
    for rank, rule in enumerate(rules or []):
        for part in rule:
            problem = rule_problem(rank, part, profile)
            if problem is not None:
                clause = _reference_clause(rules or [], part, profile)
                numbering = (
                    f" (all rules are well formed if rule r is {BYTE_COUNT} + r)" if clause == "BPE-RULE-ID" else ""
                )
                raise Violation(
                    clause,
                    f"rule {rank} {rule} refers to {problem}; rule {rank} may refer only to bytes "
                    f"0-{BYTE_COUNT - 1} or ids {first}-{first + rank - 1}{numbering}",
                    inputs=_inputs(example),
                    expected=f"parts in 0-{BYTE_COUNT - 1} or {first}-{first + rank - 1}",
                    actual=rules_json(rules or []),
                )


# Numberings an encoder may have used by mistake: rule ids counted from this far below or above the profile's.
_NUMBERING_SHIFTS = (-2, -1, 1, 2)


def _spelled(ids: list[int], rule_pieces: list[bytes], first: int) -> bytes | None:
    """The bytes ``ids`` spell when rule r has id ``first + r``; None when an id names neither a byte nor a rule."""
    spelled = []
    for token in ids:
        if 0 <= token < BYTE_COUNT:
            spelled.append(bytes([token]))
        elif first <= token < first + len(rule_pieces):
            spelled.append(rule_pieces[token - first])
        else:
            return None
    return b"".join(spelled)


def _rule_id_problem(
    ids: list[int], rules: list[tuple[int, int]], text: str, profile: Profile
) -> tuple[str, str] | None:
    first = profile.first_rule_id
    for position, token in enumerate(ids):
        if profile.boundary_ids and token in BOUNDARY_IDS:
            return "BPE-ENCODE-BOUNDARY", f"boundary id {token} at position {position} of a body encoding"
        if not 0 <= token < first + len(rules):
            made = f"ids {first}-{first + len(rules) - 1}" if rules else "no id above the bytes"
            return "BPE-RULE-ID", f"id {token} at position {position} names no rule: {len(rules)} rules create {made}"
    rule_pieces = profile_pieces_of(rules, profile)[first:]
    spelled = _spelled(ids, rule_pieces, first)
    if spelled == text.encode():
        return None
    for shift in _NUMBERING_SHIFTS:
        if first + shift >= BYTE_COUNT and _spelled(ids, rule_pieces, first + shift) == text.encode():
            return "BPE-RULE-ID", (
                f"the ids spell the text only when read as {first + shift} + rank of the returned rules, "
                f"not {first} + rank"
            )
    # No numbering explains it: the encoding itself is wrong, whatever the rules are called.
    return "BPE-ROUNDTRIP", (
        f"the ids spell other bytes than the text ({(spelled or b'').hex()}, read as {first} + rank of the "
        f"returned rules), and no numbering from {first - 2} to {first + 2} makes them spell it"
    )


def verify_rule_ids(subject: Subject, example: TextsExample) -> None:
    """BPE-RULE-ID: the ids ``encode`` emits are 258 + rank of the rules ``train`` returned, nothing else.

    The first rule id is the profile's: 256 when it has no boundary ids.
    """
    profile = subject_profile(subject)
    documents = list(example["documents"])
    rules = train_subject(subject, documents, example["max_merges"])
    if rules is None or not rules_are_valid(rules, profile):
        return  # malformed rules are rule-references' finding; their pieces are undefined
    for text in [*documents, *example["texts"]]:
        ids = subject.encode(text)
        problem = _rule_id_problem(ids, rules, text, profile)
        if problem is not None:
            clause, detail = problem
            raise Violation(
                clause,
                f"encode({text!r}) after training: {detail}",
                inputs={**_inputs(example), "text": text},
                expected={"rules": rules_json(rules), "utf8_hex": text.encode().hex()},
                actual={"ids": ids},
            )


def cross_document_inapplicable(profile: Profile) -> str | None:
    """Why BPE-TRAIN-DOCS does not apply under ``profile`` (it joins documents), or None when it does."""
    if profile.documents == "separate":
        return None
    return not_applicable(profile, "documents", "the profile counts pairs across documents on purpose")


def verify_no_cross_document_pairs(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-DOCS: no rule is explained by counting pairs across document boundaries."""
    if cross_document_inapplicable(subject_profile(subject)) is not None:
        return
    verify_training_rounds(subject, example)


def verify_overlapping_counts(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-COUNT: no rule (or early stop) is explained by counting overlapping windows once."""
    verify_training_rounds(subject, example)


def verify_greedy_selection(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-GREEDY: replaying the implementation's own rules, each had the highest count of its round."""
    verify_training_rounds(subject, example)


def verify_tie_break(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-TIE: among pairs sharing the highest count, the smallest (a, b) as integers was chosen."""
    verify_training_rounds(subject, example)


def verify_recount(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-RECOUNT: no rule is explained by counts left over from an earlier round."""
    verify_training_rounds(subject, example)


def verify_stop_rule(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-STOP: no rule with a best count below 2, none beyond max_merges, no stop while a pair repeats.

    The minimum count is the profile's (1 for trainers that merge pairs seen once). Raising once no pair
    is left is a violation too, under every profile: a crash is never a dialect.
    """
    if verify_training_rounds(subject, example) is None:
        refusal = input_refusal(subject, example["documents"], example["max_merges"])
        if refusal is not None:
            raise refusal  # refused before any rule was due, while it stops properly elsewhere: a refusal
        raise stop_violation(subject, example["documents"], example["max_merges"])


def verify_training_input(subject: Subject, example: EarlierExample) -> None:
    """BPE-TRAIN-INPUT: the rules depend only on this call's documents, not on earlier calls or encoded text."""
    documents, max_merges = list(example["documents"]), example["max_merges"]
    subject.reset()
    fresh = train_subject(subject, list(documents), max_merges)
    if fresh is None:
        return
    train_subject(subject, list(example["earlier"]), max_merges)
    for text in example["texts"]:
        if subject.supports("encode"):
            subject.encode(text)
    after = train_subject(subject, list(documents), max_merges)
    if after != fresh:
        raise Violation(
            "BPE-TRAIN-INPUT",
            "training on the same documents gave other rules after an earlier training run and some encoding: "
            "the earlier documents or the encoded texts took part in training",
            inputs={**_inputs(example), "earlier_documents": list(example["earlier"]), "encoded": example["texts"]},
            expected=rules_json(fresh),
            actual=rules_json(after or []),
        )


def verify_documents_as_given(subject: Subject, example: TrainingExample) -> None:
    """BPE-TRAIN-INPUT, BPE-TRAIN-DOCS: each document is counted byte for byte as given, repeats included.

    No rule may be explained by documents stripped, normalized to NFC, or deduplicated before counting.
    """
    verify_training_rounds(subject, example)


def _documents_as_given_corpora() -> st.SearchStrategy[list[str]]:
    # Decomposed accents, surrounding whitespace, line ends, NUL, upper case and repeated documents:
    # what an input "clean-up" changes.
    core = st.text(alphabet="ab e\u0301\u00e9\u0308", min_size=1, max_size=10) | st.text(
        alphabet="abA \t\r\n\x00", min_size=1, max_size=10
    )
    padding = st.sampled_from(["", " ", "  ", "\n", "\t ", "\r\n"])
    document = st.builds(lambda left, text, right: left + text + right, padding, core, padding)
    repeated = st.builds(
        lambda thrice, once: thrice * 3 + once,
        st.lists(document, min_size=1, max_size=2),
        st.lists(document, max_size=2),
    )
    return st.lists(document, min_size=1, max_size=4) | repeated


def _small_corpora() -> st.SearchStrategy[list[str]]:
    return corpora(max_documents=4, max_length=24)


def _rule_id_examples() -> st.SearchStrategy[TextsExample]:
    return drawn(
        TextsExample,
        documents=_small_corpora(),
        max_merges=max_merges_values(max_value=24),
        texts=st.lists(encode_texts(max_length=20), max_size=3),
    )


def _training_input_examples() -> st.SearchStrategy[EarlierExample]:
    return drawn(
        EarlierExample,
        documents=_small_corpora(),
        max_merges=st.integers(1, 16),
        earlier=_small_corpora(),
        texts=st.lists(encode_texts(max_length=20), max_size=2),
    )


def _stop_examples() -> st.SearchStrategy[TrainingExample]:
    return drawn(
        TrainingExample,
        documents=_small_corpora(),
        max_merges=st.sampled_from((0, 1, 2)) | max_merges_values(max_value=24),
    )


TRAINING_CHECKS = [
    Check(
        name="rule-references",
        level=ALGORITHM,
        clause="BPE-RULE-REF",
        summary="trained rules refer only to bytes and earlier rule ids: never themselves, later ids or boundaries",
        verify=verify_rule_references,
        strategy=lambda: training_examples(_small_corpora()),
        also=("BPE-TRAIN-PIECE", "BPE-ALPHA-BOUNDARY", "BPE-RULE-ID"),
        budget=0.5,
    ),
    Check(
        name="rule-ids",
        level=ALGORITHM,
        clause="BPE-RULE-ID",
        summary="encode emits 258 + rank for rule r of the returned rules, and no id beyond the last rule",
        verify=verify_rule_ids,
        strategy=_rule_id_examples,
        requires=frozenset({"train", "encode"}),
        also=("BPE-ENCODE-BOUNDARY", "BPE-ROUNDTRIP"),
        budget=0.5,
    ),
    Check(
        name="no-cross-document-pairs",
        level=ALGORITHM,
        clause="BPE-TRAIN-DOCS",
        summary="pairs are counted inside documents only: a pair frequent only across boundaries is never merged",
        verify=verify_no_cross_document_pairs,
        inapplicable=cross_document_inapplicable,
        strategy=lambda: training_examples(boundary_pair_corpora(max_documents=6)),
        also=stage_clauses_besides("BPE-TRAIN-DOCS"),
    ),
    Check(
        name="overlapping-counts",
        level=ALGORITHM,
        clause="BPE-TRAIN-COUNT",
        summary="overlapping windows count: a run 'aaa' counts (a, a) twice",
        verify=verify_overlapping_counts,
        strategy=lambda: training_examples(run_corpora(max_documents=3, max_run=16)),
        also=stage_clauses_besides("BPE-TRAIN-COUNT"),
    ),
    Check(
        name="greedy-selection",
        level=ALGORITHM,
        clause="BPE-TRAIN-GREEDY",
        summary="replaying the implementation's own rules, each had the highest count of its round (ties aside)",
        verify=verify_greedy_selection,
        strategy=lambda: training_examples(_small_corpora()),
        also=stage_clauses_besides("BPE-TRAIN-GREEDY"),
    ),
    Check(
        name="tie-break",
        level=ALGORITHM,
        clause="BPE-TRAIN-TIE",
        summary="ties go to the smallest (a, b) compared as integers, including rule ids against byte ids",
        verify=verify_tie_break,
        strategy=lambda: training_examples(tie_corpora(max_length=24)),
        also=stage_clauses_besides("BPE-TRAIN-TIE"),
    ),
    Check(
        name="recount-each-round",
        level=ALGORITHM,
        clause="BPE-TRAIN-RECOUNT",
        summary="each round counts the sequences as the previous merges left them",
        verify=verify_recount,
        strategy=lambda: training_examples(recount_corpora(max_documents=3, max_length=18)),
        also=stage_clauses_besides("BPE-TRAIN-RECOUNT"),
    ),
    Check(
        name="stop-rule",
        level=ALGORITHM,
        clause="BPE-TRAIN-STOP",
        summary="training stops when the best count is below 2 or max_merges rules exist, and not earlier",
        verify=verify_stop_rule,
        strategy=_stop_examples,
        also=stage_clauses_besides("BPE-TRAIN-STOP"),
    ),
    Check(
        name="documents-as-given",
        level=ALGORITHM,
        clause="BPE-TRAIN-INPUT",
        summary="documents are counted as given: not stripped, not normalized, repeats not dropped",
        verify=verify_documents_as_given,
        strategy=lambda: training_examples(_documents_as_given_corpora()),
        also=("BPE-TRAIN-DOCS", *stage_clauses_besides("BPE-TRAIN-INPUT", "BPE-TRAIN-DOCS")),
    ),
    Check(
        name="training-sees-only-its-documents",
        level=ALGORITHM,
        clause="BPE-TRAIN-INPUT",
        summary="the rules depend only on the documents of this train call, not on earlier calls or encoded text",
        verify=verify_training_input,
        strategy=_training_input_examples,
        budget=0.5,
    ),
]
