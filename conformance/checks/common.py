"""Helpers shared by the checks: calling the subject, judging training, and building violations.

>>> rules_json([(97, 98)])
[[97, 98]]
>>> encoding_clause([("ab", [98, 97])], [])
'BPE-ALPHA-BYTES'
>>> encoding_clause([("abc", [259, 99])], [(98, 99), (97, 98)])  # "ab" applied before "bc"
'BPE-ENCODE-ORDER'
>>> encoding_clause([("aabb", [260, 98])], [(97, 97), (98, 98), (258, 98)])  # 258 merged again at once
'BPE-MERGE-NOREMATCH'
"""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from bpe_conformance.adapters.subject import Subject
from bpe_conformance.diagnosis import (
    GPT2_PATTERN,
    Judgement,
    Retrain,
    describe,
    judge_rounds,
    localise_encoding,
    localise_training,
    replace_overlapping,
    replace_right_to_left,
)
from bpe_conformance.dialects.context import (
    expected_rules,
    profile_encode,
    rules_are_valid,
    subject_profile,
    train_subject,
)
from bpe_conformance.errors import INPUT_ERROR_FAMILIES, ImplementationRaised, MalformedResult, Violation
from bpe_conformance.inputs.predicates import character_class
from bpe_conformance.inputs.strategies import max_merges_values
from bpe_conformance.reference import BOUNDARY_IDS, FIRST_RULE_ID, replace_pair
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.results.advisories import advise

__all__ = [
    "PROBE_RULES",
    "Encoder",
    "cross_examine_encodings",
    "encoding_clause",
    "expect_rejection",
    "follow_up_texts",
    "rejection_verdict",
    "rules_json",
    "single_pass_encode",
    "subject_encoder",
    "subject_retrainer",
    "train_or_none",
    "training_examples",
    "training_violation",
    "verify_encodings",
    "verify_training_rounds",
]

Pair = tuple[int, int]
Rules = list[Pair]


def rules_json(rules: Rules) -> list[list[int]]:
    """Rules as JSON arrays, for counterexamples."""
    return [[first, second] for first, second in rules]


def training_examples(
    documents: st.SearchStrategy[list[str]], max_value: int = 24
) -> st.SearchStrategy[dict[str, Any]]:
    """``{"documents": ..., "max_merges": ...}`` with the documents from ``documents``."""
    return st.fixed_dictionaries({"documents": documents, "max_merges": max_merges_values(max_value=max_value)})


def _expected_json(documents: list[str], max_merges: int, profile: Profile) -> Any:
    return rules_json(expected_rules(list(documents), max_merges, profile))


def training_violation(
    judgement: Judgement,
    documents: list[str],
    max_merges: int,
    actual: Rules,
    profile: Profile = STRICT,
    retrain: Retrain | None = None,
) -> Violation:
    """A violation for ``judgement``, the first divergence, under the clause localisation gives it.

    With ``retrain`` (the implementation's own ``train``) the stage is localised by experiments
    (:func:`bpe_conformance.diagnosis.localise_training`): the violation names that stage's clause, or,
    when the experiments cannot decide, the symptom's clause and says it is unlocalised. The
    counterexample's divergence carries the localisation and the experiments that decided it.
    """
    divergence = judgement.as_dict()
    localisation = None if retrain is None else localise_training(documents, max_merges, judgement, profile, retrain)
    clause = judgement.kind.clause if localisation is None else localisation.clause
    if localisation is not None:
        stage = None if localisation.stage is None else localisation.stage.value
        divergence.update(clause=clause, localised=localisation.localised, stage=stage)
    message = f"train(documents, {max_merges}) {describe(divergence)}"
    if localisation is not None and not localisation.localised:
        message = f"{localisation.label}: {message}"
    if profile is not STRICT:
        message += f" (judged under profile {profile.name})"
    return Violation(
        clause,
        message,
        inputs={"documents": list(documents), "max_merges": max_merges},
        expected=_expected_json(documents, max_merges, profile),
        actual=rules_json(actual),
        divergence=divergence,
        localisation=None if localisation is None else localisation.as_dict(),
    )


def train_or_none(subject: Subject, documents: list[str], max_merges: int) -> Rules | None:
    """``train_subject``, with a raised error or a malformed answer as None (which matches no model)."""
    try:
        return train_subject(subject, list(documents), max_merges)
    except (ImplementationRaised, MalformedResult, Violation):
        return None


