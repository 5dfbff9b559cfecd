"""Production configurations: a released split pattern, byte-pair merging by piece rank inside each chunk.

This is what tiktoken-compatible encoders do (``specs/bpe.md``, *Pre-tokenization and special tokens*):

1. the text is split into chunks by the profile's pattern, run with the ``regex`` package (the same
   engine for every profile; a pattern it cannot compile is a :class:`PatternError`);
2. a chunk that is itself a piece of the vocabulary is that piece's id (BPE-PRETOK-RANK);
3. otherwise its bytes are merged by piece rank: repeatedly join the leftmost adjacent pair whose
   joined bytes have the lowest rank, until no adjacent pair joins to a piece (BPE-PRETOK-RANK);
4. the ids are the concatenation over the chunks, in order (BPE-PRETOK-SPLIT).

Ordinary text never yields a special token: ``<|endoftext|>`` inside it is split and merged like any
other text (BPE-SPECIAL-ORDINARY). Decoding joins the pieces (a special id decodes to its text) and
replaces invalid UTF-8 by U+FFFD; an id that is neither a piece nor a special is an error
(BPE-SPECIAL-DECODE). A lone surrogate is encoded as U+FFFD, as tiktoken does.

>>> profile = get_split_profile("cl100k")
>>> split_text("I'LL pay 12345 now!!", profile)
['I', "'LL", ' pay', ' ', '123', '45', ' now', '!!']
>>> split_text("a  b\\r\\n", profile)
['a', ' ', ' b', '\\r\\n']
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import regex

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bpe_conformance.reference.vocabulary import Vocabulary

__all__ = [
    "CL100K",
    "GPT2",
    "O200K",
    "RUSTBPE_DEFAULT",
    "SPLIT_PROFILES",
    "TRAINING_SPLITS",
    "PatternError",
    "SplitProfile",
    "compile_pattern",
    "decode_production",
    "encode_chunk",
    "encode_chunk_fast",
    "encode_production",
    "encode_production_fast",
    "get_split_profile",
    "get_training_split",
    "split_text",
]

ENDOFTEXT, ENDOFPROMPT = "<|endoftext|>", "<|endofprompt|>"
FIM_PREFIX, FIM_MIDDLE, FIM_SUFFIX = "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"


class PatternError(ValueError):
    """A split pattern the ``regex`` engine cannot compile."""


@dataclass(frozen=True)
class SplitProfile:
    """A released tokenizer configuration: its split pattern, its special tokens, its vocabulary's name.

    ``vocabulary_size`` is the number of ranked pieces of the released vocabulary (``vocabulary`` names
    its file), so a file of another size given for this profile is refused before anything is judged.
    """

    name: str
    description: str
    pattern: str
    pattern_source: str
    vocabulary: str
    vocabulary_size: int
    special_tokens: Mapping[str, int] = field(default_factory=dict)
    decode_policy: str = "replace"

    def __post_init__(self) -> None:
        compile_pattern(self.pattern, self.name)


@cache
def _compiled(pattern: str) -> regex.Pattern[str]:
    return regex.compile(pattern)


def compile_pattern(pattern: str, name: str = "pattern") -> regex.Pattern[str]:
    """``pattern`` compiled by the ``regex`` package, or a :class:`PatternError` saying why not.

    >>> compile_pattern(r"\\p{L}++", "x").pattern
    '\\\\p{L}++'
    >>> compile_pattern(r"\\p{Nope}", "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_conformance.reference.pretokenization.PatternError: x: ... cannot compile ...: unknown property at position 8
    """
    try:
        return _compiled(pattern)
    except regex.error as error:
        raise PatternError(f"{name}: the regex package cannot compile the split pattern {pattern!r}: {error}") from None


# tiktoken_ext/openai_public.py (tiktoken 0.14.0), r50k_pat_str: its comment gives GPT-2's original
# pattern and says this one (possessive quantifiers, grouped contractions) is equivalent and faster.
_R50K_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
# tiktoken_ext/openai_public.py (tiktoken 0.14.0), cl100k_base()'s pat_str.
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
    r"""\s+(?!\S)|\s"""
)
# tiktoken_ext/openai_public.py (tiktoken 0.14.0), o200k_base()'s pat_str: seven alternatives joined by '|'.
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_SOURCE = "tiktoken 0.14.0, tiktoken_ext/openai_public.py"

GPT2 = SplitProfile(
    name="gpt2",
    description="GPT-2 / r50k_base: letters, digits and other runs each with one optional leading space, "
    "lower-case contractions, trailing whitespace kept apart from the next word.",
    pattern=_R50K_PATTERN,
    pattern_source=f"{_SOURCE}: r50k_pat_str (used by gpt2 and r50k_base)",
    vocabulary="r50k_base.tiktoken (or GPT-2's encoder.json + vocab.bpe)",
    vocabulary_size=50256,
    special_tokens={ENDOFTEXT: 50256},
)
CL100K = SplitProfile(
    name="cl100k",
    description="cl100k_base: contractions in any case, a letter run with one optional non-letter before it, "
    "digits in groups of at most three, line ends kept with the punctuation or whitespace before them.",
    pattern=_CL100K_PATTERN,
    pattern_source=f"{_SOURCE}: cl100k_base()",
    vocabulary="cl100k_base.tiktoken",
    vocabulary_size=100256,
    special_tokens={ENDOFTEXT: 100257, FIM_PREFIX: 100258, FIM_MIDDLE: 100259, FIM_SUFFIX: 100260, ENDOFPROMPT: 100276},
)
O200K = SplitProfile(
    name="o200k",
    description="o200k_base: words split at case changes (upper-case run, then lower-case), marks kept with "
    "letters, contractions attached to their word, digits in groups of at most three.",
    pattern=_O200K_PATTERN,
    pattern_source=f"{_SOURCE}: o200k_base()",
    vocabulary="o200k_base.tiktoken",
    vocabulary_size=199998,
    special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
)

SPLIT_PROFILES: dict[str, SplitProfile] = {profile.name: profile for profile in (GPT2, CL100K, O200K)}

# rustbpe 0.1.0's default split pattern (Tokenizer.get_pattern() after training without pattern=):
# cl100k's alternatives without ``\s++$`` and with ``\s+`` for the final ``\s``, and without three of the
# possessive quantifiers. It is a trainer's pattern, shipped with no vocabulary.
_RUSTBPE_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
)
RUSTBPE_DEFAULT = SplitProfile(
    name="rustbpe",
    description="rustbpe's default (its documentation calls it GPT-4's): cl100k without the alternative "
    "\\s++$, so trailing whitespace after a line break is split from it ('\\n', ' ' where cl100k keeps '\\n ').",
    pattern=_RUSTBPE_PATTERN,
    pattern_source="rustbpe 0.1.0 (PyPI wheel), the default pattern of Tokenizer.train_from_iterator",
    vocabulary="none (a trainer's pattern)",
    vocabulary_size=0,
)
# The patterns a pre-tokenizing trainer may be judged behind (the profile parameter ``split``): the
# production profiles' and the trainers' own defaults.
TRAINING_SPLITS: dict[str, SplitProfile] = {**SPLIT_PROFILES, RUSTBPE_DEFAULT.name: RUSTBPE_DEFAULT}


def get_split_profile(name: object) -> SplitProfile:
    """The production profile named ``name``; an unknown name is a ValueError listing the known ones."""
    if not isinstance(name, str) or name not in SPLIT_PROFILES:
        raise ValueError(f"unknown production profile {name!r}; choose one of: {', '.join(SPLIT_PROFILES)}")
    return SPLIT_PROFILES[name]


def get_training_split(name: object) -> SplitProfile:
    """The split pattern named ``name`` (:data:`TRAINING_SPLITS`); an unknown name is a ValueError listing them."""
    if not isinstance(name, str) or name not in TRAINING_SPLITS:
        raise ValueError(f"unknown split {name!r}; choose one of: {', '.join(TRAINING_SPLITS)}")
    return TRAINING_SPLITS[name]


def _without_surrogates(text: str) -> str:
    # tiktoken re-encodes text with a lone surrogate after replacing each one by U+FFFD.
    return "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in text)


def split_text(text: str, profile: SplitProfile) -> list[str]:
    """The chunks the profile's pattern makes of ``text`` (BPE-PRETOK-SPLIT); together they are the text.

    Every released pattern matches every character somewhere, so the chunks cover the text exactly;
    a pattern that skipped a character would lose it, which is a defect of the pattern, raised here.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    text = _without_surrogates(text)
    chunks = [match.group(0) for match in compile_pattern(profile.pattern, profile.name).finditer(text)]
    if "".join(chunks) != text:
        raise ValueError(f"profile {profile.name!r}: the split pattern does not cover the text {text[:60]!r}")
    return chunks


def encode_chunk(chunk: bytes, vocabulary: Vocabulary) -> list[int]:
    """One chunk's ids: its own rank when it is a piece, else byte-pair merging by lowest piece rank.

    The merge is the literal loop: look at every adjacent pair, join the leftmost one whose joined
    bytes have the lowest rank, and start again, until no adjacent pair joins to a piece.
    """
    rank_of = vocabulary.rank_of
    if chunk in rank_of:
        return [rank_of[chunk]]
    parts = [chunk[position : position + 1] for position in range(len(chunk))]
    while True:
        best: tuple[int, int] | None = None
        for position in range(len(parts) - 1):
            rank = rank_of.get(parts[position] + parts[position + 1])
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, position)
        if best is None:
            break
        position = best[1]
        parts[position : position + 2] = [parts[position] + parts[position + 1]]
    missing = [part for part in parts if part not in rank_of]
    if missing:
        raise ValueError(f"byte {missing[0]!r} has no rank in the vocabulary {vocabulary.source}")
    return [rank_of[part] for part in parts]


