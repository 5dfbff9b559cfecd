"""Controls: correct implementations built differently from the reference, which a harness must accept.

Each replaces one whole area of :class:`~bpe_conformance.zoo.base.ZooBase` with another structure; a
harness that rejects one of them is checking the reference's shape, not the spec.

>>> IncrementalCountsTrainer().train(["abab", "acac"], 32)
[(97, 98), (97, 99)]
>>> encoder = HeapEncoder()
>>> encoder.load([(97, 97)])
[(97, 97)]
>>> encoder.encode("aaa")
[258, 97]
>>> LazyPieceDecoder().decode([228, 189])
Traceback (most recent call last):
...
ValueError: ids decode to invalid UTF-8 (unexpected end of data) within the 2 bytes of ids 0-1
"""

from __future__ import annotations

import codecs
import heapq
from collections import Counter
from itertools import pairwise

from bpe_conformance.zoo.base import BOUNDARY_IDS, BYTE_COUNT, FIRST_RULE_ID, MIN_MERGE_COUNT, Pair, Rules, ZooBase

__all__ = [
    "CONTROLS",
    "BuiltinErrorsValidator",
    "DeduplicatedCorpusTrainer",
    "HeapEncoder",
    "IncrementalCountsTrainer",
    "LazyPieceDecoder",
]


def _pairs(sequence: list[int]) -> Counter[Pair]:
    return Counter(pairwise(sequence))


class IncrementalCountsTrainer(ZooBase):
    """Counts once, then updates a Counter incrementally, re-counting only the documents a merge touched.

    Different in structure: an index from each pair to the documents that contain it, and
    Counter subtraction and addition per changed document, instead of a full recount each round.
    """

    name = "control-incremental-counts"

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        sequences = [list(sequence) for sequence in sequences]
        counts: Counter[Pair] = Counter()
        containing: dict[Pair, set[int]] = {}
        for index, sequence in enumerate(sequences):
            for pair, times in _pairs(sequence).items():
                counts[pair] += times
                containing.setdefault(pair, set()).add(index)
        rules: Rules = []
        while len(rules) < max_merges and counts:
            pair = min(counts, key=lambda candidate: (-counts[candidate], candidate))
            if counts[pair] < MIN_MERGE_COUNT:
                break
            new_id = FIRST_RULE_ID + len(rules)
            for index in sorted(containing.pop(pair, set())):
                self._merge_document(sequences, index, pair, new_id, counts, containing)
            rules.append(pair)
        return rules

    def _merge_document(
        self,
        sequences: list[list[int]],
        index: int,
        pair: Pair,
        new_id: int,
        counts: Counter[Pair],
        containing: dict[Pair, set[int]],
    ) -> None:
        before = _pairs(sequences[index])
        sequences[index] = self.replace_pair(sequences[index], pair, new_id)
        after = _pairs(sequences[index])
        counts.subtract(before)
        counts.update(after)
        for changed in set(before) | set(after):
            if counts[changed] <= 0:
                del counts[changed]
        for added in after:
            containing.setdefault(added, set()).add(index)


class DeduplicatedCorpusTrainer(ZooBase):
    """Trains on distinct sequences with multiplicities, regrouping them after every merge.

    Different in structure: the corpus is a Counter of sequences (the word-frequency table of
    subword-nmt, applied to whole documents), counts are multiplied by how often a sequence
    occurs, and the best pair is found as "highest count, then smallest among those".
    """

    name = "control-deduplicated-corpus"

    def learn(self, sequences: list[list[int]], max_merges: int) -> Rules:
        corpus = Counter(tuple(sequence) for sequence in sequences)
        rules: Rules = []
        while len(rules) < max_merges:
            counts: dict[Pair, int] = {}
            for sequence, times in corpus.items():
                for pair in pairwise(sequence):
                    counts[pair] = counts.get(pair, 0) + times
            if not counts:
                break
            best = max(counts.values())
            if best < MIN_MERGE_COUNT:
                break
            pair = min(candidate for candidate, count in counts.items() if count == best)
            new_id = FIRST_RULE_ID + len(rules)
            merged: Counter[tuple[int, ...]] = Counter()
            for sequence, times in corpus.items():
                merged[tuple(self.replace_pair(list(sequence), pair, new_id))] += times
            corpus = merged
            rules.append(pair)
        return rules


