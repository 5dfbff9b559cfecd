"""The pytest plugin's parity with ``bpe-conformance run``: skip file, level, profile, advisories, clauses.

Driven through ``pytester`` with the demo checks of ``tests/test_plugin.py`` standing in for the suite,
plus one check whose primary clause is not the one its failure reports (as a vector replay's is not).
"""

from __future__ import annotations

import re

import pytest

from bpe_conformance import checks as checks_package
from bpe_conformance.checks.base import Check
from tests.support.demo_checks import demo_selection, verify_worked_example
from tests.test_plugin import DEMO_CHECKS, IMPLEMENTATIONS

pytest_plugins = ["pytester"]

# A check named for one clause that reports another when it fails, as `vectors-training` does.
REPLAY = Check(
    "demo-replay",
    "BPE-TRAIN-GREEDY",
    "a replay that reports the clause it broke",
    verify_worked_example,
    cases=lambda: [(["abab", "acac"], 32)],
    also=("BPE-TRAIN-TIE",),
)
CHECKS = [*DEMO_CHECKS, REPLAY]
INPROCESS = ("--bpe-isolation", "inprocess")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An implementer's project whose suite is the demo checks and the replay."""
    pytester.makepyfile(impls=IMPLEMENTATIONS, test_own="def test_own():\n    assert True\n")
    pytester.syspathinsert()
    monkeypatch.setattr(checks_package, "ALL_CHECKS", CHECKS, raising=False)
    monkeypatch.setattr(checks_package, "select_checks", demo_selection(CHECKS), raising=False)
    return pytester


def _run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_inprocess("-p", "bpe_conformance.plugin", "-p", "no:cacheprovider", "--bpe-only", *args)


def test_the_new_options_are_documented_in_help(project: pytest.Pytester) -> None:
    result = _run(project, "--help")
    for option in ("--bpe-skip-file=PATH", "--bpe-level", "--bpe-profile=PROFILE"):
        result.stdout.fnmatch_lines([f"*{option}*"])


def test_a_skip_file_turns_a_known_failure_into_a_skip(project: pytest.Pytester) -> None:
    project.path.joinpath("skips.txt").write_text("BPE-TRAIN-TIE  # ties our own way\n", encoding="utf-8")
    result = _run(project, "--bpe-impl", "impls:LargestTie", *INPROCESS, "--bpe-skip-file", "skips.txt", "-rs")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*skipped: *ties our own way (declared in skips.txt line 1)*"])


def test_a_bad_skip_file_is_one_usage_error(project: pytest.Pytester) -> None:
    project.path.joinpath("skips.txt").write_text("demo-wroked-example\n", encoding="utf-8")
    result = _run(project, "--bpe-impl", "reference", *INPROCESS, "--bpe-skip-file", "skips.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*skips.txt line 1: 'demo-wroked-example' is neither*"])


def test_a_stale_skip_is_shown_in_the_terminal_summary(project: pytest.Pytester) -> None:
    project.path.joinpath("skips.txt").write_text("demo-worked-example  # ties our own way\n", encoding="utf-8")
    result = _run(project, "--bpe-impl", "reference", *INPROCESS, "--bpe-skip-file", "skips.txt")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        ["*bpe-conformance advisories*", "demo-worked-example: stale skip: demo-worked-example now passes*"]
    )


def test_no_advisory_section_without_advisories(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", *INPROCESS)
    result.assert_outcomes(passed=3)
    assert "bpe-conformance advisories" not in result.stdout.str()


def test_bpe_level_selects_one_conformance_level(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", *INPROCESS, "--bpe-level", "interface", "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "bpe-conformance::demo-decode-unknown[BPE-DECODE-STRICT]"
    ]


def test_bpe_level_leaving_no_check_is_a_usage_error(project: pytest.Pytester) -> None:
    args = ("--bpe-check", "demo-replay", "--bpe-level", "interface")
    result = _run(project, "--bpe-impl", "reference", *INPROCESS, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*no checks selected (--bpe-level interface leaves none of those chosen)*"])


def test_bpe_profile_judges_under_another_profile_and_reproduces_with_it(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:LargestTie", *INPROCESS, "--bpe-profile", "minbpe")
    result.assert_outcomes(failed=2, passed=1)
    result.stdout.fnmatch_lines(
        ["*--bpe-profile minbpe*", "*bpe-conformance run --impl impls:LargestTie*--profile minbpe*"]
    )


def test_an_unknown_profile_is_a_usage_error_naming_the_option(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", "--bpe-profile", "gpt-9")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--bpe-profile: unknown profile 'gpt-9'*"])


def test_a_failure_is_headed_by_the_clause_it_reports(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:LargestTie", *INPROCESS, "--bpe-check", "demo-replay")
    result.assert_outcomes(failed=1)
    headers = [line for line in result.outlines if re.match(r"^_+ .* _+$", line)]
    assert [re.sub(r"^_+ | _+$", "", header) for header in headers] == ["bpe-conformance::demo-replay[BPE-TRAIN-TIE]"]
    result.stdout.fnmatch_lines(["*FAIL demo-replay [[]BPE-TRAIN-TIE[]]*"])


def test_a_failure_on_the_item_clause_keeps_its_header(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:LargestTie", *INPROCESS, "--bpe-check", "demo-worked-example")
    result.assert_outcomes(failed=1)
    headers = [line for line in result.outlines if re.match(r"^_+ .* _+$", line)]
    assert [re.sub(r"^_+ | _+$", "", header) for header in headers] == [
        "bpe-conformance::demo-worked-example[BPE-TRAIN-TIE]"
    ]
