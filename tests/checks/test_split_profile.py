"""A pre-tokenizing trainer judged by ``run --profile rustbpe+split=cl100k``: the correct one passes every
algorithm check, and each one-bug trainer is rejected under BPE-PRETOK-SPLIT with the chunks shown.

The trainers (``tests/support/split_profile_trainers.py``) are small and pure Python, so these run offline
in the default test run; rustbpe itself is judged in ``tests/adapters/thirdparty/test_rustbpe_pretokenized.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import Phase, settings

from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks import ALL_CHECKS
from bpe_conformance.checks.base import ALGORITHM
from bpe_conformance.checks.encoding import verify_split
from bpe_conformance.diagnosis import chunked_documents, split_report
from bpe_conformance.dialects.context import with_profile
from bpe_conformance.errors import Violation
from bpe_conformance.reference.profile_spec import parse_profile
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import RunConfig, run_suite, select
from tests.checks.helpers import CHECKS
from tests.support.split_profile_trainers import (
    SPLIT_BUGS,
    CorrectSplitTrainer,
    DigitsUngrouped,
    EncodesAcrossChunks,
    SplitIgnored,
    WhitespaceWithoutLookahead,
)

if TYPE_CHECKING:
    from bpe_conformance.adapters.subject import Subject
    from bpe_conformance.checks.base import Check
    from bpe_conformance.results.outcomes import CheckResult

PROFILE = "rustbpe+split=cl100k"
ALGORITHM_CHECKS = [check for check in ALL_CHECKS if check.level == ALGORITHM]


def _settings() -> settings:
    active = settings()
    return settings(active, phases=[phase for phase in active.phases if phase is not Phase.explain])


def _run(check_name: str, subject: Subject) -> CheckResult:
    """One check as a run does it: skipped when the profile makes it inapplicable."""
    (result,) = run_suite(RunConfig(seed=0, patterns=(check_name,)), subject, select([check_name])).results
    return result


@pytest.mark.parametrize("check", ALGORITHM_CHECKS, ids=lambda check: check.name)
def test_a_correct_pre_tokenizing_trainer_passes_every_algorithm_check(check: Check) -> None:
    result = _run(check.name, InProcessSubject(CorrectSplitTrainer))
    assert result.outcome in (Outcome.PASS, Outcome.SKIP), (result.check, result.message)
    if result.outcome is Outcome.SKIP:
        # Only what the split or the profile's numbering make inapplicable, and the vectors no custom profile has.
        assert "split=cl100k" in result.message or "boundary_ids" in result.message or "vectors" in result.message


def test_the_split_replaces_no_pre_tokenization() -> None:
    result = _run("no-pre-tokenization", InProcessSubject(CorrectSplitTrainer))
    assert result.outcome is Outcome.SKIP
    assert "split=cl100k" in result.message
    split = run_check(CHECKS["pre-tokenization-split"], InProcessSubject(CorrectSplitTrainer), _settings(), seed=0)
    assert split.outcome is Outcome.PASS
    assert split.examples >= 1


@pytest.mark.parametrize("bug", SPLIT_BUGS, ids=lambda bug: bug.name)
def test_each_split_bug_is_rejected_under_the_split_clause_with_its_chunks(bug: type) -> None:
    result = run_check(CHECKS["pre-tokenization-split"], InProcessSubject(bug), _settings(), seed=0)
    assert result.outcome is Outcome.FAIL, (result.outcome, result.message)
    assert result.clause == "BPE-PRETOK-SPLIT", result.message
    assert result.counterexample is not None
    assert result.counterexample["inputs"]["chunks"]
    assert "chunks under split=cl100k" in result.message
    assert result.counterexample["localisation"]["stage"] == "split"


def test_a_trainer_declaring_no_split_is_judged_by_its_run_profile() -> None:
    # The same correct trainer judged under rustbpe (no split) fails: merges behind a split are not strict's.
    subject = with_profile(InProcessSubject(CorrectSplitTrainer), "rustbpe")
    result = run_check(CHECKS["no-pre-tokenization"], subject, _settings(), seed=0)
    assert result.outcome is Outcome.FAIL
    # Its training cuts the documents before the encoder cuts the text: the first stage that departs.
    assert result.clause == "BPE-TRAIN-INPUT"
    assert _run("pre-tokenization-split", subject).outcome is Outcome.SKIP


# Fixed counterexamples: what each bug does on one small input, fact by fact.


def _violation(bug: type, documents: list[str], max_merges: int, texts: tuple[str, ...] = ()) -> Violation:
    with pytest.raises(Violation) as caught:
        verify_split(InProcessSubject(bug), {"documents": documents, "max_merges": max_merges, "texts": list(texts)})
    return caught.value


def test_whitespace_without_lookahead_keeps_the_space_of_the_next_word() -> None:
    violation = _violation(WhitespaceWithoutLookahead, ["a  b", "a  b"], 8)
    assert violation.clause == "BPE-PRETOK-SPLIT"
    assert violation.inputs["chunks"] == [["a", " ", " b"], ["a", " ", " b"]]
    assert violation.localisation is not None
    assert violation.localisation["stage"] == "split"


def test_ungrouped_digits_merge_across_the_third_digit() -> None:
    violation = _violation(DigitsUngrouped, ["12345", "12345"], 8)
    assert violation.clause == "BPE-PRETOK-SPLIT"
    assert violation.inputs["chunks"] == [["123", "45"], ["123", "45"]]


def test_a_trainer_ignoring_the_split_is_right_on_the_chunks_and_wrong_on_the_documents() -> None:
    violation = _violation(SplitIgnored, ["ab ab", "ab ab"], 8)
    assert violation.clause == "BPE-PRETOK-SPLIT"
    assert violation.localisation is not None
    experiments = violation.localisation["experiments"]
    assert [(item["control"], item["agrees"]) for item in experiments[:2]] == [(False, False), (True, True)]
    assert experiments[1]["inputs"]["documents"] == ["ab", " ab", "ab", " ab"]


def test_an_encoder_merging_across_chunks_shows_the_token_that_spans_them() -> None:
    # The one rule is "12": inside the chunk "121" of "1212" and, in the whole text, across "121" | "2" too.
    violation = _violation(EncodesAcrossChunks, ["1212", "1212"], 1)
    assert violation.clause == "BPE-PRETOK-SPLIT"
    assert violation.inputs["chunks"] == ["121", "2"]
    assert violation.expected == [256, 49, 50]
    assert violation.actual == [256, 256]
    assert "token '12' spans two chunks" in violation.message


def test_split_report_and_chunked_documents() -> None:
    profile = parse_profile(PROFILE)
    report = split_report("ab ab", [257, 256], [(97, 98), (256, 32)], profile)
    assert report == {"split": "cl100k", "chunks": ["ab", " ab"], "tokens": ["ab ", "ab"], "token_across_chunks": "ab "}
    assert split_report("ab ab", [97, 98], [], profile) is None  # the ids do not spell the text
    assert split_report("ab", [97, 98], [], parse_profile("rustbpe")) is None  # no split
    assert chunked_documents(["a 1234"], profile) == ["a", " ", "123", "4"]
    assert chunked_documents(["a b"], parse_profile("minbpe+split=cl100k")) is None  # documents joined