class HeapEncoder(ZooBase):
    """Encodes by merging the lowest-ranked pair present first, with a heap over a linked list.

    Different in structure: no pass per rule; candidate pairs sit in a heap keyed by (rank,
    position), merges splice a doubly linked list, and stale heap entries are skipped lazily.
    Equal to rank order because a pair that contains rule r's new id can only have a rank above r.
    """

    name = "control-heap-encoder"

    def encode_bytes(self, data: bytes) -> list[int]:
        rank_of: dict[Pair, int] = {}
        for rank, pair in enumerate(self.rules):
            rank_of.setdefault(pair, rank)
        values = list(data)
        end = len(values)
        following = list(range(1, end + 1))
        preceding = list(range(-1, end - 1))
        alive = [True] * end
        heap = [(rank_of[pair], left) for left, pair in enumerate(pairwise(values)) if pair in rank_of]
        heapq.heapify(heap)
        while heap:
            rank, left = heapq.heappop(heap)
            right = following[left] if alive[left] else end
            if right >= end or rank_of.get((values[left], values[right])) != rank:
                continue
            values[left] = FIRST_RULE_ID + rank
            alive[right] = False
            following[left] = following[right]
            if following[left] < end:
                preceding[following[left]] = left
            for start in (preceding[left], left):
                if start >= 0 and following[start] < end:
                    neighbour = rank_of.get((values[start], values[following[start]]))
                    if neighbour is not None:
                        heapq.heappush(heap, (neighbour, start))
        return [values[position] for position in range(end) if alive[position]]


class LazyPieceDecoder(ZooBase):
    """Expands each id's piece only when it is decoded, and decodes UTF-8 incrementally as pieces arrive.

    Different in structure: no piece table; rule ids are expanded on demand with an explicit stack
    and memoised per model, and the text comes from a streaming UTF-8 decoder fed piece by piece.
    """

    name = "control-lazy-pieces"
    _expanded: dict[int, bytes]

    def adopt(self, rules: Rules) -> Rules:
        self._expanded = {}
        return super().adopt(rules)

    def _piece(self, token_id: int) -> bytes:
        if token_id < BYTE_COUNT:
            return bytes([token_id])
        if token_id in BOUNDARY_IDS:
            return b""
        return self._expanded[token_id]

    def _expand(self, token_id: int) -> bytes:
        pending = [token_id]
        while pending:
            current = pending[-1]
            if current < FIRST_RULE_ID or current in self._expanded:
                pending.pop()
                continue
            parts = self.rules[current - FIRST_RULE_ID]
            missing = [part for part in parts if part >= FIRST_RULE_ID and part not in self._expanded]
            if missing:
                pending.extend(missing)
                continue
            self._expanded[current] = self._piece(parts[0]) + self._piece(parts[1])
            pending.pop()
        return self._piece(token_id)

    def decode(self, ids: list[int]) -> str:
        checked = self.check_ids(ids)
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        text = []
        length = 0
        try:
            for token_id in checked:
                piece = self._expand(token_id)
                length += len(piece)
                text.append(decoder.decode(piece))
            text.append(decoder.decode(b"", final=True))
        except UnicodeDecodeError as error:
            raise ValueError(
                f"ids decode to invalid UTF-8 ({error.reason}) within the {length} bytes of ids 0-{len(checked) - 1}"
            ) from None
        return "".join(text)


class BuiltinErrorsValidator(ZooBase):
    """Validates fully, but lets Python's own errors through and answers max_merges as the seed chapter does.

    Different in its errors only: invalid UTF-8 is the ``UnicodeDecodeError`` of ``bytes.decode``, a
    lone surrogate the ``UnicodeEncodeError`` of ``str.encode`` (both are ValueErrors), and any
    max_merges that is not a non-negative int, bool included, a ValueError (the seed's own answer,
    where the specification prefers TypeError for the wrong type: an advisory, never a failure).

    >>> BuiltinErrorsValidator().decode([0xFF])
    Traceback (most recent call last):
    ...
    UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte
    >>> BuiltinErrorsValidator().train(["ab"], True)
    Traceback (most recent call last):
    ...
    ValueError: max_merges must be a non-negative int, got True
    """

    name = "control-builtin-errors"

    def check_max_merges(self, max_merges: object) -> int:
        if type(max_merges) is not int or max_merges < 0:
            raise ValueError(f"max_merges must be a non-negative int, got {max_merges!r}")
        return max_merges

    def text_bytes(self, text: str, what: str) -> bytes:  # noqa: ARG002 - overrides the base's step
        return text.encode("utf-8")

    def bytes_to_text(self, data: bytes) -> str:
        return data.decode("utf-8")


CONTROLS: list[type[ZooBase]] = [
    ZooBase,
    IncrementalCountsTrainer,
    DeduplicatedCorpusTrainer,
    HeapEncoder,
    LazyPieceDecoder,
    BuiltinErrorsValidator,
]
