"""Single-bug implementations written for localisation: each breaks one stage, and names its clause.

None of them is a bug model of the diagnosis or a zoo member's copy: they are independent trainers and
encoders with one realistic slip each (a count that leaks over a document seam, CRLF rewritten, a stale
incremental count, a run that loses matches, a chunked encoder, ...). ``clause`` is the clause the
suite must name for each (tests/diagnosis/test_localisation_bugs.py).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from bpe_conformance.reference import FIRST_RULE_ID, LiteralTokenizer, check_documents, check_max_merges, check_text
from bpe_conformance.reference import encode as reference_encode

__all__ = ["ENCODING_BUGS", "LOCALISATION_BUGS", "MODEL_BUGS", "TRAINING_BUGS", "LocalisationBug"]

Pair = tuple[int, int]


def _replace(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    out, index = [], 0
    while index < len(sequence):
        if index + 1 < len(sequence) and (sequence[index], sequence[index + 1]) == pair:
            out.append(new_id)
            index += 2
        else:
            out.append(sequence[index])
            index += 1
    return out


class _Trainer(LiteralTokenizer):
    """A plain BPE trainer with one step per method, so that each bug overrides exactly one step."""

    clause = ""
    minimum = 2

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return [list(document.encode()) for document in documents]

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        counts: Counter[Pair] = Counter()
        for sequence in sequences:
            counts.update(itertools.pairwise(sequence))
        return counts

    def select(self, counts: Counter[Pair]) -> Pair:
        return min(counts, key=lambda pair: (-counts[pair], pair))

    def replace(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        return _replace(sequence, pair, new_id)

    def budget(self, max_merges: int) -> int:
        return max_merges

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        check_documents(documents)
        check_max_merges(max_merges)
        sequences = self.sequences(list(documents))
        rules: list[Pair] = []
        for rank in range(self.budget(max_merges)):
            counts = self.count(sequences)
            if not counts or max(counts.values()) < self.minimum:
                break
            pair = self.select(counts)
            rules.append(pair)
            sequences = [self.replace(sequence, pair, FIRST_RULE_ID + rank) for sequence in sequences]
        return self._adopt(rules)


class SeamCounted(_Trainer):
    """The corpus is one byte string: every pair across a document seam is counted once."""

    clause = "BPE-TRAIN-DOCS"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return [list("".join(documents).encode())]


class SeamPairsCounted(_Trainer):
    """Documents stay apart, but the pair of one document's last id and the next one's first is counted too."""

    clause = "BPE-TRAIN-DOCS"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        counts = super().count(sequences)
        counts.update((left[-1], right[0]) for left, right in itertools.pairwise(sequences) if left and right)
        return counts


class JoinedWithNewlines(_Trainer):
    """Documents are joined with a line feed before counting, as a file of lines would be."""

    clause = "BPE-TRAIN-DOCS"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return [list("\n".join(documents).encode())]


class RepeatedDocumentsDropped(_Trainer):
    """A document seen before is skipped, as a set of documents would do."""

    clause = "BPE-TRAIN-DOCS"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences(list(dict.fromkeys(documents)))


class CrlfRewritten(_Trainer):
    """Windows line ends become line feeds before training (a "universal newlines" reader)."""

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences([document.replace("\r\n", "\n") for document in documents])


class NulRemoved(_Trainer):
    """NUL characters are removed, as a C-string boundary would."""

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences([document.replace("\x00", "") for document in documents])


class Lowercased(_Trainer):
    """Documents are lower-cased before training."""

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences([document.lower() for document in documents])


class WhitespaceCollapsed(_Trainer):
    """Runs of spaces and tabs become one space before training."""

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences([re.sub(r"[ \t]+", " ", document) for document in documents])


class TrailingWhitespaceStripped(_Trainer):
    """Each document loses its trailing whitespace (``rstrip``), as lines read from a file often do."""

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return super().sequences([document.rstrip() for document in documents])


class BoundaryMarkedSequences(_Trainer):
    """Each document is wrapped in its boundary ids before counting, as ``encode_document`` would give it."""

    clause = "BPE-ALPHA-BOUNDARY"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        return [[256, *sequence, 257] for sequence in super().sequences(documents)]


class RunsCountedOnce(_Trainer):
    """A window that overlaps the previous window of the same pair is not counted."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        counts: Counter[Pair] = Counter()
        for sequence in sequences:
            previous: Pair | None = None
            for pair in itertools.pairwise(sequence):
                if pair == previous and pair[0] == pair[1]:
                    previous = None
                    continue
                counts[pair] += 1
                previous = pair
        return counts


