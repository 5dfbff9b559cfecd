"""Input validation shared by every entry point (BPE-INPUT-*).

Each function either returns its argument normalised to plain built-in types or raises
``TypeError``/``ValueError`` whose message names the argument, the position and the problem.

>>> check_max_merges(True)
Traceback (most recent call last):
...
TypeError: max_merges must be an int, not bool (True)
>>> check_rules([(97, 98), (258, 258)])
[(97, 98), (258, 258)]
>>> check_rules([(97, -1)])
Traceback (most recent call last):
...
ValueError: rule 0 (id 258) refers to negative id -1
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeGuard

from bpe_conformance.reference.alphabet import BOUNDARY_IDS, BYTE_COUNT, rule_id

__all__ = [
    "check_documents",
    "check_ids",
    "check_max_merges",
    "check_rules",
    "check_text",
    "utf8_encode",
]


def _is_int(value: object) -> TypeGuard[int]:
    # bool is a subclass of int, but True is not a count or an id here.
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: object) -> str:
    return type(value).__name__


def check_max_merges(max_merges: object) -> int:
    """``max_merges`` must be a non-negative int; bool is rejected (BPE-TRAIN-MAXMERGES)."""
    if not _is_int(max_merges):
        raise TypeError(f"max_merges must be an int, not {_type_name(max_merges)} ({max_merges!r})")
    if max_merges < 0:
        raise ValueError(f"max_merges must be non-negative, got {max_merges}")
    return int(max_merges)


def utf8_encode(text: str, what: str) -> bytes:
    """UTF-8 bytes of ``text``; a lone surrogate is a ValueError naming ``what`` and its index."""
    try:
        return text.encode()
    except UnicodeEncodeError as error:
        code_point = ord(text[error.start])
        raise ValueError(
            f"{what} contains a lone surrogate U+{code_point:04X} at index {error.start}, which has no UTF-8 encoding"
        ) from None


def check_text(text: object, what: str = "text") -> bytes:
    """A text to encode must be a ``str`` without lone surrogates (BPE-INPUT-TEXT)."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {_type_name(text)}")
    return utf8_encode(text, what)


def check_documents(documents: object) -> list[bytes]:
    """Training documents: a list or tuple of ``str``, each UTF-8 encoded on its own (BPE-INPUT-DOCS)."""
    if isinstance(documents, (str, bytes)) or not isinstance(documents, (list, tuple)):
        raise TypeError(
            f"documents must be a list of str, not {_type_name(documents)}"
            + (" (wrap a single document in a list)" if isinstance(documents, str) else "")
        )
    return [check_text(document, f"document {index}") for index, document in enumerate(documents)]


def check_ids(ids: object, vocabulary_size: int) -> list[int]:
    """Ids to decode: a list or tuple of ints in ``range(vocabulary_size)`` (BPE-INPUT-IDS)."""
    if not isinstance(ids, (list, tuple)):
        raise TypeError(f"ids must be a list of int, not {_type_name(ids)}")
    for position, token_id in enumerate(ids):
        if not _is_int(token_id):
            raise TypeError(f"id at position {position} must be an int, not {_type_name(token_id)} ({token_id!r})")
        if not 0 <= token_id < vocabulary_size:
            raise ValueError(
                f"id {token_id} at position {position} is not in the vocabulary (ids 0-{vocabulary_size - 1})"
            )
    return list(ids)


def _check_rule_part(rank: int, part: object) -> int:
    if not _is_int(part):
        raise TypeError(f"rule {rank} refers to {part!r}, which is a {_type_name(part)}, not an int")
    if part < 0:
        raise ValueError(f"rule {rank} (id {rule_id(rank)}) refers to negative id {part}")
    if part in BOUNDARY_IDS:
        raise ValueError(f"rule {rank} (id {rule_id(rank)}) refers to boundary id {part}, which is never merged")
    if part >= rule_id(rank):
        raise ValueError(
            f"rule {rank} (id {rule_id(rank)}) refers to id {part}, which is itself or a later rule; "
            f"a rule may refer only to bytes 0-{BYTE_COUNT - 1} or earlier rules"
        )
    return int(part)


def check_rules(rules: object) -> list[tuple[int, int]]:
    """An ordered rule list: pairs of earlier ids, never boundaries (BPE-RULE-REF, BPE-INPUT-RULES)."""
    if isinstance(rules, (str, bytes)) or not isinstance(rules, Sequence):
        raise TypeError(f"rules must be a list of (int, int) pairs, not {_type_name(rules)}")
    checked = []
    for rank, rule in enumerate(rules):
        if isinstance(rule, (str, bytes)) or not isinstance(rule, Sequence):
            raise TypeError(f"rule {rank} must be a pair of ints, not {_type_name(rule)}")
        if len(rule) != 2:
            raise ValueError(f"rule {rank} must be a pair of ints, got {len(rule)} items: {rule!r}")
        checked.append((_check_rule_part(rank, rule[0]), _check_rule_part(rank, rule[1])))
    return checked
