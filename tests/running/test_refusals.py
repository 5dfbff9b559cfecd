"""A refused input is one finding (issue 25, item 4): every check that meets it goes on to its other
examples, and the reports show the refusal once, with the checks it blocked."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from hypothesis import settings

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import select_checks
from bpe_conformance.cli.main import main
from bpe_conformance.fuzzing.findings import finding_key
from bpe_conformance.reports.common import level_verdicts
from bpe_conformance.reports.grouping import is_refusal_only, refusals
from bpe_conformance.reports.markdown import render_markdown
from bpe_conformance.reports.terminal import make_console, render_summary
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running import RunConfig, RunPlan
from bpe_conformance.running.runner import run_check
from tests.support.refusals import RaisesWhenPairsRunOut, RefusesEmptyCorpus

if TYPE_CHECKING:
    from pathlib import Path

REFUSED = "train raised ValueError: no documents to train on"
IMPL = "tests.support.refusals:RefusesEmptyCorpus"


def test_a_refused_example_is_recorded_once_and_the_check_goes_on() -> None:
    (check,) = select_checks(["greedy-selection"])
    result = run_check(check, InProcessSubject(RefusesEmptyCorpus), settings(max_examples=40), 0)
    assert result.outcome is Outcome.ERROR
    assert is_refusal_only(result)
    assert result.examples > 10  # it did not stop at the empty corpus
    assert "the check went on" in result.message
    assert REFUSED in result.message
    assert result.counterexample is not None
    (record,) = result.counterexample["refusals"]
    assert record["operation"] == "train"
    assert record["error"] == "ValueError: no documents to train on"


def test_a_correct_implementation_has_no_refusal() -> None:
    (check,) = select_checks(["greedy-selection"])
    result = run_check(check, InProcessSubject(reference.Tokenizer), settings(max_examples=40), 0)
    assert result.outcome is Outcome.PASS
    assert not refusals([result])


def test_the_refusal_is_one_finding_with_the_checks_it_blocked(tmp_path: Path) -> None:
    checks = ("greedy-selection", "rule-ids", "vocab-size", "tie-break")
    plan = RunPlan.build(RunConfig(impl=IMPL, isolation="inprocess", patterns=checks))
    suite = plan.run()
    (refusal,) = refusals(suite.results)
    assert refusal.operation == "train"
    assert refusal.error == "ValueError: no documents to train on"
    blocked = {result.check for result in suite.results if result.outcome is Outcome.ERROR}
    assert set(refusal.checks) == blocked
    assert len(blocked) >= 3
    buffer = io.StringIO()
    render_summary(make_console(buffer, width=200), suite)
    text = buffer.getvalue()
    assert text.count("REFUSED train raised ValueError: no documents to train on") == 1
    assert f"blocked: {', '.join(refusal.checks)}" in text
    assert "ERROR greedy-selection" not in text
    assert "Failures (1)" in text
    assert level_verdicts(suite).startswith("algorithm: 1 refused input ·")
    markdown = render_markdown(suite)
    assert markdown.count("### REFUSED `train`") == 1
    assert "ERROR greedy" not in markdown


def test_the_json_report_carries_the_refusals(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    main(["run", "--impl", IMPL, "--isolation", "inprocess", "--check", "vocab-size", "--json", str(target), "--quiet"])
    (result,) = json.loads(target.read_text(encoding="utf-8"))["results"]
    assert result["counterexample"]["refused"] is True
    assert result["counterexample"]["refusals"][0]["key"] == REFUSED


def test_stop_rule_tells_a_refused_empty_corpus_from_a_crash_when_pairs_run_out() -> None:
    """Raising on an empty corpus while stopping properly elsewhere is a refusal; raising whenever pairs run
    out is the stop rule's violation, as before."""
    (check,) = select_checks(["stop-rule"])
    refused = run_check(check, InProcessSubject(RefusesEmptyCorpus), settings(max_examples=40), 0)
    assert refused.outcome is Outcome.ERROR
    assert is_refusal_only(refused)
    crashed = run_check(check, InProcessSubject(RaisesWhenPairsRunOut), settings(max_examples=40), 0)
    assert crashed.outcome is Outcome.FAIL
    assert crashed.clause == "BPE-TRAIN-STOP"
    assert "raised once no pair was left" in crashed.message


def test_a_fuzz_campaign_counts_one_refusal_once_whatever_check_met_it() -> None:
    subject = InProcessSubject(RefusesEmptyCorpus)
    found = [
        run_check(check, subject, settings(max_examples=20), seed)
        for check in select_checks(["vocab-size", "rule-ids"])
        for seed in (0, 1)
    ]
    assert all(is_refusal_only(result) for result in found)
    assert len({finding_key(result) for result in found}) == 1
