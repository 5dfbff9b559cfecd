"""Predicates on corpora and pieces: the properties the strategies filter for, usable on their own.

>>> has_first_round_tie(["abab", "acac"]), crosses_word_boundary(b"a b")
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bpe_conformance.reference import build_pieces, count_pairs, select_pair, tied_pairs, train_sequences

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "character_class",
    "crosses_word_boundary",
    "has_first_round_tie",
    "merges_across_words",
    "stale_choice_differs",
    "top_pair_only_across_boundaries",
    "utf8_sequences",
]


def utf8_sequences(documents: Iterable[str]) -> list[list[int]]:
    """Each document as its list of UTF-8 bytes."""
    return [list(document.encode("utf-8")) for document in documents]


def has_first_round_tie(documents: list[str]) -> bool:
    """Whether at least two pairs share the highest count, and that count is at least 2.

    >>> has_first_round_tie(["abab", "acac"]), has_first_round_tie(["aaa"])
    (True, False)
    """
    counts = count_pairs(utf8_sequences(documents))
    return max(counts.values(), default=0) >= 2 and len(tied_pairs(counts)) >= 2


def top_pair_only_across_boundaries(documents: list[str]) -> bool:
    """Whether the most frequent pair of the joined documents is unique and occurs in no single document.

    >>> top_pair_only_across_boundaries(["xay", "xby", "xcy"]), top_pair_only_across_boundaries(["abab"])
    (True, False)
    """
    joined = count_pairs([list("".join(documents).encode("utf-8"))])
    top = select_pair(joined)
    if top is None or joined[top] < 2 or len(tied_pairs(joined)) != 1:
        return False
    return top not in count_pairs(utf8_sequences(documents))


def stale_choice_differs(documents: list[str], max_merges: int = 64) -> bool:
    """Whether a trainer reusing the first round's counts would pick a different pair in some later round.

    >>> stale_choice_differs(["abcabc"]), stale_choice_differs(["abab"])
    (True, False)
    """
    rules = train_sequences(documents, max_merges).rules
    stale = count_pairs(utf8_sequences(documents))
    for rank in range(1, len(rules)):
        remaining = {pair: count for pair, count in stale.items() if pair not in rules[:rank]}
        if select_pair(remaining) != rules[rank]:
            return True
    return False


def character_class(code: int) -> str:
    """``"word"``, ``"space"`` or ``"punctuation"``: the classes a word-splitting pre-tokenizer parts text into.

    ``code`` is a byte or a code point: letters, digits and everything past ASCII (so every byte of a
    multi-byte character) are word characters, whitespace is space, the rest punctuation.

    >>> [character_class(code) for code in (ord("a"), ord("7"), ord(" "), ord(","), 0xE4, ord("é"))]
    ['word', 'word', 'space', 'punctuation', 'word', 'word']
    """
    if code >= 128 or chr(code).isalnum():
        return "word"
    return "space" if chr(code).isspace() else "punctuation"


def crosses_word_boundary(piece: bytes) -> bool:
    """Whether ``piece`` mixes word, space and punctuation bytes, which a pre-tokenizer never merges.

    >>> crosses_word_boundary(b"a b"), crosses_word_boundary(b"ab")
    (True, False)
    """
    return len({character_class(byte) for byte in piece}) > 1


def merges_across_words(documents: list[str], max_merges: int = 64) -> bool:
    """Whether the reference makes a rule whose piece crosses a word boundary (see :func:`crosses_word_boundary`).

    >>> merges_across_words(["a b a b"]), merges_across_words(["ab ab"])
    (True, False)
    """
    rules = train_sequences(documents, max_merges).rules
    return any(crosses_word_boundary(piece) for piece in build_pieces(rules)[258:])
