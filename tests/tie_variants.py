"""Implementations correct in everything but one deviation: how ties go, or a GPT-2 style pre-tokenizer.

They test the honesty of the diagnosis (issue 11): each must fail exactly the clause of its deviation
(BPE-TRAIN-TIE, and BPE-PROP-PERMUTE when the order depends on document order; BPE-ENCODE-RAW for the
pre-tokenizer), and every cause the harness states must be true of it. Two tie orders are ones the
harness models (first-seen, largest); the others are orders no model knows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reference import LiteralTokenizer, check_documents, check_text, encode
from tests.broken_for_checks import literal_train, select_first_seen, select_largest_tied

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


class StringKeyTies(_TieVariant):
    """Ties to the smallest pair compared as the string ``"a,b"``, ids 258 + r (claims the strict profile)."""

    name = "string-key-ties"
    select = staticmethod(_tie_order(string_key))


class SwappedTies(_TieVariant):
    """Ties to the smallest ``(b, a)``."""

    name = "swapped-ties"
    select = staticmethod(_tie_order(swapped_key))


class HashOrderTies(_TieVariant):
    """Ties in a fixed hash order of the pair."""

    name = "hash-order-ties"
    select = staticmethod(_tie_order(hash_key))


class NewestRuleTies(_TieVariant):
    """Ties to the pair containing the newest rule id."""

    name = "newest-rule-ties"
    select = staticmethod(_tie_order(newest_rule_key))


class FirstSeenTies(_TieVariant):
    """Ties to the pair counted first (an insertion-ordered dict), so document order matters."""

    name = "first-seen-ties"
    select = staticmethod(select_first_seen)


class LargestTies(_TieVariant):
    """Ties to the largest ``(a, b)``."""

    name = "largest-ties"
    select = staticmethod(select_largest_tied)


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
