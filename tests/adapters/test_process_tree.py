"""Tests of conformance/adapters/process_tree.py: killing an implementation's whole tree, orphans included."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

from bpe_conformance.adapters import process_tree

if TYPE_CHECKING:
    import pytest


def test_kill_tree_keeps_going_until_a_slow_orphan_is_reaped(monkeypatch: pytest.MonkeyPatch) -> None:
    """No process left behind: a killed orphan that takes many rounds to be gone (a loaded machine) is waited
    for, and reaped, rather than given up on after a fixed number of rounds."""
    slow_rounds = 300  # at 10 ms a round, three seconds: past the 100 rounds that once were the limit
    calls = {"reap": 0}
    real_reap = process_tree._reap

    def slow_reap(pids: set[int]) -> set[int]:
        calls["reap"] += 1
        return set(pids) if calls["reap"] < slow_rounds else real_reap(pids)

    monkeypatch.setattr(process_tree, "_reap", slow_reap)
    monkeypatch.setattr(process_tree, "_ROUND_PAUSE", 0.0)
    orphan = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    monkeypatch.setattr(process_tree, "descendants", lambda pid: {orphan.pid} if calls["reap"] == 0 else set())
    try:
        leader = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
        leader.wait()
        process_tree.kill_tree(leader.pid, process_tree.new_tag())
        assert calls["reap"] >= slow_rounds
        assert orphan.wait(timeout=5) is not None  # killed by kill_tree
    finally:
        orphan.kill()
        orphan.wait()
