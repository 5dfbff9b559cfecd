"""Implementations correct in everything but one deviation: how ties go, or a GPT-2 style pre-tokenizer.

They test the honesty of the diagnosis (issue 11): each must fail exactly the clause of its deviation
(BPE-TRAIN-TIE, and BPE-PROP-PERMUTE when the order depends on document order; BPE-ENCODE-RAW for the
pre-tokenizer), and every cause the harness states must be true of it. Two tie orders are ones the
harness models (first-seen, largest); the others are orders no model knows.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bpe_conformance.reference import LiteralTokenizer, check_documents, check_text, encode
from tests.support.broken_for_checks import literal_train, select_first_seen, select_largest_tied

if TYPE_CHECKING:
    from collections.abc import Callable

Pair = tuple[int, int]
Counts = dict[Pair, int]
Rules = list[Pair]

# GPT-2's pattern written for Python's re: letters are [^\W\d_], digits \d, the rest neither.
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+"


def _tie_order(key: Callable[[Pair], object]) -> Callable[[Counts], Pair | None]:
    """Highest count first; among tied pairs the one with the smallest ``key``."""

    def select(counts: Counts) -> Pair | None:
        return min(counts, key=lambda pair: (-counts[pair], key(pair))) if counts else None

    return select


def string_key(pair: Pair) -> str:
    """The text ``"a,b"``: ``"120,121" < "97,98"``."""
    return f"{pair[0]},{pair[1]}"


def swapped_key(pair: Pair) -> Pair:
    """``(b, a)``: the pair compared by its second part first."""
    return pair[1], pair[0]


def hash_key(pair: Pair) -> int:
    """A fixed multiplicative hash of the pair: an order no specification names."""
    return (pair[0] * 2654435761 + pair[1] * 40503) % 2**32


def newest_rule_key(pair: Pair) -> tuple[int, Pair]:
    """Pairs containing the newest id first, then the smallest pair."""
    return -max(pair), pair


class _TieVariant(LiteralTokenizer):
    select: Callable[[Counts], Pair | None]

    def train(self, documents: list[str], max_merges: int) -> Rules:
        return self._adopt(literal_train(documents, max_merges, select=type(self).select))


def _tie_variant(class_name: str, name: str, select: Callable[[Counts], Pair | None], doc: str) -> type[_TieVariant]:
    """A strict trainer (it claims the strict profile) whose ties go by ``select``."""
    return type(class_name, (_TieVariant,), {"__doc__": doc, "name": name, "select": staticmethod(select)})


StringKeyTies = _tie_variant(
    "StringKeyTies", "string-key-ties", _tie_order(string_key), 'Ties to the smallest pair as the string "a,b".'
)
SwappedTies = _tie_variant("SwappedTies", "swapped-ties", _tie_order(swapped_key), "Ties to the smallest (b, a).")
HashOrderTies = _tie_variant(
    "HashOrderTies", "hash-order-ties", _tie_order(hash_key), "Ties in a fixed hash order of the pair."
)
NewestRuleTies = _tie_variant(
    "NewestRuleTies", "newest-rule-ties", _tie_order(newest_rule_key), "Ties to the pair containing the newest id."
)
FirstSeenTies = _tie_variant(
    "FirstSeenTies", "first-seen-ties", select_first_seen, "Ties to the pair counted first: document order matters."
)
LargestTies = _tie_variant("LargestTies", "largest-ties", select_largest_tied, "Ties to the largest (a, b).")


def gpt2_chunks(text: str) -> list[str]:
    """GPT-2's pre-tokenization: ``"ab cd, e"`` becomes ``["ab", " cd", ",", " e"]``."""
    return re.findall(GPT2_PATTERN, text)


class Gpt2PreTokenizer(LiteralTokenizer):
    """Splits text with GPT-2's regex before training and before encoding; everything else strict."""

    name = "gpt2-pre-tokenizer"

    def train(self, documents: list[str], max_merges: int) -> Rules:
        check_documents(documents)
        chunks = [chunk for document in documents for chunk in gpt2_chunks(document)]
        return self._adopt(literal_train(chunks, max_merges))

    def encode(self, text: str) -> list[int]:
        check_text(text)
        return [token for chunk in gpt2_chunks(text) for token in encode(chunk, self._rules)]


TIE_VARIANTS = (StringKeyTies, SwappedTies, HashOrderTies, NewestRuleTies, FirstSeenTies, LargestTies)
