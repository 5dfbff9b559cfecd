"""One deviation, one clause, and no cause that is not proven (issue 11).

Each implementation in ``tests/support/tie_variants.py`` is correct but for one deviation. The whole suite
must fail exactly that deviation's clauses, and every cause it states must be true of the
implementation: the named bug model, run on fresh inputs, makes the implementation's rules.
"""

from __future__ import annotations

import json
import random
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest

from bpe_conformance import diagnosis
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.reference import LiteralTokenizer
from bpe_conformance.reference.dialects import train_profile
from bpe_conformance.reference.profiles import STRICT
from bpe_conformance.reports.common import root_causes
from bpe_conformance.reports.json_report import SCHEMA_PATH, build_report
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
from bpe_conformance.running.runner import run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name
from tests.support import tie_variants as variants
from tests.support.confirmed_causes import model_named

if TYPE_CHECKING:
    from collections.abc import Iterator

# An implementation and the whole suite's results against it.
Run = tuple[type[LiteralTokenizer], list[CheckResult]]

# The algorithm clauses each deviation may fail, and nothing else.
EXPECTED_CLAUSES = {
    variants.StringKeyTies: {"BPE-TRAIN-TIE"},
    variants.SwappedTies: {"BPE-TRAIN-TIE"},
    variants.HashOrderTies: {"BPE-TRAIN-TIE"},
    variants.NewestRuleTies: {"BPE-TRAIN-TIE"},
    variants.FirstSeenTies: {"BPE-TRAIN-TIE", "BPE-PROP-PERMUTE"},  # its ties depend on document order
    variants.LargestTies: {"BPE-TRAIN-TIE"},
    # It splits its training documents (BPE-TRAIN-INPUT: documents MUST NOT be split into words first) and,
    # apart from that, the texts it encodes (BPE-ENCODE-RAW): two stages, each found by its own question.
    variants.Gpt2PreTokenizer: {"BPE-TRAIN-INPUT", "BPE-ENCODE-RAW"},
}
# The primary clauses of the deviations: every other failing check is reported as a consequence of one.
ROOTS = {
    implementation: {"BPE-TRAIN-INPUT", "BPE-ENCODE-RAW"}
    if implementation is variants.Gpt2PreTokenizer
    else {"BPE-TRAIN-TIE"}
    for implementation in EXPECTED_CLAUSES
}


def _own_worker(implementation: Any) -> Any:
    """The fixture's parameter, its tests grouped on one pytest-xdist worker so its suite runs once, not per worker."""
    name = str(implementation.name)
    return pytest.param(implementation, id=name, marks=pytest.mark.xdist_group(f"honest-causes-{name}"))


@pytest.fixture(scope="module", params=[_own_worker(implementation) for implementation in EXPECTED_CLAUSES])
def run(request: pytest.FixtureRequest) -> Run:
    """The implementation and the whole suite's results against it."""
    implementation = request.param
    # run_checks takes any sequence of checks; its annotation says list
    results = run_checks(ALL_CHECKS, InProcessSubject(implementation), EFFORTS[active_effort_name()])  # type: ignore[arg-type]
    return implementation, results


def _fresh_corpora(count: int = 40) -> list[list[str]]:
    """Corpora no check drew: small alphabets with spaces and punctuation, so ties and chunks abound."""
    draw = random.Random(11)
    alphabet = "abcdxy ,."
    return [
        ["".join(draw.choice(alphabet) for _ in range(draw.randint(2, 14))) for _ in range(draw.randint(1, 4))]
        for _ in range(count)
    ]


