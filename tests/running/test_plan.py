"""The run plan (issue 24): every configuration error raised when it is built, the subject judged once,
a run told to its observer and interrupted with its partial result, and the front ends using nothing
else of ``running/``."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.errors import HarnessError
from bpe_conformance.reference.profiles import get_profile
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running import RunConfig, RunInterrupted, RunPlan, suite
from tests import ROOT

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check

TIE_BREAK = ("tie-break",)
# A correct pre-tokenizing trainer; it declares rustbpe+split=cl100k.
SPLIT_TRAINER = "tests.support.split_profile_trainers:CorrectSplitTrainer"


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (RunConfig(patterns=("no-such-check",)), "--check: no check name or clause id matches 'no-such-check'"),
        (RunConfig(patterns=TIE_BREAK, level="interface"), "no checks selected (--level interface"),
        (RunConfig(patterns=TIE_BREAK, level="everything"), "unknown level 'everything'"),
        (RunConfig(patterns=TIE_BREAK, profile="gpt-9"), "--profile: unknown profile 'gpt-9'"),
        (
            RunConfig(patterns=TIE_BREAK, profile="strict+tie=last-seen"),
            "--profile: profile 'strict+tie=last-seen': tie_break 'last-seen' is not one of: smallest-ids,",
        ),
        (RunConfig(patterns=TIE_BREAK, profile="/no/such/mine.toml"), "no such profile file"),
        (RunConfig(patterns=TIE_BREAK, database="ftp://host/x"), "--database ftp://host/x: unknown scheme 'ftp'"),
        (RunConfig(patterns=TIE_BREAK, effort="forever"), "unknown effort 'forever'"),
        (RunConfig(patterns=TIE_BREAK, skip_file="/no/such/skips.txt"), "cannot read skip file '/no/such/skips.txt'"),
    ],
)
def test_every_configuration_error_is_raised_by_build(config: RunConfig, message: str) -> None:
    with pytest.raises(HarnessError) as raised:
        RunPlan.build(config)
    assert message in str(raised.value)


def test_a_custom_profile_is_carried_by_its_canonical_name(tmp_path: Path) -> None:
    """A custom --profile, as a string or a file, is checked once and carried on by the name reports show."""
    plan = RunPlan.build(RunConfig(patterns=TIE_BREAK, profile="strict+min_count=1+tie=first-seen"))
    assert plan.config.profile == "strict+tie_break=first-seen+min_count=1"
    profile_file = tmp_path / "mine.json"
    profile_file.write_text('{"base": "rustbpe", "tie": "largest-ids"}', encoding="utf-8")
    plan = RunPlan.build(RunConfig(patterns=TIE_BREAK, profile=str(profile_file)))
    assert plan.config.profile == "rustbpe+tie_break=largest-ids"


def test_a_report_carries_the_custom_profile_by_a_name_that_resolves_to_it() -> None:
    suite = RunPlan.build(RunConfig(patterns=("vocab-size",), profile="strict+min_count=1+tie=largest-ids")).run()
    assert suite.implementation.profile == "strict+tie_break=largest-ids+min_count=1"
    assert suite.implementation.declared_profile == "strict"
    assert get_profile(suite.implementation.profile).tie_break == "largest-ids"


def test_the_plugin_prefix_names_its_own_options() -> None:
    with pytest.raises(HarnessError, match=r"^--bpe-profile: unknown profile"):
        RunPlan.build(RunConfig(profile="gpt-9"), option_prefix="--bpe-")
    with pytest.raises(HarnessError, match=r"^--bpe-database ftp://h/x"):
        RunPlan.build(RunConfig(database="ftp://h/x"), option_prefix="--bpe-")


def test_the_subject_is_judged_once_under_the_plan_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    judged: list[str | None] = []
    judge = suite.judged_subject

    def judged_once(subject: Subject, profile: str | None) -> Subject:
        judged.append(profile)
        return judge(subject, profile)

    monkeypatch.setattr(suite, "judged_subject", judged_once)
    plan = RunPlan.build(RunConfig(patterns=TIE_BREAK, profile="minbpe"))
    with plan.open() as opened:
        result = opened.run()
    assert judged == ["minbpe"]
    assert opened.subject.info.profile == "minbpe"
    assert result.implementation.profile == "minbpe"


def test_a_run_tells_its_observer_and_knows_its_exit_code() -> None:
    seen: list[tuple[object, ...]] = []

    class Observer:
        def on_start(self, check: Check, index: int, total: int) -> None:
            seen.append(("start", check.name, index, total))

        def on_result(self, result: CheckResult) -> None:
            seen.append(("result", result.check, result.outcome))

    result = RunPlan.build(RunConfig(patterns=TIE_BREAK)).run(Observer())
    assert seen == [("start", "tie-break", 0, 1), ("result", "tie-break", Outcome.PASS)]
    assert result.exit_code == 0
    assert result.not_run == ()
    assert result.config.checks == ("tie-break",)
    assert result.implementation.spec is None


def test_an_interrupted_run_carries_the_checks_that_finished() -> None:
    class StopAfterFirst:
        def on_start(self, check: Check, index: int, total: int) -> None:
            if index == 1:
                raise KeyboardInterrupt

        def on_result(self, result: CheckResult) -> None:
            pass

    plan = RunPlan.build(RunConfig(patterns=("tie-break", "round-trip")))
    with pytest.raises(RunInterrupted) as raised:
        plan.run(StopAfterFirst())
    assert [result.check for result in raised.value.suite.results] == ["tie-break"]


def test_judge_leaves_the_callers_subject_open() -> None:
    plan = RunPlan.build(RunConfig(patterns=TIE_BREAK))
    subject = suite.open_subject(None, "inprocess", 10.0)
    try:
        with plan.judge(subject) as opened:
            assert opened.run().exit_code == 0
        assert subject.train(["abab"], 1) == [(97, 98)]  # still usable: the caller closes it
    finally:
        subject.close()


FRONT_ENDS = (
    "conformance/cli/commands/run.py",
    "conformance/cli/commands/fuzz.py",
    "conformance/fuzzing/worker.py",
    "conformance/matrix/run.py",
    "conformance/plugin.py",
)


@pytest.mark.parametrize("path", FRONT_ENDS)
def test_front_ends_use_only_the_public_api_of_running(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bpe_conformance.running"):
            assert node.module == "bpe_conformance.running", f"{path} imports {node.module}"
            used |= {alias.name for alias in node.names}
        if isinstance(node, ast.Import):
            assert not any(alias.name.startswith("bpe_conformance.running") for alias in node.names), path
    assert used
    assert used <= {"HARNESS_NAME", "OpenedRun", "RunConfig", "RunInterrupted", "RunPlan", "SuiteResult"}


@pytest.mark.parametrize(
    ("check", "impl", "listed", "void"),
    [
        ("tie-break", None, "BPE-TRAIN-DOCS", "BPE-PRETOK-SPLIT"),
        ("tie-break", SPLIT_TRAINER, "BPE-PRETOK-SPLIT", None),
        ("no-pre-tokenization", None, "BPE-TRAIN-TIE", "BPE-PRETOK-SPLIT"),
        ("pre-tokenization-split", SPLIT_TRAINER, "BPE-MERGE-SCAN", "BPE-ENCODE-RAW"),
    ],
)
def test_a_result_lists_only_clauses_a_check_can_judge_under_the_profile(
    check: str, impl: str | None, listed: str, void: str | None
) -> None:
    """A check that may localise to any stage lists the split's clause only where the profile splits, and the
    raw-encoding clause only where it does not (the "Clauses checked" line counts these)."""
    (declared,) = suite.select((check,))
    plan = RunPlan.build(RunConfig(impl=impl, patterns=(check,), effort="ci"))
    with plan.open() as opened:
        (result,) = opened.run().results
    assert result.outcome is Outcome.PASS
    assert result.clauses[0] == declared.clause
    assert listed in result.clauses
    assert void is None or (void in declared.clauses and void not in result.clauses)
