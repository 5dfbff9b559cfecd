"""No orphan after the harness dies: a ``kill -9`` of any command leaves nothing of the implementation running.

Implementations run in a session of their own (so a terminal's Ctrl-C does not reach them), which also
means a CI runner that kills the harness's process group misses them. Each now gets a parent-death
signal (SIGKILL), and a hosted Python implementation's group is killed by its host's watchdog, so what
it started goes too. Process checks read ``/proc``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING

import pytest

from bpe_conformance.adapters.subprocess import ProcessSubject
from tests.adapters.test_hostile import ENV, HOSTILE, is_alive

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"),
]

HANGS = "tests.support.orphan_makers:HangsInTrainWithAChild"
GONE_WITHIN_SECONDS = 5.0


def _words(command: str, tmp_path: Path) -> list[str]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"text": "abab acac"}) + "\n")
    return {
        "run": ["run", "--impl", HANGS, "--check", "tie-break", "--timeout", "600"],
        "compare": ["compare", "--impl", HANGS, "--corpus", str(corpus), "--merges", "4"],
        "identify": ["identify", "--impl", HANGS, "--timeout", "600"],
        "fuzz": ["fuzz", "--impl", HANGS, "--check", "tie-break", "--jobs", "1", "--duration", "10m"],
    }[command]


def _pids_once_hung(pid_file: Path, harness: subprocess.Popen[bytes]) -> list[int]:
    deadline = time.monotonic() + 60
    while not pid_file.exists():
        assert harness.poll() is None, "the harness ended before the implementation hung"
        assert time.monotonic() < deadline, "the implementation never hung"
        time.sleep(0.05)
    return [int(word) for word in pid_file.read_text().split()]


def _still_running(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + GONE_WITHIN_SECONDS
    while (alive := [pid for pid in pids if is_alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return alive


def _kill_harness_and_watch(words: list[str], tmp_path: Path) -> tuple[list[int], list[int]]:
    pid_file = tmp_path / "pids"
    environment = {**ENV, "HOSTILE_PID_FILE": str(pid_file), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    harness = subprocess.Popen(
        [sys.executable, "-m", "bpe_conformance", *words],
        env=environment,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pids: list[int] = []
    try:
        pids = _pids_once_hung(pid_file, harness)
        harness.send_signal(signal.SIGKILL)
        harness.wait(timeout=30)
        return pids, _still_running(pids)
    finally:
        harness.kill()
        harness.wait()
        for pid in pids:  # leave nothing behind even when the test fails
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


# run in the default test run; the other commands (the same spawn, a few seconds each) in tox -e faults.
@pytest.mark.parametrize(
    "command", ["run", *(pytest.param(name, marks=pytest.mark.slow) for name in ("compare", "identify", "fuzz"))]
)
def test_kill_9_of_the_harness_leaves_no_hosted_implementation_nor_its_child(tmp_path: Path, command: str) -> None:
    pids, alive = _kill_harness_and_watch(_words(command, tmp_path), tmp_path)
    assert len(pids) == 2
    assert alive == []


def test_kill_9_of_the_harness_leaves_no_cmd_implementation(tmp_path: Path) -> None:
    script = HOSTILE / "writes_pid_then_hangs.py"
    words = ["run", "--impl", f"cmd:{sys.executable} {script}", "--check", "rule-ids", "--timeout", "600"]
    pids, alive = _kill_harness_and_watch(words, tmp_path)
    assert len(pids) == 1
    assert alive == []


def test_an_implementation_started_from_a_thread_outlives_the_thread() -> None:
    """The parent-death signal fires when the forking *thread* ends: compare trains in a thread, and a
    restart there must not kill the implementation when the thread returns (a crash blamed on it)."""
    started: dict[str, ProcessSubject] = {}
    host = [sys.executable, "-m", "bpe_conformance.adapters.host", "bpe_conformance.reference:Tokenizer"]
    worker = threading.Thread(target=lambda: started.setdefault("subject", ProcessSubject(host, env=ENV, timeout=30)))
    worker.start()
    worker.join()
    subject = started["subject"]
    try:
        time.sleep(0.5)  # the signal, if armed by the thread, would have been delivered by now
        assert subject.encode("abc") == [97, 98, 99]
    finally:
        subject.close()