class LastWindowMissed(_Trainer):
    """An off-by-one loop bound: the last window of each sequence is never counted."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        return super().count([sequence[:-1] for sequence in sequences])


class FirstWindowMissed(_Trainer):
    """The loop starts one window late: the first window of each sequence is never counted."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        return super().count([sequence[1:] for sequence in sequences])


class ByteSizedCounts(_Trainer):
    """Counts are kept in a uint8 array: they wrap at 256."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        return Counter({pair: count % 256 for pair, count in super().count(sequences).items() if count % 256})


class StaleIncrementalCounts(_Trainer):
    """Counts are updated incrementally; the pairs a merge destroys on its right are never decremented."""

    clause = "BPE-TRAIN-RECOUNT"

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        check_documents(documents)
        check_max_merges(max_merges)
        sequences = self.sequences(list(documents))
        counts = self.count(sequences)
        rules: list[Pair] = []
        for rank in range(max_merges):
            counts = Counter({pair: count for pair, count in counts.items() if count > 0})
            if not counts or max(counts.values()) < self.minimum:
                break
            pair = self.select(counts)
            rules.append(pair)
            new_id = FIRST_RULE_ID + rank
            for sequence in sequences:
                index = 0
                while index + 1 < len(sequence):
                    if (sequence[index], sequence[index + 1]) == pair:
                        if index > 0:
                            counts[(sequence[index - 1], sequence[index])] -= 1
                            counts[(sequence[index - 1], new_id)] += 1
                        if index + 2 < len(sequence):
                            counts[(new_id, sequence[index + 2])] += 1  # (b, next) is left as it was
                    index += 1
            counts[pair] = 0
            sequences = [self.replace(sequence, pair, new_id) for sequence in sequences]
        return self._adopt(rules)


class StaleLeftNeighbours(_Trainer):
    """Counts are updated incrementally; the pairs a merge destroys on its left are never decremented."""

    clause = "BPE-TRAIN-RECOUNT"

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        check_documents(documents)
        check_max_merges(max_merges)
        sequences = self.sequences(list(documents))
        counts = self.count(sequences)
        rules: list[Pair] = []
        for rank in range(max_merges):
            counts = Counter({pair: count for pair, count in counts.items() if count > 0})
            if not counts or max(counts.values()) < self.minimum:
                break
            pair = self.select(counts)
            rules.append(pair)
            new_id = FIRST_RULE_ID + rank
            for sequence in sequences:
                for index, window in enumerate(itertools.pairwise(sequence)):
                    if window != pair:
                        continue
                    if index > 0:
                        counts[(sequence[index - 1], new_id)] += 1  # (previous, a) is left as it was
                    if index + 2 < len(sequence):
                        counts[(sequence[index + 1], sequence[index + 2])] -= 1
                        counts[(new_id, sequence[index + 2])] += 1
            counts[pair] = 0
            sequences = [self.replace(sequence, pair, new_id) for sequence in sequences]
        return self._adopt(rules)


class FirstIdInOneByte(_Trainer):
    """Counts are keyed by ``(a & 0xFF) << 16 | b``, a layout that keeps only the low byte of the first id."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        keyed: Counter[int] = Counter()
        for (first, second), count in super().count(sequences).items():
            keyed[(first & 0xFF) << 16 | second] += count
        return Counter({(key >> 16, key & 0xFFFF): count for key, count in keyed.items()})


class SecondIdInOneByte(_Trainer):
    """Counts are keyed by ``a << 8 | (b & 0xFF)``, a layout that keeps only the low byte of the second id."""

    clause = "BPE-TRAIN-COUNT"

    def count(self, sequences: list[list[int]]) -> Counter[Pair]:
        keyed: Counter[int] = Counter()
        for (first, second), count in super().count(sequences).items():
            keyed[first << 8 | (second & 0xFF)] += count
        return Counter({(key >> 8, key & 0xFF): count for key, count in keyed.items()})


class ReplacesRightToLeft(_Trainer):
    """Replacement scans from the end of each sequence, so ``aaa`` becomes ``a, n``."""

    clause = "BPE-MERGE-SCAN"

    def replace(self, sequence: list[int], pair: Pair, new_id: int) -> list[int]:
        return _replace(sequence[::-1], (pair[1], pair[0]), new_id)[::-1]


class MinimumCountThree(_Trainer):
    """Training stops when the best count is below 3, not 2."""

    clause = "BPE-TRAIN-STOP"
    minimum = 3


class OneRuleForZeroBudget(_Trainer):
    """``max(1, max_merges)`` rounds: asking for no rule still makes one."""

    clause = "BPE-TRAIN-STOP"

    def budget(self, max_merges: int) -> int:
        return max(1, max_merges)


