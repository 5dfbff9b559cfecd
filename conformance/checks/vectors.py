"""Replay of the known-answer vectors of the subject's profile, one case per vector.

A subject is judged by the vectors of the profile it is judged under (the one it declares, or
``run --profile``'s): ``specs/vectors/*.json`` for strict, ``specs/vectors/<profile>/*.json`` for
the others, never another profile's. The vectors are replayed by
:func:`bpe_conformance.vectors.replay.replay_vector` through a thin object with the plug-in contract that
forwards to the subject. Operations the subject cannot offer (``dumps``, ``decode_bytes``, ...) are
skipped; any other mismatch is a violation of the clause it most likely breaks, chosen from what
went wrong under the profile.

>>> from bpe_conformance.adapters.python import InProcessSubject
>>> from bpe_conformance.reference import Tokenizer
>>> verify_vector(InProcessSubject(Tokenizer), vector_cases("training.json")[0])
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from bpe_conformance.checks.base import ALGORITHM, INTERFACE, Check
from bpe_conformance.checks.common import (
    PROBE_RULES,
    Encoder,
    encoding_clause,
    subject_answer,
    subject_encoder,
    subject_retrainer,
)
from bpe_conformance.diagnosis import (
    Retrain,
    describe,
    first_divergence,
    judge_rounds,
    localise_encoding,
    localise_history,
    localise_training,
)
from bpe_conformance.dialects.context import bounded_answer, not_applicable, pairs_run_out, subject_profile
from bpe_conformance.errors import HarnessError, ImplementationRaised, Violation
from bpe_conformance.reference import BOUNDARY_IDS
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.results.advisories import advise
from bpe_conformance.vectors.files import CLAUSE_IDS, NOT_IN_VECTORS, load_vectors, profile_directory, profile_files
from bpe_conformance.vectors.replay import Mismatch, replay_vector

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.diagnosis.load_localisation import Answer
    from bpe_conformance.diagnosis.stages import Localisation
    from bpe_conformance.reference.json_values import JSONObject

__all__ = ["VECTOR_CHECKS", "mismatch_clause", "vector_cases", "vectors_inapplicable", "verify_vector"]

# Budgets from 2**31 on are where 32-bit (and wider) integers wrap; none is ever reached by a vector.
WIDE_BUDGET = 2**31
Rules = list[tuple[int, int]]

# Serialization is not part of the plug-in contract a subject offers, so those replays are skipped; what a
# load keeps from the model before it (BPE-SER-LOAD) is asked of the load vectors' answers all the same.
_NEVER_REPORTED = NOT_IN_VECTORS | {"BPE-SER-JSON", "BPE-SER-DIGEST"}


def _runs_out_of_pairs(documents: list[str], max_merges: int, profile: Profile) -> bool:
    """A valid request on which the profile's training stops because no pair is left; False for a bad call."""
    try:
        return pairs_run_out(list(documents), max_merges, profile)
    except (TypeError, ValueError):
        return False


class _Contract:
    """The subject as an object with ``train``, ``encode`` and ``decode``; errors keep their ``kind``.

    ``ran_out`` is set when ``train`` raised on valid documents where the profile runs out of pairs: a
    defect the stop-rule check reports (BPE-TRAIN-STOP), after which the vector has nothing to judge.
    """

    def __init__(self, subject: Subject) -> None:
        self._subject = subject
        self.out_of_bounds: Violation | None = None
        self.ran_out = False

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        profile = subject_profile(self._subject)
        try:
            rules = self._subject.train(documents, max_merges)
        except ImplementationRaised:
            self.ran_out = self.ran_out or _runs_out_of_pairs(documents, max_merges, profile)
            raise
        try:
            return bounded_answer(documents, max_merges, rules, profile)
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


