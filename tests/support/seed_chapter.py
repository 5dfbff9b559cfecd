"""The seed chapter's algorithm as plainly as the chapter gives it, wrapped in the plug-in contract.

Written from the chapter's text (``shared/seeds/000_*.txt``), not copied: its merge function (scan
left to right; on the pair emit the new id and step two, else emit the id and step one) and its
training loop (each document's UTF-8 bytes on its own; count every adjacent pair inside each
document; the highest count wins, ties to the smallest pair; stop below a count of 2 or after
max_merges rules; rule r gets id 258 + r; max_merges must be a non-negative int, else ValueError).
``encode`` applies the rules in rank order and ``decode`` joins the pieces, the two obvious
completions the chapter describes; boundary ids 256 and 257 carry no bytes. Nothing validates more
than the chapter does: that is the point (tests/checks/test_seed_fidelity.py).

>>> tokenizer = SeedChapterTokenizer()
>>> tokenizer.train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> tokenizer.encode("abac"), tokenizer.decode([256, 258, 259, 257])
([258, 259], 'abac')
>>> merge_pair([97, 97, 97], (97, 97), 258)
[258, 97]
"""

from __future__ import annotations

from itertools import pairwise

__all__ = ["SeedChapterTokenizer", "fit_merges", "merge_pair"]


def merge_pair(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    merged: list[int] = []
    position = 0
    while position < len(ids):
        if position + 1 < len(ids) and (ids[position], ids[position + 1]) == tuple(pair):
            merged.append(new_id)
            position += 2
        else:
            merged.append(ids[position])
            position += 1
    return merged


def fit_merges(documents: list[str], max_merges: int) -> list[tuple[tuple[int, int], int]]:
    if type(max_merges) is not int or max_merges < 0:
        raise ValueError("max_merges must be a non-negative integer")
    rows = [list(document.encode("utf-8")) for document in documents]
    merges = []
    for rank in range(max_merges):
        counts: dict[tuple[int, int], int] = {}
        for row in rows:
            for left, right in pairwise(row):
                counts[(left, right)] = counts.get((left, right), 0) + 1
        if not counts or max(counts.values()) < 2:
            break
        best = min(counts, key=lambda pair: (-counts[pair], pair))
        merges.append((best, 258 + rank))
        rows = [merge_pair(row, best, 258 + rank) for row in rows]
    return merges


class SeedChapterTokenizer:
    """``fit_merges`` and ``merge_pair`` behind ``train``/``encode``/``decode``, and nothing more."""

    name = "seed-chapter"

    def __init__(self) -> None:
        self.rules: list[tuple[int, int]] = []

    def train(self, documents: list[str], max_merges: int) -> list[tuple[int, int]]:
        self.rules = [pair for pair, _ in fit_merges(documents, max_merges)]
        return self.rules

    def encode(self, text: str) -> list[int]:
        ids = list(text.encode("utf-8"))
        for rank, pair in enumerate(self.rules):
            ids = merge_pair(ids, pair, 258 + rank)
        return ids

    def decode(self, ids: list[int]) -> str:
        pieces = {byte: bytes([byte]) for byte in range(256)}
        pieces[256] = pieces[257] = b""
        for rank, (left, right) in enumerate(self.rules):
            pieces[258 + rank] = pieces[left] + pieces[right]
        return b"".join(pieces[token] for token in ids).decode("utf-8")
