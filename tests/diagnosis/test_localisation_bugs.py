"""Each single-bug implementation of tests/support/localisation_bugs.py is rejected under its own clause.

Every bug fails the check of its own class (the check whose clause is the bug's), under the bug's clause,
localised by experiments; and no check names any other clause as localised (a false clause). The class
checks used to keep silent for the first five (issue 25): a seam counted, a rewritten document, a stale
incremental count, a run that loses matches, a chunked encoder (each passed its class check on 97b9bdc).
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.diagnosis import DivergenceKind
from bpe_conformance.reports.json_report import SCHEMA_PATH, build_report
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, SuiteResult
from bpe_conformance.running.runner import run_check
from bpe_conformance.settings import EFFORTS
from tests.support import localisation_bugs as bugs

CHECKS = {check.name: check for check in ALL_CHECKS}
# The check of each clause's class: the one whose example is built to provoke that class of bug.
CLASS_CHECK = {
    "BPE-TRAIN-DOCS": "no-cross-document-pairs",
    "BPE-TRAIN-INPUT": "documents-as-given",
    "BPE-TRAIN-COUNT": "overlapping-counts",
    "BPE-TRAIN-RECOUNT": "recount-each-round",
    "BPE-MERGE-SCAN": "merge-scan",
    "BPE-TRAIN-STOP": "stop-rule",
    "BPE-TRAIN-TIE": "tie-break",
    "BPE-TRAIN-GREEDY": "greedy-selection",
    "BPE-ENCODE-RAW": "no-pre-tokenization",
    "BPE-ENCODE-ORDER": "encode-loaded-rules",
    "BPE-ENCODE-LOWEST": "encode-loaded-rules",
    "BPE-ALPHA-BOUNDARY": "rule-references",
}
# Modest effort: the machine is shared, and each bug shows within the dev profile's examples.
EFFORT = EFFORTS["dev"]


def _run(check_name: str, implementation: bugs.LocalisationBug) -> CheckResult:
    return run_check(CHECKS[check_name], InProcessSubject(implementation), EFFORT)


@pytest.mark.parametrize(
    ("implementation", "check_name"),
    [
        (bugs.SeamPairsCounted, "no-cross-document-pairs"),
        (bugs.CrlfRewritten, "documents-as-given"),
        (bugs.StaleIncrementalCounts, "recount-each-round"),
        (bugs.RunsLoseMatches, "merge-scan"),
        (bugs.ChunkedEncoder, "no-pre-tokenization"),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_a_class_check_fails_when_a_bug_of_its_class_is_present(
    implementation: bugs.LocalisationBug, check_name: str
) -> None:
    result = _run(check_name, implementation)
    assert (result.outcome, result.clause) == (Outcome.FAIL, implementation.clause), result.message
    assert result.counterexample is not None
    localisation = result.counterexample["localisation"]
    assert localisation["localised"]
    assert localisation["clause"] == implementation.clause
    asked = localisation["experiments"]
    assert any(experiment["agrees"] is False and not experiment["control"] for experiment in asked)


@pytest.mark.parametrize("implementation", bugs.LOCALISATION_BUGS, ids=lambda implementation: implementation.__name__)
def test_each_bug_is_rejected_under_its_own_clause(implementation: bugs.LocalisationBug) -> None:
    result = _run(CLASS_CHECK[implementation.clause], implementation)
    assert (result.outcome, result.clause) == (Outcome.FAIL, implementation.clause), result.message
    localisation = (result.counterexample or {}).get("localisation")
    assert localisation is None or localisation["localised"], result.message


@pytest.mark.parametrize(
    "implementation",
    [bugs.SeamCounted, bugs.Lowercased, bugs.RunsCountedOnce, bugs.TiesToFirstSeen, bugs.FirstPairAboveMinimum],
    ids=lambda implementation: implementation.__name__,
)
def test_no_training_check_localises_a_bug_to_another_clause(implementation: bugs.LocalisationBug) -> None:
    """Other training checks may fail on the same bug (then under the same clause) or leave it unlocalised."""
    for name in ("greedy-selection", "tie-break", "stop-rule", "documents-as-given", "overlapping-counts"):
        result = _run(name, implementation)
        if result.outcome is not Outcome.FAIL or "localisation" not in (result.counterexample or {}):
            continue
        assert result.counterexample is not None
        localisation = result.counterexample["localisation"]
        assert not localisation["localised"] or localisation["clause"] == implementation.clause, (name, result.message)


def test_the_json_report_carries_the_localisation_and_the_experiments_that_decided_it() -> None:
    """The report says localised, the stage and every question asked, so a user can ask them again."""
    results = [_run("documents-as-given", bugs.CrlfRewritten), _run("merge-scan", bugs.RunsLoseMatches)]
    report = build_report(SuiteResult(ImplementationRecord("bugs"), results, 0, "dev", 1.0, "test"))
    schema = json.loads(SCHEMA_PATH.read_text())
    result_schema = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/result"})
    for record in report["results"]:
        result_schema.validate(record)
    training, encoding = (record["counterexample"] for record in report["results"])
    assert training["divergence"]["localised"] is True
    assert training["divergence"]["stage"] == "input"
    assert training["divergence"]["kind"] in {kind.value for kind in DivergenceKind}
    assert (encoding["localisation"]["localised"], encoding["localisation"]["stage"]) == (True, "replacement-scan")
    for experiment in training["localisation"]["experiments"]:
        inputs = experiment["inputs"]
        answer = bugs.CrlfRewritten().train(inputs["documents"], inputs["max_merges"])
        assert [list(rule) for rule in answer] == experiment["answer"], experiment["question"]


def test_a_failing_vector_is_localised_like_a_property_check() -> None:
    """A known-answer vector a bug gets wrong names the localised clause and carries the first divergence."""
    result = run_check(CHECKS["vectors-training"], InProcessSubject(bugs.LastWindowMissed), EFFORT)
    assert (result.outcome, result.clause) == (Outcome.FAIL, "BPE-TRAIN-COUNT"), result.message
    example = result.counterexample
    assert example is not None
    assert example["localisation"]["stage"] == "counting"
    assert example["divergence"]["localised"]
    assert result.message.startswith("vector ")
    assert "round " in result.message


@pytest.mark.parametrize(
    ("implementation", "check_name", "stage"),
    [
        (bugs.SplitsDocumentsAtDigits, "vectors-training", "document-split"),
        (bugs.EncodingsMemoisedPerTrain, "encode-loaded-rules", "load"),
        (bugs.PieceTableRebuiltWhenItGrows, "vectors-load", "load"),
        (bugs.LoadsRuleByRule, "failed-call-keeps-model", None),
        (bugs.SecondPartTypo, "decode-concatenates", None),
        (bugs.RuleIdsOneLate, "decode-concatenates", None),
    ],
    ids=lambda value: getattr(value, "__name__", value),
)
def test_a_bug_of_the_model_it_keeps_is_named_by_its_own_clause(
    implementation: bugs.LocalisationBug, check_name: str, stage: str | None
) -> None:
    """A trainer's word split is BPE-TRAIN-INPUT (not the encoder's BPE-ENCODE-RAW); state kept across a load,
    or a load adopted before it is checked, is BPE-SER-LOAD; a wrong piece for one rule id is BPE-RULE-PIECE, or
    BPE-RULE-ID when encoder and decoder agree on another numbering."""
    result = _run(check_name, implementation)
    assert (result.outcome, result.clause) == (Outcome.FAIL, implementation.clause), result.message
    if stage is not None:
        assert result.counterexample is not None
        localisation = result.counterexample["localisation"]
        assert (localisation["localised"], localisation["stage"]) == (True, stage)
        asked = localisation["experiments"]
        assert any(experiment["agrees"] is False and not experiment["control"] for experiment in asked)
        assert any(experiment["agrees"] is True and experiment["control"] for experiment in asked)


def test_a_word_splitting_trainer_is_never_told_it_pre_tokenizes_its_encoding() -> None:
    """Its encoder is right: the checks that train first name the training stage, never BPE-ENCODE-RAW."""
    for name in ("no-pre-tokenization", "no-cross-document-pairs", "overlapping-counts", "encode-loaded-rules"):
        result = _run(name, bugs.SplitsDocumentsAtDigits)
        assert result.clause != "BPE-ENCODE-RAW" or result.outcome is not Outcome.FAIL, (name, result.message)


@pytest.mark.parametrize("check_name", ["encode-loaded-rules", "vectors-load", "encode-trained"])
def test_a_history_that_never_crosses_a_load_is_not_blamed_on_loading(check_name: str) -> None:
    """BPE-ENCODE-PURE: its wrong ids need calls after the load, so the fresh instance that held other rules
    first answers right and no check names BPE-SER-LOAD, nor a stage of encoding the fresh one gets right."""
    result = _run(check_name, bugs.FastPathAfterFirstEncode)
    assert result.outcome is Outcome.FAIL, result.message
    assert result.clause != "BPE-SER-LOAD", result.message
    localisation = (result.counterexample or {}).get("localisation")
    assert localisation is not None
    assert not localisation["localised"], result.message
