"""Encoding: apply the rules in rank order to the text's UTF-8 bytes (BPE-ENCODE-*).

>>> rules = [(97, 98), (97, 99)]
>>> encode("abac", rules)
[258, 259]
>>> encode_document("abac", rules)
[256, 258, 259, 257]
>>> encode_lowest_rank_first("abac", rules)
[258, 259]
"""

from __future__ import annotations

from itertools import pairwise

from bpe_conformance.reference.alphabet import BEGIN_ID, END_ID, rule_id
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.validation import check_rules, check_text

__all__ = ["encode", "encode_bytes", "encode_document", "encode_lowest_rank_first"]


def encode_bytes(data: bytes, rules: list[tuple[int, int]]) -> list[int]:
    """Apply every rule once, in rank order, to the byte sequence ``data``."""
    sequence = list(data)
    for rank, pair in enumerate(check_rules(rules)):
        sequence = replace_pair(sequence, pair, rule_id(rank))
    return sequence


def encode(text: str, rules: list[tuple[int, int]]) -> list[int]:
    """The canonical body ids of ``text``: no pre-tokenization, no boundary ids."""
    return encode_bytes(check_text(text), rules)


def encode_document(text: str, rules: list[tuple[int, int]]) -> list[int]:
    """``text`` as a whole document: its body ids wrapped in the begin and end ids."""
    return [BEGIN_ID, *encode(text, rules), END_ID]


def encode_lowest_rank_first(text: str, rules: list[tuple[int, int]]) -> list[int]:
    """The equivalent formulation: merge the lowest-ranked pair present until none is.

    Equal to :func:`encode` because applying rule ``r`` only creates pairs that contain
    ``258 + r``, which no earlier rule mentions, so a skipped rule can never become applicable.
    """
    rules = check_rules(rules)
    rank_of: dict[tuple[int, int], int] = {}
    for rank, pair in enumerate(rules):
        rank_of.setdefault(pair, rank)
    sequence = list(check_text(text))
    while True:
        present = [rank_of[pair] for pair in pairwise(sequence) if pair in rank_of]
        if not present:
            return sequence
        rank = min(present)
        sequence = replace_pair(sequence, rules[rank], rule_id(rank))
