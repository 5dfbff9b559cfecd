"""Replay of the known-answer vectors in ``specs/vectors/``, one case per vector.

The vectors are replayed by :func:`conformance.vectors.replay.replay_vector` through a thin object with the
plug-in contract that forwards to the subject. Operations the subject cannot offer (``dumps``,
``decode_bytes``, ...) are skipped; any other mismatch is a violation of the clause it most likely
breaks, chosen from what went wrong.

>>> from conformance.adapters.python import InProcessSubject
>>> from reference import Tokenizer
>>> verify_vector(InProcessSubject(Tokenizer), vector_cases("training.json")[0])
"""

from __future__ import annotations

import functools
from typing import Any

from conformance.adapters.subject import Subject
from conformance.checks.base import ALGORITHM, INTERFACE, Check
from conformance.checks.common import PROBE_RULES, Encoder, encoding_clause, subject_encoder, subject_retrainer
from conformance.diagnosis import Retrain, first_divergence
from conformance.dialects.context import bounded_answer, differing_parameters, is_strict, subject_profile
from conformance.errors import Violation
from conformance.results.advisories import advise
from conformance.vectors.files import CLAUSE_IDS, NOT_IN_VECTORS, load_vectors
from conformance.vectors.replay import Mismatch, replay_vector
from reference.profiles import Profile

__all__ = ["VECTOR_CHECKS", "mismatch_clause", "vector_cases", "vectors_inapplicable", "verify_vector"]

# Serialization is not part of the plug-in contract a subject offers, so those replays are skipped.
_NEVER_REPORTED = NOT_IN_VECTORS | {"BPE-SER-JSON", "BPE-SER-DIGEST", "BPE-SER-LOAD"}


class _Contract:
    """The subject as an object with ``train``, ``encode`` and ``decode``; errors keep their ``kind``."""

    def __init__(self, subject: Subject) -> None:
        self._subject = subject
        self.out_of_bounds: Violation | None = None

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        rules = self._subject.train(documents, max_merges)
        try:
            return bounded_answer(documents, max_merges, rules, subject_profile(self._subject))
        except Violation as violation:  # the replay records any exception; the check reports this one
            self.out_of_bounds = violation
            raise

    def encode(self, text: str) -> list[int]:
        return self._subject.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._subject.decode(ids)


class _ContractWithLoad(_Contract):
    def load(self, rules: list[tuple[int, int]]) -> None:
        self._subject.load(rules)


@functools.lru_cache(maxsize=1)
def _all_vectors() -> dict[str, list[dict[str, Any]]]:
    return load_vectors()


def vector_cases(file_name: str) -> list[dict[str, Any]]:
    """The vectors of one file (``training.json``, ``load.json`` or ``invalid.json``), in file order."""
    return _all_vectors()[file_name]


def _is_rules(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(rule, list) and len(rule) == 2 and all(type(part) is int for part in rule) for rule in value
    )


def _is_ids(value: Any) -> bool:
    return isinstance(value, list) and all(type(token) is int for token in value)


def mismatch_clause(
    vector: dict[str, Any],
    mismatch: Mismatch,
    retrain: Retrain | None = None,
    encode: Encoder | None = None,
) -> str:
    """The clause a mismatch most likely breaks.

    >>> vector = {"id": "train-x", "documents": ["abab", "acac"], "max_merges": 32, "clauses": ["BPE-TRAIN-TIE"]}
    >>> found = Mismatch("train-x", ("BPE-TRAIN-TIE",), "train", {}, [[97, 98], [97, 99]], [[97, 99], [97, 98]])
    >>> mismatch_clause(vector, found)
    'BPE-TRAIN-TIE'
    """
    kind = str(vector["id"]).partition("-")[0]
    if kind == "invalid":
        return str(vector["clauses"][0])
    if mismatch.operation == "train" and _is_rules(mismatch.actual):
        actual = [(rule[0], rule[1]) for rule in mismatch.actual]
        divergence = first_divergence(vector["documents"], vector["max_merges"], actual, retrain=retrain)
        return "BPE-TRAIN-INPUT" if divergence is None else str(divergence["clause"])
    if mismatch.operation == "encode" and _is_ids(mismatch.actual):
        rules = [(rule[0], rule[1]) for rule in vector["rules"]]
        wrong = [(mismatch.input["text"], mismatch.actual)]
        return encoding_clause(wrong, rules, encode=encode, probe_rules=PROBE_RULES)
    by_operation = {"train": "BPE-TRAIN-INPUT", "load": "BPE-INPUT-RULES", "decode": "BPE-DECODE-CONCAT"}
    return by_operation.get(mismatch.operation, "BPE-ENCODE-ORDER")