def _model_rules(index: int, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
    rules = diagnosis.MODELS[index][2](documents, max_merges, STRICT)
    return train_profile(documents, max_merges, STRICT) if rules is None else rules


def _divergences(results: list[CheckResult]) -> Iterator[tuple[CheckResult, dict[str, Any]]]:
    for result in results:
        divergence = (result.counterexample or {}).get("divergence")
        if divergence is not None:
            yield result, divergence


def test_only_the_deviations_clauses_fail(run: Run) -> None:
    implementation, results = run
    failing = {result.check: result.clause for result in results if not result.outcome.counts_as_success}
    assert set(failing.values()) == EXPECTED_CLAUSES[implementation], failing
    assert {result.outcome for result in results} <= {Outcome.PASS, Outcome.FAIL, Outcome.SKIP}


def test_every_confirmed_cause_is_true_of_the_implementation_on_fresh_inputs(run: Run) -> None:
    implementation, results = run
    for result, divergence in _divergences(results):
        if not divergence["confirmed"]:
            continue
        index = model_named(divergence["cause"])
        for documents in _fresh_corpora():
            assert _model_rules(index, documents, 8) == implementation().train(documents, 8), (result.check, documents)


def test_an_unconfirmed_cause_claims_no_model(run: Run) -> None:
    _, results = run
    for result, divergence in _divergences(results):
        if divergence["confirmed"]:
            continue
        assert not divergence["cause"].startswith("the rules are exactly"), (result.check, divergence["cause"])
        assert divergence["clause"] == diagnosis.KIND_CLAUSES[divergence["diagnosis"]] or divergence[
            "cause"
        ].startswith("not confirmed: consistent with"), divergence


def test_no_known_model_explains_an_unmodeled_tie_order() -> None:
    """What "none of the known rules" says is true: every tie model differs from these on some input."""
    tie_models = [index for index, (clause, _, _) in enumerate(diagnosis.MODELS) if clause == "BPE-TRAIN-TIE"]
    for implementation in (variants.SwappedTies, variants.HashOrderTies, variants.NewestRuleTies):
        for index in tie_models:
            assert any(
                _model_rules(index, documents, 8) != implementation().train(documents, 8)
                for documents in _fresh_corpora()
            ), (implementation.name, diagnosis.MODELS[index][1])


def test_consequences_are_grouped_under_the_deviation(run: Run) -> None:
    implementation, results = run
    for check, clause in root_causes(results).items():
        assert clause in ROOTS[implementation], (check, clause)
    own = {result.clause for result in results if result.outcome is Outcome.FAIL and result.clause == result.clauses[0]}
    # The pre-tokenizer's encoding is judged only on loaded rules (encode-loaded-rules, the load vectors), whose
    # checks have another primary clause: no-pre-tokenization trains first, and its set-up fails as training.
    assert own & ROOTS[implementation], own


def test_the_pre_tokenizer_is_named_as_pre_tokenization_and_nothing_else(run: Run) -> None:
    implementation, results = run
    causes = [divergence["cause"] for _, divergence in _divergences(results) if divergence["confirmed"]]
    if implementation is variants.Gpt2PreTokenizer:
        assert causes, causes
        assert all("pre-tokenization" in cause for cause in causes), causes
    else:
        assert all(diagnosis.MODELS[model_named(cause)][0] == "BPE-TRAIN-TIE" for cause in causes), causes


def test_the_json_report_carries_root_causes_and_confirmation(run: Run) -> None:
    implementation, results = run
    suite = SuiteResult(ImplementationRecord(implementation.name), list(results), 0, "dev", 1.0, "test")
    report = build_report(suite)
    schema = json.loads(SCHEMA_PATH.read_text())
    result_schema = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/result"})
    for record in report["results"]:
        result_schema.validate(record)
    roots = {record["check"]: record["root_cause"] for record in report["results"] if record["root_cause"]}
    assert roots == root_causes(results)
    assert set(roots.values()) <= ROOTS[implementation]
    confirmed = [
        record["counterexample"]["divergence"]["confirmed"]
        for record in report["results"]
        if (record["counterexample"] or {}).get("divergence")
    ]
    assert all(isinstance(flag, bool) for flag in confirmed)
