"""The check tables built at import time, checked on freshly imported copies (docs/mutation.md).

mutmut forks its test processes after the modules are imported, so a table built by a function at
import (the validation cases, the vector checks, the decoding strategies, the diagnosis's bug models)
is always the unmutated one there. Each test here imports a fresh copy of the module, which runs those
functions again, and states what the table must hold.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from types import ModuleType
from typing import Any

import pytest
from hypothesis import strategies as st

from conformance.adapters.python import InProcessSubject
from conformance.adapters.subject import CAPABILITIES
from conformance.checks import ALL_CHECKS, select_checks
from conformance.checks.base import Check
from conformance.checks.encoding import _with_variants
from conformance.checks.vectors import vector_cases
from conformance.errors import Violation
from conformance.inputs.strategies import corpora, encode_texts, max_merges_values, texts_and_rules
from conformance.spec.clauses import load_clauses
from reference import LiteralTokenizer, Tokenizer, check_documents, check_max_merges

KEBAB_CASE = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def fresh(name: str) -> ModuleType:
    """A new copy of module ``name`` with its top-level code run again (it is not put in sys.modules)."""
    importlib.import_module(name)  # its dataclasses resolve names through sys.modules
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


# --- validation cases (BPE-TRAIN-MAXMERGES, BPE-INPUT-*) ------------------------------------------


def _reference_answer(call: Any) -> str:
    try:
        call()
    except (TypeError, ValueError) as error:
        return type(error).__name__
    return "accepted"


def test_each_max_merges_case_is_bad_only_in_max_merges() -> None:
    """BPE-TRAIN-MAXMERGES: each case trains on valid documents with a max_merges the reference rejects."""
    validation = fresh("conformance.checks.validation")
    assert len(validation.MAX_MERGES_CASES) >= 9
    for case in validation.MAX_MERGES_CASES:
        documents, max_merges = case.argument
        assert (case.operation, case.clause) == ("train", "BPE-TRAIN-MAXMERGES"), case
        assert check_documents(documents) == [b"abab"]
        assert _reference_answer(lambda max_merges=max_merges: check_max_merges(max_merges)) == case.kind, case
        assert case.description.startswith("max_merges ")


def test_each_documents_case_is_bad_only_in_its_documents() -> None:
    """BPE-INPUT-DOCS: each case passes a valid max_merges and documents the reference rejects."""
    validation = fresh("conformance.checks.validation")
    assert len(validation.DOCUMENTS_CASES) >= 10
    for case in validation.DOCUMENTS_CASES:
        documents, max_merges = case.argument
        assert (case.operation, case.clause) == ("train", "BPE-INPUT-DOCS"), case
        assert check_max_merges(max_merges) == max_merges and max_merges > 0
        assert _reference_answer(lambda documents=documents: check_documents(documents)) == case.kind, case


def test_the_other_cases_are_rejected_by_the_reference_with_their_kind() -> None:
    """BPE-INPUT-TEXT, BPE-INPUT-IDS, BPE-INPUT-RULES: every case's kind is the reference's own answer."""
    validation = fresh("conformance.checks.validation")
    tokenizer = LiteralTokenizer()
    tokenizer.train(list(validation.SETUP_DOCUMENTS), 32)
    operations = {"encode": tokenizer.encode, "decode": tokenizer.decode, "load": LiteralTokenizer().load}
    for family, operation in (
        (validation.TEXT_CASES, "encode"),
        (validation.IDS_CASES, "decode"),
        (validation.RULES_CASES, "load"),
    ):
        assert family and all(case.operation == operation for case in family)
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
    validation = fresh("conformance.checks.validation")
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
        assert check.strategy is None and check.summary
        assert check.verify is validation.verify_rejection


def test_every_validation_case_fails_an_implementation_that_accepts_everything() -> None:
    """A case is a bad call: accepting it is a violation of the case's clause with the call as input."""
    validation = fresh("conformance.checks.validation")
    subject = InProcessSubject(AcceptsEverything)
    for case in validation.ALL_CASES:
        with pytest.raises(Violation) as caught:
            validation.verify_rejection(subject, case)
        violation = caught.value
        assert violation.clause == case.clause
        assert violation.inputs == {"operation": case.operation, "argument": case.argument, "problem": case.description}
        assert violation.expected == case.kind and violation.actual.startswith("returned ")
        assert case.description in violation.message and case.kind in violation.message
    for case in validation.ALL_CASES:
        validation.verify_rejection(InProcessSubject(Tokenizer), case)


# --- vector checks (every clause the vectors can show) --------------------------------------------