def vectors_inapplicable(profile: Profile) -> str | None:
    """Why the known-answer vectors do not apply under ``profile``: they are strict's answers, ids included.

    >>> from reference.profiles import RUSTBPE
    >>> print(vectors_inapplicable(RUSTBPE))  # doctest: +NORMALIZE_WHITESPACE
    not applicable under profile rustbpe (min_count=1, first_rule_id=256, boundary_ids=False:
    the vectors hold strict answers)
    """
    if is_strict(profile):
        return None
    changed = ", ".join(differing_parameters(profile))
    return f"not applicable under profile {profile.name} ({changed}: the vectors hold strict answers)"


def verify_vector(subject: Subject, vector: dict[str, Any]) -> None:
    """Replay one vector; the first mismatch that is not a skipped optional operation is a violation."""
    if vectors_inapplicable(subject_profile(subject)) is not None:
        return
    contract = _ContractWithLoad(subject) if subject.supports("load") else _Contract(subject)
    mismatches = replay_vector(lambda: contract, vector)
    if contract.out_of_bounds is not None:
        raise contract.out_of_bounds
    for mismatch in mismatches:
        if mismatch.skipped:
            continue
        if mismatch.advisory:
            advise(f"[{vector['clauses'][0]}] vector {vector['id']} ({vector['description']}): {mismatch.actual}; "
                   f"the specification prefers {mismatch.expected} (a SHOULD)")
            continue
        # The subject holds other rules now (the replay loaded several); the encoder loads the vector's first.
        encode = subject_encoder(subject, []) if subject.supports("load") else None
        raise Violation(
            mismatch_clause(vector, mismatch, subject_retrainer(subject)[0], encode),
            f"vector {vector['id']} ({vector['description']}): {mismatch.operation} gave a different answer",
            inputs={"vector": vector["id"], "operation": mismatch.operation, "input": mismatch.input},
            expected=mismatch.expected,
            actual=mismatch.actual,
        )


def _vector_check(name: str, file_name: str, clause: str, summary: str, requires: set[str], level: str) -> Check:
    return Check(
        name=name,
        level=level,
        clause=clause,
        summary=summary,
        verify=verify_vector,
        cases=lambda: vector_cases(file_name),
        requires=frozenset(requires),
        inapplicable=vectors_inapplicable,
        also=tuple(other for other in CLAUSE_IDS if other not in _NEVER_REPORTED and other != clause),
    )


VECTOR_CHECKS = [
    _vector_check(
        "vectors-training", "training.json", "BPE-TRAIN-GREEDY",
        "known-answer training runs: exact rules, final sequences and encodings of held-out texts",
        {"train", "encode", "decode"}, ALGORITHM,
    ),
    _vector_check(
        "vectors-load", "load.json", "BPE-ENCODE-ORDER",
        "known-answer rule lists given to load (some no training makes): exact encodings and decodings",
        {"load", "encode", "decode"}, ALGORITHM,
    ),
    _vector_check(
        "vectors-invalid", "invalid.json", "BPE-INPUT-DOCS",
        "known-answer rejected calls: the error kind, and the model unchanged after",
        {"train", "encode"}, INTERFACE,
    ),
]
