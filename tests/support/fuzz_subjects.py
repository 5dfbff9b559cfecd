"""Implementations the fuzz tests campaign against: a bug ``run`` misses, and one that kills its worker.

:class:`LongTextsLoseTheirLastId` is correct except on long texts, which the default effort rarely
draws: at seed 0, ``run --check round-trip`` and ``run --check encode-trained`` pass against it under
the pinned hypothesis, while a campaign's growing budgets find it within seconds. That is what lets a
test prove a failure came from the shared database and not from the run's own search.
"""

from __future__ import annotations

import os
import signal

from bpe_conformance import reference

__all__ = ["LONG_TEXT_BYTES", "KillsItsProcessOnTrain", "LongTextsLoseTheirLastId"]

LONG_TEXT_BYTES = 80


class LongTextsLoseTheirLastId(reference.Tokenizer):
    """Encodes like the reference, except that a text of 80 UTF-8 bytes or more loses its last id."""

    name = "long-texts-lose-their-last-id"
    version = "1.0"

    def encode(self, text: str) -> list[int]:
        ids = super().encode(text)
        if len(text.encode("utf-8")) >= LONG_TEXT_BYTES and len(ids) > 1:
            return ids[:-1]
        return ids


class KillsItsProcessOnTrain(reference.Tokenizer):
    """Kills whatever process it runs in as soon as it is asked to train (in-process: the fuzz worker)."""

    name = "kills-its-process-on-train"
    version = "1.0"

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")
