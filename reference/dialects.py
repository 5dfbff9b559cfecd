"""The literal reference parameterized by a :class:`~bpe_conformance.reference.profiles.Profile`.

Same counting and replacement as the strict reference; only the parameters a profile names
change. Rules are pairs in the profile's id space: bytes 0-255, rule ``r`` is
``profile.first_rule_id + r``.

>>> from bpe_conformance.reference.profiles import MINBPE, STRICT, SUBWORD_NMT, TIKTOKEN
>>> train_profile(["cdcdabab"], 1, STRICT), train_profile(["cdcdabab"], 1, MINBPE)
([(97, 98)], [(99, 100)])
>>> train_profile(["ababcdcd"], 1, SUBWORD_NMT)
[(99, 100)]
>>> rules = [(98, 99), (97, 98), (257, 99)]  # "bc", "ab", then "abc" made as ("ab", "c")
>>> encode_profile("abc", rules, MINBPE), encode_profile("abc", rules, TIKTOKEN)
([97, 256], [258])
>>> decode_profile([228], [], STRICT)
Traceback (most recent call last):
...
ValueError: ids decode to invalid UTF-8 at byte offset 0 (unexpected end of data): e4
>>> decode_profile([228], [], MINBPE)
'\\ufffd'
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

from bpe_conformance.reference.alphabet import BYTE_COUNT, FIRST_RULE_ID
from bpe_conformance.reference.counting import count_pairs
from bpe_conformance.reference.decoding import decode_bytes_with_pieces, strict_utf8
from bpe_conformance.reference.pretokenization import get_training_split, split_text
from bpe_conformance.reference.profiles import STRICT, Profile
from bpe_conformance.reference.replacement import replace_pair
from bpe_conformance.reference.training import Round
from bpe_conformance.reference.validation import check_documents, check_ids, check_max_merges, check_rules, check_text

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = [
    "TIE_BREAK_FUNCTIONS",
    "byte_level_symbol",
    "check_profile_rules",
    "decode_profile",
    "decode_profile_bytes",
    "encode_profile",
    "first_seen",
    "hf_order_key",
    "largest_ids",
    "largest_pieces",
    "piece_rank_merge",
    "profile_pieces",
    "profile_training_rounds",
    "rank_order_merge",
    "renumbered",
    "select_profile_pair",
    "smallest_hf_ids",
    "smallest_ids",
    "smallest_string_key",
    "train_profile",
    "training_sequences",
]

Pair = tuple[int, int]
Rules = list[Pair]


# --- tie-breaks: each gets the tied pairs in first-occurrence order and the pieces by id ---


def smallest_ids(tied: list[Pair], pieces: list[bytes]) -> Pair:  # noqa: ARG001 - every tie order takes the pieces
    """Strict: the smallest ``(a, b)`` compared as integers (BPE-TRAIN-TIE)."""
    return min(tied)


def first_seen(tied: list[Pair], pieces: list[bytes]) -> Pair:  # noqa: ARG001 - every tie order takes the pieces
    """minbpe: Python's ``max`` over an insertion-ordered dict returns the first pair counted."""
    return tied[0]


def largest_ids(tied: list[Pair], pieces: list[bytes]) -> Pair:  # noqa: ARG001 - every tie order takes the pieces
    """subword-nmt's ``max`` over ``(count, pair)`` applied to integer ids: the largest ``(a, b)``."""
    return max(tied)


def largest_pieces(tied: list[Pair], pieces: list[bytes]) -> Pair:
    """subword-nmt: ``max`` over ``(count, (symbol a, symbol b))``, i.e. the largest pair of pieces."""
    return max(tied, key=lambda pair: (pieces[pair[0]], pieces[pair[1]], pair))