class _LoadOnlyContract:
    """An encode-only subject (no ``train``): the replay sets its model up through ``load``."""

    def __init__(self, subject: Subject) -> None:
        self._subject = subject
        self.out_of_bounds: Violation | None = None
        self.ran_out = False

    def load(self, rules: list[tuple[int, int]]) -> None:
        self._subject.load(rules)

    def encode(self, text: str) -> list[int]:
        return self._subject.encode(text)

    def decode(self, ids: list[int]) -> str:
        return self._subject.decode(ids)


def _contract(subject: Subject) -> _Contract | _LoadOnlyContract:
    if not subject.supports("train"):
        return _LoadOnlyContract(subject)
    return _ContractWithLoad(subject) if subject.supports("load") else _Contract(subject)


@functools.cache
def _profile_vectors(profile: str) -> dict[str, list[JSONObject]]:
    return load_vectors(profile=profile)


@functools.cache
def _by_id(profile: str) -> dict[str, JSONObject]:
    return {vector["id"]: vector for vectors in _profile_vectors(profile).values() for vector in vectors}


def vector_cases(file_name: str, profile: str = STRICT.name) -> list[JSONObject]:
    """The vectors of one file (``training.json``, ``load.json`` or ``invalid.json``) of ``profile``, in file order."""
    return _profile_vectors(profile)[file_name]


def _is_rules(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(rule, list) and len(rule) == 2 and all(type(part) is int for part in rule) for rule in value
    )


def _is_ids(value: Any) -> bool:
    return isinstance(value, list) and all(type(token) is int for token in value)


def _wide_budget_misread(vector: JSONObject, mismatch: Mismatch, retrain: Retrain) -> bool:
    """A max_merges past 31 bits answered wrong, where a small budget, also never reached, trains right:
    the budget was narrowed or wrapped (BPE-TRAIN-MAXMERGES), whatever the rules look like."""
    if vector["max_merges"] < WIDE_BUDGET or not _is_rules(mismatch.expected):
        return False
    expected = [(rule[0], rule[1]) for rule in mismatch.expected]
    return retrain(list(vector["documents"]), len(expected) + 1) == expected


def mismatch_clause(
    vector: JSONObject,
    mismatch: Mismatch,
    retrain: Retrain | None = None,
    encode: Encoder | None = None,
    profile: Profile = STRICT,
) -> str:
    """The clause a mismatch with a vector of ``profile`` most likely breaks under it.

    >>> vector = {"id": "train-x", "documents": ["abab", "acac"], "max_merges": 32, "clauses": ["BPE-TRAIN-TIE"]}
    >>> found = Mismatch("train-x", ("BPE-TRAIN-TIE",), "train", {}, [[97, 98], [97, 99]], [[97, 99], [97, 98]])
    >>> mismatch_clause(vector, found)
    'BPE-TRAIN-TIE'
    """
    kind = str(vector["id"]).partition("-")[0]
    if kind == "invalid":
        return str(vector["clauses"][0])
    if mismatch.operation == "train" and retrain is not None and _wide_budget_misread(vector, mismatch, retrain):
        return "BPE-TRAIN-MAXMERGES"
    if mismatch.operation == "train" and _is_rules(mismatch.actual):
        actual = [(rule[0], rule[1]) for rule in mismatch.actual]
        divergence = first_divergence(vector["documents"], vector["max_merges"], actual, profile, retrain)
        return "BPE-TRAIN-INPUT" if divergence is None else str(divergence["clause"])
    if mismatch.operation == "encode" and _is_ids(mismatch.actual):
        rules = [(rule[0], rule[1]) for rule in vector["rules"]]
        wrong = [(mismatch.input["text"], mismatch.actual)]
        # Strict-numbered: cross_examine_encodings moves the probes to the profile's numbering itself.
        return encoding_clause(wrong, rules, profile, encode=encode, probe_rules=PROBE_RULES)
    by_operation = {"train": "BPE-TRAIN-INPUT", "load": "BPE-INPUT-RULES", "decode": "BPE-DECODE-CONCAT"}
    return by_operation.get(mismatch.operation, "BPE-ENCODE-ORDER")