def test_vector_checks_replay_every_vector_of_their_file() -> None:
    """Each vector check replays its file's vectors, in file order, and may report any clause they show."""
    vectors = fresh("conformance.checks.vectors")
    expected = {
        "vectors-training": ("training.json", "BPE-TRAIN-GREEDY", {"train", "encode", "decode"}),
        "vectors-load": ("load.json", "BPE-ENCODE-ORDER", {"load", "encode", "decode"}),
        "vectors-invalid": ("invalid.json", "BPE-INPUT-DOCS", {"train", "encode"}),
    }
    checks = {check.name: check for check in vectors.VECTOR_CHECKS}
    assert set(checks) == set(expected)
    defined = set(load_clauses())
    for name, (file_name, clause, requires) in expected.items():
        check = checks[name]
        assert [vector["id"] for vector in check.cases()] == [vector["id"] for vector in vector_cases(file_name)]
        assert (check.clause, check.requires, check.strategy) == (clause, requires, None)
        assert check.verify is vectors.verify_vector and check.summary
        assert clause not in check.also and set(check.also) <= defined
        assert set(check.also) == {
            other for other in vectors.CLAUSE_IDS if other not in vectors._NEVER_REPORTED and other != clause
        }
        assert "BPE-SER-JSON" not in check.also and "BPE-TRAIN-TIE" in check.clauses
        assert check.inapplicable is vectors.vectors_inapplicable


# --- the checks' examples: what each strategy draws -------------------------------------------------


def test_decoding_check_examples_have_documents_and_max_merges_up_to_24() -> None:
    """The decoding checks draw documents and a max_merges from 0 to 24, plus their own fields."""
    decoding = fresh("conformance.checks.decoding")
    max_merges = repr(max_merges_values(max_value=24))
    for check in decoding.DECODING_CHECKS:
        described = repr(check.strategy())
        assert described.startswith("fixed_dictionaries({'documents': "), check.name
        assert f"'max_merges': {max_merges}" in described, check.name


def test_document_order_examples_have_two_to_four_documents_and_a_seed() -> None:
    """BPE-PROP-PERMUTE needs two documents at least to permute: 2 to 4 documents of up to 20 characters,
    max_merges from 0 to 20, and a shuffle seed from 0 to 2**16 (the failure names it)."""
    expected = st.fixed_dictionaries(
        {
            "documents": corpora(min_documents=2, max_documents=4, max_length=20),
            "max_merges": max_merges_values(max_value=20),
            "seed": st.integers(min_value=0, max_value=2**16),
        }
    )
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "document-order")
    assert strategy is not None and repr(strategy()) == repr(expected)


def test_rule_id_examples_have_up_to_three_texts_besides_the_documents() -> None:
    """BPE-RULE-ID is checked on up to 4 documents of up to 24 characters and up to 3 unseen texts of up to 20,
    with max_merges from 0 to 24."""
    expected = st.fixed_dictionaries(
        {
            "documents": corpora(max_documents=4, max_length=24),
            "max_merges": max_merges_values(max_value=24),
            "texts": st.lists(encode_texts(max_length=20), max_size=3),
        }
    )
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "rule-ids")
    assert strategy is not None and repr(strategy()) == repr(expected)


def test_training_input_examples_train_at_least_once_between_two_corpora() -> None:
    """BPE-TRAIN-INPUT: documents, 1 to 16 merges (so the first run makes rules), earlier documents, and up to
    2 texts of up to 20 characters encoded in between."""
    expected = st.fixed_dictionaries(
        {
            "documents": corpora(max_documents=4, max_length=24),
            "max_merges": st.integers(1, 16),
            "earlier": corpora(max_documents=4, max_length=24),
            "texts": st.lists(encode_texts(max_length=20), max_size=2),
        }
    )
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "training-sees-only-its-documents")
    assert strategy is not None and repr(strategy()) == repr(expected)


@pytest.mark.parametrize(("name", "documents"), [("encode-trained", (4, 24)), ("encode-pure", (3, 20))])
def test_trained_encoding_examples_have_up_to_three_unseen_texts(name: str, documents: tuple[int, int]) -> None:
    """BPE-ENCODE-ORDER, BPE-ENCODE-PURE: documents, max_merges from 0 to 24, and up to 3 unseen texts of up to
    24 characters (encode-trained: up to 4 documents of 24 characters; encode-pure: 3 of 20)."""
    max_documents, max_length = documents
    expected = st.fixed_dictionaries(
        {
            "documents": corpora(max_documents=max_documents, max_length=max_length),
            "max_merges": max_merges_values(max_value=24),
            "texts": st.lists(encode_texts(max_length=24), max_size=3),
        }
    )
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == name)
    assert strategy is not None and repr(strategy()) == repr(expected)


def test_stop_rule_examples_favour_zero_one_and_two_merges() -> None:
    """BPE-TRAIN-STOP: max_merges 0, 1 and 2 often (where stopping early or late shows), else 0 to 24."""
    expected = st.fixed_dictionaries(
        {
            "documents": corpora(max_documents=4, max_length=24),
            "max_merges": st.sampled_from((0, 1, 2)) | max_merges_values(max_value=24),
        }
    )
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "stop-rule")
    assert strategy is not None and repr(strategy()) == repr(expected)


