"""Implementations that hang with a process of their own started: what a ``kill -9`` of the harness may orphan.

Each writes "its pid, its child's pid" to ``$HOSTILE_PID_FILE`` (atomically, so a reader sees both or
nothing) once it is hung, and sleeps forever in ``train``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bpe_conformance import reference


def _hang_with_a_child() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    target = Path(os.environ["HOSTILE_PID_FILE"])
    partial = target.with_suffix(".partial")
    partial.write_text(f"{os.getpid()} {child.pid}")
    partial.rename(target)
    while True:
        time.sleep(60)


class HangsInTrainWithAChild(reference.Tokenizer):
    """Correct, except that train starts a sleeping child and never returns."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        _hang_with_a_child()
        raise AssertionError("unreachable")
