"""Correct implementations that attack the harness they run inside (``--isolation inprocess``).

Each is otherwise the reference: any check it fails, or any exit code but the verdict's, is the
harness's fault, not a finding.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from bpe_conformance import reference


class CallsOsExit(reference.Tokenizer):
    """train ends the process with status 0, skipping every cleanup."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        os._exit(0)


class StealsSignalHandlers(reference.Tokenizer):
    """train makes SIGTERM and SIGINT ignored, then trains correctly."""

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return super().train(documents, max_merges)


class LeavesAThread(reference.Tokenizer):
    """Starts a non-daemon thread that sleeps for ten minutes."""

    def __init__(self) -> None:
        super().__init__()
        threading.Thread(target=time.sleep, args=(600,), daemon=False).start()


class ChangesDirectory(reference.Tokenizer):
    """Moves the process to ``$HOSTILE_CHDIR`` when created."""

    def __init__(self) -> None:
        super().__init__()
        os.chdir(os.environ["HOSTILE_CHDIR"])
