"""Small broken implementations: each overrides one method of the literal reference with one bug.

They exist to show that every check can fail: ``tests/checks/test_every_check_can_fail.py`` maps each
check to one of these and requires the check to reject it, naming the clause. The bugs are the ones real implementations
have (and the strict specification's "why it matters" paragraphs name).
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import TYPE_CHECKING

from bpe_conformance.reference import (
    LiteralTokenizer,
    check_documents,
    check_max_merges,
    check_text,
    count_pairs,
    encode,
    encode_bytes,
    replace_pair,
    rule_id,
    select_pair,
)

if TYPE_CHECKING:
    from collections.abc import Callable

Pair = tuple[int, int]
Rules = list[Pair]
Counts = dict[Pair, int]


def literal_train(
    documents: list[str],
    max_merges: int,
    *,
    count: Callable[[list[list[int]]], Counts] = count_pairs,
    select: Callable[[Counts], Pair | None] = select_pair,
    replace: Callable[[list[int], Pair, int], list[int]] = replace_pair,
    keep_going: Callable[[int], bool] = lambda best: best >= 2,
    first_id: int = 258,
) -> Rules:
    """The reference training loop with each step replaceable, so a broken trainer differs in one step."""
    sequences = [list(data) for data in check_documents(documents)]
    rules: Rules = []
    for rank in range(check_max_merges(max_merges)):
        counts = count(sequences)
        pair = select(counts)
        if pair is None or not keep_going(counts[pair]):
            break
        rules.append(pair)
        sequences = [replace(sequence, pair, first_id + rank) for sequence in sequences]
    return rules


# --- pieces a broken step is made of ---


def count_without_overlap(sequences: list[list[int]]) -> Counts:
    """Counts each pair as the number of replacements a scan would make: ``aaa`` has one (a, a)."""
    counts: Counts = {}
    for sequence in sequences:
        for pair in set(itertools.pairwise(sequence)):
            counts[pair] = counts.get(pair, 0) + len(sequence) - len(replace_pair(sequence, pair, -1))
    return counts


def select_smallest_frequent(counts: Counts) -> Pair | None:
    """The smallest pair seen at least twice, whatever its count: not greedy."""
    frequent = [pair for pair, count in counts.items() if count >= 2]
    return min(frequent) if frequent else select_pair(counts)


def select_largest_tied(counts: Counts) -> Pair | None:
    """Ties go to the largest pair (subword-nmt's ``max`` over ``(count, pair)``)."""
    return max(counts, key=lambda pair: (counts[pair], pair)) if counts else None


def select_first_seen(counts: Counts) -> Pair | None:
    """Ties go to the pair counted first (minbpe's ``max`` over an insertion-ordered dict)."""
    return max(counts, key=counts.__getitem__) if counts else None


def select_by_string(counts: Counts) -> Pair | None:
    """Ties go to the smallest pair compared as the string ``"a,b"``."""
    return min(counts, key=lambda pair: (-counts[pair], f"{pair[0]},{pair[1]}")) if counts else None


def replace_right_to_left(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """Scans from the right: ``[a, a, a]`` becomes ``[a, n]``."""
    return replace_pair(sequence[::-1], (pair[1], pair[0]), new_id)[::-1]


def replace_overlapping(sequence: list[int], pair: Pair, new_id: int) -> list[int]:
    """Replaces every matching window: ``[a, a, a]`` becomes ``[n, n]``, inventing a byte."""
    out, position = [], 0
    while position < len(sequence):
        window = tuple(sequence[position : position + 2])
        if window == pair:
            out.append(new_id)
            following = tuple(sequence[position + 1 : position + 3])
            position += 1 if following == pair else 2
        else:
            out.append(sequence[position])
            position += 1
    return out


def _split_words(text: str) -> list[str]:
    def kind(char: str) -> str:
        if char.isalnum() or ord(char) >= 128:
            return "word"
        return "space" if char.isspace() else "punctuation"

    return ["".join(group) for _, group in itertools.groupby(text, key=kind)]


# --- the broken implementations, one bug each ---


class MergeIdsFrom256(LiteralTokenizer):
    """Numbers rules from 256 (minbpe has no boundary ids): rules refer to 256, a boundary id."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, first_id=256))


class EncodeIdsOffByOne(LiteralTokenizer):
    """Emits 259 + r for rule r."""

    def encode(self, text: str) -> list[int]:
        ids = encode(text, self._rules)
        return [token + 1 if token >= 258 else token for token in ids]


class TrainsOnJoinedDocuments(LiteralTokenizer):
    """Concatenates the corpus before training, so pairs span document boundaries."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        check_documents(documents)
        return self._adopt(literal_train(["".join(documents)], max_merges))


class CountsWithoutOverlap(LiteralTokenizer):
    """Counts non-overlapping occurrences: ``aaa`` counts (a, a) once."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, count=count_without_overlap))


class SmallestFrequentPair(LiteralTokenizer):
    """Merges the smallest pair seen twice instead of the most frequent one."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, select=select_smallest_frequent))


class LargestTiedPair(LiteralTokenizer):
    """Breaks ties towards the largest pair; greedy otherwise."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, select=select_largest_tied))


class StringTieBreak(LiteralTokenizer):
    """Breaks ties by the pair's decimal string, so "100,101" beats "99,102"."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, select=select_by_string))


class NeverRecounts(LiteralTokenizer):
    """Counts once, then takes pairs in that order: stale counts."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        sequences = [list(data) for data in check_documents(documents)]
        stale = count_pairs(sequences)
        rules: Rules = []
        for _ in range(check_max_merges(max_merges)):
            pair = select_pair({pair: count for pair, count in stale.items() if pair not in rules})
            if pair is None or stale[pair] < 2:
                break
            rules.append(pair)
        return self._adopt(rules)


class StopsAtTwo(LiteralTokenizer):
    """Off by one in the stop rule: a pair counted exactly twice is not merged."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, keep_going=lambda best: best > 2))


class MergesPairsSeenOnce(LiteralTokenizer):
    """No count threshold (minbpe): merges until max_merges, pairs seen once included."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, keep_going=lambda best: best >= 1))


class RemembersEarlierDocuments(LiteralTokenizer):
    """Accumulates the documents of every train call: earlier corpora leak into later models."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        check_documents(documents)
        self.seen = [*getattr(self, "seen", []), *documents]
        return self._adopt(literal_train(self.seen, max_merges))


class ReplacesRightToLeft(LiteralTokenizer):
    """Training replacement scans right to left."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, replace=replace_right_to_left))


class ReplacesOverlapping(LiteralTokenizer):
    """Training replacement merges overlapping windows."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, replace=replace_overlapping))


class EncodesRulesInReverse(LiteralTokenizer):
    """Applies the rules from the last to the first."""

    def encode(self, text: str) -> list[int]:
        sequence = list(check_text(text))
        for rank in reversed(range(len(self._rules))):
            sequence = replace_pair(sequence, self._rules[rank], rule_id(rank))
        return sequence


class SinglePassEncoder(LiteralTokenizer):
    """One left-to-right pass merging whenever the last two tokens form any rule: a made token is rematched."""

    def encode(self, text: str) -> list[int]:
        ranks: dict[Pair, int] = {}
        for rank, pair in enumerate(self._rules):
            ranks.setdefault(pair, rank)
        stack: list[int] = []
        for byte in check_text(text):
            stack.append(byte)
            while len(stack) >= 2 and (stack[-2], stack[-1]) in ranks:
                stack[-2:] = [rule_id(ranks[(stack[-2], stack[-1])])]
        return stack


class PreTokenizes(LiteralTokenizer):
    """Splits documents into words, spaces and punctuation before training."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        check_documents(documents)
        return self._adopt(literal_train([word for doc in documents for word in _split_words(doc)], max_merges))


class LearnsWhileEncoding(LiteralTokenizer):
    """Adopts the most frequent pair of every text it encodes: the model drifts with use."""

    def encode(self, text: str) -> list[int]:
        ids = encode(text, self._rules)
        counts = count_pairs([ids])
        best = select_pair(counts)
        if best is not None and counts[best] >= 2:
            self._adopt([*self._rules, best])
        return ids


class NormalizesOnDecode(LiteralTokenizer):
    """Returns decoded text in NFC."""

    def decode(self, ids: list[int]) -> str:
        return unicodedata.normalize("NFC", super().decode(ids))


class PiecesReversed(LiteralTokenizer):
    """Builds a rule's piece as the second part's bytes, then the first's."""

    def _adopt(self, rules: Rules) -> Rules:
        adopted = super()._adopt(rules)
        for rank, (first, second) in enumerate(self._rules):
            self._pieces[rule_id(rank)] = self._pieces[second] + self._pieces[first]
        return adopted


class DecodesPieceByPiece(LiteralTokenizer):
    """Decodes each id's piece to text on its own, which fails when a piece splits a character."""

    def decode(self, ids: list[int]) -> str:
        return "".join(self.decode_bytes([token]).decode("utf-8") for token in ids)


class LenientDecoder(LiteralTokenizer):
    """Replaces invalid UTF-8 with U+FFFD and ignores unknown ids."""

    def decode(self, ids: list[int]) -> str:
        known = [token for token in ids if type(token) is int and 0 <= token < len(self._pieces)]
        return self.decode_bytes(known).decode("utf-8", errors="replace")


class VocabularyFromMaxMerges(LiteralTokenizer):
    """Sizes the vocabulary by max_merges: ids of rules never made decode to nothing."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        rules = super().train(documents, max_merges)
        self._pieces.extend(b"" for _ in range(max_merges - len(rules)))
        return rules


class RejectsBoundaryIds(LiteralTokenizer):
    """Has no boundary ids in its decoding table."""

    def decode_bytes(self, ids: list[int]) -> bytes:
        if any(token in (256, 257) for token in ids):
            raise ValueError("ids 256 and 257 are not in the vocabulary")
        return super().decode_bytes(ids)


class AlternatingTieBreak(LiteralTokenizer):
    """Breaks ties one way, then the other, on alternate train calls."""

    calls = 0

    def train(self, documents: list[str], max_merges: int) -> Rules:
        type(self).calls += 1
        select = select_largest_tied if type(self).calls % 2 else select_pair
        return self._adopt(literal_train(documents, max_merges, select=select))


class FirstSeenTieBreak(LiteralTokenizer):
    """Ties go to the pair counted first, so the rules depend on document order."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, select=select_first_seen))


class SortsRules(LiteralTokenizer):
    """Returns the rules sorted instead of in rank order (the model itself keeps rank order)."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return sorted(self._adopt(literal_train(documents, max_merges)))


class ForgetsLastDocument(LiteralTokenizer):
    """Replaces the merged pair in every document but the last: the pair stays and is merged again."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        sequences = [list(data) for data in check_documents(documents)]
        rules: Rules = []
        for rank in range(check_max_merges(max_merges)):
            counts = count_pairs(sequences)
            pair = select_pair(counts)
            if pair is None or counts[pair] < 2:
                break
            rules.append(pair)
            sequences = [replace_pair(seq, pair, rule_id(rank)) for seq in sequences[:-1]] + sequences[-1:]
        return self._adopt(rules)


class AcceptsBoolMaxMerges(LiteralTokenizer):
    """Treats ``True`` as 1 merge."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return super().train(documents, int(max_merges) if isinstance(max_merges, bool) else max_merges)


class AcceptsBareString(LiteralTokenizer):
    """Reads a bare str as a list of one-character documents."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return super().train(list(documents) if isinstance(documents, str) else documents, max_merges)


class EncodesSurrogates(LiteralTokenizer):
    """Encodes lone surrogates with ``surrogatepass`` instead of rejecting them."""

    def encode(self, text: str) -> list[int]:
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        return encode_bytes(text.encode("utf-8", "surrogatepass"), self._rules)


class AcceptsBoolIds(LiteralTokenizer):
    """Decodes ``True`` as byte 1."""

    def decode(self, ids: list[int]) -> str:
        if isinstance(ids, list):
            ids = [int(token) if isinstance(token, bool) else token for token in ids]
        return super().decode(ids)


class LoadsWithoutValidation(LiteralTokenizer):
    """Adopts any rule list it is given."""

    # The contract's load takes the rules alone; the reference's also takes a piece bound this bug never uses.
    def load(self, rules: Rules) -> Rules:  # type: ignore[override]
        return self._adopt(list(rules))


class TrainClearsModelFirst(LiteralTokenizer):
    """Discards the current rules before validating the arguments of train."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        self._adopt([])
        return super().train(documents, max_merges)


BROKEN = {
    name: value
    for name, value in dict(globals()).items()
    if isinstance(value, type) and issubclass(value, LiteralTokenizer) and value is not LiteralTokenizer
}


class StripsDocuments(LiteralTokenizer):
    """Trims each document before training, the way a "clean-up" step in a data loader does."""

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return super().train([document.strip() for document in documents], max_merges)