# Answers to follow-up and localisation questions, per subject, kept across examples and checks: the
# same questions come back for every counterexample, and asking a subprocess again costs a round trip.
_SHARED_ANSWERS: weakref.WeakKeyDictionary[Subject, dict[tuple[tuple[str, ...], int], Rules | None]] = (
    weakref.WeakKeyDictionary()
)


def _shared_answers(subject: Subject) -> dict[tuple[tuple[str, ...], int], Rules | None]:
    try:
        return _SHARED_ANSWERS.setdefault(subject, {})
    except TypeError:  # a subject that cannot be weakly referenced keeps no answers across calls
        return {}


def subject_retrainer(subject: Subject) -> tuple[Retrain, dict[tuple[tuple[str, ...], int], Rules | None]]:
    """The subject's ``train`` for the diagnosis's follow-up inputs, answers kept; a failed call answers None.

    The dict holds the answers this call trained for: when it is not empty, the subject was trained on
    other documents. Answers already given to the same subject are reused without training again.
    """
    answers: dict[tuple[tuple[str, ...], int], Rules | None] = {}
    shared = _shared_answers(subject)

    def retrain(documents: list[str], max_merges: int) -> Rules | None:
        key = (tuple(documents), max_merges)
        if key in shared:
            return shared[key]
        answers[key] = shared[key] = train_or_none(subject, documents, max_merges)
        return answers[key]

    return retrain, answers


def verify_training_rounds(subject: Subject, example: dict[str, Any]) -> Rules | None:
    """Train; raise a violation for the first round that breaks the subject's profile, whatever its kind.

    Rounds are judged in the state the implementation's own earlier rules leave. The violation's clause
    is the localised stage's (:func:`training_violation`), so every training check fails on any
    divergence its own example provokes, under the same clause: the reports group them as one deviation.
    Returns the rules (malformed ones unjudged: rule-references reports them), or None when the profile
    itself fails on these documents (and so did the subject).
    """
    documents, max_merges = example["documents"], example["max_merges"]
    profile = subject_profile(subject)
    actual = train_subject(subject, list(documents), max_merges)
    if actual is None:
        return None
    if not rules_are_valid(actual, profile):
        return actual  # rules naming ids no rule made: rule-references' finding, with no round to judge
    retrain, answers = subject_retrainer(subject)
    judgement = next(judge_rounds(documents, max_merges, actual, profile, retrain), None)
    violation = None
    if judgement is not None:
        violation = training_violation(judgement, documents, max_merges, actual, profile, retrain)
    if answers:
        train_or_none(subject, list(documents), max_merges)  # back to the model these documents make
    if violation is not None:
        raise violation
    return actual


def rejection_verdict(raised: ImplementationRaised, preferred: str) -> str:
    """How a raised error answers bad input for which the specification prefers ``preferred``.

    ``preferred``: it is of that family (any subclass); ``other``: of the other input-error family,
    which the contract allows (an advisory note, never a failure); ``outside``: of neither family.

    >>> rejection_verdict(ImplementationRaised("decode", "UnicodeDecodeError", "", ("UnicodeError", "ValueError")),
    ...                   "ValueError")
    'preferred'
    >>> [rejection_verdict(ImplementationRaised("train", kind, ""), "TypeError") for kind in ("ValueError", "KeyError")]
    ['other', 'outside']
    """
    families = raised.families
    if preferred in families:
        return "preferred"
    return "other" if families else "outside"


def expect_rejection(call: Callable[[], Any], *, clause: str, what: str, inputs: dict[str, Any], kind: str) -> None:
    """``call()`` must raise a ValueError or a TypeError (any subclass); ``kind`` is the one the spec prefers.

    The other family is an advisory note; another error, or a result, is a violation of ``clause``.
    """
    other = next(family for family in INPUT_ERROR_FAMILIES if family != kind)
    wanted = f"must raise {kind} (or {other}; any subclass)"
    try:
        returned = call()
    except ImplementationRaised as raised:
        verdict = rejection_verdict(raised, kind)
        if verdict == "outside":
            raise Violation(
                clause,
                f"{what} {wanted}, but raised {raised.kind}, which is neither: {raised.message}",
                inputs=inputs,
                expected=kind,
                actual=f"{raised.kind}: {raised.message}",
            ) from None
        if verdict == "other":
            advise(f"[{clause}] {what}: raised {raised.kind}; the specification prefers {kind} (a SHOULD)")
        return
    raise Violation(
        clause,
        f"{what} {wanted}, but it was accepted",
        inputs=inputs,
        expected=kind,
        actual=f"returned {returned!r}",
    )


