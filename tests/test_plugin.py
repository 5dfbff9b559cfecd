"""The opt-in pytest plugin, driven through ``pytester`` as an implementer would use it.

The suite's catalogue is replaced by two small checks defined here (the real checks are tested
on their own), so each inner pytest run takes well under a second.
"""

from __future__ import annotations

import json
import re
import textwrap
from typing import TYPE_CHECKING

import pytest

from bpe_conformance import checks as checks_package
from bpe_conformance.checks.base import Check
from tests.support.demo_checks import (
    demo_selection,
    verify_unknown_id_rejected,
    verify_worked_example,
)

if TYPE_CHECKING:
    from pathlib import Path

pytest_plugins = ["pytester"]

IMPLEMENTATIONS = textwrap.dedent(
    '''
    from bpe_conformance import reference

    class LargestTie(reference.LiteralTokenizer):
        """Strict BPE except that a tie goes to the largest pair."""

        def train(self, documents, max_merges):
            reference.check_max_merges(max_merges)
            sequences = [list(data) for data in reference.check_documents(documents)]
            rules = []
            for rank in range(max_merges):
                counts = reference.count_pairs(sequences)
                pair = max(counts, key=lambda candidate: (counts[candidate], candidate), default=None)
                if pair is None or counts[pair] < 2:
                    break
                sequences = [reference.replace_pair(sequence, pair, reference.rule_id(rank)) for sequence in sequences]
                rules.append(pair)
            return self.load(rules)

    class NoDecode(reference.LiteralTokenizer):
        """Declares that it cannot decode: checks needing decode must be skipped, not failed."""

        capabilities = ("train", "encode")
    '''
)


DEMO_CHECKS = [
    Check(
        "demo-worked-example",
        "BPE-TRAIN-TIE",
        "the worked example",
        verify_worked_example,
        cases=lambda: [(["abab", "acac"], 32)],
    ),
    Check(
        "demo-decode-unknown",
        "BPE-DECODE-STRICT",
        "unknown ids",
        verify_unknown_id_rejected,
        cases=lambda: [258, 10**6],
        requires=frozenset({"train", "decode"}),
        also=("BPE-INPUT-IDS",),
        level="interface",
    ),
]


_select_demo = demo_selection(DEMO_CHECKS)


@pytest.fixture
def real_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """An implementer's project: one ordinary test, and implementations importable from its directory."""
    pytester.makepyfile(impls=IMPLEMENTATIONS, test_own="def test_own():\n    assert True\n")
    pytester.syspathinsert()
    return pytester


