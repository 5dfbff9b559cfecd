"""Reports: JSON (validated against its schema), JUnit XML, Markdown and the terminal view."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

import jsonschema
import pytest
from hypothesis import strategies as st
from rich.console import Console

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.checks.base import Check
from bpe_conformance.errors import Violation
from bpe_conformance.reports.common import (
    clause_examples,
    counterexample_lines,
    printable,
    render_value,
    reproduce_command,
    to_json_safe,
    verdict_line,
)
from bpe_conformance.reports.json_report import SCHEMA_PATH, build_report, dumps_report, write_json_report
from bpe_conformance.reports.junit import junit_text, write_junit
from bpe_conformance.reports.markdown import write_markdown
from bpe_conformance.reports.terminal import live_view, make_console, render_summary
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import CheckResult, Outcome, RunRecord, SuiteResult
from bpe_conformance.running.suite import RunConfig, run_suite

if TYPE_CHECKING:
    from pathlib import Path

    from bpe_conformance.adapters.subject import Subject

SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

DIVERGENCE = {
    "round": 0,
    "expected": {"pair": (97, 98), "count": 2},
    "actual": {"pair": (97, 99), "count": 2},
    "diagnosis": "tie broken the other way",
}


def _result(check: str, clause: str, outcome: Outcome, message: str, **extra: Any) -> CheckResult:
    return CheckResult(
        check=check,
        clause=clause,
        clauses=(clause, *extra.pop("also", ())),
        summary=f"{check} summary",
        outcome=outcome,
        message=message,
        examples=extra.pop("examples", 7),
        seconds=0.25,
        **extra,
    )


def _suite(results: list[CheckResult], **config: Any) -> SuiteResult:
    settings = {"impl": "mypkg:Tok", "isolation": "process", "timeout": 10.0, **config}
    return SuiteResult(
        implementation=ImplementationRecord(
            name="tok",
            version="1.2",
            language="python",
            profile="strict",
            capabilities=("decode", "encode", "train"),
            spec=settings["impl"],
        ),
        results=results,
        seed=4,
        effort=settings.pop("effort", "dev"),
        seconds=1.5,
        harness_version="0.1.0",
        started_at="2025-01-01T00:00:00+00:00",
        config=RunRecord(**settings, checks=tuple(result.check for result in results)),
    )


EVERY_OUTCOME = [
    _result(
        "train-tie",
        "BPE-TRAIN-TIE",
        Outcome.FAIL,
        "ties must go to the smallest pair | not the largest",
        counterexample={
            "inputs": {"documents": ["abab", "acac"], "max_merges": 32},
            "expected": [(97, 98), (97, 99)],
            "actual": [(97, 99), (97, 98)],
            "divergence": DIVERGENCE,
        },
    ),
    _result(
        "decode-strict",
        "BPE-DECODE-STRICT",
        Outcome.FAIL,
        "lone \ud800 and NUL \x00 in a message",
        counterexample={
            "inputs": {"ids": [237, 160, 128], "text": "\ud800"},
            "expected": "ValueError",
            "actual": b"\xed\xa0\x80",
        },
    ),
    _result("encode-order", "BPE-ENCODE-ORDER", Outcome.PASS, "60 examples", examples=60, also=("BPE-ENCODE-RAW",)),
    _result(
        "encode-pure",
        "BPE-ENCODE-PURE",
        Outcome.ERROR,
        "encode raised KeyError: 5",
        counterexample={"inputs": {"example": "'abc'"}},
    ),
    _result(
        "train-stop",
        "BPE-TRAIN-STOP",
        Outcome.TIMEOUT,
        "train: no answer within 10 s",
        counterexample={"inputs": {"documents": ["a" * 5], "max_merges": 3}},
    ),
    _result(
        "roundtrip",
        "BPE-ROUNDTRIP",
        Outcome.CRASH,
        "decode: process died with SIGSEGV",
        counterexample={"inputs": {"ids": [1]}},
    ),
    _result(
        "train-greedy",
        "BPE-TRAIN-GREEDY",
        Outcome.MEMORY_LIMIT,
        "train: raised MemoryError under its --memory-limit 512 MiB",
        counterexample={"inputs": {"documents": ["ab" * 5], "max_merges": 3}},
    ),
    _result("decode-bytes", "BPE-DECODE-BYTES", Outcome.SKIP, "capability not declared: load", examples=0),
]


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_json_report_with_every_outcome_validates_and_keeps_counterexamples(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_json_report(_suite(EVERY_OUTCOME), path)
    text = path.read_text(encoding="ascii")
    report = json.loads(text)
    VALIDATOR.validate(report)
    assert report["summary"]["counts"] == {
        "pass": 1,
        "fail": 2,
        "error": 1,
        "timeout": 1,
        "crash": 1,
        "memory-limit": 1,
        "skip": 1,
    }
    assert report["summary"]["exit_code"] == 1
    assert report["summary"]["succeeded"] is False
    assert report["config"]["seed"] == 4
    assert report["config"]["isolation"] == "process"
    by_check = {result["check"]: result for result in report["results"]}
    tie = by_check["train-tie"]
    assert tie["counterexample"]["expected"] == [[97, 98], [97, 99]]
    assert tie["counterexample"]["divergence"]["actual"] == {"pair": [97, 99], "count": 2}
    assert tie["reproduce"] == "bpe-conformance run --impl mypkg:Tok --check train-tie --seed 4"
    assert by_check["encode-order"]["counterexample"] is None
    assert by_check["encode-order"]["reproduce"] is None
    assert by_check["train-stop"]["outcome"] == "timeout"
    assert by_check["train-stop"]["reproduce"]


def test_json_report_keeps_lone_surrogates_and_writes_bytes_as_hex() -> None:
    text = dumps_report(_suite(EVERY_OUTCOME))
    assert text.isascii()
    assert "\\ud800" in text
    decoded = {result["check"]: result for result in json.loads(text)["results"]}["decode-strict"]
    assert decoded["message"] == "lone \ud800 and NUL \x00 in a message"
    assert decoded["counterexample"]["inputs"]["text"] == "\ud800"
    assert decoded["counterexample"]["actual"] == "eda080"


def test_json_report_counts_examples_per_clause_without_skipped_checks() -> None:
    report = build_report(_suite(EVERY_OUTCOME))
    assert report["clauses"]["BPE-ENCODE-ORDER"] == 60
    assert report["clauses"]["BPE-ENCODE-RAW"] == 60
    assert "BPE-DECODE-BYTES" not in report["clauses"]


def test_schema_rejects_a_failure_without_its_counterexample() -> None:
    report = build_report(_suite(EVERY_OUTCOME[:1]))
    report["results"][0]["counterexample"] = None
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(report)
    report["results"][0]["counterexample"] = {"inputs": {}, "expected": 1}
    with pytest.raises(jsonschema.ValidationError, match="'actual' is a required property"):
        VALIDATOR.validate(report)


def test_schema_rejects_an_unknown_outcome() -> None:
    report = build_report(_suite(EVERY_OUTCOME[2:3]))
    report["results"][0]["outcome"] = "passed"
    with pytest.raises(jsonschema.ValidationError):
        VALIDATOR.validate(report)


def test_passing_suite_report_has_exit_code_zero() -> None:
    report = build_report(_suite([EVERY_OUTCOME[2], EVERY_OUTCOME[-1]]))
    VALIDATOR.validate(report)
    assert report["summary"]["exit_code"] == 0
    assert report["summary"]["succeeded"] is True


def test_to_json_safe_converts_every_non_json_type() -> None:
    value = {"pair": (1, 2), (3, 4): frozenset({5}), 7: b"\x00\xff", "nan": float("nan"), "outcome": Outcome.FAIL}
    assert to_json_safe(value) == {"pair": [1, 2], "[3, 4]": [5], "7": "00ff", "nan": "nan", "outcome": "fail"}
    assert json.loads(json.dumps(to_json_safe(value), allow_nan=False))["[3, 4]"] == [5]


def test_values_for_people_escape_what_a_terminal_cannot_show() -> None:
    assert render_value({"text": "低\n\ud800"}) == '{"text": "低\\n\\ud800"}'
    assert printable("a\tb\x00\ud800c") == "a\\x09b\\x00\\ud800c"


def test_counterexample_lines_show_the_first_divergent_round() -> None:
    lines = counterexample_lines(EVERY_OUTCOME[0].counterexample)
    assert lines == [
        'inputs: {"documents": ["abab", "acac"], "max_merges": 32}',
        "expected: [[97, 98], [97, 99]]",
        "actual: [[97, 99], [97, 98]]",
        "first divergent merge round:",
        "  round: 0",
        '  expected: {"pair": [97, 98], "count": 2}',
        '  actual: {"pair": [97, 99], "count": 2}',
        "  diagnosis: tie broken the other way",
    ]


def test_counterexample_lines_shorten_huge_values_when_asked() -> None:
    (line,) = counterexample_lines({"actual": list(range(5000))}, max_chars=50)
    assert line.startswith("actual: [0, 1, 2")
    assert "characters cut; the JSON report keeps more" in line


@pytest.mark.parametrize(
    ("config", "effort", "expected"),
    [
        ({"impl": None, "isolation": "inprocess"}, "dev", "bpe-conformance run --check train-tie --seed 4"),
        (
            {"impl": None, "isolation": "process"},
            "dev",
            "bpe-conformance run --isolation process --check train-tie --seed 4",
        ),
        (
            {"impl": "m:T", "isolation": "inprocess"},
            "thorough",
            "bpe-conformance run --impl m:T --isolation inprocess --thorough --check train-tie --seed 4",
        ),
        (
            {"impl": "cmd:node bpe.mjs", "isolation": "process", "timeout": 2.5},
            "ci",
            "BPE_HYPOTHESIS_PROFILE=ci bpe-conformance run --impl 'cmd:node bpe.mjs' --timeout 2.5 "
            "--check train-tie --seed 4",
        ),
    ],
)
def test_reproduce_command_repeats_what_changes_the_examples(
    config: dict[str, Any], effort: str, expected: str
) -> None:
    assert reproduce_command(_suite(EVERY_OUTCOME[:1], effort=effort, **config), "train-tie") == expected


def test_junit_parses_with_the_right_counts_and_classnames(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    write_junit(_suite(EVERY_OUTCOME), path)
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (testsuite,) = root.findall("testsuite")
    assert {key: testsuite.get(key) for key in ("tests", "failures", "errors", "skipped")} == {
        "tests": "8",
        "failures": "2",
        "errors": "4",
        "skipped": "1",
    }
    cases = {case.get("name"): case for case in testsuite.iter("testcase")}
    assert [case.get("classname") for case in cases.values()] == [result.clause for result in EVERY_OUTCOME]
    failure = cases["train-tie"].find("failure")
    assert failure is not None
    assert failure.text is not None
    assert "first divergent merge round:" in failure.text
    assert "reproduce: bpe-conformance run --impl mypkg:Tok --check train-tie --seed 4" in failure.text
    timeout, crash = cases["train-stop"].find("error"), cases["roundtrip"].find("error")
    assert timeout is not None
    assert timeout.get("type") == "timeout"
    assert crash is not None
    assert crash.get("type") == "crash"
    assert cases["decode-bytes"].find("skipped") is not None
    assert cases["encode-order"].find("failure") is None
    assert cases["encode-order"].find("error") is None


def test_junit_escapes_characters_xml_cannot_hold() -> None:
    root = ET.fromstring(junit_text(_suite(EVERY_OUTCOME)).encode("utf-8"))
    failure = next(case for case in root.iter("testcase") if case.get("name") == "decode-strict").find("failure")
    assert failure is not None
    assert failure.get("message") == "lone \\ud800 and NUL \\x00 in a message"


def test_markdown_has_the_table_failures_and_clauses(tmp_path: Path) -> None:
    path = tmp_path / "report.md"
    write_markdown(_suite(EVERY_OUTCOME), path)
    text = path.read_text(encoding="utf-8")
    assert "| Check | Level | Clause | Outcome | Examples | Seconds | Message |" in text
    assert "| `train-tie` | algorithm | BPE-TRAIN-TIE | **fail** | 7 | 0.25 | ties must go to the smallest" in text
    assert "| `encode-order` | algorithm | BPE-ENCODE-ORDER | pass | 60 | 0.25 | 60 examples |" in text
    assert "### `train-stop` (BPE-TRAIN-STOP): timeout" in text
    assert "bpe-conformance run --impl mypkg:Tok --check roundtrip --seed 4" in text
    assert "- BPE-ENCODE-RAW: 60 examples" in text
    assert "lone \\ud800 and NUL \\x00" in text
    assert "### `encode-order`" not in text


def test_terminal_summary_shows_counterexample_reproduce_and_clauses_without_a_table() -> None:
    # Issue 28: the per-check lines already say what a results table would; the summary never repeats them.
    stream = io.StringIO()
    render_summary(make_console(stream, width=240), _suite(EVERY_OUTCOME))
    text = stream.getvalue()
    assert "Conformance results" not in text
    assert "outcome" not in text
    for expected in (
        "examples: the inputs a check tried",
        "FAIL train-tie [BPE-TRAIN-TIE]",
        '  inputs: {"documents": ["abab", "acac"], "max_merges": 32}',
        "  expected: [[97, 98], [97, 99]]",
        "    diagnosis: tie broken the other way",
        "  reproduce: bpe-conformance run --impl mypkg:Tok --check train-tie --seed 4",
        "TIMEOUT train-stop [BPE-TRAIN-STOP]",
        "CRASH roundtrip [BPE-ROUNDTRIP]",
        "MEMORY-LIMIT train-greedy [BPE-TRAIN-GREEDY]",
        "Clauses checked (8):",
        "BPE-ENCODE-ORDER (60 examples)",
        verdict_line(_suite(EVERY_OUTCOME)),
    ):
        assert expected in text
    assert "PASS encode-order" not in text
    assert "SKIP decode-bytes" not in text


def test_terminal_quiet_prints_only_the_verdict() -> None:
    stream = io.StringIO()
    suite = _suite(EVERY_OUTCOME)
    render_summary(make_console(stream, width=200), suite, quiet=True)
    assert stream.getvalue() == verdict_line(suite) + "\n"  # one line, however narrow the console
    narrow = io.StringIO()
    render_summary(make_console(narrow, width=40), suite, quiet=True)
    assert narrow.getvalue() == verdict_line(suite) + "\n"
    assert verdict_line(suite).startswith(
        "FAILED: 1 pass, 2 fail, 1 error, 1 timeout, 1 crash, 1 memory-limit, 1 skip in 1.5 s"
    )


def test_live_view_prints_one_plain_line_per_check_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with live_view(make_console(stream), total=2) as view:
        view.on_result(EVERY_OUTCOME[2])
        view.on_result(EVERY_OUTCOME[0])
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[1/2] pass    encode-order [BPE-ENCODE-ORDER] 60 examples, 0.25 s"
    # The failure's message waits for its details after the table: printed once.
    assert lines[1] == "[2/2] fail    train-tie [BPE-TRAIN-TIE] 7 examples, 0.25 s"


def test_live_view_on_a_terminal_shows_a_progress_bar_named_after_the_running_check() -> None:
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100, markup=False)
    check = Check("tie-break", "BPE-TRAIN-TIE", "ties", lambda subject, example: None, cases=list)
    with live_view(console, total=1) as view:
        assert view.progress is not None
        view.on_start(check, 0, 1)
        assert view.progress.tasks[0].description == "tie-break [BPE-TRAIN-TIE]"
        view.on_result(EVERY_OUTCOME[0])
        assert view.progress.tasks[0].completed == 1
    assert "[1/1] " in stream.getvalue()
    assert "train-tie [BPE-TRAIN-TIE] 7 examples" in stream.getvalue()


# A real run: the runner's own counterexamples must serialize and validate too.


def _verify_training_matches(subject: Subject, documents: list[str]) -> None:
    expected, actual = reference.train(documents, 8), subject.train(documents, 8)
    if actual != expected:
        raise Violation(
            "BPE-TRAIN-TIE",
            "rules differ from the reference",
            inputs={"documents": documents, "max_merges": 8},
            expected=expected,
            actual=actual,
        )


class _LargestTie(reference.LiteralTokenizer):
    """Breaks ties towards the largest pair: the worked example gives its two rules swapped."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        return list(reversed(super().train(documents, max_merges)))