def vectors_inapplicable(profile: Profile, file_name: str = "training.json") -> str | None:
    """Why ``file_name``'s vectors do not apply under ``profile``: an encode-only profile has no training
    vectors, and a profile whose files are missing has none at all. None when they apply.

    >>> from bpe_conformance.reference.profiles import RUSTBPE, TIKTOKEN
    >>> print(vectors_inapplicable(RUSTBPE))
    None
    >>> print(vectors_inapplicable(TIKTOKEN))  # doctest: +NORMALIZE_WHITESPACE
    not applicable under profile tiktoken (tie_break=None: an encode-only profile has no training vectors)
    """
    if file_name not in profile_files(profile):
        return not_applicable(profile, "tie_break", "an encode-only profile has no training vectors")
    path = profile_directory(profile.name) / file_name
    if not path.is_file():
        return f"no known-answer vectors for profile {profile.name}: {path} is missing"
    return None


def verify_vector(subject: Subject, vector: JSONObject) -> None:
    """Replay one vector of the subject's profile; the first mismatch that is not a skipped optional operation is a
    violation. A vector of another profile is a harness error: no subject is judged by another profile's answers."""
    profile = subject_profile(subject)
    if _by_id(profile.name).get(vector["id"]) != vector:
        raise HarnessError(f"vector {vector['id']} is not one of profile {profile.name}'s vectors")
    contract = _contract(subject)
    mismatches = replay_vector(lambda: contract, vector)
    if contract.out_of_bounds is not None:
        raise contract.out_of_bounds
    if contract.ran_out:  # one defect, one failure: the stop-rule check's
        return
    for mismatch in mismatches:
        if mismatch.skipped:
            continue
        if mismatch.advisory:
            advise(
                f"[{vector['clauses'][0]}] vector {vector['id']} ({vector['description']}): {mismatch.actual}; "
                f"the specification prefers {mismatch.expected} (a SHOULD)"
            )
            continue
        # The subject holds other rules now (the replay loaded several); the encoder loads the vector's first.
        encode = subject_encoder(subject, []) if subject.supports("load") else None
        retrain = subject_retrainer(subject)[0] if subject.supports("train") else None
        fresh = functools.partial(subject_encoder, subject, fresh=True) if subject.supports("load") else None
        ask = subject_retrainer(subject, fresh=True)[0] if subject.supports("train") else None
        history = functools.partial(subject_answer, subject) if subject.supports("load") else None
        localised = _localised(vector, mismatch, ask, fresh, profile, history)
        clause = mismatch_clause(vector, mismatch, retrain, encode, profile) if localised is None else localised[0]
        raise Violation(
            clause,
            f"vector {vector['id']} of profile {profile.name} ({vector['description']}): "
            f"{mismatch.operation} gave a different answer" + ("" if localised is None else localised[1]),
            inputs={"vector": vector["id"], "operation": mismatch.operation, "input": mismatch.input},
            expected=mismatch.expected,
            actual=mismatch.actual,
            divergence=None if localised is None else localised[2],
            localisation=None if localised is None else localised[3],
        )


