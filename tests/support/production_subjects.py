"""Vocabulary-bound encoders for judging over the protocol (``specs/protocol.md`` 3.4), served by the Python host.

:class:`BuiltInPort` has :data:`VOCABULARY` built in and names it (``vocabulary = "small-cl100k"``), so the
host declares it in the handshake and the harness compares it with the file; :class:`BuiltInOtherPiece`
has one piece of it changed, which the comparison must find; :class:`CrashingPort` loads its vocabulary and
exits on one text, so a restart shows whether the harness sends the vocabulary again; :class:`RefusingPort`
refuses every vocabulary.
"""

from __future__ import annotations

import os

from bpe_conformance.reference.pretokenization import CL100K, encode_chunk_fast
from tests.support.broken_ports import CorrectPort
from tests.support.vocabularies import trained_vocabulary

__all__ = [
    "CRASH_TEXT",
    "VOCABULARY",
    "BuiltInDropsPartial",
    "BuiltInOtherPiece",
    "BuiltInPort",
    "CrashingPort",
    "RefusingPort",
]

VOCABULARY = trained_vocabulary(merges=120, special_tokens=dict(CL100K.special_tokens))
CRASH_TEXT = "exit now"


class BuiltInPort(CorrectPort):
    """The correct port with :data:`VOCABULARY` built in: no load_vocabulary, a ``vocabulary`` name instead."""

    name = "built-in-port"
    vocabulary = "small-cl100k"  # type: ignore[assignment]  # CorrectPort's table has this name; popped below
    load_vocabulary = None  # type: ignore[assignment]  # no method: the harness must compare, not send

    def __init__(self) -> None:
        CorrectPort.load_vocabulary(self, self._ranks(), dict(VOCABULARY.special_tokens))
        # CorrectPort keeps its table as self.vocabulary, which would hide the class's name of it.
        self.table = self.__dict__.pop("vocabulary")

    def merge(self, chunk: bytes) -> list[int]:
        return encode_chunk_fast(chunk, self.table)

    @staticmethod
    def _ranks() -> dict[bytes, int]:
        return dict(VOCABULARY.rank_of)


class BuiltInOtherPiece(BuiltInPort):
    """As :class:`BuiltInPort`, but the last piece is another one: a built-in vocabulary that is not the file's."""

    name = "built-in-other-piece"

    @staticmethod
    def _ranks() -> dict[bytes, int]:
        ranks = dict(VOCABULARY.rank_of)
        last = VOCABULARY.pieces[-1]
        del ranks[last]
        ranks[b"zz-not-in-the-file"] = VOCABULARY.size - 1
        return ranks


class BuiltInDropsPartial(BuiltInPort):
    """As :class:`BuiltInPort`, with gpt-tokenizer's decode policy: bytes that are no UTF-8 and unknown ids vanish."""

    name = "built-in-drops-partial"

    def decode(self, ids: list[int]) -> str:
        known = [token_id for token_id in ids if token_id in self.pieces]
        return b"".join(self.pieces[token_id] for token_id in known).decode("utf-8", errors="ignore")


class CrashingPort(CorrectPort):
    """The correct port, which exits with status 3 when asked to encode :data:`CRASH_TEXT`."""

    name = "crashing-port"

    def encode(self, text: str) -> list[int]:
        if text == CRASH_TEXT:
            os._exit(3)
        return super().encode(text)


class RefusingPort(CorrectPort):
    """A port that refuses every vocabulary it is given."""

    name = "refusing-port"

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:
        raise ValueError(f"this port takes at most 100 pieces, not {len(ranks)}")