def test_report_of_a_real_failing_run_validates() -> None:
    check = Check(
        "demo-training",
        "BPE-TRAIN-TIE",
        "training equals the reference",
        _verify_training_matches,
        strategy=lambda: st.lists(st.text(alphabet="abc", max_size=6), max_size=3),
    )
    run = run_suite(RunConfig(impl="tests:_LargestTie", isolation="inprocess"), InProcessSubject(_LargestTie), [check])
    report = build_report(run)
    VALIDATOR.validate(report)
    (result,) = report["results"]
    assert result["outcome"] == "fail"
    assert len(result["counterexample"]["expected"]) == 2  # shrunk to a minimal corpus with two tied rules
    assert clause_examples(run) == {"BPE-TRAIN-TIE": result["examples"]}


def test_piped_output_states_each_checks_outcome_once() -> None:
    stream = io.StringIO()
    console = make_console(stream)
    with live_view(console, total=len(EVERY_OUTCOME)) as view:
        for result in EVERY_OUTCOME:
            view.on_result(result)
    render_summary(console, _suite(EVERY_OUTCOME))
    text = stream.getvalue()
    for result in EVERY_OUTCOME:
        # Its line as it finished; a failure's details (header and reproduce line) once more, nothing else.
        detailed = result.outcome not in (Outcome.PASS, Outcome.SKIP)
        assert text.count(f" {result.check} ") == (3 if detailed else 1), result.check