def _byte_level_alphabet() -> tuple[str, ...]:
    # Printable Latin-1 bytes stand for themselves; the rest take U+0100 onwards, in byte order.
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), BYTE_COUNT)]
    others = [value for value in range(BYTE_COUNT) if value not in printable]
    return tuple(
        chr(value) if value in printable else chr(BYTE_COUNT + others.index(value)) for value in range(BYTE_COUNT)
    )


_BYTE_LEVEL_ALPHABET = _byte_level_alphabet()


def byte_level_symbol(value: int) -> str:
    """The printable character GPT-2's byte-level alphabet (used by HF ``ByteLevel``) gives byte ``value``.

    >>> byte_level_symbol(97), byte_level_symbol(32), byte_level_symbol(0)
    ('a', 'Ġ', 'Ā')
    """
    return _BYTE_LEVEL_ALPHABET[value]


def hf_order_key(token_id: int) -> tuple[bool, int]:
    """Where ``token_id`` sorts among HF's trainer ids: bytes by their byte-level symbol, then rules by rank."""
    if token_id < BYTE_COUNT:
        return (False, ord(byte_level_symbol(token_id)))
    return (True, token_id)  # every rule after every byte, whatever its byte-level symbol


def smallest_hf_ids(tied: list[Pair], pieces: list[bytes]) -> Pair:  # noqa: ARG001 - every tie order takes the pieces
    """HF tokenizers: the smallest pair in its own id order (alphabet sorted by code point)."""
    return min(tied, key=lambda pair: (hf_order_key(pair[0]), hf_order_key(pair[1])))


def smallest_string_key(tied: list[Pair], pieces: list[bytes]) -> Pair:  # noqa: ARG001 - every tie order takes the pieces
    """Trainers keyed by the string ``"a,b"``: the smallest key compared as text."""
    return min(tied, key=lambda pair: f"{pair[0]},{pair[1]}")


TIE_BREAK_FUNCTIONS: dict[str, Callable[[list[Pair], list[bytes]], Pair]] = {
    "smallest-ids": smallest_ids,
    "first-seen": first_seen,
    "largest-ids": largest_ids,
    "largest-pieces": largest_pieces,
    "smallest-hf-ids": smallest_hf_ids,
    "smallest-string-key": smallest_string_key,
}


# --- vocabulary under a profile ---


def profile_pieces(rules: Rules, profile: Profile) -> list[bytes]:
    """The piece of every id in the profile's numbering; boundary ids (if any) carry no bytes."""
    pieces = [bytes([value]) for value in range(BYTE_COUNT)]
    pieces.extend(b"" for _ in range(profile.first_rule_id - BYTE_COUNT))
    for first, second in rules:
        pieces.append(pieces[first] + pieces[second])
    return pieces


def renumbered(rules: Iterable[Pair], first_rule_id: int) -> Rules:
    """Strict-numbered rules (rule ``r`` is ``258 + r``) moved so rule ``r`` is ``first_rule_id + r``.

    Moving every rule id by the same offset keeps the order of ids, so a tie-break by ids is unchanged.

    >>> renumbered([(97, 98), (258, 99)], 256)
    [(97, 98), (256, 99)]
    """
    shift = first_rule_id - FIRST_RULE_ID
    return [(_renumbered_id(first, shift), _renumbered_id(second, shift)) for first, second in rules]


def _renumbered_id(token_id: int, shift: int) -> int:
    return token_id if token_id < FIRST_RULE_ID else token_id + shift


def check_profile_rules(rules: object, profile: Profile) -> Rules:
    """Rules valid in the profile's numbering: each part a byte or an earlier rule, never a boundary."""
    if profile.first_rule_id == STRICT.first_rule_id:
        return check_rules(rules)
    if not isinstance(rules, (list, tuple)):
        return check_rules(rules)  # raises the strict TypeError for anything that is not a list of rules
    # Shapes and part types are the strict validator's job; ids are checked in this numbering below.
    check_rules([(0, 0) if _is_pair_of_ints(rule) else rule for rule in rules])
    checked: Rules = []
    for rank, (first, second) in enumerate(list(rules)):
        new_id = profile.first_rule_id + rank
        for part in (first, second):
            if not 0 <= part < new_id:
                raise ValueError(
                    f"rule {rank} (id {new_id}) refers to id {part}; in profile {profile.name!r} a rule may refer "
                    f"only to bytes 0-{BYTE_COUNT - 1} or earlier rules ({profile.first_rule_id} and up)"
                )
        checked.append((int(first), int(second)))
    return checked