def _localised(
    vector: JSONObject,
    mismatch: Mismatch,
    retrain: Retrain | None,
    fresh: Callable[[Rules], Encoder] | None,
    profile: Profile,
    history: Callable[[str, Any], Answer] | None = None,
) -> tuple[str, str, JSONObject | None, JSONObject] | None:
    """A wrong answer to a vector localised like a property check's: (clause, message tail, divergence, record).

    None when the implementation cannot be asked (the clause is then :func:`mismatch_clause`'s) or the
    mismatch is no training or encoding answer. An encode or decode under a vector's rules is first asked
    again of a fresh instance (:func:`localise_history`: the replay keeps one instance across vectors).
    """
    if str(vector["id"]).startswith("invalid"):
        return None
    kept = _history(vector, mismatch, history)
    if kept is not None:
        return kept.clause, "" if kept.localised else f" ({kept.label})", None, kept.as_dict()
    if mismatch.operation == "train" and _is_rules(mismatch.actual) and retrain is not None:
        if _wide_budget_misread(vector, mismatch, retrain):
            # A budget past 31 bits read as another number: the stage questions train with small budgets,
            # which it reads right, and would blame the stop rule; mismatch_clause names the budget.
            return None
        documents, max_merges = list(vector["documents"]), vector["max_merges"]
        actual = [(rule[0], rule[1]) for rule in mismatch.actual]
        judgement = next(judge_rounds(documents, max_merges, actual, profile), None)
        if judgement is None:
            return None
        training = localise_training(documents, max_merges, judgement, profile, retrain)
        divergence = {**judgement.as_dict(), "clause": training.clause, "localised": training.localised}
        divergence["stage"] = None if training.stage is None else training.stage.value
        tail = f": {describe(divergence)}" + ("" if training.localised else f" ({training.label})")
        return training.clause, tail, divergence, training.as_dict()
    if mismatch.operation == "encode" and _is_ids(mismatch.actual) and fresh is not None:
        rules = [(rule[0], rule[1]) for rule in vector["rules"]]
        if not rules or (profile.boundary_ids and any(token in BOUNDARY_IDS for token in mismatch.actual)):
            return None
        encoding = localise_encoding([(mismatch.input["text"], mismatch.actual)], rules, profile, fresh(rules))
        tail = "" if encoding.localised else f" ({encoding.label})"
        return encoding.clause, tail, None, encoding.as_dict()
    return None


def _history(
    vector: JSONObject, mismatch: Mismatch, history: Callable[[str, Any], Answer] | None
) -> Localisation | None:
    """:func:`localise_history` for a wrong encode or decode under the vector's rules, else None."""
    if history is None or mismatch.operation not in ("encode", "decode") or "rules" not in vector:
        return None
    if mismatch.operation == "encode" and not _is_ids(mismatch.actual):
        return None
    argument = mismatch.input["text"] if mismatch.operation == "encode" else list(mismatch.input["ids"])
    rules = [(rule[0], rule[1]) for rule in vector["rules"]]
    loaded = str(vector["id"]).startswith("load")
    answer = history(mismatch.operation, argument)
    return localise_history(mismatch.operation, dict(mismatch.input), mismatch.expected, rules, answer, loaded=loaded)


def _vector_check(
    name: str, file_name: str, clause: str, summary: str, requires: set[str], level: str, requires_any: set[str]
) -> Check:
    return Check(
        name=name,
        level=level,
        clause=clause,
        summary=summary,
        verify=verify_vector,
        profile_cases=lambda profile: vector_cases(file_name, profile.name),
        requires=frozenset(requires),
        requires_any=frozenset(requires_any),
        inapplicable=lambda profile: vectors_inapplicable(profile, file_name),
        also=tuple(other for other in CLAUSE_IDS if other not in _NEVER_REPORTED and other != clause),
    )


VECTOR_CHECKS = [
    _vector_check(
        "vectors-training",
        "training.json",
        "BPE-TRAIN-GREEDY",
        "known-answer training runs of the profile: exact rules, final sequences and encodings of held-out texts",
        {"train", "encode", "decode"},
        ALGORITHM,
        set(),
    ),
    _vector_check(
        "vectors-load",
        "load.json",
        "BPE-ENCODE-ORDER",
        "known-answer rule lists of the profile given to load (some no training makes): exact encodings and decodings",
        {"load", "encode", "decode"},
        ALGORITHM,
        set(),
    ),
    _vector_check(
        "vectors-invalid",
        "invalid.json",
        "BPE-INPUT-DOCS",
        "known-answer rejected calls of the profile: the error kind, and the model unchanged after",
        {"encode"},
        INTERFACE,
        {"train", "load"},
    ),
]
