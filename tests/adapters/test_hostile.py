"""Hostile implementations: each ends in its named outcome, and the harness survives all of them.

Every implementation here runs in its own process with short per-call timeouts. The runner must
turn a hang into ``timeout``, a death or a protocol breach into ``crash``, a wrong type into
``error`` and a wrong answer into ``fail``; it must restart the process so later checks still run,
and leave no process behind. ``pytest.mark.timeout`` is only the safety net.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import strategies as st

from bpe_conformance import reference
from bpe_conformance.adapters import load_implementation
from bpe_conformance.adapters.subprocess import DEFAULT_STDERR_BYTES, ProcessSubject
from bpe_conformance.checks.base import Check
from bpe_conformance.errors import HarnessError, Violation
from bpe_conformance.results.outcomes import CheckResult, Outcome
from bpe_conformance.running.runner import run_check, run_checks
from bpe_conformance.settings import EFFORTS, active_effort_name
from tests import ROOT

if TYPE_CHECKING:
    from collections.abc import Iterator

    from bpe_conformance.adapters.subject import Subject

HOSTILE = ROOT / "tests" / "fixtures" / "hostile"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HOSTILE)])}
# Short where a hang is the point; generous elsewhere, so a loaded machine cannot turn a pass into a timeout.
HANG_SECONDS = 1.0
CALL_SECONDS = 10.0

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process checks read /proc"),
]


def hostile(script: str, **options: Any) -> ProcessSubject:
    options = {"timeout": CALL_SECONDS, "max_line_bytes": 2**20, **options}
    return ProcessSubject([sys.executable, str(HOSTILE / script)], env=ENV, **options)


def process_state(pid: int) -> str | None:
    """The state letter of ``pid`` (``Z`` for a zombie), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def is_alive(pid: int) -> bool:
    return process_state(pid) not in (None, "Z")