def encode_chunk_fast(chunk: bytes, vocabulary: Vocabulary) -> list[int]:
    """:func:`encode_chunk` in O(n log n): the same merges, the lowest rank and then the leftmost first.

    Parts are kept by their start offset with links to their neighbours; a heap holds every adjacent
    pair that joins to a piece as ``(rank, left start)``, and an entry whose parts have changed since
    it was pushed is skipped. ``tests/reference/test_pretokenization.py`` proves it equal to the literal loop.
    """
    rank_of = vocabulary.rank_of
    if chunk in rank_of:
        return [rank_of[chunk]]
    size = len(chunk)
    end = list(range(1, size + 1))  # end[start] of the part starting at start
    following = list(range(1, size + 1))  # start of the next part (size: none)
    preceding = list(range(-1, size - 1))  # start of the previous part (-1: none)
    alive = [True] * size
    heap: list[tuple[int, int, int, int]] = []

    def push(left: int) -> None:
        right = following[left]
        if right < size:
            rank = rank_of.get(chunk[left : end[right]])
            if rank is not None:
                heapq.heappush(heap, (rank, left, right, end[right]))

    for start in range(size - 1):
        push(start)
    while heap:
        _, left, right, right_end = heapq.heappop(heap)
        if not (alive[left] and alive[right] and following[left] == right and end[right] == right_end):
            continue  # one of the two parts was merged with another since
        end[left] = right_end
        alive[right] = False
        following[left] = following[right]
        if following[left] < size:
            preceding[following[left]] = left
        push(left)
        if preceding[left] >= 0:
            push(preceding[left])
    ids = []
    start = 0
    while start < size:
        piece = chunk[start : end[start]]
        if piece not in rank_of:
            raise ValueError(f"byte {piece!r} has no rank in the vocabulary {vocabulary.source}")
        ids.append(rank_of[piece])
        start = following[start]
    return ids


