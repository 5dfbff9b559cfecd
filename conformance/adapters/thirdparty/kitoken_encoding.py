"""``kitoken.Kitoken`` behind the plug-in contract (profile ``tiktoken``; encode-only).

kitoken (PyPI, Rust) converts tokenizer definitions of several formats into its own. It cannot
train, so the adapter has ``load``, ``encode`` and ``decode`` only. ``load(rules)`` writes our rules as
a tiktoken rank file (base64 piece and rank per line: bytes at their own value, rule ``r``'s piece at
``256 + r``) and calls ``Kitoken.from_tiktoken``. A rank file carries no split pattern and no special
tokens, so the conversion adds GPT-2's (a pattern and ``<|endoftext|>``-style specials); the adapter
replaces them with its configuration, no split and no specials, through kitoken's own
``set_config``/``set_definition``, so nothing is pre-tokenized. The ids are the ranks, which are
already ours. ``decode`` returns kitoken's bytes as text with U+FFFD for invalid UTF-8. Two rules
with the same piece cannot be ranks, so ``load`` rejects them.
"""

from __future__ import annotations

import base64
from importlib.metadata import version

from kitoken import Kitoken

from bpe_conformance.adapters.thirdparty.pieces import ranks_from_rules

__all__ = ["KitokenAdapter"]


class KitokenAdapter:
    """Encode and decode with a ``Kitoken`` converted from a tiktoken rank file of our rules."""

    name = "kitoken"
    version = version("kitoken")
    profile = "tiktoken"
    capabilities = frozenset({"load", "encode", "decode"})

    def __init__(self) -> None:
        self.load([])

    def load(self, rules: list[tuple[int, int]]) -> list[tuple[int, int]]:
        ranks = ranks_from_rules(rules)
        data = "\n".join(f"{base64.b64encode(piece).decode()} {rank}" for piece, rank in ranks.items())
        kitoken = Kitoken.from_tiktoken(data.encode("ascii"))
        definition = kitoken.definition()
        definition["specials"] = []
        definition["config"]["split"] = []
        kitoken.set_definition(definition)
        self._kitoken = kitoken
        return list(rules)

    def encode(self, text: str) -> list[int]:
        return list(self._kitoken.encode(text))

    def decode(self, ids: list[int]) -> str:
        # kitoken decodes to bytes; the text is made as tiktoken makes it (U+FFFD for invalid UTF-8), the
        # profile's policy, so the adapter's own choice of conversion never decides a verdict.
        text: str = self._kitoken.decode(ids).decode("utf-8", errors="replace")
        return text
