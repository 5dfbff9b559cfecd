"""kitoken 0.11.1 (PyPI, Rust) converting a tiktoken rank file itself (production runs).

``load_vocabulary(ranks, special_tokens)`` writes the ranks of ``run --vocabulary`` as a tiktoken rank file
and hands it to ``Kitoken.from_tiktoken``, kitoken's own loader. kitoken recognises the released
vocabularies and sets their split pattern and special tokens itself (its own copies, not this project's),
so its conversion, its regex engine and its merge loop are what is judged. ``encode`` is
``encode(text, encode_specials=False)``: special-token text in ordinary text is ordinary text.
``decode`` is ``decode(ids, decode_specials=True)`` (kitoken's default leaves specials out), its bytes as
text with U+FFFD for invalid UTF-8 (tiktoken's policy):

    bpe-conformance run --impl bpe_conformance.adapters.thirdparty.kitoken_production:KitokenCl100k \\
        --vocabulary cl100k_base.tiktoken
"""

from __future__ import annotations

import base64
from importlib.metadata import version

from kitoken import Kitoken

__all__ = ["KitokenCl100k", "KitokenO200k", "rank_file"]


def rank_file(ranks: dict[bytes, int]) -> bytes:
    """``ranks`` as the text of a tiktoken rank file: base64 piece, a space, the rank, a line each."""
    lines = (f"{base64.b64encode(piece).decode('ascii')} {rank}" for piece, rank in sorted(ranks.items(), key=_rank))
    return ("\n".join(lines) + "\n").encode("ascii")


def _rank(item: tuple[bytes, int]) -> int:
    return item[1]


class _Production:
    version = version("kitoken")
    capabilities = frozenset({"encode", "decode"})
    profile = ""

    def __init__(self) -> None:
        self._kitoken: Kitoken | None = None

    def load_vocabulary(self, ranks: dict[bytes, int], special_tokens: dict[str, int]) -> None:  # noqa: ARG002 - kitoken sets the specials of the encoding it recognises
        self._kitoken = Kitoken.from_tiktoken(rank_file(ranks))

    def _loaded(self) -> Kitoken:
        if self._kitoken is None:
            raise ValueError("no vocabulary loaded")
        return self._kitoken

    def encode(self, text: str) -> list[int]:
        return list(self._loaded().encode(text, False))

    def decode(self, ids: list[int]) -> str:
        text: str = bytes(self._loaded().decode(ids, True)).decode("utf-8", errors="replace")
        return text


class KitokenCl100k(_Production):
    name = "kitoken-cl100k"
    profile = "cl100k"


class KitokenO200k(_Production):
    name = "kitoken-o200k"
    profile = "o200k"
