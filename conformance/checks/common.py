"""Helpers shared by the checks: calling the subject, judging training, and building violations.

>>> rules_json([(97, 98)])
[[97, 98]]
"""

from __future__ import annotations

import contextlib
import weakref
from typing import TYPE_CHECKING, Any

from bpe_conformance.checks.encoding_models import (
    PROBE_RULES,
    Encoder,
    cross_examine_encodings,
    encoding_clause,
    follow_up_texts,
    single_pass_encode,
)
from bpe_conformance.checks.examples import TrainingExample, drawn
from bpe_conformance.diagnosis import (
    Judgement,
    Retrain,
    describe,
    judge_rounds,
    localise_encoding,
    localise_history,
    localise_training,
    split_report,
)
from bpe_conformance.dialects.context import (
    expected_rules,
    profile_encode,
    rules_are_valid,
    subject_profile,
    train_subject,
)
from bpe_conformance.errors import INPUT_ERROR_FAMILIES, ImplementationRaised, MalformedResult, Violation
from bpe_conformance.inputs.strategies import max_merges_values
from bpe_conformance.reference import BOUNDARY_IDS
from bpe_conformance.reference.pretokenization import get_training_split, split_text
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.results.advisories import advise

if TYPE_CHECKING:
    from collections.abc import Callable

    from hypothesis import strategies as st

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.diagnosis.stages import Localisation
    from bpe_conformance.reference.json_values import JSONObject

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
    "split_chunks",
    "subject_answer",
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
) -> st.SearchStrategy[TrainingExample]:
    """``{"documents": ..., "max_merges": ...}`` with the documents from ``documents``."""
    return drawn(TrainingExample, documents=documents, max_merges=max_merges_values(max_value=max_value))


def _expected_json(documents: list[str], max_merges: int, profile: Profile) -> Any:
    return rules_json(expected_rules(list(documents), max_merges, profile))