class TiesToFirstSeen(_Trainer):
    """Among pairs tied for the top count, the one seen first wins (a dict's insertion order)."""

    clause = "BPE-TRAIN-TIE"

    def select(self, counts: Counter[Pair]) -> Pair:
        top = max(counts.values())
        return next(pair for pair, count in counts.items() if count == top)


class FirstPairAboveMinimum(_Trainer):
    """Selects the first pair seen at least twice instead of the most frequent one."""

    clause = "BPE-TRAIN-GREEDY"

    def select(self, counts: Counter[Pair]) -> Pair:
        return next(pair for pair, count in counts.items() if count >= self.minimum)


class _Encoder(LiteralTokenizer):
    """The literal reference's training, with an encoder of its own."""

    clause = ""


class ChunkedEncoder(_Encoder):
    """Encodes the text in 32-byte chunks, each on its own, as a streaming encoder with a small buffer would."""

    clause = "BPE-ENCODE-RAW"

    def encode(self, text: str) -> list[int]:
        data = check_text(text)
        return [
            token for start in range(0, len(data), 32) for token in _encode_bytes(data[start : start + 32], self.rules)
        ]


class RunsLoseMatches(_Encoder):
    """In a run of a rule's pair, only every other match is replaced: after a match the scan skips three."""

    clause = "BPE-MERGE-SCAN"

    def encode(self, text: str) -> list[int]:
        sequence = list(check_text(text))
        for rank, pair in enumerate(self.rules):
            out, index = [], 0
            while index < len(sequence):
                if index + 1 < len(sequence) and (sequence[index], sequence[index + 1]) == pair:
                    out.append(FIRST_RULE_ID + rank)
                    out.extend(sequence[index + 2 : index + 3])
                    index += 3
                else:
                    out.append(sequence[index])
                    index += 1
            sequence = out
        return sequence


class SplitsAtPunctuation(_Encoder):
    """Encodes the text split before every punctuation mark, each part on its own."""

    clause = "BPE-ENCODE-RAW"

    def encode(self, text: str) -> list[int]:
        check_text(text)
        return [
            token for part in re.split(r"(?=[,.;:!?])", text) if part for token in reference_encode(part, self.rules)
        ]


class StopsAtIdleRule(_Encoder):
    """Stops applying rules at the first rule that changes nothing, as if later rules could not apply."""

    clause = "BPE-ENCODE-ORDER"

    def encode(self, text: str) -> list[int]:
        sequence = list(check_text(text))
        for rank, pair in enumerate(self.rules):
            replaced = _replace(sequence, pair, FIRST_RULE_ID + rank)
            if replaced == sequence:
                break
            sequence = replaced
        return sequence


class LaterCopyWins(_Encoder):
    """Applies the rules in rank order, but a pair listed again later waits for its last copy."""

    clause = "BPE-ENCODE-LOWEST"

    def encode(self, text: str) -> list[int]:
        sequence = list(check_text(text))
        for rank, pair in enumerate(self.rules):
            if pair not in self.rules[rank + 1 :]:
                sequence = _replace(sequence, pair, FIRST_RULE_ID + rank)
        return sequence


class SplitsDocumentsAtDigits(_Trainer):
    """Cuts each training document before and after every run of digits, as a number-aware trainer would.

    Not among TRAINING_BUGS: documents-as-given's examples seldom put a digit beside a letter, so only the
    known-answer vectors show it (a gap of the class check's examples, not of localisation).
    """

    clause = "BPE-TRAIN-INPUT"

    def sequences(self, documents: list[str]) -> list[list[int]]:
        parts = [part for document in documents for part in re.split(r"(\d+)", document) if part]
        return super().sequences(parts)


class EncodingsMemoisedPerTrain(_Encoder):
    """Memoises encode by text and empties the memo when it trains, but not when it loads."""

    clause = "BPE-SER-LOAD"

    def __init__(self) -> None:
        super().__init__()
        self._memo: dict[str, list[int]] = {}

    def train(self, documents: list[str], max_merges: int) -> list[Pair]:
        rules = super().train(documents, max_merges)
        self._memo = {}
        return rules

    def encode(self, text: str) -> list[int]:
        if isinstance(text, str) and text in self._memo:
            return list(self._memo[text])
        ids = super().encode(text)
        self._memo[text] = list(ids)
        return ids


class PieceTableRebuiltWhenItGrows(_Encoder):
    """Builds the decoder's piece table again only when the number of rules changes, not when the rules do."""

    clause = "BPE-SER-LOAD"

    def _adopt(self, rules: list[Pair]) -> list[Pair]:
        kept = getattr(self, "_pieces", None)
        adopted = super()._adopt(rules)
        if kept is not None and len(kept) == len(self._pieces):
            self._pieces = kept
        return adopted