def _is_pair_of_ints(rule: object) -> bool:
    return (
        isinstance(rule, (list, tuple))
        and len(rule) == 2
        and all(isinstance(part, int) and not isinstance(part, bool) for part in rule)
    )


# --- training ---


def _replace_surrogates(text: str) -> bytes:
    # tiktoken turns each lone surrogate into U+FFFD before encoding.
    return "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in text).encode()


def _chunks(data: bytes, profile: Profile) -> list[bytes]:
    """``data`` split by the profile's pre-tokenization pattern; chunks must cover it exactly.

    Under ``split`` the chunks are the released pattern's, made by
    :func:`~bpe_conformance.reference.pretokenization.split_text` (the ``regex`` package), as in production.
    """
    if profile.split is not None:
        return [chunk.encode() for chunk in split_text(data.decode(), get_training_split(profile.split))]
    if profile.pre_tokenization is None:
        return [data]
    text = data.decode()
    chunks = re.findall(profile.pre_tokenization, text)
    if "".join(chunks) != text:
        raise ValueError(f"profile {profile.name!r}: pre_tokenization pattern does not cover the text {text!r}")
    return [chunk.encode() for chunk in chunks]


def training_sequences(documents: object, profile: Profile) -> list[list[int]]:
    """The byte sequences training counts in: one per document, or one for all, then per chunk."""
    encoded = check_documents(documents)
    if profile.documents == "concatenated":
        encoded = [profile.document_separator.encode().join(encoded)]
    return [list(chunk) for data in encoded for chunk in _chunks(data, profile)]


def select_profile_pair(counts: dict[Pair, int], pieces: list[bytes], profile: Profile) -> Pair | None:
    """The pair with the highest count, ties settled by the profile; ``None`` when nothing reaches min_count."""
    if not counts:
        return None
    best = max(counts.values())
    if best < profile.min_count:
        return None
    tied = [pair for pair, count in counts.items() if count == best]
    return TIE_BREAK_FUNCTIONS[str(profile.tie_break)](tied, pieces)


def profile_training_rounds(documents: list[str], max_merges: int, profile: Profile) -> Iterator[Round]:
    """Yield one :class:`~bpe_conformance.reference.training.Round` per rule made under ``profile``.

    Arguments are validated before the first round, so a bad call fails before yielding. Under a
    ``concatenated`` profile the sequences are the one joined text (per chunk when it pre-tokenizes).

    >>> from bpe_conformance.reference.profiles import MINBPE
    >>> [(step.pair, step.count, step.new_id) for step in profile_training_rounds(["ab", "ab"], 8, MINBPE)]
    [((97, 98), 2, 256), ((256, 256), 1, 257)]
    """
    checked_max_merges = check_max_merges(max_merges)
    if profile.tie_break is None:
        raise ValueError(f"profile {profile.name!r} is encode-only: it has no training algorithm")
    return _profile_rounds(training_sequences(documents, profile), checked_max_merges, profile)


def _profile_rounds(sequences: list[list[int]], max_merges: int, profile: Profile) -> Iterator[Round]:
    pieces = profile_pieces([], profile)
    for rank in range(max_merges):
        counts = count_pairs(sequences)
        pair = select_profile_pair(counts, pieces, profile)
        if pair is None:
            return
        new_id = profile.first_rule_id + rank
        merged = [replace_pair(sequence, pair, new_id) for sequence in sequences]
        yield Round(rank, counts, pair, counts[pair], new_id, sequences, merged)
        sequences = merged
        pieces.append(pieces[pair[0]] + pieces[pair[1]])


