"""Tests of conformance/checks/validation.py: the bad calls and their rejections (BPE-INPUT-*, BPE-TRAIN-MAXMERGES).

Each test names the clause whose verdict it protects, on small fixed examples.
"""

from __future__ import annotations

import ast
import copy
import json
from typing import Any

import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import validation
from bpe_conformance.checks.validation import (
    ALL_CASES,
    IDS_CASES,
    MAX_MERGES_CASES,
    RULES_CASES,
    TEXT_CASES,
    profile_accepts,
    setup_merges,
    verify_rejection,
)
from bpe_conformance.dialects.context import pairs_run_out
from bpe_conformance.dialects.probes import ProfileModel
from bpe_conformance.errors import Violation
from bpe_conformance.inputs.unrepresentable import restore
from bpe_conformance.reference import LiteralTokenizer, Tokenizer, check_documents, check_max_merges
from bpe_conformance.reference.profiles import HF_TOKENIZERS, MINBPE, STRICT, TIKTOKEN
from bpe_conformance.results.advisories import collecting
from tests.checks.helpers import CHECKS, dialect, violation_of
from tests.support.fresh_modules import fresh_copy as fresh


def test_the_set_up_model_has_every_rule_the_profile_makes_and_never_runs_out_of_pairs() -> None:
    """Bad calls are made against a model with rules; setting up never asks a trainer past its last pair."""
    assert (setup_merges(STRICT), setup_merges(MINBPE)) == (2, 5)
    for profile in (STRICT, MINBPE, HF_TOKENIZERS):
        assert not pairs_run_out(["abab", "acac"], setup_merges(profile), profile)


