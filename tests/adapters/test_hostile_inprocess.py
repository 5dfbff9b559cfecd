"""In process, an implementation's results are judged as plain built-in values, never as its own objects.

A ``str`` subclass claiming to equal everything once made a garbage ``decode`` pass four checks: results
were converted to plain types for ids and rules, not for text. List subclasses with a lying
``__iter__`` or ``__eq__`` are read by the built-in iterator.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from hypothesis import settings

from bpe_conformance import reference
from bpe_conformance.adapters.python import InProcessSubject
from bpe_conformance.adapters.signals import handled_signals
from bpe_conformance.results.outcomes import Outcome
from bpe_conformance.running.runner import run_check
from bpe_conformance.running.suite import select
from tests import ROOT
from tests.support.inprocess_hostiles import StealsSignalHandlers

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

HOSTILES = "tests.support.inprocess_hostiles"


class EqualsEverything(str):
    def __eq__(self, other: object) -> bool:
        return True

    def __ne__(self, other: object) -> bool:
        return False

    __hash__ = str.__hash__


class IteratesAsSomethingElse(list[int]):
    def __iter__(self) -> Iterator[int]:
        return iter([97, 98])

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None


class GarbageDecodeThatClaimsEquality(reference.Tokenizer):
    def decode(self, ids: list[int]) -> str:
        return EqualsEverything("garbage")


class WrongIdsBehindALyingList(reference.Tokenizer):
    def encode(self, text: str) -> list[int]:
        return IteratesAsSomethingElse([0, *super().encode(text)])


def test_a_str_subclass_equal_to_everything_cannot_pass_a_decode_check() -> None:
    (check,) = select(["decode-concatenates"])
    result = run_check(check, InProcessSubject(GarbageDecodeThatClaimsEquality), settings(max_examples=20))
    assert result.outcome is Outcome.FAIL
    assert result.clause == "BPE-DECODE-CONCAT"


def test_decoded_text_reaches_the_check_as_a_plain_str() -> None:
    decoded = InProcessSubject(GarbageDecodeThatClaimsEquality).decode([97])
    assert type(decoded) is str
    assert decoded == "garbage"


def test_ids_are_read_by_the_list_itself_not_by_its_lying_iterator() -> None:
    ids = InProcessSubject(WrongIdsBehindALyingList).encode("ab")
    assert type(ids) is list
    assert ids[0] == 0


def _harness(cwd: Path, *words: str, **environment: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("HYPOTHESIS")}
    env.update(PYTHONPATH=str(ROOT), **environment)
    command = [sys.executable, "-m", "bpe_conformance", "run", "--isolation", "inprocess", *words]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_os_exit_in_process_is_the_implementations_error_not_exit_0(tmp_path: Path) -> None:
    ran = _harness(tmp_path, "--impl", f"{HOSTILES}:CallsOsExit", "--check", "tie-break", "--json", "r.json")
    assert ran.returncode == 1, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="ascii"))
    (result,) = report["results"]
    assert result["outcome"] == "error"
    assert "os._exit(0)" in result["message"]


def test_a_leftover_thread_cannot_hang_the_harness_after_its_verdict(tmp_path: Path) -> None:
    started = time.monotonic()
    ran = _harness(tmp_path, "--impl", f"{HOSTILES}:LeavesAThread", "--check", "rule-ids")
    assert ran.returncode == 0, ran.stderr
    assert "PASSED" in ran.stdout
    assert time.monotonic() - started < 100  # the thread sleeps 600 s


def test_a_chdir_in_process_does_not_move_a_relative_report_or_database(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    words = ["--impl", f"{HOSTILES}:ChangesDirectory", "--check", "rule-ids", "--json", "r.json", "--database", "db"]
    ran = _harness(tmp_path, *words, HOSTILE_CHDIR=str(elsewhere))
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "r.json").is_file()
    assert (tmp_path / "db").is_dir()
    assert not (elsewhere / "r.json").exists()
    assert not (elsewhere / "db").exists()


def test_stolen_signal_handlers_are_put_back_after_the_call() -> None:
    (check,) = select(["tie-break"])
    with handled_signals():
        ours = signal.getsignal(signal.SIGTERM)
        result = run_check(check, InProcessSubject(StealsSignalHandlers), settings(max_examples=5))
        assert signal.getsignal(signal.SIGTERM) is ours
        assert signal.getsignal(signal.SIGINT) is ours
    assert result.outcome is Outcome.PASS