class LoadsRuleByRule(_Encoder):
    """Loads by appending each rule once it is checked, so a bad rule leaves the rules before it adopted."""

    clause = "BPE-SER-LOAD"

    def load(self, rules: list[Pair], max_piece_bytes: int | None = None) -> list[Pair]:
        if not isinstance(rules, (list, tuple)):
            return super().load(rules, max_piece_bytes)
        self._adopt([])
        for rank in range(len(rules)):
            self._adopt(LiteralTokenizer().load(list(rules[: rank + 1]), max_piece_bytes))
        return self.rules


class SecondPartTypo(_Encoder):
    """Builds a rule's piece as its first part's piece twice: a copy-paste slip in the piece table."""

    clause = "BPE-RULE-PIECE"

    def _adopt(self, rules: list[Pair]) -> list[Pair]:
        adopted = super()._adopt(rules)
        for rank, (first, _second) in enumerate(adopted):
            self._pieces[FIRST_RULE_ID + rank] = self._pieces[first] + self._pieces[first]
        return adopted


class RuleIdsOneLate(_Encoder):
    """Numbers rule r as 259 + r in encode and decode alike, as if a third reserved id came first."""

    clause = "BPE-RULE-ID"

    def _adopt(self, rules: list[Pair]) -> list[Pair]:
        adopted = super()._adopt(rules)
        pieces = dict(enumerate(self._pieces))
        self._late = {FIRST_RULE_ID + 1 + rank: pieces[FIRST_RULE_ID + rank] for rank in range(len(adopted))}
        return adopted

    def encode(self, text: str) -> list[int]:
        return [token + 1 if token >= FIRST_RULE_ID else token for token in super().encode(text)]

    def decode(self, ids: list[int]) -> str:
        data = b"".join(self._late[token] if token in self._late else self.decode_bytes([token]) for token in ids)
        return data.decode("utf-8")


class FastPathAfterFirstEncode(_Encoder):
    """After the first encode following a train or load, drops the last rule (a stale "fast" table).

    Its answers depend on the calls since the last load, never on what came before it: a bug of encoding's
    purity, not of loading, so no check may name BPE-SER-LOAD for it.
    """

    clause = "BPE-ENCODE-PURE"

    def _adopt(self, rules: list[Pair]) -> list[Pair]:
        self._encoded = 0
        return super()._adopt(rules)

    def encode(self, text: str) -> list[int]:
        self._encoded += 1
        rules = self.rules if self._encoded == 1 else self.rules[:-1]
        return _encode_bytes(check_text(text), rules)


def _encode_bytes(data: bytes, rules: list[Pair]) -> list[int]:
    sequence = list(data)
    for rank, pair in enumerate(rules):
        sequence = _replace(sequence, pair, FIRST_RULE_ID + rank)
    return sequence


TRAINING_BUGS: tuple[type[_Trainer], ...] = (
    SeamCounted,
    SeamPairsCounted,
    JoinedWithNewlines,
    RepeatedDocumentsDropped,
    CrlfRewritten,
    NulRemoved,
    Lowercased,
    WhitespaceCollapsed,
    TrailingWhitespaceStripped,
    BoundaryMarkedSequences,
    RunsCountedOnce,
    LastWindowMissed,
    FirstWindowMissed,
    StaleIncrementalCounts,
    StaleLeftNeighbours,
    FirstIdInOneByte,
    SecondIdInOneByte,
    ReplacesRightToLeft,
    MinimumCountThree,
    OneRuleForZeroBudget,
    TiesToFirstSeen,
    FirstPairAboveMinimum,
)
ENCODING_BUGS: tuple[type[_Encoder], ...] = (
    ChunkedEncoder,
    RunsLoseMatches,
    SplitsAtPunctuation,
    StopsAtIdleRule,
    LaterCopyWins,
)
# Bugs of what the model keeps: loading (state kept across a load, a load adopted rule by rule) and the
# rule's piece in the decoder's table. Each is asked by the check that names it, not a class check.
MODEL_BUGS: tuple[type[_Encoder], ...] = (
    EncodingsMemoisedPerTrain,
    PieceTableRebuiltWhenItGrows,
    LoadsRuleByRule,
    SecondPartTypo,
    RuleIdsOneLate,
)
# A single-bug implementation: a class whose ``clause`` is the clause it breaks.
LocalisationBug = type[_Trainer] | type[_Encoder]
LOCALISATION_BUGS: tuple[LocalisationBug, ...] = TRAINING_BUGS + ENCODING_BUGS