def test_the_profile_judges_a_bad_call_on_a_model_set_up_like_the_subjects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The profile's reference is trained on the set-up documents when the subject can train, else loaded with
    the rules that training makes first, (97, 98) and (97, 99): both sides see the same model."""
    calls: list[tuple[Any, ...]] = []

    class RecordingModel(ProfileModel):
        def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
            calls.append(("train", list(documents), max_merges))
            return super().train(documents, max_merges)

        def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
            calls.append(("load", list(rules)))
            return super().load(rules)

    monkeypatch.setattr(validation, "ProfileModel", RecordingModel)
    assert profile_accepts(IDS_CASES[-1], HF_TOKENIZERS, True)
    assert calls == [("train", ["abab", "acac"], setup_merges(HF_TOKENIZERS))]
    calls.clear()
    assert profile_accepts(IDS_CASES[-1], HF_TOKENIZERS, False)
    assert calls == [("load", LiteralTokenizer().train(["abab", "acac"], 2))]
    assert calls[0][1] == [(97, 98), (97, 99)]
    calls.clear()
    verify_rejection(InProcessSubject(dialect(HF_TOKENIZERS)), IDS_CASES[-1])  # it can train
    assert calls == [("train", ["abab", "acac"], setup_merges(HF_TOKENIZERS))]


def test_a_profile_accepts_only_the_bad_calls_its_own_reference_accepts() -> None:
    """hf-tokenizers drops a huge unknown id (up to 2**53); tiktoken replaces lone surrogates; max_merges stays
    strict; bytes, sets and generators are rejected under every profile."""
    accepted_ids = [case.description for case in IDS_CASES if profile_accepts(case, HF_TOKENIZERS, True)]
    assert accepted_ids == [
        *(f"the id {offset} + 97" for offset in (2**31, 2**32, 2**53)),
        *(f"the id {offset}" for offset in (2**31, 2**32, 2**53)),
        "a huge id",
    ]
    assert IDS_CASES[-1].description == "a huge id"
    text_accepted = [profile_accepts(case, TIKTOKEN, False) for case in TEXT_CASES]
    assert text_accepted == [False, False, False, True, True, True] + [False] * (len(TEXT_CASES) - 6)
    assert not any(profile_accepts(case, MINBPE, True) for case in MAX_MERGES_CASES)
    lenient = dialect(HF_TOKENIZERS)
    CHECKS["ids-validation"].verify(InProcessSubject(lenient), IDS_CASES[-1])
    with pytest.raises(Violation) as caught:
        CHECKS["ids-validation"].verify(
            InProcessSubject(dialect(HF_TOKENIZERS, decode=lambda self, ids: "")), IDS_CASES[0]
        )
    assert caught.value.clause == "BPE-INPUT-IDS"


class BoolMaxMergesIsValueError(LiteralTokenizer):
    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        if isinstance(max_merges, bool):
            raise ValueError("max_merges is a bool")
        return super().train(documents, max_merges)


def test_a_rejection_with_the_other_error_family_is_an_advisory_not_a_violation() -> None:
    """BPE-TRAIN-MAXMERGES: a bool max_merges should be a TypeError; a ValueError (the seed's) is a note."""
    case = MAX_MERGES_CASES[2]
    with collecting() as notes:
        verify_rejection(InProcessSubject(BoolMaxMergesIsValueError), case)
    (note,) = notes
    assert "BPE-TRAIN-MAXMERGES" in note
    assert "raised ValueError" in note
    assert "prefers TypeError" in note


def test_an_implementation_without_train_is_set_up_by_load() -> None:
    """A load-only implementation gets the rules (97, 98), (97, 99) loaded before the bad encode/decode/load."""

    class LoadOnly(LiteralTokenizer):
        capabilities = ("load", "encode", "decode")

    for case in [case for case in ALL_CASES if case.operation != "train"]:
        verify_rejection(InProcessSubject(LoadOnly), case)
    minbpe_accepting = dialect(MINBPE, train=lambda self, documents, max_merges: [])
    with pytest.raises(Violation):
        verify_rejection(InProcessSubject(minbpe_accepting), MAX_MERGES_CASES[0])


class LosesTheModelOnARejectedTrain(LiteralTokenizer):
    """Marks the model lost before validating train's arguments; encode then raises."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.lost = True
        rules = super().train(documents, max_merges)
        self.lost = False
        return rules

    def encode(self, text: str) -> list[int]:
        if getattr(self, "lost", False):
            raise RuntimeError("the model is gone")
        return super().encode(text)


def test_a_model_that_cannot_encode_after_a_rejected_call_is_a_violation() -> None:
    """BPE-TRAIN-MAXMERGES: a rejected train must leave a model that still encodes; the error is the answer."""
    example = {"documents": ["abab"], "max_merges": 2, "texts": [], "call": MAX_MERGES_CASES[0]}
    violation = violation_of("failed-call-keeps-model", LosesTheModelOnARejectedTrain, example)
    assert (violation.clause, violation.expected) == ("BPE-TRAIN-MAXMERGES", [[258, 258]])
    assert violation.actual == "encode raised RuntimeError: the model is gone"


class ForgetsItsRulesBeforeCheckingALoad(LiteralTokenizer):
    """Empties the model, then loads (and checks) the new rules: a rejected load leaves no rules behind."""

    def load(self, rules: list[tuple[int, int]], max_piece_bytes: int | None = None) -> list[tuple[int, int]]:
        super().load([])
        return super().load(rules, max_piece_bytes)


@pytest.mark.parametrize("case", RULES_CASES[:1] + RULES_CASES[6:7], ids=lambda case: case.clause)
def test_a_rejected_load_that_changed_the_model_breaks_the_load_order_clause(case: validation.BadCall) -> None:
    """BPE-SER-LOAD: a load that adopted before it checked is the loading clause's fault (check everything
    before adopting anything), whatever the bad rules break (BPE-RULE-REF, BPE-INPUT-RULES)."""
    assert case.operation == "load"
    assert case.clause != "BPE-SER-LOAD"
    example = {"documents": ["abab"], "max_merges": 2, "texts": [], "call": case}
    violation = violation_of("failed-call-keeps-model", ForgetsItsRulesBeforeCheckingALoad, example)
    assert (violation.clause, violation.expected, violation.actual) == (
        "BPE-SER-LOAD",
        [[258, 258]],
        [[97, 98, 97, 98]],
    )


class _ClearsWhatItIsGiven:
    """Empties every list it is handed, then rejects the call: a rude but legal implementation."""

    def train(self, documents: list[Any], max_merges: Any) -> None:
        documents.clear()
        raise ValueError("documents rejected")

    def load(self, rules: list[Any]) -> None:
        for rule in rules:
            if isinstance(rule, list):
                rule.clear()
        rules.clear()
        raise ValueError("rules rejected")


@pytest.mark.parametrize(
    "case",
    [
        validation.BadCall("train", (["abab", 5], 8), "TypeError", "BPE-INPUT-DOCS", "a document that is not a str"),
        validation.RULES_CASES[2],  # [[97, 98], [258, 260]]: a rule that refers to a later rule
    ],
    ids=["train-documents", "load-nested-rules"],
)
def test_a_bad_call_hands_each_call_its_own_copy_of_the_case(case: validation.BadCall) -> None:
    """The harness must lose or corrupt nothing: a case is shared by every run and every report, so an
    implementation that mutates what it is given (down to the rules inside the list) must not change it."""
    before = copy.deepcopy(case.argument)
    for _ in range(2):
        with pytest.raises(ValueError, match="rejected"):
            # a bare implementation stands in for the Subject: call only uses its methods
            case.call(_ClearsWhatItIsGiven())  # type: ignore[arg-type]
    assert case.argument == before


class AcceptsEverything:
    """Never raises: every bad call the specification lists is accepted."""

    def train(self, documents: Any, max_merges: Any) -> list[tuple[int, int]]:
        return []

    def encode(self, text: Any) -> list[int]:
        return []

    def decode(self, ids: Any) -> str:
        return ""

    def load(self, rules: Any) -> None:
        return None


def _reference_answer(call: Any) -> str:
    try:
        call()
    except (TypeError, ValueError) as error:
        return type(error).__name__
    return "accepted"


def test_each_max_merges_case_is_bad_only_in_max_merges() -> None:
    """BPE-TRAIN-MAXMERGES: each case trains on valid documents with a max_merges the reference rejects."""
    validation = fresh("bpe_conformance.checks.validation")
    assert len(validation.MAX_MERGES_CASES) >= 9
    for case in validation.MAX_MERGES_CASES:
        documents, max_merges = case.argument
        assert (case.operation, case.clause) == ("train", "BPE-TRAIN-MAXMERGES"), case
        assert check_documents(documents) == [b"abab"]
        assert _reference_answer(lambda max_merges=max_merges: check_max_merges(max_merges)) == case.kind, case
        assert case.description.startswith("max_merges ")


def test_each_documents_case_is_bad_only_in_its_documents() -> None:
    """BPE-INPUT-DOCS: each case passes a valid max_merges and documents the reference rejects."""
    validation = fresh("bpe_conformance.checks.validation")
    assert len(validation.DOCUMENTS_CASES) >= 10
    for case in validation.DOCUMENTS_CASES:
        documents, max_merges = case.argument
        assert (case.operation, case.clause) == ("train", "BPE-INPUT-DOCS"), case
        assert check_max_merges(max_merges) == max_merges
        assert max_merges > 0
        assert _reference_answer(lambda documents=documents: check_documents(documents)) == case.kind, case


def test_the_other_cases_are_rejected_by_the_reference_with_their_kind() -> None:
    """BPE-INPUT-TEXT, BPE-INPUT-IDS, BPE-INPUT-RULES: every case's kind is the reference's own answer."""
    validation = fresh("bpe_conformance.checks.validation")
    tokenizer = LiteralTokenizer()
    tokenizer.train(list(validation.SETUP_DOCUMENTS), 32)
    operations = {"encode": tokenizer.encode, "decode": tokenizer.decode, "load": LiteralTokenizer().load}
    for family, operation in (
        (validation.TEXT_CASES, "encode"),
        (validation.IDS_CASES, "decode"),
        (validation.RULES_CASES, "load"),
    ):
        assert family
        assert all(case.operation == operation for case in family)
        for case in family:
            answer = _reference_answer(lambda case=case, call=operations[operation]: call(case.argument))
            assert answer == case.kind, case
    assert {case.clause for case in validation.IDS_CASES} == {"BPE-INPUT-IDS"}
    assert {case.clause for case in validation.TEXT_CASES} == {"BPE-INPUT-TEXT"}
    assert {case.clause for case in validation.RULES_CASES} == {"BPE-INPUT-RULES", "BPE-RULE-REF"}
    assert validation.ALL_CASES == (
        validation.MAX_MERGES_CASES
        + validation.DOCUMENTS_CASES
        + validation.TEXT_CASES
        + validation.IDS_CASES
        + validation.RULES_CASES
    )


def test_case_checks_run_their_family_and_report_its_clauses() -> None:
    """Each validation check runs its own cases, needs only the operations they call, lists their clauses."""
    validation = fresh("bpe_conformance.checks.validation")
    checks = {check.name: check for check in validation.VALIDATION_CHECKS}
    families = {
        "max-merges-validation": ("BPE-TRAIN-MAXMERGES", validation.MAX_MERGES_CASES, {"train"}, ()),
        "documents-validation": ("BPE-INPUT-DOCS", validation.DOCUMENTS_CASES, {"train"}, ()),
        "text-validation": ("BPE-INPUT-TEXT", validation.TEXT_CASES, {"train", "encode"}, ()),
        "ids-validation": ("BPE-INPUT-IDS", validation.IDS_CASES, {"train", "decode"}, ()),
        "rules-validation": ("BPE-INPUT-RULES", validation.RULES_CASES, {"load"}, ("BPE-RULE-REF",)),
    }
    for name, (clause, cases, requires, also) in families.items():
        check = checks[name]
        assert (check.clause, tuple(check.cases()), check.requires, check.also) == (clause, cases, requires, also)
        assert check.strategy is None
        assert check.summary
        assert check.verify is validation.verify_rejection


def _as_sent(shown: Any, generator_of: Any) -> Any:
    """The argument a counterexample shows, with its ``$unrepresentable`` markers turned back into values."""
    if isinstance(shown, (list, tuple)):
        return type(shown)(_as_sent(item, generator_of) for item in shown)
    if isinstance(shown, dict) and shown.get("$unrepresentable") == "generator":
        items = shown["repr"].removeprefix("(item for item in ").removesuffix(")")
        return generator_of(tuple(ast.literal_eval(items)))
    return restore(shown) if isinstance(shown, dict) else shown


def test_every_validation_case_fails_an_implementation_that_accepts_everything() -> None:
    """A case is a bad call: accepting it is a violation of the case's clause with the call as input."""
    validation = fresh("bpe_conformance.checks.validation")
    subject = InProcessSubject(AcceptsEverything)
    for case in validation.ALL_CASES:
        with pytest.raises(Violation) as caught:
            validation.verify_rejection(subject, case)
        violation = caught.value
        assert violation.clause == case.clause
        shown = violation.inputs["argument"]
        assert violation.inputs == {"operation": case.operation, "argument": shown, "problem": case.description}
        json.dumps(shown, allow_nan=False)  # bytes, sets, NaN and generators are shown as the protocol's markers
        assert repr(_as_sent(shown, validation.GeneratorOf)) == repr(case.argument)
        assert violation.expected == case.kind
        assert violation.actual.startswith("returned ")
        assert case.description in violation.message
        assert case.kind in violation.message
    for case in validation.ALL_CASES:
        validation.verify_rejection(InProcessSubject(Tokenizer), case)
