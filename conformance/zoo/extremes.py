"""Zoo members whose one bug shows only at the extremes: bytes, wide integers, another process, big counts.

Random small corpora never reach these inputs, so each member passed every check until the checks of
:mod:`bpe_conformance.checks.extremes` and the bytes, set and wide-integer cases of the validation checks.

>>> EncodeAcceptsBytes().encode(b"ab")  # the spec raises TypeError
[97, 98]
>>> NarrowsIntegersTo32Bits().train(["abab", "acac"], 2**32 + 1)  # the spec gives [(97, 98), (97, 99)]
[(97, 98)]
>>> CountsInEightBits().train(["a" * 257], 1)  # the spec gives [(97, 97)]
[]
"""

from __future__ import annotations

from bpe_conformance.zoo.base import BYTE_COUNT, MIN_MERGE_COUNT, Pair, ZooMember, is_int
from bpe_conformance.zoo.witness import make_witness

__all__ = ["MEMBERS", "CountsInEightBits", "EncodeAcceptsBytes", "HashSeededTies", "NarrowsIntegersTo32Bits"]

_INT32 = 2**32
# Written twice, its 11 pairs tie at count 2, and as many in most rounds after: one hash seed in about
# 11! picks the smallest pair in every round, as the specification does.
_TWELVE_LETTERS = "abcdefghijkl"


def _int32(value: int) -> int:
    """``value`` as a 32-bit two's complement int would hold it (what ``(int)`` in Java or ``| 0`` in JS do)."""
    return (value + _INT32 // 2) % _INT32 - _INT32 // 2


class EncodeAcceptsBytes(ZooMember):
    """Decodes ``bytes`` (and ``bytearray``) passed to ``encode`` as UTF-8 instead of rejecting them.

    Breaks BPE-INPUT-TEXT: the text to encode is a str; bytes are a TypeError. Seen in the wild: one of
    the independently written implementations tried in this project's issue 26 decodes bytes so, and
    passed every check while the Python host handed bytes on as a marker object.
    """

    name = "encode-accepts-bytes"
    level = "interface"
    clause = "BPE-INPUT-TEXT"
    witness = make_witness("encode", b"ab")
    why = (
        "encode(b'ab') and encode('ab') both working is convenient until a caller mixes them up: "
        "another implementation raises, a file read in binary mode is tokenized without anyone "
        "deciding its encoding, and a latin-1 byte fails deep inside. The contract takes str only."
    )

    def check_text(self, text: object) -> bytes:
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8")
        return super().check_text(text)


class NarrowsIntegersTo32Bits(ZooMember):
    """Reads every integer argument as a 32-bit int, as a JSON parser that maps numbers to ``int`` does.

    Breaks BPE-TRAIN-MAXMERGES: max_merges 2**32 + 1 becomes 1 and 2**31 becomes negative; and
    BPE-INPUT-IDS and BPE-INPUT-RULES: id 2**32 + 97 becomes 97, a valid id. Seen in the wild: a Java
    implementation tried in this project's issue 26 narrows JSON integers so; the protocol writes large
    integers in full and says they must not wrap (``specs/protocol.md`` 3.3).
    """

    name = "narrows-integers-to-32-bits"
    clause = "BPE-TRAIN-MAXMERGES"
    also = ("BPE-INPUT-IDS", "BPE-INPUT-RULES", "BPE-RULE-REF")
    witness = make_witness("train", ["abab", "acac"], 2**32 + 1)
    why = (
        "A budget of 2**32 + 1 merges is as good as unlimited, but wrapped to 32 bits it is 1: training "
        "stops after one rule. The same narrowing turns id 2**32 + 97 into 97, so decode answers 'a' "
        "where it must reject the id. Integers are arbitrary-precision in the contract."
    )

    def check_max_merges(self, max_merges: object) -> int:
        return super().check_max_merges(_int32(max_merges) if is_int(max_merges) else max_merges)

    def check_ids(self, ids: object) -> list[int]:
        if isinstance(ids, (list, tuple)):
            ids = [_int32(token_id) if is_int(token_id) else token_id for token_id in ids]
        return super().check_ids(ids)

    def check_rule_part(self, rank: int, part: object, rule_count: int) -> int:
        return super().check_rule_part(rank, _int32(part) if is_int(part) else part, rule_count)


class HashSeededTies(ZooMember):
    """Breaks ties by the iteration order of a ``set`` of the tied pairs written as strings.

    Breaks BPE-PROP-DETERMINISM: Python salts the hash of a str per process (``PYTHONHASHSEED``), so
    the same documents give other rules in another process, while every call in one process agrees;
    and BPE-TRAIN-TIE. Seen in the wild: a trainer tried in this project's issue 26 gave four different rule lists under
    PYTHONHASHSEED 1 to 4.
    """

    name = "hash-seeded-ties"
    clause = "BPE-PROP-DETERMINISM"
    also = ("BPE-TRAIN-TIE",)
    witness = make_witness("train", [_TWELVE_LETTERS, _TWELVE_LETTERS], 32)
    varies_by_process = True
    why = (
        "One process always gives the same answer, so a determinism test that trains twice passes. "
        "Another process hashes strings with another seed, iterates the set in another order, and "
        "learns other rules: a tokenizer retrained on the same data no longer matches its checkpoints."
    )

    def select_pair(self, counts: dict[Pair, int]) -> Pair | None:
        if not counts:
            return None
        best = max(counts.values())
        if best < MIN_MERGE_COUNT:
            return min(counts, key=lambda pair: (-counts[pair], pair))
        tied = {f"{first},{second}" for (first, second), count in counts.items() if count == best}
        first, second = next(iter(tied)).split(",")
        return int(first), int(second)


class CountsInEightBits(ZooMember):
    """Keeps pair counts in 8 bits, like a ``uint8`` array: a count of 256 reads as 0.

    Breaks BPE-TRAIN-COUNT: the count is the number of windows, however large. Seen in the wild: a
    trainer counting in ``uint8``, tried in this project's issue 26, was caught by a single fixed vector
    only: random test corpora never see a pair 256 times.
    """

    name = "counts-in-eight-bits"
    clause = "BPE-TRAIN-COUNT"
    also = ("BPE-TRAIN-GREEDY", "BPE-TRAIN-STOP")
    witness = make_witness("train", ["a" * 257], 1)
    why = (
        "'a' * 257 has 256 windows (a, a); in 8 bits that is 0, so training sees no pair worth a rule. "
        "With a rival pair seen three times, the rival wins instead. Small corpora never get there: "
        "the check builds counts of 256 and 65 536 on purpose."
    )

    def count_pairs(self, sequences: list[list[int]]) -> dict[Pair, int]:
        return {pair: count % BYTE_COUNT for pair, count in super().count_pairs(sequences).items()}


MEMBERS = [EncodeAcceptsBytes, NarrowsIntegersTo32Bits, HashSeededTies, CountsInEightBits]