def my_children() -> list[int]:
    """Every process (zombies included) whose parent is this test process."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                children.append(int(entry.name))
    return children


@pytest.fixture(autouse=True)
def nothing_left_behind() -> Iterator[None]:
    before = set(my_children())
    yield
    assert set(my_children()) - before == set()


# -- checks with fixed inputs, so each outcome is reached the same way every time -------------------


def verify_training(subject: Subject, documents: list[str]) -> None:
    expected, actual = reference.train(documents, 16), subject.train(documents, 16)
    if actual != expected:
        raise Violation(
            "BPE-TRAIN-GREEDY",
            "rules differ from the spec's",
            inputs={"documents": documents},
            expected=expected,
            actual=actual,
        )


def verify_encoding(subject: Subject, text: str) -> None:
    rules = reference.train([text], 16)
    subject.load(rules)
    expected, actual = reference.encode(text, rules), subject.encode(text)
    if actual != expected:
        raise Violation(
            "BPE-ENCODE-ORDER",
            "ids differ from the spec's",
            inputs={"rules": rules, "text": text},
            expected=expected,
            actual=actual,
        )


def verify_determinism(subject: Subject, documents: list[str]) -> None:
    first, second = subject.train(documents, 16), subject.train(documents, 16)
    if first != second:
        raise Violation(
            "BPE-PROP-DETERMINISM",
            "training twice gave two answers",
            inputs={"documents": documents},
            expected=first,
            actual=second,
        )


def verify_decoding(subject: Subject, ids: list[int]) -> None:
    expected, actual = reference.decode(ids, []), subject.decode(ids)
    if actual != expected:
        raise Violation("BPE-DECODE-CONCAT", "text differs", inputs={"ids": ids}, expected=expected, actual=actual)


TRAIN = Check("train", "BPE-TRAIN-GREEDY", "training", verify_training, cases=lambda: [["abab", "acac"]])
ENCODE = Check(
    "encode",
    "BPE-ENCODE-ORDER",
    "encoding",
    verify_encoding,
    cases=lambda: ["abababcab"],
    requires=frozenset({"load", "encode"}),
)
DECODE = Check(
    "decode",
    "BPE-DECODE-CONCAT",
    "decoding",
    verify_decoding,
    cases=lambda: [[104, 105]],
    requires=frozenset({"decode"}),
)
DETERMINISM = Check(
    "determinism", "BPE-PROP-DETERMINISM", "same answer twice", verify_determinism, cases=lambda: [["abab", "acac"]]
)
TRAIN_SEARCH = Check(
    "train-search",
    "BPE-TRAIN-GREEDY",
    "training, searched",
    verify_training,
    strategy=lambda: st.lists(st.text(alphabet="ab", max_size=6), min_size=1, max_size=3),
    budget=0.2,
)
TRIGGER_SEGFAULT = Check(
    "segfault-trigger",
    "BPE-TRAIN-GREEDY",
    "training on the fatal document",
    verify_training,
    cases=lambda: [["abab", "this mentions a segfault"]],
)


def outcome_of(check: Check, subject: ProcessSubject) -> CheckResult:
    with subject:
        return run_check(check, subject, EFFORTS[active_effort_name()])


# -- one hostile behaviour each ------------------------------------------------------------------------


def test_sleeping_forever_is_a_timeout() -> None:
    result = outcome_of(TRAIN, hostile("hang_in_train.py", timeout=HANG_SECONDS))
    assert result.outcome is Outcome.TIMEOUT
    assert result.message == "train: no answer within 1 s (process group killed); stderr was empty"
    assert result.counterexample == {"inputs": {"example": "['abab', 'acac']"}}


def test_a_hang_stops_a_hypothesis_search_at_once() -> None:
    result = outcome_of(TRAIN_SEARCH, hostile("hang_in_train.py", timeout=HANG_SECONDS))
    assert result.outcome is Outcome.TIMEOUT
    assert result.examples == 1  # never shrunk: each attempt would cost another timeout


def test_exiting_in_the_middle_of_an_answer_is_a_crash_with_its_exit_code() -> None:
    result = outcome_of(TRAIN, hostile("exit_midway.py"))
    assert result.outcome is Outcome.CRASH
    assert "exited with code 3" in result.message
    assert '{"id": 2, "ok": true, "res' in result.message


def test_a_segfault_is_a_crash_and_the_next_checks_run_in_a_new_process() -> None:
    with hostile("segfault.py") as subject:
        first_pid = subject.pid
        results = run_checks([TRIGGER_SEGFAULT, TRAIN, ENCODE], subject, EFFORTS[active_effort_name()])
        assert subject.pid != first_pid
    assert [result.outcome for result in results] == [Outcome.CRASH, Outcome.PASS, Outcome.PASS]
    assert "SIGSEGV" in results[0].message


def test_noise_on_stdout_is_a_crash_that_quotes_the_line() -> None:
    result = outcome_of(TRAIN, hostile("noise.py"))
    assert result.outcome is Outcome.CRASH
    assert "line is not JSON" in result.message
    assert "training on 2 documents...\\n" in result.message


def test_wrong_types_are_errors_and_the_process_lives_on() -> None:
    with hostile("wrong_types.py") as subject:
        pid = subject.pid
        results = run_checks([TRAIN, ENCODE, DECODE], subject, EFFORTS[active_effort_name()])
        assert subject.pid == pid
    assert [result.outcome for result in results] == [Outcome.ERROR, Outcome.ERROR, Outcome.PASS]
    assert "train returned dict" in results[0].message
    assert "encode returned str" in results[1].message


def test_random_answers_fail() -> None:
    with hostile("random_answers.py") as subject:
        results = run_checks([DETERMINISM, TRAIN_SEARCH, ENCODE], subject, EFFORTS[active_effort_name()])
    assert [result.outcome for result in results] == [Outcome.FAIL] * 3
    assert results[0].clause == "BPE-PROP-DETERMINISM"


def test_an_implementation_that_never_answers_the_handshake_is_refused() -> None:
    with pytest.raises(HarnessError, match=r"handshake failed: no answer within 1 s"):
        hostile("silent.py", handshake_timeout=HANG_SECONDS)


def test_a_gigantic_line_is_cut_off_at_the_limit() -> None:
    result = outcome_of(TRAIN, hostile("giant_line.py"))
    assert result.outcome is Outcome.CRASH
    assert "wrote a line longer than 1048576 bytes: b'7777" in result.message


def test_flooding_stderr_neither_blocks_nor_fills_memory() -> None:
    with hostile("stderr_flood.py") as subject:
        results = run_checks([TRAIN, ENCODE, DECODE], subject, EFFORTS[active_effort_name()])
        assert [result.outcome for result in results] == [Outcome.PASS] * 3  # 1 MiB per call, pipe holds 64 KiB
        while not subject.recent_stderr().endswith("last words of decode"):
            time.sleep(0.01)  # the drain thread may still be catching up; the timeout mark bounds this
        assert subject.stderr_buffered <= DEFAULT_STDERR_BYTES
        assert len(subject.recent_stderr()) <= 1600


def test_a_timeout_kills_the_whole_process_group() -> None:
    result = outcome_of(TRAIN, hostile("spawns_child.py", timeout=HANG_SECONDS))
    assert result.outcome is Outcome.TIMEOUT
    reported = re.search(r"grandchild pid (\d+)", result.message)
    assert reported is not None, result.message
    grandchild = int(reported.group(1))
    while is_alive(grandchild):
        time.sleep(0.01)  # SIGKILL is delivered asynchronously; the timeout mark bounds this


def test_a_protocol_version_mismatch_is_refused_before_any_check() -> None:
    with pytest.raises(HarnessError, match="protocol version mismatch: the harness speaks 1, the implementation 2"):
        hostile("wrong_version.py")


def test_an_answer_with_the_wrong_id_is_a_crash() -> None:
    result = outcome_of(ENCODE, hostile("wrong_id.py"))
    assert result.outcome is Outcome.CRASH
    assert re.search(r"answered request (\d+) with id (\d+)", result.message)


def test_an_answer_that_breaks_the_schema_is_a_crash() -> None:
    result = outcome_of(DECODE, hostile("no_result.py"))
    assert result.outcome is Outcome.CRASH
    assert "'result' is a required property" in result.message


# -- hostile Python classes, isolated by bpe_conformance.adapters.host ----------------------------------------------


@pytest.fixture
def hostile_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """hostile_impls importable by the host process (the harness itself never imports it)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(HOSTILE)]))


