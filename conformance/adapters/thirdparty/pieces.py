"""Mapping helpers shared by the adapters: rule pieces, piece ranks and byte-level symbols.

Libraries that keep only ``piece -> rank`` (tiktoken, rustbpe, bpeasy) lose which two tokens
a rule joined. The convention the tiktoken ecosystem uses to get them back (tiktoken issue 60,
copied into ``bpeasy.convert``) is applied here: a rank's pair is what piece-rank merging of
its bytes with the lower ranks leaves, which must be exactly two tokens.

>>> ranks = ranks_from_rules([(97, 97), (256, 97)])
>>> sorted((rank, piece) for piece, rank in ranks.items() if rank >= 256)
[(256, b'aa'), (257, b'aaa')]
>>> rules_from_ranks(ranks)
[(97, 97), (256, 97)]
>>> symbols_to_bytes("Ġa")
b' a'
"""

from __future__ import annotations

from bpe_conformance.reference.dialects import byte_level_symbol, check_profile_rules
from bpe_conformance.reference.profiles import MINBPE

__all__ = [
    "FIRST_RULE_ID",
    "bytes_to_symbols",
    "ranks_from_rules",
    "reachable_budget",
    "rule_pieces",
    "rules_from_ranks",
    "split_by_lower_ranks",
    "symbols_to_bytes",
]

FIRST_RULE_ID = 256
_SYMBOL_TO_BYTE = {byte_level_symbol(value): value for value in range(256)}


def rule_pieces(rules: list[tuple[int, int]]) -> list[bytes]:
    """The piece of each rule in the 256 + r numbering, after checking every rule refers backwards."""
    checked = check_profile_rules(rules, MINBPE)  # any profile numbered 256 + r validates the same way
    pieces = [bytes([value]) for value in range(FIRST_RULE_ID)]
    for first, second in checked:
        pieces.append(pieces[first] + pieces[second])
    return pieces[FIRST_RULE_ID:]


def ranks_from_rules(rules: list[tuple[int, int]]) -> dict[bytes, int]:
    """``piece -> rank`` with bytes at their own value and rule ``r`` at ``256 + r``.

    Two rules with the same piece cannot share one rank table, so that is a ValueError.
    """
    ranks = {bytes([value]): value for value in range(FIRST_RULE_ID)}
    for rank, piece in enumerate(rule_pieces(rules), start=FIRST_RULE_ID):
        if piece in ranks:
            raise ValueError(
                f"rules {ranks[piece]} and {rank} make the same piece {piece.hex(' ')}; a rank table holds one"
            )
        ranks[piece] = rank
    return ranks


def split_by_lower_ranks(ranks: dict[bytes, int], piece: bytes, rank: int) -> list[bytes]:
    """``piece`` merged by piece rank using only ranks below ``rank`` (leftmost lowest first)."""
    parts = [bytes([value]) for value in piece]
    while True:
        best = None
        for position in range(len(parts) - 1):
            joined_rank = ranks.get(parts[position] + parts[position + 1])
            if joined_rank is not None and joined_rank < rank and (best is None or joined_rank < best[0]):
                best = (joined_rank, position)
        if best is None:
            return parts
        position = best[1]
        parts[position : position + 2] = [parts[position] + parts[position + 1]]


def rules_from_ranks(ranks: dict[bytes, int]) -> list[tuple[int, int]]:
    """Rules ``(a, b)`` for every rank from 256 up, recovered by :func:`split_by_lower_ranks`."""
    rules: list[tuple[int, int]] = []
    for piece, rank in sorted(
        ((piece, rank) for piece, rank in ranks.items() if rank >= FIRST_RULE_ID), key=lambda item: item[1]
    ):
        if rank != FIRST_RULE_ID + len(rules):
            missing = FIRST_RULE_ID + len(rules)
            raise ValueError(
                f"rank table skips from {missing - 1} to {rank}: no piece has rank {missing}; either the library "
                f"left that id out, or two of its merges made the same piece, which a table keyed by pieces keeps "
                f"once (trained rules never repeat a piece: BPE-PROP-UNIQUE)"
            )
        parts = split_by_lower_ranks(ranks, piece, rank)
        if len(parts) != 2:
            raise ValueError(f"rank {rank} (piece {piece.hex(' ')}) is not two lower-ranked tokens: {len(parts)} parts")
        rules.append((ranks[parts[0]], ranks[parts[1]]))
    return rules


def bytes_to_symbols(piece: bytes) -> str:
    """``piece`` in GPT-2's byte-level alphabet, as HF ``ByteLevel`` vocabularies spell tokens."""
    return "".join(byte_level_symbol(value) for value in piece)


def symbols_to_bytes(symbols: str) -> bytes:
    """The bytes a byte-level token string stands for; a foreign character is a ValueError."""
    try:
        return bytes(_SYMBOL_TO_BYTE[symbol] for symbol in symbols)
    except KeyError as error:
        raise ValueError(f"{symbols!r} has {error.args[0]!r}, which is not a byte-level symbol") from None


def reachable_budget(documents: object, max_merges: object) -> object:
    """``max_merges``, or for a budget past 31 bits one just as unreachable that a library's u32 can hold.

    Every merge shortens the training text by at least one id, so no training of these documents makes
    more rules than they have bytes: a larger budget gives the same rules. The libraries take the budget
    as a ``vocab_size`` of 32 or 64 bits; the contract takes any int (BPE-TRAIN-MAXMERGES). Anything
    that is not a valid call is passed on unchanged, for the library to answer.

    >>> reachable_budget(["abab", "é"], 2**64 + 1), reachable_budget(["abab"], 40), reachable_budget("ab", 2**64)
    (6, 40, 18446744073709551616)
    """
    if isinstance(max_merges, bool) or not isinstance(max_merges, int) or max_merges < 2**31 - FIRST_RULE_ID:
        return max_merges
    if not isinstance(documents, (list, tuple)) or not all(isinstance(document, str) for document in documents):
        return max_merges
    try:
        length = sum(len(document.encode("utf-8")) for document in documents)
    except UnicodeEncodeError:
        return max_merges
    return min(max_merges, length)