def single_pass_encode(text: str, rules: Rules, first_rule_id: int = FIRST_RULE_ID) -> list[int]:
    """The classic rematching bug: one pass that merges a new token again with its neighbours at once."""
    rank_of: dict[Pair, int] = {}
    for rank, pair in enumerate(rules):
        rank_of.setdefault(pair, rank)
    stack: list[int] = []
    for byte in text.encode():
        stack.append(byte)
        while len(stack) >= 2 and (stack[-2], stack[-1]) in rank_of:
            stack[-2:] = [first_rule_id + rank_of[(stack[-2], stack[-1])]]
    return stack


def _encode_with(
    text: str, rules: Rules, first_rule_id: int, replace: Callable[[list[int], Pair, int], list[int]]
) -> list[int]:
    sequence = list(text.encode())
    for rank, pair in enumerate(rules):
        sequence = replace(sequence, pair, first_rule_id + rank)
    return sequence


def _reverse_order_encode(text: str, rules: Rules, first_rule_id: int) -> list[int]:
    sequence = list(text.encode())
    for rank in reversed(range(len(rules))):
        sequence = replace_pair(sequence, rules[rank], first_rule_id + rank)
    return sequence


def _pretokenized_encode(text: str, rules: Rules, profile: Profile, key: Callable[[str], object]) -> list[int]:
    chunks = ["".join(group) for _, group in itertools.groupby(text, key=key)]
    return [token for chunk in chunks for token in profile_encode(chunk, rules, profile)]


def _gpt2_encode(text: str, rules: Rules, profile: Profile) -> list[int]:
    return [token for chunk in re.findall(GPT2_PATTERN, text) for token in profile_encode(chunk, rules, profile)]


EncodingModel = Callable[[str, Rules, Profile], list[int]]

# Models of encoding bugs, tried in order; the first that reproduces every wrong answer names the clause.
_ENCODING_MODELS: tuple[tuple[str, EncodingModel], ...] = (
    ("BPE-ENCODE-ORDER", lambda text, rules, profile: _reverse_order_encode(text, rules, profile.first_rule_id)),
    ("BPE-MERGE-NOREMATCH", lambda text, rules, profile: single_pass_encode(text, rules, profile.first_rule_id)),
    (
        "BPE-MERGE-SCAN",
        lambda text, rules, profile: _encode_with(text, rules, profile.first_rule_id, replace_right_to_left),
    ),
    (
        "BPE-MERGE-SCAN",
        lambda text, rules, profile: _encode_with(text, rules, profile.first_rule_id, replace_overlapping),
    ),
    (
        "BPE-ENCODE-RAW",
        lambda text, rules, profile: _pretokenized_encode(
            text, rules, profile, lambda char: character_class(ord(char))
        ),
    ),
    ("BPE-ENCODE-RAW", lambda text, rules, profile: _pretokenized_encode(text, rules, profile, str.isspace)),
    ("BPE-ENCODE-RAW", _gpt2_encode),
)


# Rule lists on which the encoding models part for the fixed follow-up texts ("a " then "a b").
PROBE_RULES: tuple[Rules, ...] = ([(97, 32), (258, 98)], [(98, 97), (97, 258), (32, 97)])
Encoder = Callable[[str, Rules], "list[int] | None"]


def follow_up_texts(texts: list[str]) -> list[str]:
    """Texts on which the encoding models part: the wrong texts joined, reversed, and a few fixed ones.

    >>> follow_up_texts(["ab"])[:3]
    ['ab', 'ab', 'ba']
    """
    fixed = ["ab ab, ab", "a b a b", "aaa aaa", "it's 12 ab", "x,y x,y", "aaaa", "abab abab", "ba a b"]
    return [" ".join(texts), ", ".join(texts), *(text[::-1] for text in texts), *fixed]