@pytest.mark.parametrize(
    ("spec", "check", "outcome", "detail"),
    [
        ("hostile_impls:SegfaultsInEncode", ENCODE, Outcome.CRASH, "was killed by SIGSEGV"),
        ("hostile_impls:PrintsToStdout", TRAIN, Outcome.PASS, "1 examples"),
        ("hostile_impls:RaisesKeyError", TRAIN, Outcome.ERROR, "train raised KeyError: 'pair_counts'"),
        ("hostile_impls:WrongTypes", TRAIN, Outcome.ERROR, "train returned a list whose rule 0 is str"),
    ],
)
def test_python_classes_in_their_own_process(
    hostile_on_path: None, spec: str, check: Check, outcome: Outcome, detail: str
) -> None:
    subject = load_implementation(spec, isolation="process", timeout=5.0)
    assert isinstance(subject, ProcessSubject)
    result = outcome_of(check, subject)
    assert result.outcome is outcome
    assert detail in result.message


def test_printing_implementations_keep_their_output_on_stderr(hostile_on_path: None) -> None:
    opened = load_implementation("hostile_impls:PrintsToStdout", timeout=5.0)
    assert isinstance(opened, ProcessSubject)
    with opened as subject:
        subject.train(["abab"], 2)
        while "and a raw write to file descriptor 1" not in subject.recent_stderr():
            time.sleep(0.01)
        assert "training on 1 documents" in subject.recent_stderr()
