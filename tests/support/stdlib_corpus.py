"""Corpora made of the standard library's own source, which every machine running the tests has.

The files are the benchmark's ``code`` corpus (:func:`bench.corpora.stdlib_documents`): sorted by their
paths below the standard library, ``site-packages`` excluded, files that are not UTF-8 skipped, so a
corpus is the same on every run of one Python.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from bench.corpora import stdlib_documents

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path

__all__ = ["write_corpus", "write_jsonl"]


def write_corpus(
    directory: Path, budget: int, *, documents: int | None = None, keep: Callable[[str], bool] = lambda text: True
) -> list[str]:
    """Standard-library files ``keep`` accepts, one file each in ``directory``, in order, within ``budget`` bytes.

    A file that would pass the budget is passed over; taking stops at ``documents`` files, or once nine
    tenths of the budget are used. Files are named by their position, so the directory's sorted order is
    the order they were taken in. Returns their texts in that order.
    """
    directory.mkdir(parents=True, exist_ok=True)
    texts: list[str] = []
    total = 0
    for text in stdlib_documents():
        size = len(text.encode("utf-8"))
        if not keep(text) or total + size > budget:
            continue
        (directory / f"{len(texts):04d}.py").write_bytes(text.encode("utf-8"))
        texts.append(text)
        total += size
        if total >= budget * 0.9 or len(texts) == documents:
            break
    return texts


def write_jsonl(path: Path, texts: Iterable[str]) -> Path:
    """``texts`` as a .jsonl corpus at ``path``, one ``{"text": ...}`` line each, as ``compare`` reads it."""
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts), encoding="utf-8")
    return path
