"""Ports of the cl100k encoder, each with one bug real ports of tiktoken have shipped, and a correct control.

The correct port shares the reference's merge (``encode_chunk_fast``) and owns its split; tiktoken itself
is the control that shares nothing (``tests/checks/test_production.py``).

Each is a Python implementation of the production contract: ``load_vocabulary(ranks, special_tokens)``,
``encode``, ``decode``. The split pattern is the only difference, except in :class:`SpecialsHonoured`
(which encodes special-token text as the special), :class:`SpecialsIsolated` (which encodes it as text, but
apart from the text around it) and :class:`MergesLeftmostFirst` (which merges the
leftmost pair that makes any piece instead of the lowest-ranked one).
"""

from __future__ import annotations

import regex

from bpe_conformance.reference.pretokenization import CL100K, encode_chunk_fast
from bpe_conformance.reference.vocabulary import Vocabulary

__all__ = [
    "PORTS",
    "AsciiLetters",
    "CaseSensitiveContractions",
    "CorrectPort",
    "DigitsUngrouped",
    "MergesLeftmostFirst",
    "SpecialsHonoured",
    "SpecialsIsolated",
    "WhitespaceWithoutLookahead",
]


class CorrectPort:
    """cl100k's pattern, lowest-rank merging inside each chunk: the control, which every check passes."""

    name = "correct-port"
    profile = "cl100k"
    capabilities = frozenset({"encode", "decode"})
    pattern = CL100K.pattern

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        self.ranks = dict(ranks)
        self.specials = dict(special_tokens)
        self.pieces = {rank: piece for piece, rank in ranks.items()}
        self.pieces.update({token_id: text.encode() for text, token_id in special_tokens.items()})
        self.compiled = regex.compile(self.pattern)
        by_rank = sorted(ranks.items(), key=lambda item: item[1])
        self.vocabulary = Vocabulary(tuple(piece for piece, _ in by_rank), dict(special_tokens))

    def merge(self, chunk: bytes) -> list[int]:
        # The reference's heap merge: the ports differ from it in the split (or one other named place) only,
        # and a loop that rescans every pair would take minutes on the long-runs check.
        return encode_chunk_fast(chunk, self.vocabulary)

    def encode(self, text: str) -> list[int]:
        return [token for chunk in self.compiled.findall(text) for token in self.merge(chunk.encode())]

    def decode(self, ids: list[int]) -> str:
        unknown = [token_id for token_id in ids if token_id not in self.pieces]
        if unknown:
            raise ValueError(f"unknown id {unknown[0]}")
        return b"".join(self.pieces[token_id] for token_id in ids).decode("utf-8", errors="replace")


class WhitespaceWithoutLookahead(CorrectPort):
    """``\\s+`` where cl100k has ``\\s+(?!\\S)``: the last space before a word stays with the spaces."""

    name = "whitespace-without-lookahead"
    pattern = CL100K.pattern.replace(r"\s+(?!\S)", r"\s+")


class DigitsUngrouped(CorrectPort):
    """``\\p{N}++`` where cl100k has ``\\p{N}{1,3}+``: digit runs are not cut into groups of three."""

    name = "digits-ungrouped"
    pattern = CL100K.pattern.replace(r"\p{N}{1,3}+", r"\p{N}++")


class CaseSensitiveContractions(CorrectPort):
    """``'(?:...)`` where cl100k has ``'(?i:...)``: ``'S`` and ``'LL`` are not contractions."""

    name = "case-sensitive-contractions"
    pattern = CL100K.pattern.replace("'(?i:[sdmt]|ll|ve|re)", "'(?:[sdmt]|ll|ve|re)")


class AsciiLetters(CorrectPort):
    """``[A-Za-z]`` for ``\\p{L}``, as in a regex engine without Unicode classes."""

    name = "ascii-letters"
    pattern = CL100K.pattern.replace(r"\p{L}++", "[A-Za-z]++").replace(r"\p{L}", "A-Za-z")


class SpecialsHonoured(CorrectPort):
    """Special-token text inside ordinary text becomes the special token's id."""

    name = "specials-honoured"

    def encode(self, text: str) -> list[int]:
        if not self.specials:
            return super().encode(text)
        splitter = regex.compile("(" + "|".join(regex.escape(special) for special in self.specials) + ")")
        ids: list[int] = []
        for part in splitter.split(text):
            ids.extend([self.specials[part]] if part in self.specials else super().encode(part))
        return ids


class SpecialsIsolated(CorrectPort):
    """Special-token text is cut out of ordinary text and encoded on its own, as text (kitoken 0.11.1's way)."""

    name = "specials-isolated"

    def encode(self, text: str) -> list[int]:
        if not self.specials:
            return super().encode(text)
        splitter = regex.compile("(" + "|".join(regex.escape(special) for special in self.specials) + ")")
        ids: list[int] = []
        for part in splitter.split(text):
            ids.extend(super().encode(part))
        return ids


class MergesLeftmostFirst(CorrectPort):
    """Merges the leftmost adjacent pair that makes any piece, whatever its rank."""

    name = "merges-leftmost-first"

    def merge(self, chunk: bytes) -> list[int]:
        if chunk in self.ranks:
            return [self.ranks[chunk]]
        parts = [bytes([value]) for value in chunk]
        while True:
            joinable = [i for i in range(len(parts) - 1) if parts[i] + parts[i + 1] in self.ranks]
            if not joinable:
                return [self.ranks[part] for part in parts]
            i = joinable[0]
            parts[i : i + 2] = [parts[i] + parts[i + 1]]


PORTS = (WhitespaceWithoutLookahead, DigitsUngrouped, CaseSensitiveContractions, AsciiLetters, SpecialsHonoured)
