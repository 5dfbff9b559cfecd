"""The ten findings of issue 12, each reproduced: an implementation must not bring the harness down
through its answers, escape the kill, or end a run without a verdict.

Every test here failed on the harness before the fix (ecd9c6a); the fixtures are in
``tests/fixtures/hostile/``. ``pytest.mark.timeout`` is only the safety net.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from bpe_conformance import reference
from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.signals import HarnessSignal, handled_signals
from bpe_conformance.adapters.subprocess import ProcessSubject
from bpe_conformance.cli.main import main
from bpe_conformance.dialects.context import train_subject
from bpe_conformance.errors import CallAborted, HarnessError, Violation
from bpe_conformance.reports.json_report import build_report
from bpe_conformance.reports.markdown import render_markdown
from bpe_conformance.reports.terminal import make_console, render_summary
from bpe_conformance.results.implementation import ImplementationRecord
from bpe_conformance.results.outcomes import Outcome, RunRecord, SuiteResult
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import select
from bpe_conformance.settings import EFFORTS, active_effort_name
from tests import ROOT
from tests.adapters.test_hostile import ENV, HOSTILE, hostile, is_alive, nothing_left_behind, outcome_of  # noqa: F401

sys.path.insert(0, str(HOSTILE))
import hostile_answers

if TYPE_CHECKING:
    from collections.abc import Callable

    from bpe_conformance.checks.base import Check

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
]

SETTINGS = EFFORTS[active_effort_name()]
T = TypeVar("T")
# An answer may cost the harness this much Python memory at most, whatever it implies.
MEMORY_BOUND = 64 * 2**20


@pytest.fixture
def hostile_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE)]))
    monkeypatch.syspath_prepend(str(HOSTILE))


def only(name: str) -> Check:
    (check,) = [check for check in select([name]) if check.name == name]
    return check


def peak_memory(call: Callable[[], T]) -> tuple[T, int]:
    tracemalloc.start()
    try:
        value = call()
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- 1. answers are bounded by the request -------------------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "max_merges", "clause", "words"),
    [
        (hostile_answers.DoublingPieces, 45, "BPE-TRAIN-PIECE", ("piece", "longest is 4 bytes")),
        (hostile_answers.SixtyThousandRules, 24, "BPE-TRAIN-STOP", ("60000 rules", "max_merges")),
    ],
)
def test_an_answer_implying_huge_pieces_is_a_violation_found_without_building_them(
    factory: type[reference.Tokenizer], max_merges: int, clause: str, words: tuple[str, ...]
) -> None:
    subject = InProcessSubject(factory)
    with pytest.raises(Violation) as caught:
        peak_memory(lambda: train_subject(subject, ["abab", "acac"], max_merges))
    assert caught.value.clause == clause
    assert all(word in caught.value.message for word in words), caught.value.message


@pytest.mark.parametrize("factory", [hostile_answers.DoublingPieces, hostile_answers.SixtyThousandRules])
@pytest.mark.parametrize("check", ["tie-break", "rule-ids", "vectors-training", "unique-pieces"])
def test_checks_of_a_huge_answer_fail_in_bounded_memory(factory: type[reference.Tokenizer], check: str) -> None:
    # Run once unmeasured: modules imported and caches filled on first use (this file runs first in the
    # default run) are no cost of the answer, and were once counted, up to 206 MB, only in a full run.
    run_check(only(check), InProcessSubject(factory), SETTINGS)
    result, peak = peak_memory(lambda: run_check(only(check), InProcessSubject(factory), SETTINGS))
    assert result.outcome is Outcome.FAIL, result.message
    assert peak < MEMORY_BOUND


@pytest.mark.parametrize("load", [reference.Tokenizer().load, reference.LiteralTokenizer().load])
def test_loading_rules_whose_pieces_exceed_the_bound_is_a_value_error(
    load: Callable[[list[tuple[int, int]]], object],
) -> None:
    with pytest.raises(ValueError, match=r"rule 2\d.*piece.*max_piece_bytes"):
        load(hostile_answers.doubling_chain(45))
    with pytest.raises(ValueError, match="max_piece_bytes"):
        load(hostile_answers.growing_chain(60_000))


def test_loads_bounds_pieces_too_and_the_bound_is_configurable() -> None:
    rules = hostile_answers.doubling_chain(20)  # pieces of 2 ** 21 - 2 bytes in all: within the default bound
    text = reference.dumps(rules)
    for bound in (2**20, 2**21 - 3):
        with pytest.raises(ValueError, match="max_piece_bytes"):
            reference.loads(text, max_piece_bytes=bound)
        with pytest.raises(ValueError, match="max_piece_bytes"):
            reference.Tokenizer().load(rules, max_piece_bytes=bound)
    assert reference.loads(text) == reference.loads(text, max_piece_bytes=2**21 - 2) == rules
    assert reference.Tokenizer().load(rules) == rules


def test_a_protocol_answer_is_bounded_by_its_request() -> None:
    subject = hostile("giant_line.py", max_line_bytes=64 * 2**20)
    with subject, pytest.raises(BaseException, match=r"longer than \d+ bytes") as caught:
        subject.train(["abab", "acac"], 16)
    assert isinstance(caught.value, CallAborted)
    assert caught.value.outcome == "crash"
    said = re.search(r"longer than (\d+) bytes", str(caught.value))
    assert said is not None
    limit = int(said.group(1))
    assert limit < 8 * 2**20


# -- 2. in-process runs always end with a verdict ------------------------------------------------------


@pytest.mark.parametrize(
    ("factory", "check", "named"),
    [
        (hostile_answers.ExitsInTrain, "tie-break", "SystemExit"),
        (hostile_answers.PanicsInTrain, "tie-break", "PanicException"),
        (hostile_answers.GeneratorExitInEncode, "rule-ids", "GeneratorExit"),
        (hostile_answers.KeyboardInterruptInDecode, "round-trip", "KeyboardInterrupt"),
    ],
)
def test_a_base_exception_from_the_implementation_is_an_error_outcome(
    factory: type[reference.Tokenizer], check: str, named: str
) -> None:
    with handled_signals():  # as under the CLI: a KeyboardInterrupt with no signal is the implementation's
        result = run_check(only(check), InProcessSubject(factory), SETTINGS)
    # decode raising where it must succeed is round-trip's failure; elsewhere an error: named either way.
    assert result.outcome in (Outcome.ERROR, Outcome.FAIL)
    assert named in result.message + json.dumps(result.counterexample)


class InterruptedByTheUser(reference.Tokenizer):
    # Interrupted before it could answer: it never returns rules.
    def train(self, documents: list[str], max_merges: int) -> None:  # type: ignore[override]
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


def test_the_users_interrupt_still_stops_an_in_process_run() -> None:
    with handled_signals(), pytest.raises(HarnessSignal) as caught:
        run_check(only("tie-break"), InProcessSubject(InterruptedByTheUser), SETTINGS)
    assert caught.value.exit_code == 130


def test_sys_exit_in_its_own_process_is_an_error_naming_it(hostile_on_path: None) -> None:
    subject = load_implementation("hostile_answers:ExitsInTrain", isolation="process", timeout=10.0)
    assert isinstance(subject, ProcessSubject)
    with subject:
        pid = subject.pid
        result = run_check(only("tie-break"), subject, SETTINGS)
        assert subject.pid == pid  # the host answered with the exception and lives on
    assert result.outcome is Outcome.ERROR
    assert "SystemExit" in result.message


def test_sys_exit_in_process_still_gives_a_verdict_and_a_report(
    hostile_on_path: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    spec = "hostile_answers:ExitsInTrain"
    code = main(["run", "--impl", spec, "--isolation", "inprocess", "--check", "tie-break", "--json", str(report)])
    assert code == 1
    assert json.loads(report.read_text())["results"][0]["outcome"] == "error"


def test_identify_takes_isolation_and_timeout(hostile_on_path: None, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["identify", "--impl", "hostile_answers:ExitsInTrain", "--isolation", "inprocess", "--timeout", "5"])
    assert code == 1  # a verdict (no profile fits), not the silent exit 0 of sys.exit
    assert "implementation: exits-in-train" in capsys.readouterr().out
    code = main(["identify", "--impl", "hostile_answers:ExitsInTrain", "--timeout", "5"])  # in its own process
    assert code == 1


# -- 3. no descendant outlives the harness -------------------------------------------------------------


def test_a_grandchild_in_its_own_session_is_killed_and_its_output_not_kept() -> None:
    subject = hostile("escaping_grandchild.py", timeout=2.0)
    with subject:
        with pytest.raises(BaseException, match="grandchild pid") as caught:
            subject.train(["abab"], 2)
        reported = re.search(r"grandchild pid (\d+)", str(caught.value))
        assert reported is not None
        grandchild = int(reported.group(1))
        deadline = time.monotonic() + 10
        while is_alive(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not is_alive(grandchild)
        assert subject.stderr_buffered == 0  # the dead process's pipes are no longer read


# -- 4. SIGTERM and SIGHUP clean up like SIGINT --------------------------------------------------------


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_kills_the_implementation_and_writes_the_reports(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    pid_file, report = tmp_path / "pid", tmp_path / "report.json"
    command = [
        sys.executable,
        "-m",
        "conformance",
        "run",
        "--impl",
        f"cmd:{sys.executable} {HOSTILE / 'writes_pid_then_hangs.py'}",
        "--timeout",
        "60",
        "--check",
        "rule-references",
        "--check",
        "rule-ids",
        "--json",
        str(report),
    ]
    harness = subprocess.Popen(
        command,
        env={**ENV, "HOSTILE_PID_FILE": str(pid_file)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    implementation = int(pid_file.read_text())
    harness.send_signal(signum)
    _, stderr = harness.communicate(timeout=30)
    assert harness.returncode == code, stderr
    assert not is_alive(implementation)
    written = json.loads(report.read_text())  # rule-references finished; rule-ids hung in encode
    assert [(result["check"], result["outcome"]) for result in written["results"]] == [("rule-references", "pass")]
    assert "interrupted" in stderr.decode()


# -- 5. rendering is bounded ---------------------------------------------------------------------------


def huge_result() -> SuiteResult:
    result = run_check(only("tie-break"), InProcessSubject(hostile_answers.HugeErrorMessage), SETTINGS)
    return SuiteResult(
        implementation=ImplementationRecord(
            name="huge-error-message", version="0", language="python", profile="strict", capabilities=("train",)
        ),
        results=[result],
        seed=0,
        effort="dev",
        seconds=0.0,
        harness_version="0",
        started_at="2026-01-01T00:00:00+00:00",
        config=RunRecord(),
    )


def test_a_huge_message_is_cut_in_the_terminal_and_markdown_and_capped_in_json() -> None:
    suite = huge_result()
    assert len(suite.results[0].message) >= hostile_answers.HugeErrorMessage.HUGE_MESSAGE_BYTES
    stream = io.StringIO()
    render_summary(make_console(stream), suite)
    assert len(stream.getvalue()) < 20_000
    assert "characters cut" in stream.getvalue()
    markdown = render_markdown(suite)
    assert len(markdown) < 20_000
    assert "characters cut" in markdown
    from bpe_conformance.reports.common import JSON_MESSAGE_CHARS

    message = build_report(suite)["results"][0]["message"]
    assert len(message) <= JSON_MESSAGE_CHARS + 100
    assert "characters cut" in message


# -- 6. every message is validated ---------------------------------------------------------------------


def test_lone_surrogates_in_the_handshake_are_a_clear_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--impl", f"cmd:{sys.executable} {HOSTILE / 'surrogate_handshake.py'}"])
    assert code == 2
    error = capsys.readouterr().err
    assert "not valid Unicode" in error
    assert len(error.strip().splitlines()) == 1


def test_a_lone_surrogate_in_a_python_name_is_a_harness_error(hostile_on_path: None) -> None:
    with pytest.raises(HarnessError, match="not valid Unicode"):
        load_implementation("hostile_answers:SurrogateName", isolation="inprocess")


def test_deep_nesting_in_a_reply_is_a_crash() -> None:
    with hostile("deep_nesting.py") as subject, pytest.raises(BaseException, match="nest") as caught:
        subject.train(["abab"], 2)
    assert isinstance(caught.value, CallAborted)
    assert caught.value.outcome == "crash"


@pytest.mark.parametrize("as_bytes", [False, True])
def test_loads_rejects_deep_nesting_with_a_value_error(as_bytes: bool) -> None:
    text = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ValueError, match="nest"):
        reference.loads(text.encode() if as_bytes else text)


# -- 7. an empty --impl is a usage error ---------------------------------------------------------------


@pytest.mark.parametrize("spec", ["", "   "])
def test_an_empty_impl_is_a_usage_error(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--impl", spec, "--check", "tie-break"]) == 2
    assert "--impl" in capsys.readouterr().err


# -- 8. nothing checked is not a pass ------------------------------------------------------------------


@pytest.mark.parametrize(
    "impl", ["hostile_answers:NoCapabilities", f"cmd:{sys.executable} {HOSTILE / 'no_capabilities.py'}"]
)
def test_a_run_that_checks_nothing_fails_and_says_so(
    hostile_on_path: None, impl: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "--impl", impl, "--isolation", "inprocess" if ":N" in impl else "process"]) != 0
    assert "nothing was checked" in capsys.readouterr().err


# -- 9. unusable file arguments are one-line errors ----------------------------------------------------


def fifo(tmp_path: Path) -> str:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize(
    "argv",
    [
        ["identify", "--impl", "bpe_conformance.reference:Tokenizer", "--json", "/nonexistent/x.json"],
        ["vectors", "generate", "--dir", __file__],
        ["run", "--check", "tie-break", "--skip-file", "/dev/zero"],
        ["run", "--check", "tie-break", "--skip-file", "FIFO"],
        ["run", "--check", "tie-break", "--json", "/nonexistent/x.json"],
        ["trace", "--file", "/dev/zero"],
        ["trace", "--json-file", "FIFO"],
        ["zoo", "check", "--only", "zoo-base", "--json", "/nonexistent/x.json"],
        ["matrix", "--output", "/nonexistent/matrix.md"],
    ],
)
def test_an_unusable_file_argument_is_a_one_line_error(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [fifo(tmp_path) if part == "FIFO" else part for part in argv]
    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert error
    assert len(error.splitlines()) == 1
    assert "Traceback" not in error


# -- 10. strict parsing ----------------------------------------------------------------------------------


def test_a_reply_with_a_float_id_is_a_crash() -> None:
    with hostile("float_id.py") as subject:
        subject.train(["abab"], 2)
        with pytest.raises(BaseException, match="id") as caught:
            subject.encode("abab")
    assert isinstance(caught.value, CallAborted)
    assert caught.value.outcome == "crash"


@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda text: "\ufeff" + text, "byte order mark"),
        (lambda text: text.replace('"version":1', '"version":1,"version":1'), "duplicate key 'version'"),
    ],
)
def test_loads_rejects_boms_and_duplicate_keys_for_str_and_bytes(
    change: Callable[[str], str], named: str, as_bytes: bool
) -> None:
    text = change(reference.dumps([(97, 98)]))
    with pytest.raises(ValueError, match=named):
        reference.loads(text.encode() if as_bytes else text)


def test_loads_rejects_utf16_bytes() -> None:
    with pytest.raises(ValueError, match="UTF-8"):
        reference.loads(reference.dumps([(97, 98)]).encode("utf-16"))
