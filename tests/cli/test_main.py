"""The command line: exit codes 0/1/2/130 and the reports written by ``run`` (``trace``: tests/cli/test_trace.py).

``run`` is exercised with three small checks defined here (patched in as the suite's catalogue), so
these tests pin the CLI's behaviour and not the content of the real suite; the bundled reference
passes them and a tokenizer that breaks ties the wrong way fails the training one.
"""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, NoReturn

import jsonschema
import pytest
from hypothesis import strategies as st

from bpe_conformance import checks as checks_package
from bpe_conformance.checks.base import Check
from bpe_conformance.cli import main as cli
from bpe_conformance.cli.commands import trace as trace_command
from bpe_conformance.reports import common, junit, markdown
from bpe_conformance.reports.json_report import SCHEMA_PATH
from bpe_conformance.running import skipfile, suite
from tests.support.demo_checks import (
    demo_selection,
    verify_round_trip,
    verify_unknown_id_rejected,
    verify_worked_example,
)

if TYPE_CHECKING:  # pytest exports CaptureFixture, not the type readouterr returns
    from pathlib import Path
    from types import ModuleType

    from _pytest.capture import CaptureResult

BROKEN_MODULE = textwrap.dedent(
    '''
    from bpe_conformance import reference

    class LargestTie(reference.LiteralTokenizer):
        """Strict BPE except that a tie goes to the largest pair, like some real implementations."""

        name = "largest-tie"
        version = "9.9"

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

    class Hangs:
        def train(self, documents, max_merges):
            import time
            time.sleep(60)

        def encode(self, text):
            return []

        def decode(self, ids):
            return ""
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
        "demo-round-trip",
        "BPE-ROUNDTRIP",
        "round trip",
        verify_round_trip,
        strategy=lambda: st.text(alphabet="ab", max_size=6),
        requires=frozenset({"train", "encode", "decode"}),
        budget=0.2,
    ),
    Check(
        "demo-decode-unknown",
        "BPE-DECODE-STRICT",
        "unknown ids",
        verify_unknown_id_rejected,
        cases=lambda: [258, 10**6],
        requires=frozenset({"train", "decode"}),
        also=("BPE-INPUT-IDS",),
    ),
]


_select_demo = demo_selection(DEMO_CHECKS)


@pytest.fixture
def demo_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The three demo checks stand in for the real suite, through the package the suite imports them from."""
    monkeypatch.setattr(checks_package, "ALL_CHECKS", DEMO_CHECKS, raising=False)
    monkeypatch.setattr(checks_package, "select_checks", _select_demo, raising=False)
    # Wide enough that no line asserted here wraps; tests/reports/test_terminal.py checks the real widths.
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BPE_HYPOTHESIS_PROFILE", raising=False)


@pytest.fixture
def broken_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``broken_impls`` importable from the current directory, in this process and in a child."""
    (tmp_path / "broken_impls.py").write_text(BROKEN_MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "broken_impls", raising=False)
    return tmp_path


def _no_traceback(captured: CaptureResult[str]) -> None:
    assert "Traceback" not in captured.out + captured.err


# run: exit codes


def test_bundled_reference_passes_and_exits_0(demo_suite: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run"]) == 0
    captured = capsys.readouterr()
    assert "implementation: reference, python, bundled reference\n" in captured.out
    assert "3 checks · inprocess · seed 0 · effort dev" in captured.out
    assert "[1/3] pass    demo-worked-example [BPE-TRAIN-TIE] 1 example" in captured.out
    assert "Clauses checked (4): BPE-TRAIN-TIE (1 example), BPE-ROUNDTRIP (12 examples)" in captured.out
    assert "BPE-INPUT-IDS (2 examples)" in captured.out
    assert "PASSED: 3 pass" in captured.out


def test_broken_implementation_in_process_exits_1_with_counterexample(
    demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess", "--seed", "7"]) == 1
    out = capsys.readouterr().out
    assert "FAIL demo-worked-example [BPE-TRAIN-TIE]" in out
    assert '  inputs: {"documents": ["abab", "acac"], "max_merges": 32}' in out
    assert "  expected: [[97, 98], [97, 99]]\n  actual: [[97, 99], [97, 98]]" in out
    assert "  first divergent merge round:\n    round: 0" in out
    reproduce = "bpe-conformance run --impl broken_impls:LargestTie --isolation inprocess --check demo-worked-example"
    assert f"  reproduce: {reproduce} --seed 7" in out
    assert "FAILED: 2 pass, 1 fail" in out


def test_broken_implementation_in_its_own_process_exits_1(
    demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["run", "--impl", "broken_impls:LargestTie", "--check", "BPE-TRAIN-TIE", "--quiet"]) == 1
    assert capsys.readouterr().out.startswith("FAILED: 1 fail in ")


def test_timeout_outcome_exits_1(demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["run", "--impl", "broken_impls:Hangs", "--timeout", "0.5", "--check", "demo-worked-*"])
    assert code == 1
    out = capsys.readouterr().out
    assert "TIMEOUT demo-worked-example [BPE-TRAIN-TIE]" in out
    assert "--timeout 0.5 --check demo-worked-example --seed 0" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["run", "--impl", "no_such_module_xyz:Tok", "--isolation", "inprocess"],
            "no module named 'no_such_module_xyz'",
        ),
        (["run", "--impl", "not a spec"], "an implementation is 'module:attr'"),
        (["run", "--check", "no-such-check"], "no check or clause matches 'no-such-check'"),
        (["run", "--skip-file", "missing-skips.txt"], "cannot read skip file 'missing-skips.txt'"),
        (["run", "--json", "no/such/dir/report.json"], "--json no/such/dir/report.json: directory 'no/such/dir'"),
        (["trace"], "give the documents either as arguments, or with --file, or with --json-file"),
        (["trace", "a\ud800b"], "document 0 contains a lone surrogate U+D800 at index 1"),
    ],
)
def test_usage_and_harness_errors_exit_2_with_a_message(
    demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("bpe-conformance: error: ")
    assert message in captured.err
    _no_traceback(captured)


def test_bad_skip_file_exits_2_naming_the_line(
    demo_suite: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skips = tmp_path / "skips.txt"
    skips.write_text("# deviations\ndemo-round-trip # fine\ndemo-wroked-example\n", encoding="utf-8")
    assert cli.main(["run", "--skip-file", str(skips)]) == 2
    err = capsys.readouterr().err
    assert f"{skips} line 3: 'demo-wroked-example' is neither" in err
    assert "did you mean demo-worked-example" in err


def test_skip_file_turns_a_known_failure_into_a_skip_and_exit_0(
    demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (broken_module / "skips.txt").write_text("BPE-TRAIN-TIE  # we break ties our own way\n", encoding="utf-8")
    argv = ["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess", "--skip-file", "skips.txt"]
    assert cli.main([*argv, "--json", "report.json"]) == 0
    out = capsys.readouterr().out
    assert "skip    demo-worked-example [BPE-TRAIN-TIE] 0 examples" in out
    assert "skipped: we break ties our own way (declared in skips.txt line 1)" in out
    report = json.loads((broken_module / "report.json").read_text(encoding="ascii"))
    reason = "we break ties our own way (declared in skips.txt line 1)"
    assert report["config"]["skipped"] == {"demo-worked-example": reason}
    assert report["summary"]["counts"]["skip"] == 1
    assert report["summary"]["exit_code"] == 0


def test_argparse_errors_exit_2_without_traceback(demo_suite: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--isolation", "sideways"]) == 2
    assert cli.main(["run", "--timeout", "-1"]) == 2
    assert cli.main(["no-such-command"]) == 2
    assert cli.main([]) == 2
    captured = capsys.readouterr()
    assert "argument --isolation: invalid choice: 'sideways'" in captured.err
    assert "timeout must be a positive, finite number of seconds" in captured.err
    assert "invalid choice: 'no-such-command'" in captured.err
    _no_traceback(captured)


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == 0
    assert cli.main(["run", "--help"]) == 0
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    assert "Exit codes: 0 success, 1 a check failed, 2 usage or harness error" in out
    assert "skip file format: one check name or clause id per line" in out
    assert f"bpe-conformance {suite.harness_version()}" in out


def test_keyboard_interrupt_exits_130(
    demo_suite: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> NoReturn:
        raise KeyboardInterrupt

    monkeypatch.setattr(suite, "open_subject", interrupted)
    assert cli.main(["run"]) == 130
    assert capsys.readouterr().err == "bpe-conformance: error: interrupted\n"


def test_a_command_module_that_cannot_be_imported_fails_only_when_used(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    modules = [*cli.command_modules(), ("ghost", ImportError("ghost needs a missing dependency"))]
    monkeypatch.setattr(cli, "command_modules", lambda: modules)
    assert cli.main(["trace", "aa"]) == 0
    assert cli.main(["ghost", "--anything"]) == 2
    assert "the ghost command is unavailable: ImportError: ghost needs a missing dependency" in capsys.readouterr().err


# run: reports and configuration


def test_reports_are_written_and_valid(
    demo_suite: None, broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "run",
        "--impl",
        "broken_impls:LargestTie",
        "--isolation",
        "inprocess",
        "--json",
        "r.json",
        "--junit",
        "r.xml",
        "--markdown",
        "r.md",
    ]
    assert cli.main(argv) == 1
    report = json.loads((broken_module / "r.json").read_text(encoding="ascii"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(report)
    assert report["implementation"] == {
        "name": "largest-tie",
        "version": "9.9",
        "language": "python",
        "profile": "strict",
        "capabilities": ["decode", "encode", "load", "train"],
        "spec": "broken_impls:LargestTie",
    }
    (failed,) = [result for result in report["results"] if result["outcome"] == "fail"]
    assert failed["counterexample"]["actual"] == [[97, 99], [97, 98]]
    assert failed["counterexample"]["divergence"]["round"] == 0
    testsuite = ET.parse(broken_module / "r.xml").getroot().find("testsuite")
    assert testsuite is not None
    assert (testsuite.get("tests"), testsuite.get("failures"), testsuite.get("errors")) == ("3", "1", "0")
    markdown = (broken_module / "r.md").read_text(encoding="utf-8")
    assert "| `demo-worked-example` | algorithm | BPE-TRAIN-TIE | **fail** | 1 |" in markdown


def test_effort_is_ci_under_ci_and_thorough_on_request(
    demo_suite: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    assert cli.main(["run", "--check", "demo-decode-*", "--json", str(tmp_path / "ci.json"), "--seed", "5"]) == 0
    assert "seed 5 · effort ci" in capsys.readouterr().out
    assert cli.main(["run", "--check", "demo-decode-*", "--thorough", "--json", str(tmp_path / "t.json")]) == 0
    ci, thorough = (json.loads((tmp_path / name).read_text()) for name in ("ci.json", "t.json"))
    assert (ci["config"]["effort"], ci["config"]["seed"], ci["config"]["checks"]) == ("ci", 5, ["demo-decode-unknown"])
    assert (thorough["config"]["effort"], thorough["config"]["isolation"]) == ("thorough", "inprocess")


def test_list_checks_prints_the_selection(demo_suite: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--list-checks", "--check", "BPE-INPUT-IDS"]) == 0
    heading, line = capsys.readouterr().out.splitlines()
    assert heading.split() == ["check", "level", "clause", "summary"]
    assert line.split() == [
        "demo-decode-unknown",
        "algorithm",
        "BPE-DECODE-STRICT",
        "unknown",
        "ids",
        "(also",
        "BPE-INPUT-IDS)",
    ]
    assert line.index("algorithm") == heading.index("level")
    assert line.index(" unknown ids") + 1 == heading.index("summary")


def test_list_checks_as_json(demo_suite: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--list-checks", "--check", "BPE-INPUT-IDS", "--json", str(tmp_path / "checks.json")]) == 0
    document = json.loads((tmp_path / "checks.json").read_text(encoding="ascii"))
    assert document["checks"][0]["name"] == "demo-decode-unknown"
    assert document["checks"][0]["clauses"] == ["BPE-DECODE-STRICT", "BPE-INPUT-IDS"]
    assert cli.main(["run", "--list-checks", "--check", "BPE-INPUT-IDS", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == document


DOCUMENTED_MODULES = [cli, suite, skipfile, trace_command, common, junit, markdown]


@pytest.mark.parametrize("module", DOCUMENTED_MODULES, ids=lambda module: module.__name__)
def test_docstring_examples(module: ModuleType) -> None:
    outcome = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_python_dash_m_conformance_runs_the_cli() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "conformance", "trace", "--merges", "1", "aaab", "aab"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "(97, 97)" in completed.stdout
    assert "stopped: max_merges reached (1)" in completed.stdout


# run: the real suite


def test_real_suite_selected_by_name_passes_on_the_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "report.json"
    assert cli.main(["run", "--check", "tie-break", "--check", "decode-*", "--json", str(path)]) == 0
    report = json.loads(path.read_text(encoding="ascii"))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(report)
    expected = [check.name for check in checks_package.select_checks(["tie-break", "decode-*"])]
    assert report["config"]["checks"] == expected
    assert len(expected) >= 2
    assert {result["outcome"] for result in report["results"]} == {"pass"}
    assert "PASSED" in capsys.readouterr().out


def test_real_suite_catches_largest_pair_ties_with_the_divergent_round(
    broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess", "--check", "tie-break"]
    assert cli.main([*argv, "--json", "report.json"]) == 1
    (result,) = json.loads((broken_module / "report.json").read_text(encoding="ascii"))["results"]
    assert (result["outcome"], result["clause"]) == ("fail", "BPE-TRAIN-TIE")
    assert result["counterexample"]["divergence"]
    assert result["reproduce"].endswith("--isolation inprocess --check tie-break --seed 0")
    out = capsys.readouterr().out
    assert "FAIL tie-break [BPE-TRAIN-TIE]" in out
    assert "  first divergent merge round:" in out


def test_real_suite_unknown_check_and_skip_file(broken_module: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--check", "no-such-check"]) == 2
    assert "no check name or clause id matches 'no-such-check'" in capsys.readouterr().err
    (broken_module / "skips.txt").write_text("tie-break # ties go to the largest pair here\n", encoding="utf-8")
    argv = ["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess", "--check", "tie-break"]
    assert cli.main([*argv, "--skip-file", "skips.txt", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("PASSED: 1 skip in ")


def test_declared_clause_turns_only_failures_on_that_clause_into_skips(
    broken_module: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--impl", "broken_impls:LargestTie", "--isolation", "inprocess", "--check", "vectors-training"]
    (broken_module / "other.txt").write_text("BPE-DECODE-STRICT # unrelated deviation\n", encoding="utf-8")
    assert cli.main([*argv, "--skip-file", "other.txt", "--quiet"]) == 1
    (broken_module / "ties.txt").write_text("BPE-TRAIN-TIE # largest pair wins\n", encoding="utf-8")
    assert cli.main([*argv, "--skip-file", "ties.txt", "--json", "report.json"]) == 0
    report = json.loads((broken_module / "report.json").read_text(encoding="ascii"))
    (result,) = report["results"]
    assert result["outcome"] == "skip"
    assert result["counterexample"] is None
    assert result["message"].startswith("skipped: fails BPE-TRAIN-TIE as declared: largest pair wins (declared in")
    assert report["config"]["declared_clauses"] == {"BPE-TRAIN-TIE": "largest pair wins (declared in ties.txt line 1)"}
    skipped = report["config"]["skipped"]
    assert "tie-break" in skipped
    assert set(skipped.values()) == {"largest pair wins (declared in ties.txt line 1)"}