@pytest.fixture
def project(real_project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The same project, with the two demo checks standing in for the suite."""
    monkeypatch.setattr(checks_package, "ALL_CHECKS", DEMO_CHECKS, raising=False)
    monkeypatch.setattr(checks_package, "select_checks", _select_demo, raising=False)
    return real_project


def _literal(line: str) -> str:
    """A fnmatch pattern matching a line that ends with ``line`` exactly (brackets included)."""
    return "*" + re.sub(r"([\[\]*?])", r"[\1]", line)


def _run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_inprocess("-p", "bpe_conformance.plugin", "-p", "no:cacheprovider", *args)


def test_without_bpe_impl_the_plugin_collects_nothing(project: pytest.Pytester) -> None:
    result = _run(project, "--collect-only", "-q")
    assert result.ret == 0
    assert [line for line in result.outlines if "::" in line] == ["test_own.py::test_own"]
    result = _run(project)
    result.assert_outcomes(passed=1)
    assert "bpe-conformance" not in result.stdout.str()


def test_options_are_documented_in_help(project: pytest.Pytester) -> None:
    result = _run(project, "--help")
    options = ("--bpe-impl=SPEC", "--bpe-check=PATTERN", "--bpe-isolation", "--bpe-timeout=SECONDS", "--bpe-seed=N")
    for option in options:
        result.stdout.fnmatch_lines([f"*{option}*"])


def test_one_item_per_check_named_by_check_and_clause(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == [
        "test_own.py::test_own",
        "bpe-conformance::demo-worked-example[BPE-TRAIN-TIE]",
        "bpe-conformance::demo-decode-unknown[BPE-DECODE-STRICT]",
    ]


def test_reference_passes_every_check(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "bpe_conformance.reference:Tokenizer", "--bpe-isolation", "inprocess", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        [
            "bpe-conformance: checking bpe_conformance.reference:Tokenizer (inprocess)",
            "*collected 3 items",
            "*demo-worked-example?BPE-TRAIN-TIE? PASSED*",
        ]
    )


def test_broken_implementation_fails_with_clause_counterexample_and_reproduce(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:LargestTie", "--bpe-isolation", "inprocess", "--bpe-seed", "3")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            _literal(line)
            for line in (
                "FAIL demo-worked-example [BPE-TRAIN-TIE]",
                "  ties go to the smallest pair",
                '  inputs: {"documents": ["abab", "acac"], "max_merges": 32}',
                "  expected: [[97, 98], [97, 99]]",
                "  actual: [[97, 99], [97, 98]]",
                "  first divergent merge round:",
                "  reproduce: pytest -p bpe_conformance.plugin --bpe-impl impls:LargestTie --bpe-only "
                "--bpe-isolation inprocess --bpe-check demo-worked-example --bpe-seed 3",
                "  or: bpe-conformance run --impl impls:LargestTie --isolation inprocess "
                "--check demo-worked-example --seed 3",
            )
        ]
    )
    assert "Traceback" not in result.stdout.str()
    assert "conformance/running/runner.py" not in result.stdout.str()


def test_broken_implementation_in_its_own_process_fails_too(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:LargestTie", "--bpe-check", "BPE-TRAIN-TIE", "--bpe-timeout", "20")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            _literal("FAIL demo-worked-example [BPE-TRAIN-TIE]"),
            _literal("--bpe-timeout 20 --bpe-check demo-worked-example --bpe-seed 0"),
        ]
    )


def test_bpe_check_and_keyword_select_by_clause(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "--bpe-check", "demo-decode-*")
    result.assert_outcomes(passed=2)
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "-k", "BPE-INPUT-IDS")
    result.assert_outcomes(passed=1, deselected=2)


def test_keyword_selects_a_conformance_level(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "-k", "interface")
    result.assert_outcomes(passed=1, deselected=2)
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "-k", "algorithm")
    result.assert_outcomes(passed=1, deselected=2)


def test_undeclared_capability_is_a_pytest_skip(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "impls:NoDecode", "--bpe-isolation", "inprocess", "-rs")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*capability not declared: decode*"])


def test_unknown_check_pattern_is_a_usage_error(project: pytest.Pytester) -> None:
    result = _run(project, "--bpe-impl", "reference", "--bpe-check", "no-such-check")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--bpe-check: no check or clause matches 'no-such-check'*"])


@pytest.mark.parametrize("isolation", ["inprocess", "process"])
def test_an_implementation_that_cannot_be_loaded_is_one_usage_error(project: pytest.Pytester, isolation: str) -> None:
    result = _run(project, "--bpe-impl", "impls:Missing", "--bpe-isolation", isolation)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if "impls:Missing" in line]
    assert len(errors) == 1, result.errlines
    assert "has no attribute 'Missing'" in errors[0], result.errlines
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes()


def test_bpe_only_collects_the_checks_and_never_imports_the_projects_tests(project: pytest.Pytester) -> None:
    project.makepyfile(test_import_fails="raise RuntimeError('the project test module was imported')")
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "--bpe-only", "-v")
    result.assert_outcomes(passed=2)
    assert "test_own" not in result.stdout.str()
    assert "was imported" not in result.stdout.str()
    result = _run(project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess")
    assert "was imported" in result.stdout.str()  # without --bpe-only the project's tests are collected too


def test_the_plugin_draws_what_the_cli_draws_for_the_same_seed(
    real_project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Same profile, same seed, same examples: the printed `bpe-conformance run` line reproduces a failure.
    from bpe_conformance.cli.main import main

    junit = tmp_path / "plugin.xml"
    result = _run(
        real_project,
        "--bpe-impl",
        "reference",
        "--bpe-isolation",
        "inprocess",
        "--bpe-only",
        "--bpe-check",
        "tie-break",
        "--bpe-seed",
        "5",
        f"--junitxml={junit}",
    )
    result.assert_outcomes(passed=1)
    plugin_examples = re.findall(r'name="examples" value="(\d+)"', junit.read_text(encoding="utf-8"))
    report = tmp_path / "cli.json"
    assert (
        main(
            [
                "run",
                "--impl",
                "reference",
                "--isolation",
                "inprocess",
                "--check",
                "tie-break",
                "--seed",
                "5",
                "--quiet",
                "--json",
                str(report),
            ]
        )
        == 0
    )
    (cli_result,) = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert plugin_examples == [str(cli_result["examples"])]


# The real suite, a clause at a time.


def test_real_tie_checks_pass_on_the_reference(real_project: pytest.Pytester) -> None:
    result = _run(real_project, "--bpe-impl", "reference", "--bpe-isolation", "inprocess", "--bpe-check", "tie-break")
    result.assert_outcomes(passed=2)


def test_real_tie_check_fails_largest_pair_ties_naming_the_clause(real_project: pytest.Pytester) -> None:
    result = _run(
        real_project, "--bpe-impl", "impls:LargestTie", "--bpe-isolation", "inprocess", "--bpe-check", "tie-break"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [_literal("FAIL tie-break [BPE-TRAIN-TIE]"), "*first divergent merge round:", "*diagnosis: *"]
    )