def encode_production_fast(text: str, vocabulary: Vocabulary, profile: SplitProfile) -> list[int]:
    """:func:`encode_production` with :func:`encode_chunk_fast`: what the checks compute expected ids with."""
    chunks = split_text(text, profile)
    return [token_id for chunk in chunks for token_id in encode_chunk_fast(chunk.encode(), vocabulary)]


def encode_production(text: str, vocabulary: Vocabulary, profile: SplitProfile) -> list[int]:
    """The ids of ordinary ``text``: split, then each chunk merged on its own; specials are plain text."""
    return [token_id for chunk in split_text(text, profile) for token_id in encode_chunk(chunk.encode(), vocabulary)]


def decode_production(ids: list[int], vocabulary: Vocabulary) -> str:
    """The text of ``ids``: pieces and specials joined, invalid UTF-8 replaced by U+FFFD.

    An id that is neither a piece nor a special token is a ValueError naming it.
    """
    data = bytearray()
    for position, token_id in enumerate(ids):
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            raise TypeError(f"id at position {position} must be an int, not {type(token_id).__name__}")
        piece = vocabulary.piece_of(token_id)
        if piece is None:
            raise ValueError(f"unknown id {token_id} at position {position}")
        data.extend(piece)
    return bytes(data).decode("utf-8", errors="replace")