def train_profile(documents: list[str], max_merges: int, profile: Profile) -> Rules:
    """Learn at most ``max_merges`` rules under ``profile``; rule ``r`` gets ``profile.first_rule_id + r``."""
    return [step.pair for step in profile_training_rounds(documents, max_merges, profile)]


# --- encoding ---


def rank_order_merge(data: bytes, rules: Rules, first_rule_id: int) -> list[int]:
    """Apply every rule once, in rank order (BPE-ENCODE-ORDER)."""
    sequence = list(data)
    for rank, pair in enumerate(rules):
        sequence = replace_pair(sequence, pair, first_rule_id + rank)
    return sequence


def piece_rank_merge(data: bytes, rules: Rules, first_rule_id: int) -> list[int]:
    """tiktoken's loop: merge the leftmost adjacent pair whose joined bytes have the lowest rank.

    A piece made by two different rules keeps its lowest id, as a piece can have only one rank.
    """
    rank_of: dict[bytes, int] = {bytes([value]): value for value in range(BYTE_COUNT)}
    pieces = [bytes([value]) for value in range(BYTE_COUNT)]
    piece_of_rule: list[bytes] = []
    for rank, (first, second) in enumerate(rules):
        piece = _piece(first, pieces, piece_of_rule, first_rule_id) + _piece(
            second, pieces, piece_of_rule, first_rule_id
        )
        piece_of_rule.append(piece)
        rank_of.setdefault(piece, first_rule_id + rank)
    parts = [bytes([value]) for value in data]
    while True:
        best: tuple[int, int] | None = None
        for position in range(len(parts) - 1):
            joined_rank = rank_of.get(parts[position] + parts[position + 1])
            if joined_rank is not None and (best is None or joined_rank < best[0]):
                best = (joined_rank, position)
        if best is None:
            return [rank_of[part] for part in parts]
        position = best[1]
        parts[position : position + 2] = [parts[position] + parts[position + 1]]


def _piece(token_id: int, pieces: list[bytes], piece_of_rule: list[bytes], first_rule_id: int) -> bytes:
    return pieces[token_id] if token_id < BYTE_COUNT else piece_of_rule[token_id - first_rule_id]


_ENCODERS = {"rank-order": rank_order_merge, "piece-rank": piece_rank_merge}


def encode_profile(text: str, rules: Rules, profile: Profile) -> list[int]:
    """The body ids of ``text`` under ``profile``: its encode algorithm over each pre-tokenized chunk.

    Like :func:`reference.encode`, ``rules`` are trusted (they come from training or a checked load).
    """
    if profile.lone_surrogates == "replace" and isinstance(text, str):
        data = _replace_surrogates(text)
    else:
        data = check_text(text)
    merge = _ENCODERS[profile.encode_algorithm]
    return [token_id for chunk in _chunks(data, profile) for token_id in merge(chunk, rules, profile.first_rule_id)]


# --- decoding ---


def decode_profile_bytes(ids: list[int], rules: Rules, profile: Profile) -> bytes:
    """The bytes of ``ids``; unknown ids are dropped under ``skip-unknown`` and errors otherwise."""
    pieces = profile_pieces(rules, profile)
    if profile.decode_policy == "skip-unknown":
        # Types and signs are still checked; only ids past the vocabulary are dropped.
        ids = [token_id for token_id in check_ids(ids, sys.maxsize) if token_id < len(pieces)]
    return decode_bytes_with_pieces(ids, pieces)


def decode_profile(ids: list[int], rules: Rules, profile: Profile) -> str:
    """The text of ``ids``: strict raises on invalid UTF-8, the other policies put U+FFFD there."""
    data = decode_profile_bytes(ids, rules, profile)
    if profile.decode_policy == "strict":
        return strict_utf8(data)
    return data.decode(errors="replace")
