"""The fixed part of every vocabulary: 256 byte ids and two boundary ids (BPE-ALPHA-*).

>>> BYTE_COUNT, BEGIN_ID, END_ID, FIRST_RULE_ID
(256, 256, 257, 258)
>>> rule_id(0), rule_rank(259)
(258, 1)
>>> vocab_size([(97, 98), (97, 99)])
260
"""

from __future__ import annotations

__all__ = [
    "BEGIN_ID",
    "BOUNDARY_IDS",
    "BYTE_COUNT",
    "END_ID",
    "FIRST_RULE_ID",
    "MIN_MERGE_COUNT",
    "is_boundary",
    "is_byte",
    "rule_id",
    "rule_rank",
    "vocab_size",
]

BYTE_COUNT = 256
BEGIN_ID = 256
END_ID = 257
BOUNDARY_IDS = (BEGIN_ID, END_ID)
FIRST_RULE_ID = 258
# A pair seen once gains nothing from a merge, so training stops below this count.
MIN_MERGE_COUNT = 2


def rule_id(rank: int) -> int:
    """The id that rule number ``rank`` (counting from 0) creates (BPE-RULE-ID)."""
    return FIRST_RULE_ID + rank


def rule_rank(token_id: int) -> int:
    """The rank of the rule that created ``token_id``; inverse of :func:`rule_id`."""
    return token_id - FIRST_RULE_ID


def is_byte(token_id: int) -> bool:
    """True for the 256 ids that stand for one byte each (BPE-ALPHA-BYTES)."""
    return 0 <= token_id < BYTE_COUNT


def is_boundary(token_id: int) -> bool:
    """True for the begin/end-of-document ids (BPE-ALPHA-BOUNDARY)."""
    return token_id in BOUNDARY_IDS


def vocab_size(rules: list[tuple[int, int]]) -> int:
    """Bytes, boundaries and one id per rule made, never the requested maximum (BPE-VOCAB-SIZE)."""
    return FIRST_RULE_ID + len(rules)