def split_chunks(texts: list[str], profile: Profile) -> list[list[str]] | None:
    """Each text's chunks under the profile's split (what a counterexample shows behind one); None without one."""
    if profile.split is None:
        return None
    split = get_training_split(profile.split)
    return [split_text(text, split) for text in texts]


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
    inputs: JSONObject = {"documents": list(documents), "max_merges": max_merges}
    joined = profile.documents == "concatenated"  # then the chunks are those of the one joined text
    chunks = split_chunks([profile.document_separator.join(documents)] if joined else list(documents), profile)
    if chunks is not None:
        inputs["chunks"] = chunks
        message += f"; the documents' chunks under split={profile.split}: {chunks!r}"
    return Violation(
        clause,
        message,
        inputs=inputs,
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
# Kept apart by whether the subject was reset before each question.
_SHARED_ANSWERS: weakref.WeakKeyDictionary[Subject, dict[bool, dict[tuple[tuple[str, ...], int], Rules | None]]] = (
    weakref.WeakKeyDictionary()
)


# Only small questions are kept across calls: compare retrains on whole corpora, which must not pile up.
_SHARED_CHARS = 4096


def _shared_answers(subject: Subject, fresh: bool) -> dict[tuple[tuple[str, ...], int], Rules | None]:
    try:
        kept = _SHARED_ANSWERS.setdefault(subject, {})
    except TypeError:  # a subject that cannot be weakly referenced keeps no answers across calls
        return {}
    return kept.setdefault(fresh, {})


def subject_retrainer(
    subject: Subject, *, fresh: bool = False
) -> tuple[Retrain, dict[tuple[tuple[str, ...], int], Rules | None]]:
    """The subject's ``train`` for the diagnosis's follow-up inputs, answers kept; a failed call answers None.

    The dict holds the answers this call trained for: when it is not empty, the subject was trained on
    other documents. Answers already given to the same subject are reused without training again. With
    ``fresh`` (localisation's questions) the subject is reset before each training, so that nothing it
    kept from earlier calls answers a question.
    """
    answers: dict[tuple[tuple[str, ...], int], Rules | None] = {}
    shared = _shared_answers(subject, fresh)

    def retrain(documents: list[str], max_merges: int) -> Rules | None:
        key = (tuple(documents), max_merges)
        if key in shared:
            return shared[key]
        if fresh:
            subject.reset()
        answers[key] = train_or_none(subject, documents, max_merges)
        if sum(len(document) for document in documents) <= _SHARED_CHARS:
            shared[key] = answers[key]
        return answers[key]

    return retrain, answers


def verify_training_rounds(subject: Subject, example: TrainingExample) -> Rules | None:
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
        ask, asked = subject_retrainer(subject, fresh=True)
        violation = training_violation(judgement, documents, max_merges, actual, profile, ask)
        answers.update(asked)
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


def expect_rejection(call: Callable[[], Any], *, clause: str, what: str, inputs: JSONObject, kind: str) -> None:
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


def subject_encoder(subject: Subject, loaded: Rules, *, fresh: bool = False) -> Encoder:
    """The subject's ``encode`` for follow-ups; under other rules than ``loaded`` it loads them first.

    With ``fresh`` (localisation's questions), an implementation that can load is reset before it loads
    each rule list, the first included, so that what it kept from earlier calls (a cache of encodings,
    say) answers no question: a stateful bug is left unlocalised rather than blamed on a stage.
    A failed call, or rules it cannot load, answer None (which no model predicts).
    """
    can_load = subject.supports("load")
    current: list[Rules | None] = [None if fresh and can_load else list(loaded)]

    def encode(text: str, rules: Rules) -> list[int] | None:
        try:
            if list(rules) != current[0]:
                if not can_load:
                    return None
                if fresh:
                    subject.reset()
                subject.load(list(rules))
                current[0] = list(rules)
            return subject.encode(text)
        except (ImplementationRaised, MalformedResult):
            return None

    return encode


def subject_answer(subject: Subject, operation: str, argument: Any) -> Callable[[Rules, Rules | None], Any]:
    """The subject's answer to ``operation(argument)`` on a fresh instance, for :func:`localise_history`.

    ``answer(rules, before)`` resets the subject; when ``before`` is not None it loads ``before`` and makes
    the same call under it (whatever it answers, even an error: only what the instance keeps matters),
    then loads ``rules`` and makes the call. A failed load or call answers None.
    """
    call = subject.encode if operation == "encode" else subject.decode

    def answer(rules: Rules, before: Rules | None) -> Any:
        try:
            subject.reset()
            if before is not None:
                subject.load(list(before))
                with contextlib.suppress(ImplementationRaised, MalformedResult):
                    call(argument)
            subject.load(list(rules))
            return call(argument)
        except (ImplementationRaised, MalformedResult):
            return None

    return answer


def verify_encodings(subject: Subject, texts: list[str], rules: Rules, *, context: str, loaded: bool = False) -> None:
    """Each text's ids must be exactly the canonical encoding under ``rules`` (BPE-ENCODE-ORDER).

    Canonical means under the subject's profile: its encode algorithm (rank order or piece rank) and
    its numbering. Wrong ids are reported under the clause of the stage localisation finds
    (:func:`bpe_conformance.diagnosis.localise_encoding`), or, when it cannot decide, as unlocalised.
    ``loaded`` says the subject got ``rules`` from ``load``, not ``train``.

    Before any stage of encoding is asked, a fresh instance is asked the wrong text itself
    (:func:`bpe_conformance.diagnosis.localise_history`): every stage question is put to a fresh instance,
    so when a fresh one encodes this very text right, the wrong ids came from what the instance kept
    from earlier calls, and a stage question answered right would blame a stage that is not at fault.
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
        localisation = _history_localisation(subject, wrong[0][0], rules, profile, loaded=loaded)
        encoder = subject_encoder(subject, rules, fresh=True)
        if localisation is None:
            localisation = localise_encoding(wrong, rules, profile, encoder)
        encoder("", rules)  # back to the rules the check loaded
        clause = localisation.clause
    text, actual = wrong[0]
    label = "" if localisation is None or localisation.localised else f"{localisation.label}: "
    inputs: JSONObject = {"rules": rules_json(rules), "text": text}
    report = split_report(text, actual, rules, profile)
    split = ""
    if report is not None:
        inputs["chunks"] = report["chunks"]
        split = f"; its chunks under split={profile.split}: {report['chunks']!r}, the ids' tokens: {report['tokens']!r}"
        if report["token_across_chunks"] is not None:
            split += f" (token {report['token_across_chunks']!r} spans two chunks)"
    raise Violation(
        clause,
        f"{label}encode({text!r}) {context} gave ids that are not the canonical encoding under the model's rules"
        + (f" ({len(wrong)} of {len(texts)} texts were wrong)" if len(texts) > 1 else "")
        + ("" if profile is STRICT else f" (profile {profile.name}: {profile.encode_algorithm})")
        + split,
        inputs=inputs,
        expected=profile_encode(text, rules, profile),
        actual=actual,
        localisation=None if localisation is None else localisation.as_dict(),
    )


def _history_localisation(
    subject: Subject, text: str, rules: Rules, profile: Profile, *, loaded: bool
) -> Localisation | None:
    """:func:`localise_history` for a wrong encoding of ``text``; None when the subject cannot load (it
    cannot be asked under given rules) or a fresh instance encodes the text wrong too."""
    if not subject.supports("load"):
        return None
    expected = profile_encode(text, rules, profile)
    answer = subject_answer(subject, "encode", text)
    return localise_history("encode", {"text": text}, expected, rules, answer, loaded=loaded)
