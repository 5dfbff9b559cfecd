"""Trainers that are right on every small corpus and wrong at scale: bugs only a real corpus shows (issue 14).

One incremental trainer, written the way fast trainers are (the count of every pair kept up to date as
merges destroy and create windows, a lazy heap of pairs by count, a linked list of token positions), and
three of its bugs, each a switch:

* :class:`SixteenBitCounts` keeps counts in 16 bits: a pair counted 65 536 times or more wraps around;
* :class:`StaleAfterMerges` stops subtracting the windows a merge destroys once it has made
  ``STALE_AFTER`` rules, so the counts of the merged pair's neighbours go stale;
* :class:`FirstBytesWindow` counts only the windows that start in the first ``WINDOW_BYTES`` bytes of
  each document (a buffer), though it replaces everywhere.

:class:`IncrementalTrainer`, with no switch on, is correct (``tests/compare/test_scale_bugs.py`` holds it
to the literal reference) and so is a control. Encoding and decoding are the reference's.

>>> IncrementalTrainer().train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> train_incremental(["aaaa", "aaaa"], 32)
[(97, 97), (258, 258)]
>>> train_incremental(["abab", "abab"], 32, count_mask=3)  # a 2-bit counter: (97, 98) counted 4 looks like 0
[(98, 97), (97, 258), (259, 98)]
"""

from __future__ import annotations

import heapq

from bpe_conformance.reference import FIRST_RULE_ID, MIN_MERGE_COUNT, Tokenizer, check_documents, check_max_merges

__all__ = [
    "STALE_AFTER",
    "WINDOW_BYTES",
    "FirstBytesWindow",
    "IncrementalTrainer",
    "SixteenBitCounts",
    "StaleAfterMerges",
    "train_incremental",
]

Pair = tuple[int, int]
Rules = list[Pair]

STALE_AFTER = 20
WINDOW_BYTES = 4096
_NONE = -1


class _Corpus:
    """Token positions linked document by document, with the weight each window starting there counts."""

    def __init__(self, documents: list[bytes], window_bytes: int | None) -> None:
        self.tokens: list[int] = []
        self.following: list[int] = []
        self.preceding: list[int] = []
        self.weight: list[int] = []
        for document in documents:
            start = len(self.tokens)
            for offset, byte in enumerate(document):
                self.tokens.append(byte)
                self.following.append(start + offset + 1 if offset + 1 < len(document) else _NONE)
                self.preceding.append(start + offset - 1 if offset else _NONE)
                counted = window_bytes is None or offset + 1 < window_bytes
                self.weight.append(1 if counted else 0)


class _Counts:
    """Pair counts (kept modulo ``mask + 1`` when a mask is given), where each pair starts, and a lazy heap."""

    def __init__(self, mask: int | None) -> None:
        self.mask = mask
        self.count: dict[Pair, int] = {}
        self.where: dict[Pair, list[int]] = {}
        self.heap: list[tuple[int, int, int]] = []

    def start(self, corpus: _Corpus) -> None:
        """Every window of the corpus counted, then the heap built once."""
        tokens, weight, count, where = corpus.tokens, corpus.weight, self.count, self.where
        for position, partner in enumerate(corpus.following):
            if partner != _NONE:
                pair = (tokens[position], tokens[partner])
                count[pair] = count.get(pair, 0) + weight[position]
                where.setdefault(pair, []).append(position)
        if self.mask is not None:
            self.count = count = {pair: value & self.mask for pair, value in count.items()}
        self.heap = [(-value, first, second) for (first, second), value in count.items() if value >= MIN_MERGE_COUNT]
        heapq.heapify(self.heap)

    def add(self, pair: Pair, change: int) -> None:
        if not change:
            return
        count = self.count.get(pair, 0) + change
        if self.mask is not None:
            count &= self.mask
        self.count[pair] = count
        if count >= MIN_MERGE_COUNT:
            heapq.heappush(self.heap, (-count, pair[0], pair[1]))

    def best(self) -> Pair | None:
        while self.heap:
            negative, first, second = heapq.heappop(self.heap)
            if self.count.get((first, second)) == -negative:
                return first, second
        return None


def _merge(corpus: _Corpus, counts: _Counts, pair: Pair, new_id: int, stale: bool) -> None:
    """Replace every occurrence of ``pair``, left to right, then apply the round's count changes at once."""
    tokens, following, preceding, weight = corpus.tokens, corpus.following, corpus.preceding, corpus.weight
    first, second = pair
    changes: dict[Pair, int] = {}
    for position in sorted(counts.where.pop(pair, [])):
        partner = following[position]
        if tokens[position] != first or partner == _NONE or tokens[partner] != second:
            continue  # this window was changed by an earlier merge of the round
        left, right = preceding[position], following[partner]
        if left != _NONE:
            if not stale:
                changes[(tokens[left], first)] = changes.get((tokens[left], first), 0) - weight[left]
            made = (tokens[left], new_id)
            changes[made] = changes.get(made, 0) + weight[left]
            counts.where.setdefault(made, []).append(left)
        if right != _NONE:
            if not stale:
                changes[(second, tokens[right])] = changes.get((second, tokens[right]), 0) - weight[partner]
            made = (new_id, tokens[right])
            changes[made] = changes.get(made, 0) + weight[position]
            counts.where.setdefault(made, []).append(position)
            preceding[right] = position
        following[position] = right
        tokens[position], tokens[partner] = new_id, _NONE
    for changed, change in changes.items():
        counts.add(changed, change)
    counts.count.pop(pair, None)


def train_incremental(
    documents: list[str],
    max_merges: int,
    *,
    count_mask: int | None = None,
    stale_after: int | None = None,
    window_bytes: int | None = None,
) -> Rules:
    """BPE training with counts kept up to date; each keyword switches on one bug (none: correct)."""
    corpus = _Corpus(check_documents(documents), window_bytes)
    counts = _Counts(count_mask)
    counts.start(corpus)
    rules: Rules = []
    for rank in range(check_max_merges(max_merges)):
        pair = counts.best()
        if pair is None:
            break
        stale = stale_after is not None and rank >= stale_after
        _merge(corpus, counts, pair, FIRST_RULE_ID + rank, stale)
        rules.append(pair)
    return rules


class IncrementalTrainer(Tokenizer):
    """The incremental trainer with no bug: the control."""

    name = "incremental"
    version = "1.0"
    options: dict[str, int] = {}  # noqa: RUF012 - read only

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(train_incremental(documents, max_merges, **type(self).options))


class SixteenBitCounts(IncrementalTrainer):
    """Pair counts in 16 bits: 65 536 wraps to 0."""

    name = "sixteen-bit-counts"
    options = {"count_mask": 0xFFFF}  # noqa: RUF012


class StaleAfterMerges(IncrementalTrainer):
    """After STALE_AFTER merges, the windows a merge destroys are no longer subtracted from their counts."""

    name = "stale-after-merges"
    options = {"stale_after": STALE_AFTER}  # noqa: RUF012


class FirstBytesWindow(IncrementalTrainer):
    """Only windows starting in the first WINDOW_BYTES bytes of a document are counted."""

    name = "first-bytes-window"
    options = {"window_bytes": WINDOW_BYTES}  # noqa: RUF012