def cross_examine_encodings(
    candidates: list[tuple[str, EncodingModel]],
    texts: list[str],
    rules: Rules,
    profile: Profile,
    encode: Encoder,
    probe_rules: tuple[Rules, ...] = (),
) -> list[tuple[str, EncodingModel]]:
    """The candidate models whose ids equal the implementation's on every follow-up they disagree on.

    Follow-ups are the follow-up texts under ``rules``, then under each of ``probe_rules`` (in the
    profile's numbering) when the implementation can load rules.
    """
    shift = profile.first_rule_id - FIRST_RULE_ID
    rule_lists = [
        rules,
        *([(a if a < 256 else a + shift, b if b < 256 else b + shift) for a, b in probe] for probe in probe_rules),
    ]
    for given in rule_lists:
        for text in follow_up_texts(texts):
            if len(candidates) < 2:
                return candidates
            predictions = [model(text, given, profile) for _, model in candidates]
            if len({tuple(ids) for ids in predictions}) < 2:
                continue
            answer = encode(text, given)
            candidates = [candidate for candidate, ids in zip(candidates, predictions, strict=True) if ids == answer]
    return candidates


def encoding_clause(
    wrong: list[tuple[str, list[int]]],
    rules: Rules,
    profile: Profile = STRICT,
    encode: Encoder | None = None,
    probe_rules: tuple[Rules, ...] = (),
) -> str:
    """The clause that wrong encodings (``(text, ids)`` pairs) most likely break under ``profile``.

    A model of a common bug names the clause only if it reproduces every wrong answer; when several
    do, ``encode(text, rules)`` (the implementation) is asked follow-ups they part on, and a model it
    contradicts is dropped. None left, or several: the generic BPE-ENCODE-ORDER ("not the canonical ids").
    """
    if profile.boundary_ids and any(token in BOUNDARY_IDS for _, ids in wrong for token in ids):
        return "BPE-ENCODE-BOUNDARY"
    if not rules:
        return "BPE-ALPHA-BYTES"
    candidates = [
        (clause, model)
        for clause, model in _ENCODING_MODELS
        if all(model(text, rules, profile) == ids for text, ids in wrong)
    ]
    if encode is not None:
        texts = [text for text, _ in wrong]
        candidates = cross_examine_encodings(candidates, texts, rules, profile, encode, probe_rules)
    return candidates[0][0] if len({clause for clause, _ in candidates}) == 1 else "BPE-ENCODE-ORDER"


def subject_encoder(subject: Subject, loaded: Rules) -> Encoder:
    """The subject's ``encode`` for follow-ups; under other rules than ``loaded`` it loads them first.

    A failed call, or rules it cannot load, answer None (which no model predicts).
    """
    current = [list(loaded)]

    def encode(text: str, rules: Rules) -> list[int] | None:
        try:
            if list(rules) != current[0]:
                if not subject.supports("load"):
                    return None
                subject.load(list(rules))
                current[0] = list(rules)
            return subject.encode(text)
        except (ImplementationRaised, MalformedResult):
            return None

    return encode


def verify_encodings(subject: Subject, texts: list[str], rules: Rules, *, context: str) -> None:
    """Each text's ids must be exactly the canonical encoding under ``rules`` (BPE-ENCODE-ORDER).

    Canonical means under the subject's profile: its encode algorithm (rank order or piece rank) and
    its numbering. Wrong ids are reported under the clause of the stage localisation finds
    (:func:`bpe_conformance.diagnosis.localise_encoding`), or, when it cannot decide, as unlocalised.
    """
    profile = subject_profile(subject)
    wrong = []
    for text in texts:
        actual = subject.encode(text)
        if actual != profile_encode(text, rules, profile):
            wrong.append((text, actual))
    if not wrong:
        return
    localisation = None
    if profile.boundary_ids and any(token in BOUNDARY_IDS for _, ids in wrong for token in ids):
        clause = "BPE-ENCODE-BOUNDARY"
    elif not rules:
        clause = "BPE-ALPHA-BYTES"
    else:
        encoder = subject_encoder(subject, rules)
        localisation = localise_encoding(wrong, rules, profile, encoder)
        encoder("", rules)  # back to the rules the check loaded
        clause = localisation.clause
    text, actual = wrong[0]
    label = "" if localisation is None or localisation.localised else f"{localisation.label}: "
    raise Violation(
        clause,
        f"{label}encode({text!r}) {context} gave ids that are not the canonical encoding under the model's rules"
        + (f" ({len(wrong)} of {len(texts)} texts were wrong)" if len(texts) > 1 else "")
        + ("" if profile is STRICT else f" (profile {profile.name}: {profile.encode_algorithm})"),
        inputs={"rules": rules_json(rules), "text": text},
        expected=profile_encode(text, rules, profile),
        actual=actual,
        localisation=None if localisation is None else localisation.as_dict(),
    )