def test_loaded_rule_examples_have_up_to_ten_rules_for_a_text_of_up_to_24_characters() -> None:
    """BPE-ENCODE-ORDER after load: a text and up to 10 rules aimed at it, then the text's variants."""
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "encode-loaded-rules")
    assert strategy is not None
    assert repr(strategy()) == repr(texts_and_rules(max_rules=10, max_length=24).map(_with_variants))


def test_documents_as_given_examples_are_what_a_clean_up_would_change() -> None:
    """BPE-TRAIN-INPUT: documents padded with whitespace, with decomposed accents, some repeated three times;
    max_merges from 0 to 24.

    A document is 1-10 characters of "ab e", a combining acute, "é", a combining diaeresis, with one of
    "", " ", "  ", "\\n", "\\t " on each side; a corpus is 1-4 such documents, or 1-2 of them three times over
    followed by up to 2 more once.
    """
    core = st.text(alphabet="ab e\u0301\u00e9\u0308", min_size=1, max_size=10)
    padding = st.sampled_from(["", " ", "  ", "\n", "\t "])
    document = st.builds(lambda left, text, right: left + text + right, padding, core, padding)
    repeated = st.builds(
        lambda thrice, once: thrice * 3 + once,
        st.lists(document, min_size=1, max_size=2),
        st.lists(document, max_size=2),
    )
    expected = st.lists(document, min_size=1, max_size=4) | repeated
    strategy = next(check.strategy for check in ALL_CHECKS if check.name == "documents-as-given")
    examples = st.fixed_dictionaries({"documents": expected, "max_merges": max_merges_values(max_value=24)})
    assert strategy is not None and repr(strategy()) == repr(examples)


# --- the catalogue as a whole -------------------------------------------------------------------------


def test_a_check_needs_exactly_one_source_of_examples_and_a_positive_budget() -> None:
    """A check without examples would pass on everything; one with two would be ambiguous."""

    def make(**fields: Any) -> Check:
        return Check(
            name="demo", clause="BPE-TRAIN-TIE", summary="demo", verify=lambda subject, example: None, **fields
        )

    assert make(cases=lambda: [1]).budget == 1.0
    assert make(strategy=lambda: None, budget=0.25).budget == 0.25
    for fields, message in (
        ({}, "check 'demo' needs exactly one of strategy or cases"),
        ({"cases": lambda: [1], "strategy": lambda: None}, "check 'demo' needs exactly one of strategy or cases"),
        ({"cases": lambda: [1], "budget": 0}, "check 'demo' budget must be positive, got 0"),
        ({"cases": lambda: [1], "budget": -1.0}, "check 'demo' budget must be positive, got -1.0"),
    ):
        with pytest.raises(ValueError) as caught:
            make(**fields)
        assert str(caught.value) == message


def test_every_check_names_defined_clauses_and_declared_capabilities() -> None:
    """Each check: a unique kebab-case name, defined clauses, capabilities of the contract, one source."""
    defined = set(load_clauses())
    assert len({check.name for check in ALL_CHECKS}) == len(ALL_CHECKS)
    for check in ALL_CHECKS:
        assert KEBAB_CASE.fullmatch(check.name) and set(check.clauses) <= defined, check.name
        assert check.requires and check.requires <= CAPABILITIES, check.name
        assert check.clauses[0] == check.clause and check.clause not in check.also


def test_unknown_patterns_suggest_up_to_three_close_names_and_the_listing_command() -> None:
    """Selecting a typo fails loudly with the nearest names, so a misspelt check never runs nothing."""
    with pytest.raises(ValueError) as caught:
        select_checks(["decode-strikt"])
    message = str(caught.value)
    assert message.startswith("no check name or clause id matches 'decode-strikt'; did you mean decode-strict")
    assert message.endswith(" (list the checks with: bpe-conformance run --list-checks)")
    suggestions = message.split("did you mean ", 1)[1].split("?", 1)[0].split(", ")
    assert 1 <= len(suggestions) <= 3 and len(suggestions) == len(set(suggestions))
    known = {check.name for check in ALL_CHECKS} | {clause for check in ALL_CHECKS for clause in check.clauses}
    assert set(suggestions) <= known
    with pytest.raises(ValueError) as caught:
        select_checks(["BPE-" + "TRAIN-TIED"])
    assert "did you mean BPE-TRAIN-TIE" in str(caught.value)
    assert len(str(caught.value).split("did you mean ", 1)[1].split("?", 1)[0].split(", ")) == 3
    with pytest.raises(ValueError) as caught:
        select_checks(["zzzzzzzz"])
    assert "did you mean" not in str(caught.value)
    with pytest.raises(TypeError, match=r"each pattern must be a str, not int \(3\)"):
        select_checks(["tie-break", 3])
